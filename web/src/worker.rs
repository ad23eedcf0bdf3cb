//! The worker's side (runs in a dedicated Web Worker, in a module of its own: `worker_main.rs`
//! calls [`run`]): it owns the [`Session`] and runs the engine at full
//! speed in pumps of [`PUMP_MS`], each followed by a turn of the event loop so that the page's
//! messages (pause, a command) get in between.
//! A pump is woken through a `MessageChannel` (an immediate task, without `setTimeout`'s
//! 4 ms clamp), or by a timer when a paced speed has nothing due yet.
//!
//! No SharedArrayBuffer, no COOP/COEP: messages are copied bytes (`controller::encode`), so an
//! embed works on any static host, and every embed on a page has its own worker.
//!
//! The lessons' texts are not in the module (steerlab_scenario's `embedded-lessons` is off):
//! an action that opens a lesson waits, with every action after it, until the worker has
//! fetched `lessons/ID.json` (and the default lesson, when the lesson or link may be refused
//! and the session falls back to it).
//!
//! Before the page's module runs, web/boot.js's first screen talks to the worker in JSON
//! strings ([`FirstScreen`]): it opens the lesson with the text it fetched, and its console's
//! commands are answered in plain text. The page then adopts the worker and its session.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent, MessagePort};

use crate::controller::{decode, encode, Action, Event, Next, Origin, Session, ToPage, DEFAULT_LESSON};

/// Wall time one pump may run the engine before it lets messages in, ms. Each turn of the
/// event loop between pumps left the worker idle about 0.3 ms (a run to end of seed 000 in
/// Chromium's trace: 270 pumps of 10 ms, 87 ms idle between them, 3 % of the run); pumps of
/// 20 ms halve that, and a message (Pause, a command) still waits at most 20 ms.
const PUMP_MS: f64 = 20.0;

struct Worker {
    /// Made when the default lesson's text has come.
    session: Option<Session>,
    /// Actions not yet applied, in order (the first waits for a lesson's text), each with
    /// whether the first screen waits for its console answer.
    pending: VecDeque<(Action, bool)>,
    /// A lesson's text is being fetched (`pending` waits).
    fetching: bool,
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

    /// Sends what the session owes the page, timing a view's building and sending for the
    /// session (views at full speed are spaced by their cost: `Session::view_took`).
    fn flush(&mut self) {
        let t0 = clock_ms(&self.scope);
        let out = self.session.as_mut().map(Session::take).unwrap_or_default();
        let view = out.iter().any(|m| matches!(m, ToPage::View(_)));
        for msg in out {
            self.post(&msg);
        }
        if view {
            let took = clock_ms(&self.scope) - t0;
            if let Some(session) = self.session.as_mut() {
                session.view_took(t0, took);
            }
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
        let mut clock = || clock_ms(&scope);
        let Some(session) = self.session.as_mut() else { return };
        let next = session.pump(&mut clock, PUMP_MS);
        self.flush();
        match next {
            Next::Now => self.wake_now(),
            Next::After(ms) => self.wake_after(ms),
            Next::Idle => {}
        }
    }
}

/// The worker's clock, ms (`performance.now()`): the pumps' budget and the views' cost.
fn clock_ms(scope: &DedicatedWorkerGlobalScope) -> f64 {
    scope.performance().map_or(0.0, |p| p.now())
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
        if let Some(session) = w.session.as_mut() {
            session.apply(Action::HostBuilt(answer));
        }
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

/// The global the worker's start script sets to the lessons' directory URL (client.rs).
const LESSONS_URL: &str = "STEERLAB_LESSONS";

/// What web/boot.js's first screen sends, as JSON text: `{open, text}`, the lesson it shows
/// with the text it fetched, or `{command}`, a line typed in its console; or an array of
/// these, what it queued before the worker was ready, so that the worker applies them all
/// before its first pump (a line typed while the module downloaded is answered as soon as
/// the lesson is built, not after a pump or two of the playing lesson). Read with the browser's JSON parser (a serde type would add
/// its field matchers to the module).
struct FirstScreen;

impl FirstScreen {
    /// The actions it asks for (a lesson's text is registered first), each with whether it
    /// waits for an answer in plain text; each refused one on its own.
    fn actions(text: &str) -> Vec<Result<(Action, bool), String>> {
        let Ok(m) = js_sys::JSON::parse(text) else {
            return vec![Err("a first-screen message is not JSON".into())];
        };
        if js_sys::Array::is_array(&m) {
            js_sys::Array::from(&m).iter().map(|one| Self::action(&one)).collect()
        } else {
            vec![Self::action(&m)]
        }
    }

    fn action(m: &JsValue) -> Result<(Action, bool), String> {
        let field = |name: &str| js_sys::Reflect::get(m, &name.into()).ok().and_then(|v| v.as_string());
        match (field("open"), field("text"), field("command")) {
            (Some(id), Some(text), None) => {
                steerlab_scenario::register(&id, text)?;
                Ok((Action::OpenLesson(id), false))
            }
            (None, None, Some(line)) => Ok((
                Action::Command {
                    host: 0,
                    line,
                    from: Origin::Console,
                },
                true,
            )),
            _ => Err("a first-screen message is {open, text}, {command} or an array of them".into()),
        }
    }
}

/// The built-in lessons `action` needs whose texts the worker has not fetched yet: the one it
/// opens, and the default lesson where the session may fall back to it (a lesson that is not
/// one, a link that is refused, a session started by anything but a lesson).
fn lessons_missing(action: &Action, started: bool) -> Vec<String> {
    let known = |id: &str| steerlab_scenario::lesson_title(id).is_some();
    let needed: Vec<String> = match action {
        Action::OpenLesson(id) | Action::OpenCompare(id) if known(id) => vec![id.clone()],
        Action::OpenLesson(_) | Action::OpenCompare(_) => vec![DEFAULT_LESSON.into()],
        Action::Restore(link) => match steerlab_scenario::permalink::decode(link).map(|s| s.source) {
            Ok(steerlab_scenario::permalink::Source::Lesson(id)) => vec![id, DEFAULT_LESSON.into()],
            _ => vec![DEFAULT_LESSON.into()],
        },
        _ if !started => vec![DEFAULT_LESSON.into()],
        _ => vec![],
    };
    needed
        .into_iter()
        .filter(|id| known(id) && steerlab_scenario::lesson(id).is_none())
        .collect()
}

/// The session a worker starts with: on the lesson its first action opens (as that action
/// would open it: true), else on the default lesson, to which the action then applies.
fn first_session(action: &Action) -> (Session, bool) {
    let opened = match action {
        Action::OpenLesson(id) => Session::on_lesson(id, 1).ok(),
        Action::OpenCompare(id) => Session::on_lesson(id, 2).ok(),
        _ => None,
    };
    match opened {
        Some(s) => (s, true),
        None => (Session::default(), false),
    }
}

/// The first screen's answer to a command: the console's last line, as JSON text.
fn answer(session: &Session) -> String {
    let line = session.host(0).and_then(|c| c.last_console_line());
    let (output, error) = match line.map(|l| &l.output) {
        Some(Ok(o)) => (o.as_str(), false),
        Some(Err(e)) => (e.as_str(), true),
        None => ("", false),
    };
    serde_json::json!({ "answer": { "output": output, "error": error } }).to_string()
}

/// Applies the pending actions in order until one needs a lesson not fetched yet; fetches it
/// and carries on when it has come.
fn drain(worker: &Rc<RefCell<Worker>>) {
    let mut w = worker.borrow_mut();
    while !w.fetching {
        let Some((action, _)) = w.pending.front() else { break };
        let missing = lessons_missing(action, w.session.is_some());
        if !missing.is_empty() {
            w.fetching = true;
            fetch_lessons(worker.clone(), missing);
            break;
        }
        let Some((action, answered)) = w.pending.pop_front() else {
            break;
        };
        if w.session.is_none() {
            let (session, opened) = first_session(&action);
            w.session = Some(session);
            if opened {
                continue;
            }
        }
        let Some(session) = w.session.as_mut() else { break };
        match action {
            Action::ImportHost { capture, flows, sets } => import_host(worker.clone(), capture, flows, sets),
            action => session.apply(action),
        }
        if answered {
            let text = answer(session);
            let _ = w.scope.post_message(&JsValue::from_str(&text));
        }
    }
    w.flush();
    w.wake_now();
}

/// Fetches the lessons' texts and registers them, then drains the actions again. A lesson
/// that cannot be fetched is said in the banner and the action that wanted it is dropped;
/// without the default lesson nothing can start, and the banner says so. The fetches are
/// all asked for before the first is awaited (a link needs its lesson and the default one:
/// one round trip, not two).
fn fetch_lessons(worker: Rc<RefCell<Worker>>, ids: Vec<String>) {
    wasm_bindgen_futures::spawn_local(async move {
        let mut failed = None;
        let asked: Vec<_> = ids.iter().map(|id| (id, ask_text(&format!("{id}.json")))).collect();
        for (id, response) in asked {
            match read_text(response).await {
                Ok(text) => {
                    if let Err(e) = steerlab_scenario::register(id, text) {
                        failed = Some(e);
                    }
                }
                Err(e) => failed = Some(format!("the lesson {id:?} could not be fetched: {e}")),
            }
        }
        {
            let mut w = worker.borrow_mut();
            if let Some(why) = failed {
                w.post(&ToPage::Event(Event::Banner(Some(why))));
                if steerlab_scenario::lesson(DEFAULT_LESSON).is_none() {
                    return; // stays `fetching`: nothing can run
                }
                w.pending.pop_front();
            }
            w.fetching = false;
        }
        drain(&worker);
    });
}

/// Asks for a file of the lessons' directory (the request goes out now, and its outcome is
/// listened for at once, so that a failure is never an unhandled rejection): its URL and the
/// response to come, for [`read_text`].
fn ask_text(name: &str) -> Result<(String, wasm_bindgen_futures::JsFuture), String> {
    let base = js_sys::Reflect::get(&js_sys::global(), &LESSONS_URL.into())
        .ok()
        .and_then(|u| u.as_string())
        .ok_or("the worker was started without the lessons' URL")?;
    let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    let url = format!("{base}{name}");
    let response = wasm_bindgen_futures::JsFuture::from(scope.fetch_with_str(&url));
    Ok((url, response))
}

/// The text of a file [`ask_text`] asked for.
async fn read_text(asked: Result<(String, wasm_bindgen_futures::JsFuture), String>) -> Result<String, String> {
    let why = |e: JsValue| e.as_string().unwrap_or_else(|| format!("{e:?}"));
    let (url, response) = asked?;
    let response: web_sys::Response = response.await.map_err(why)?.unchecked_into();
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let text = wasm_bindgen_futures::JsFuture::from(response.text().map_err(why)?)
        .await
        .map_err(why)?;
    text.as_string().ok_or_else(|| format!("{url} is not text"))
}

/// Starts the worker: takes [`Action`]s from the page, answers with views and events.
pub fn run() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let Ok(channel) = MessageChannel::new() else { return };
    let worker = Rc::new(RefCell::new(Worker {
        session: None,
        pending: VecDeque::new(),
        fetching: false,
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
    let w = worker.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let actions = match e.data().as_string() {
            Some(text) => FirstScreen::actions(&text),
            None => vec![decode::<Action>(&js_sys::Uint8Array::new(&e.data()).to_vec()).map(|a| (a, false))],
        };
        for action in actions {
            match action {
                Ok(pending) => w.borrow_mut().pending.push_back(pending),
                Err(why) => w.borrow().post(&ToPage::Event(Event::Banner(Some(why)))),
            }
        }
        drain(&w);
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    worker.borrow().post(&ToPage::Event(Event::Ready));
}
