//! The page's side of the worker: [`use_session`] starts the simulation worker, sends it
//! [`Action`]s and hands its views and events to the components. The page never runs the
//! engine; it renders what the worker sends, one view per display frame (it asks for the next
//! view after the browser has drawn the last, from `requestAnimationFrame`).

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::protocol::Kept;
use crate::protocol::{decode, encode, Action, Event, SessionView, ToPage};

/// The first screen's worker, adopted by the page (web/boot.js `adopt`).
struct Adopted {
    /// It has said Ready.
    ready: bool,
    /// Its session holds the lesson the page opens already (with the commands typed early).
    opened: bool,
    /// The first screen's messages it has not had yet (it was not ready).
    queued: Vec<JsValue>,
}

/// The simulation worker for a session that opens with `open`: the one web/boot.js started
/// for the first screen (once), else a new one. Either way a module worker that instantiates
/// the module the page compiled (boot.js: one download, one compile for every thread); its
/// `main` then runs the worker's loop (`src/main.rs`).
fn take_worker(open: &Action) -> Result<(web_sys::Worker, Option<Adopted>), String> {
    let boot = js_sys::Reflect::get(&js_sys::global(), &"steerlabBoot".into())
        .ok()
        .filter(|b| b.is_object())
        .ok_or("the page has no steerlabBoot (web/boot.js is inlined by index.html)")?;
    let call = |name: &str, arg: &JsValue| -> Result<JsValue, String> {
        let f: js_sys::Function = js_sys::Reflect::get(&boot, &name.into())
            .ok()
            .and_then(|f| f.dyn_into().ok())
            .ok_or(format!("steerlabBoot has no {name}"))?;
        f.call1(&boot, arg).map_err(|e| format!("steerlabBoot.{name}: {e:?}"))
    };
    let field = |o: &JsValue, name: &str| js_sys::Reflect::get(o, &name.into()).unwrap_or(JsValue::UNDEFINED);
    let lesson = match open {
        Action::OpenLesson(id) => JsValue::from_str(id),
        _ => JsValue::NULL,
    };
    let early = call("adopt", &lesson)?;
    if early.is_object() {
        let worker = field(&early, "worker").dyn_into().map_err(|_| "adopt gave no worker")?;
        let queued = js_sys::Array::from(&field(&early, "queued")).iter().collect();
        let adopted = Adopted {
            ready: field(&early, "ready").is_truthy(),
            opened: field(&early, "opened").is_truthy(),
            queued,
        };
        return Ok((worker, Some(adopted)));
    }
    let worker = call("spawn", &JsValue::UNDEFINED)?
        .dyn_into()
        .map_err(|_| "spawn gave no worker")?;
    Ok((worker, None))
}

/// web/boot.js's first screen is showing (the page draws nothing of its own until its first
/// view: the lesson stays where the learner reads it).
pub fn first_screen_shown() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("first-screen"))
        .is_some_and(|f| f.child_element_count() > 0)
}

/// The first screen (web/boot.js) gives way to the page, which draws in the same frame; a
/// line the learner was typing moves to the page's console.
fn first_screen_done() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(first) = doc.get_element_by_id("first-screen") else {
        return;
    };
    let typing = first
        .query_selector("input")
        .ok()
        .flatten()
        .and_then(|i| i.dyn_into::<web_sys::HtmlInputElement>().ok())
        .map(|i| (i.value(), doc.active_element().is_some_and(|a| a == i.clone().into())))
        .filter(|(v, _)| !v.is_empty());
    first.remove();
    if let Some((value, focused)) = typing {
        let carry = Closure::once_into_js(move || {
            let input = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.query_selector("[data-testid=console-input]").ok().flatten())
                .and_then(|i| i.dyn_into::<web_sys::HtmlInputElement>().ok());
            if let Some(i) = input {
                i.set_value(&value);
                if focused {
                    let _ = i.focus();
                }
            }
        });
        set_timeout(&carry, 0.0);
    }
}

/// The page's end of the worker.
struct Link {
    worker: Option<web_sys::Worker>,
    /// The worker has said it is ready: messages sent before that would be lost.
    ready: bool,
    /// Messages waiting for Ready: encoded actions (and an adopted worker's first-screen
    /// messages, web/boot.js's JSON strings).
    queue: Vec<JsValue>,
    /// Each host's rare parts as last received (`controller/frame.rs`).
    kept: Vec<Kept>,
}

impl Link {
    /// A frame as the page draws it: each host with its rare parts, new or kept.
    fn view(&mut self, mut frame: SessionView) -> SessionView {
        self.kept.resize_with(frame.hosts.len(), Kept::default);
        let rare = std::mem::take(&mut frame.rare);
        for ((host, parts), kept) in frame.hosts.iter_mut().zip(rare).zip(&mut self.kept) {
            kept.fill(host, parts);
        }
        frame
    }

    fn send(&mut self, action: &Action) {
        let msg = message(action);
        match (&self.worker, self.ready) {
            (Some(w), true) => {
                let _ = w.post_message(&msg);
            }
            _ => self.queue.push(msg),
        }
    }

    fn ready(&mut self) {
        self.ready = true;
        if let Some(w) = &self.worker {
            for msg in self.queue.drain(..) {
                let _ = w.post_message(&msg);
            }
        }
    }
}

fn message(action: &Action) -> JsValue {
    js_sys::Uint8Array::from(&encode(action)[..]).into()
}

/// The page's clock, real ms.
fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Asks for the next view once the browser has drawn this one (`received` ms: when it came).
/// A view that took long to draw is followed by twice that time without views, so that
/// drawing takes at most a third of the page's time and input and animation get in between;
/// a small host's views come every frame. The time counts the browser's own work too (style,
/// layout, paint: a task queued from the frame's animation callback runs after its paint),
/// which at 144 CPUs is more than the page's code.
fn after_paint(link: &Rc<RefCell<Link>>, received: f64) {
    let link = link.clone();
    let ask = Closure::once_into_js(move || {
        let painted = Closure::once_into_js(move || {
            let render = now_ms() - received;
            let wait = (2.0 * render - 16.0).max(0.0);
            let send = Closure::once_into_js(move || link.borrow_mut().send(&Action::ViewShown));
            set_timeout(&send, wait);
        });
        set_timeout(&painted, 0.0);
    });
    if let Some(w) = web_sys::window() {
        let _ = w.request_animation_frame(ask.unchecked_ref());
    }
}

/// Runs `f` (a JS function) after `ms`.
fn set_timeout(f: &JsValue, ms: f64) {
    if let Some(w) = web_sys::window() {
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(f.unchecked_ref(), ms as i32);
    }
}

/// What [`use_session`] gives a component.
#[derive(Clone)]
pub struct SessionHandle {
    /// The latest view (`None` until the worker sends its first).
    pub view: Option<Rc<SessionView>>,
    /// Sends an action to the worker.
    pub dispatch: Callback<Action>,
}

/// Starts a simulation worker for this component, opens it with `open`, and keeps the latest
/// view; other events go to `on_event`. The worker stops when the component goes.
#[hook]
pub fn use_session(open: Action, on_event: Callback<Event>) -> SessionHandle {
    let view = use_state(|| None::<Rc<SessionView>>);
    let link = use_mut_ref(|| Link {
        worker: None,
        ready: false,
        queue: vec![message(&open)],
        kept: Vec::new(),
    });
    {
        let (view, link, open_for_effect) = (view.clone(), link.clone(), open.clone());
        use_effect_with((), move |_| {
            let worker = match take_worker(&open_for_effect) {
                Ok((w, adopted)) => {
                    if let Some(a) = adopted {
                        let mut l = link.borrow_mut();
                        // The first screen's messages first; the page's open only if the
                        // worker holds another lesson; then a view for the page.
                        let mut queue = a.queued;
                        if !a.opened {
                            queue.append(&mut l.queue);
                        } else {
                            queue.extend(l.queue.drain(..).skip(1));
                        }
                        queue.push(message(&Action::SendAll));
                        queue.push(message(&Action::ViewShown));
                        l.queue = queue;
                        l.worker = Some(w.clone());
                        if a.ready {
                            l.ready();
                        }
                    }
                    w
                }
                Err(e) => {
                    on_event.emit(Event::Banner(Some(format!(
                        "the simulation could not start its worker: {e}"
                    ))));
                    return Box::new(|| ()) as Box<dyn FnOnce()>;
                }
            };
            let (l, failed) = (link.clone(), on_event.clone());
            let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                if e.data().is_string() {
                    return; // an answer to the first screen's console: its line is in the view
                }
                match decode::<ToPage>(&js_sys::Uint8Array::new(&e.data()).to_vec()) {
                    Ok(ToPage::View(v)) => {
                        let received = now_ms();
                        first_screen_done();
                        let v = l.borrow_mut().view(*v);
                        view.set(Some(Rc::new(v)));
                        after_paint(&l, received);
                    }
                    Ok(ToPage::Event(Event::Ready)) => l.borrow_mut().ready(),
                    Ok(ToPage::Event(ev)) => on_event.emit(ev),
                    Err(why) => on_event.emit(Event::Banner(Some(why))),
                }
            });
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
                let why = e
                    .dyn_ref::<web_sys::ErrorEvent>()
                    .map_or_else(|| "it failed to load".to_string(), |e| e.message());
                failed.emit(Event::Banner(Some(format!("the simulation worker stopped: {why}"))));
            });
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            link.borrow_mut().worker = Some(worker.clone());
            Box::new(move || {
                worker.set_onmessage(None);
                worker.set_onerror(None);
                worker.terminate();
                drop((on_message, on_error));
            }) as Box<dyn FnOnce()>
        });
    }
    let dispatch = {
        let link = link.clone();
        Callback::from(move |a: Action| link.borrow_mut().send(&a))
    };
    SessionHandle {
        view: (*view).clone(),
        dispatch,
    }
}
