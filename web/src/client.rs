//! The page's side of the worker: [`use_session`] starts the simulation worker, sends it
//! [`Action`]s and hands its views and events to the components. The page never runs the
//! engine; it renders what the worker sends, one view per display frame (it asks for the next
//! view after the browser has drawn the last, from `requestAnimationFrame`).

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::controller::{decode, encode, Action, Event, SessionView, ToPage};

/// Starts the simulation worker from the page's own module: a module worker whose script
/// imports the page's wasm-bindgen glue and instantiates the same wasm, whose `main` then runs
/// the worker's loop (`src/main.rs`). The module's URLs are the ones the page loaded, as
/// Trunk names them in its preload links; the browser's cache serves them again.
fn spawn_worker() -> Result<web_sys::Worker, String> {
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let link = |selector: &str| -> Result<String, String> {
        let el = document
            .query_selector(selector)
            .ok()
            .flatten()
            .ok_or(format!("the page has no {selector}"))?;
        let href = el.get_attribute("href").unwrap_or_default();
        let base = document.url().map_err(|_| "no page URL")?;
        Ok(web_sys::Url::new_with_base(&href, &base)
            .map_err(|_| format!("bad URL {href:?}"))?
            .href())
    };
    let glue = link("link[rel=modulepreload]")?;
    let wasm = link("link[rel=preload][type='application/wasm']")?;
    // "Your host"'s importer is a module of its own, beside the page (worker.rs loads it).
    let base = document.url().map_err(|_| "no page URL")?;
    let importer = web_sys::Url::new_with_base("importer/steerlab_importer.js", &base)
        .map_err(|_| "bad importer URL")?
        .href();
    // The lessons' texts, beside the page too (worker.rs fetches the ones it opens).
    let lessons = web_sys::Url::new_with_base("lessons/", &base)
        .map_err(|_| "bad lessons URL")?
        .href();
    // JSON string literals are JavaScript string literals. A module that fails to load is
    // rethrown from a task, so that the page's `onerror` hears of it.
    let script = format!(
        "self.STEERLAB_IMPORTER = {};\nself.STEERLAB_LESSONS = {};\nimport init from {};\ninit({{ module_or_path: {} }}).catch((e) => setTimeout(() => {{ throw e; }}));\n",
        serde_json::Value::from(importer),
        serde_json::Value::from(lessons),
        serde_json::Value::from(glue),
        serde_json::Value::from(wasm)
    );
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/javascript");
    let parts = js_sys::Array::of1(&JsValue::from_str(&script));
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(|e| format!("{e:?}"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|e| format!("{e:?}"))?;
    let worker_options = web_sys::WorkerOptions::new();
    worker_options.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&url, &worker_options).map_err(|e| format!("{e:?}"));
    let _ = web_sys::Url::revoke_object_url(&url);
    worker
}

/// The page's end of the worker.
struct Link {
    worker: Option<web_sys::Worker>,
    /// The worker has said it is ready: messages sent before that would be lost.
    ready: bool,
    queue: Vec<Vec<u8>>,
}

impl Link {
    fn send(&mut self, action: &Action) {
        let bytes = encode(action);
        match (&self.worker, self.ready) {
            (Some(w), true) => post(w, &bytes),
            _ => self.queue.push(bytes),
        }
    }

    fn ready(&mut self) {
        self.ready = true;
        if let Some(w) = &self.worker {
            for bytes in self.queue.drain(..) {
                post(w, &bytes);
            }
        }
    }
}

fn post(worker: &web_sys::Worker, bytes: &[u8]) {
    let _ = worker.post_message(&js_sys::Uint8Array::from(bytes));
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
        queue: vec![encode(&open)],
    });
    {
        let (view, link) = (view.clone(), link.clone());
        use_effect_with((), move |_| {
            let worker = match spawn_worker() {
                Ok(w) => w,
                Err(e) => {
                    on_event.emit(Event::Banner(Some(format!(
                        "the simulation could not start its worker: {e}"
                    ))));
                    return Box::new(|| ()) as Box<dyn FnOnce()>;
                }
            };
            let (l, failed) = (link.clone(), on_event.clone());
            let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                match decode::<ToPage>(&js_sys::Uint8Array::new(&e.data()).to_vec()) {
                    Ok(ToPage::View(v)) => {
                        let received = now_ms();
                        view.set(Some(Rc::new(*v)));
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
