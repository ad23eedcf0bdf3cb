//! The worker's side (runs in a dedicated Web Worker: the page's own module, whose `main`
//! calls [`run`] when there is no window): it owns the [`Session`] and runs the engine at full
//! speed in pumps of [`PUMP_MS`], each followed by a turn of the event loop so that the page's
//! messages (pause, a command) get in between.
//! A pump is woken through a `MessageChannel` (an immediate task, without `setTimeout`'s
//! 4 ms clamp), or by a timer when a paced speed has nothing due yet.
//!
//! No SharedArrayBuffer, no COOP/COEP: messages are copied bytes (`controller::encode`), so an
//! embed works on any static host, and every embed on a page has its own worker.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent, MessagePort};

use crate::controller::{decode, encode, Action, Event, Next, Session, ToPage};

/// Wall time one pump may run the engine before it lets messages in, ms.
const PUMP_MS: f64 = 10.0;

struct Worker {
    session: Session,
    scope: DedicatedWorkerGlobalScope,
    /// Posting on it wakes the pump as the next task.
    wake: MessagePort,
    wake_pending: bool,
    /// The paced speed's timer, if one is set.
    timer: Option<i32>,
    on_timer: Option<Closure<dyn FnMut()>>,
}

impl Worker {
    fn post(&self, msg: &ToPage) {
        let _ = self.scope.post_message(&js_sys::Uint8Array::from(&encode(msg)[..]));
    }

    fn flush(&mut self) {
        for msg in self.session.take() {
            self.post(&msg);
        }
    }

    fn wake_now(&mut self) {
        if !self.wake_pending {
            self.wake_pending = true;
            let _ = self.wake.post_message(&JsValue::NULL);
        }
    }

    fn wake_after(&mut self, ms: f64) {
        if let Some(t) = self.timer.take() {
            self.scope.clear_timeout_with_handle(t);
        }
        if let Some(cb) = &self.on_timer {
            self.timer = self
                .scope
                .set_timeout_with_callback_and_timeout_and_arguments_0(cb.as_ref().unchecked_ref(), ms.ceil() as i32)
                .ok();
        }
    }

    fn pump(&mut self) {
        let scope = self.scope.clone();
        let mut clock = || scope.performance().map_or(0.0, |p| p.now());
        let next = self.session.pump(&mut clock, PUMP_MS);
        self.flush();
        match next {
            Next::Now => self.wake_now(),
            Next::After(ms) => self.wake_after(ms),
            Next::Idle => {}
        }
    }
}

/// The global the worker's start script sets to the importer module's URL (client.rs).
const IMPORTER_URL: &str = "STEERLAB_IMPORTER";

/// "Your host": loads the importer's own module (`web/importer`, built into `dist/importer/`
/// by scripts/build-importer.sh) the first time, runs it on the capture and flows, and applies
/// its answer to the session. The module is not part of what the default page downloads.
fn import_host(worker: Rc<RefCell<Worker>>, capture: String, flows: String, sets: Vec<String>) {
    wasm_bindgen_futures::spawn_local(async move {
        let answer = run_importer(&capture, &flows, &sets.join("\n")).await;
        let mut w = worker.borrow_mut();
        w.session.apply(Action::HostBuilt(answer));
        w.flush();
        w.wake_now();
    });
}

/// The importer module's answer, or why it could not run.
async fn run_importer(capture: &str, flows: &str, sets: &str) -> Result<steerlab_importer::ImportedHost, String> {
    let why = |what: &str, e: JsValue| {
        format!(
            "the importer module {what}: {}",
            e.as_string().unwrap_or_else(|| format!("{e:?}"))
        )
    };
    let url = js_sys::Reflect::get(&js_sys::global(), &IMPORTER_URL.into())
        .ok()
        .and_then(|u| u.as_string())
        .ok_or("the worker was started without the importer's URL")?;
    // A dynamic import: the module, its glue and its wasm are fetched once, then cached.
    let import = js_sys::Function::new_with_args("url", "return import(url)");
    let module = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(
        import
            .call1(&JsValue::NULL, &url.clone().into())
            .map_err(|e| why("did not load", e))?,
    ))
    .await
    .map_err(|e| why(&format!("did not load from {url}"), e))?;
    let get = |name: &str| -> Result<js_sys::Function, String> {
        js_sys::Reflect::get(&module, &name.into())
            .ok()
            .and_then(|f| f.dyn_into().ok())
            .ok_or_else(|| format!("the importer module has no {name}"))
    };
    wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(
        get("default")?
            .call0(&JsValue::NULL)
            .map_err(|e| why("did not start", e))?,
    ))
    .await
    .map_err(|e| why("did not start", e))?;
    let bytes = get("your_host")?
        .call3(&JsValue::NULL, &capture.into(), &flows.into(), &sets.into())
        .map_err(|e| why("failed", e))?;
    steerlab_importer::decode(&js_sys::Uint8Array::new(&bytes).to_vec())
}

/// Starts the worker: takes [`Action`]s from the page, answers with views and events.
pub fn run() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let Ok(channel) = MessageChannel::new() else { return };
    let worker = Rc::new(RefCell::new(Worker {
        session: Session::default(),
        scope: scope.clone(),
        wake: channel.port1(),
        wake_pending: false,
        timer: None,
        on_timer: None,
    }));
    let w = worker.clone();
    let on_timer = Closure::<dyn FnMut()>::new(move || {
        let mut w = w.borrow_mut();
        w.timer = None;
        w.pump();
    });
    worker.borrow_mut().on_timer = Some(on_timer);
    let w = worker.clone();
    let on_wake = Closure::<dyn FnMut()>::new(move || {
        let mut w = w.borrow_mut();
        w.wake_pending = false;
        w.pump();
    });
    channel.port2().set_onmessage(Some(on_wake.as_ref().unchecked_ref()));
    on_wake.forget(); // lives as long as the worker
    let (w, worker_ref) = (worker.clone(), worker.clone());
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let mut w = w.borrow_mut();
        match decode::<Action>(&js_sys::Uint8Array::new(&e.data()).to_vec()) {
            Ok(Action::ImportHost { capture, flows, sets }) => import_host(worker_ref.clone(), capture, flows, sets),
            Ok(action) => w.session.apply(action),
            Err(why) => w.post(&ToPage::Event(Event::Banner(Some(why)))),
        }
        w.flush();
        w.wake_now();
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    worker.borrow().post(&ToPage::Event(Event::Ready));
}
