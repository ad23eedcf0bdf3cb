//! The embedding page's side (product brief § Embedding): messages from allowed origins
//! become actions, each answered with `steerlab:state`; the embed says when it is ready and
//! how tall it is. Messages go only to the origins `?origin=` allows.

use gloo::timers::callback::Interval;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

use crate::protocol::Action;

/// Posts the object of `fields` to the parent window, to each allowed origin (the browser
/// delivers it only to the one the parent really has). Built as a JS object: the page's module
/// carries no JSON serializer (the worker writes the other messages, `post_json_to_parent`).
pub(crate) fn post_to_parent(allow: &[String], fields: &[(&str, JsValue)]) {
    let data = js_sys::Object::new();
    for (name, value) in fields {
        let _ = js_sys::Reflect::set(&data, &JsValue::from_str(name), value);
    }
    post_value_to_parent(allow, &data);
}

/// Posts a message given as JSON text to the parent window, as [`post_to_parent`].
pub(crate) fn post_json_to_parent(allow: &[String], json: &str) {
    if let Ok(data) = js_sys::JSON::parse(json) {
        post_value_to_parent(allow, &data);
    }
}

fn post_value_to_parent(allow: &[String], data: &JsValue) {
    let Some(w) = web_sys::window() else { return };
    let Ok(Some(parent)) = w.parent() else { return };
    if js_sys::Object::is(&parent, &w) {
        return; // not embedded
    }
    for origin in allow {
        let _ = parent.post_message(data, origin);
    }
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
                if !crate::protocol::embed::allowed(&allow, &e.origin()) {
                    return; // not an allowed host page: ignored, never answered
                }
                // Checked in the worker (Action::FromHostPage); a value JSON cannot say is null.
                let text = js_sys::JSON::stringify(&e.data())
                    .ok()
                    .and_then(|s| s.as_string())
                    .unwrap_or_else(|| "null".into());
                dispatch.emit(Action::FromHostPage(text));
            });
            move || drop(listener)
        });
    }
    use_effect_with(lesson_id.is_some(), move |known| {
        let mut interval = None;
        if *known && !allow.is_empty() {
            post_to_parent(
                &allow,
                &[("type", "steerlab:ready".into()), ("lesson", lesson_id.into())],
            );
            let mut last_height = 0;
            interval = Some(Interval::new(250, move || {
                // The body's own height, not the document's: the document is at least as
                // tall as the iframe, so a page that sizes the iframe to it made it grow
                // for ever and never shrink.
                let h = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.body())
                    .map_or(0, |b| b.scroll_height());
                if h != last_height {
                    last_height = h;
                    post_to_parent(&allow, &[("type", "steerlab:resize".into()), ("height", h.into())]);
                }
            }));
        }
        move || drop(interval)
    });
}
