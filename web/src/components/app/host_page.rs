//! The embedding page's side (product brief § Embedding): messages from allowed origins
//! become actions, each answered with `steerlab:state`; the embed says when it is ready and
//! how tall it is. Messages go only to the origins `?origin=` allows.

use gloo::timers::callback::Interval;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::controller::{Action, Origin};
use crate::embed::HostMessage;

/// Posts `msg` to the parent window, to each allowed origin (the browser delivers it only to
/// the one the parent really has).
pub(crate) fn post_to_parent(allow: &[String], msg: &serde_json::Value) {
    post_json_to_parent(allow, &msg.to_string());
}

/// Posts a message given as JSON text to the parent window, as [`post_to_parent`].
pub(crate) fn post_json_to_parent(allow: &[String], json: &str) {
    let Some(w) = web_sys::window() else { return };
    let Ok(Some(parent)) = w.parent() else { return };
    if js_sys::Object::is(&parent, &w) {
        return; // not embedded
    }
    let Ok(data) = js_sys::JSON::parse(json) else { return };
    for origin in allow {
        let _ = parent.post_message(&data, origin);
    }
}

/// The actions an embedding page's message asks for; every message is answered with
/// `steerlab:state` after it.
fn host_actions(msg: HostMessage) -> Vec<Action> {
    let first = match msg {
        HostMessage::Command(line) => Some(Action::Command {
            host: 0,
            line,
            from: Origin::Embed,
        }),
        HostMessage::Load(text) => Some(Action::Load {
            text,
            from: Origin::Embed,
        }),
        HostMessage::GetState => None,
        HostMessage::Play => Some(Action::Play),
        HostMessage::Pause => Some(Action::Pause),
        HostMessage::Step => Some(Action::Step),
    };
    first.into_iter().chain([Action::GetState]).collect()
}

/// The host page API: validated messages from allowed origins only, mapped to actions; and,
/// once the lesson is known, `steerlab:ready` and `steerlab:resize` as the page's height
/// changes.
#[hook]
pub(crate) fn use_host_page(dispatch: Callback<Action>, allow: std::rc::Rc<Vec<String>>, lesson_id: Option<String>) {
    {
        let allow = allow.clone();
        use_effect_with((), move |_| {
            let window = web_sys::window().expect("a window");
            let listener = gloo::events::EventListener::new(&window, "message", move |e| {
                let Some(e) = e.dyn_ref::<web_sys::MessageEvent>() else {
                    return;
                };
                if !crate::embed::allowed(&allow, &e.origin()) {
                    return; // not an allowed host page: ignored, never answered
                }
                let data: serde_json::Value = js_sys::JSON::stringify(&e.data())
                    .ok()
                    .and_then(|s| s.as_string())
                    .and_then(|s| serde_json::from_str(&s).ok())
                    .unwrap_or(serde_json::Value::Null);
                match crate::embed::parse_message(&data) {
                    Err(m) => post_to_parent(&allow, &crate::embed::error_event(&m)),
                    Ok(msg) => host_actions(msg).into_iter().for_each(|a| dispatch.emit(a)),
                }
            });
            move || drop(listener)
        });
    }
    use_effect_with(lesson_id.is_some(), move |known| {
        let mut interval = None;
        if *known && !allow.is_empty() {
            post_to_parent(
                &allow,
                &serde_json::json!({"type": "steerlab:ready", "lesson": lesson_id}),
            );
            let mut last_height = 0;
            interval = Some(Interval::new(250, move || {
                let h = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.document_element())
                    .map_or(0, |e| e.scroll_height());
                if h != last_height {
                    last_height = h;
                    post_to_parent(&allow, &serde_json::json!({"type": "steerlab:resize", "height": h}));
                }
            }));
        }
        move || drop(interval)
    });
}
