//! The top-level component: reads what the URL asks for (a lesson, a permalink, embed mode,
//! the compare view), starts the simulation worker through [`use_session`], lays out the page
//! and turns every control into an [`Action`]. It holds no simulation state of its own.

use std::rc::Rc;

use gloo::timers::callback::Interval;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::chart::ChartData;
use crate::client::use_session;
use crate::components::add_flow::AddFlow;
use crate::components::chart::Chart;
use crate::components::console::Console;
use crate::components::features::Features;
use crate::components::host::Host;
use crate::components::icon::{icon, Icon};
use crate::components::lesson::{EvidenceStrip, LessonPanel};
use crate::components::matrix::HostMatrix;
use crate::components::migrate::Migrate;
use crate::components::panels::{ArfsTable, HostDescription, Ledger, Metrics, Settings, TcCounters};
use crate::components::pictures::{TcBlockPicture, TxPath, XdpCost};
use crate::components::tables::{RfsTables, XpsMap};
use crate::components::trace::TracePanel;
use crate::components::transport::Transport;
use crate::components::your_host::{Built, YourHost};
use crate::controller::{Action, Event as SimEvent, Origin, SessionView};
use crate::embed::HostMessage;

/// A `?name=` parameter of the page's URL.
fn url_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search).ok()?.get(name)
}

/// The `#s=` permalink of the page's URL.
fn url_state() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    hash.strip_prefix("#s=").map(String::from)
}

/// This page's URL without query and fragment.
fn base_url() -> String {
    web_sys::window()
        .and_then(|w| {
            Some(format!(
                "{}{}",
                w.location().origin().ok()?,
                w.location().pathname().ok()?
            ))
        })
        .unwrap_or_default()
}

/// Posts `msg` to the parent window, to each allowed origin (the browser delivers it only to
/// the one the parent really has).
fn post_to_parent(allow: &[String], msg: &serde_json::Value) {
    post_json_to_parent(allow, &msg.to_string());
}

/// Posts a message given as JSON text to the parent window, as [`post_to_parent`].
fn post_json_to_parent(allow: &[String], json: &str) {
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

/// Rewrites `?lesson=` without reloading (history.replaceState), keeping the other parameters
/// (`embed`, `origin`, ...) and dropping a permalink fragment that described the old lesson.
fn set_url_lesson(id: &str) {
    let Some(w) = web_sys::window() else { return };
    let path = w.location().pathname().unwrap_or_default();
    let search = w.location().search().unwrap_or_default();
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else {
        return;
    };
    params.set("lesson", id);
    if let Ok(h) = w.history() {
        let query: String = params.to_string().into();
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("{path}?{query}")));
    }
}

/// `?mode=challenge`: lessons open in their challenge form.
fn challenge_mode() -> bool {
    url_param("mode").as_deref() == Some("challenge")
}

/// Rewrites `?mode=` without reloading (the challenge form on or off).
fn set_url_mode(challenge: bool) {
    let Some(w) = web_sys::window() else { return };
    let (path, search) = (
        w.location().pathname().unwrap_or_default(),
        w.location().search().unwrap_or_default(),
    );
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else {
        return;
    };
    if challenge {
        params.set("mode", "challenge");
    } else {
        params.delete("mode");
    }
    if let Ok(h) = w.history() {
        let query: String = params.to_string().into();
        let hash = w.location().hash().unwrap_or_default();
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("{path}?{query}{hash}")));
    }
}

/// What the page opens with: the permalink of the URL's fragment, else its `?lesson=`.
fn initial_action() -> Action {
    match url_state() {
        Some(link) => Action::Restore(link),
        None => {
            Action::OpenLesson(url_param("lesson").unwrap_or_else(|| crate::controller::DEFAULT_LESSON.to_string()))
        }
    }
}

/// The page: the sandbox, or in embed mode with `?start=click` a light placeholder until the
/// learner starts it (a page with many embeds stays light: no worker, no engine).
#[component]
pub fn App() -> Html {
    let embed = url_param("embed").as_deref() == Some("1");
    let click = url_param("start").as_deref() == Some("click");
    let started = use_state(|| !click);
    // A click-to-start embed still tells its host page it is there (not started yet).
    use_effect_with((), move |_| {
        if click {
            let allow = crate::embed::parse_allow_list(url_param("origin").as_deref());
            post_to_parent(&allow, &serde_json::json!({"type": "steerlab:ready", "started": false}));
        }
    });
    if !*started {
        let start = {
            let started = started.clone();
            Callback::from(move |_| started.set(true))
        };
        return html! {
            <main class={classes!("sandbox", embed.then_some("embed"))}>
                <button class="start" data-testid="embed-start" onclick={start}>{ "▶ Start the steerlab sandbox" }</button>
            </main>
        };
    }
    if url_param("view").as_deref() == Some("compare") {
        let lesson = url_param("lesson").unwrap_or_else(|| crate::controller::DEFAULT_LESSON.to_string());
        return html! { <crate::components::compare::Compare {lesson} /> };
    }
    html! { <Sandbox {embed} /> }
}

/// Properties of [`Sandbox`].
#[derive(Properties, PartialEq)]
pub struct SandboxProps {
    /// Embed mode: no page chrome, compact, an "open full sandbox" link.
    pub embed: bool,
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

/// The sandbox itself.
#[component]
pub fn Sandbox(props: &SandboxProps) -> Html {
    let error = use_state(|| None::<String>);
    let allow = use_memo((), |_| crate::embed::parse_allow_list(url_param("origin").as_deref()));
    let copied = use_state(|| false);
    let built = use_state(|| None::<Built>);
    let host_error = use_state(|| None::<String>);
    let on_event = {
        let (error, allow, copied, built) = (error.clone(), allow.clone(), copied.clone(), built.clone());
        let host_error = host_error.clone();
        Callback::from(move |e: SimEvent| match e {
            SimEvent::Banner(b) => error.set(b),
            SimEvent::Host(msg) => post_json_to_parent(&allow, &msg),
            SimEvent::Permalink(link) => {
                let Some(w) = web_sys::window() else { return };
                let _ = w.location().set_hash(&format!("s={link}"));
                let _ = w
                    .navigator()
                    .clipboard()
                    .write_text(&format!("{}#s={link}", base_url()));
                // "copied" for two seconds beside the share link.
                copied.set(true);
                let copied = copied.clone();
                gloo::timers::callback::Timeout::new(2000, move || copied.set(false)).forget();
            }
            SimEvent::Lesson(id) => {
                // Another lesson: the last captured host's predictions no longer apply.
                built.set(None);
                set_url_lesson(&id);
            }
            SimEvent::HostImported {
                rows,
                assumptions,
                rx_queues,
            } => {
                host_error.set(None);
                built.set(Some(Built {
                    rows: Rc::new(rows),
                    assumptions: Rc::new(assumptions),
                    rx_queues,
                }));
            }
            SimEvent::HostRefused(why) => host_error.set(Some(why)),
            SimEvent::Ready | SimEvent::RunEnded => {}
        })
    };
    let session = use_session(initial_action(), on_event);
    let dispatch = session.dispatch.clone();
    // `?mode=challenge`: the lesson's challenge form (queued after the lesson opens).
    {
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            if challenge_mode() {
                dispatch.emit(Action::Challenge(true));
            }
        });
    }
    let lesson_id = session
        .view
        .as_ref()
        .and_then(|v| v.hosts.first())
        .map(|h| h.lesson.id.clone());

    // The host page API: validated messages from allowed origins only, mapped to actions.
    {
        let (dispatch, allow) = (dispatch.clone(), allow.clone());
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
    // Tells the host page the embed is ready (once its lesson is known), and its height.
    {
        let allow = allow.clone();
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
    let embed = props.embed;
    let Some(view) = session.view else {
        if error.is_none() && crate::client::first_screen_shown() {
            return html! {};
        }
        return html! {
            <main class={classes!("sandbox", embed.then_some("embed"))}>
                if let Some(message) = &*error {
                    <p class="error" role="alert" data-testid="error-banner">{ message }</p>
                }
                <p class="notice" role="status" data-testid="loading">{ "Starting the simulation…" }</p>
            </main>
        };
    };
    html! { <Page {view} error={(*error).clone()} {dispatch} {embed} copied={*copied} built={(*built).clone()} host_error={(*host_error).clone()} /> }
}

/// Hosts with more CPUs show their queue and CPU chips on demand only.
const BIG_HOST_CPUS: usize = 32;

/// Scrolls the element with this `data-testid` into view, if it is off screen.
fn scroll_to_testid(id: Option<&str>) {
    let Some(id) = id.filter(|id| steerlab_scenario::is_testid(id)) else {
        return;
    };
    let doc = web_sys::window().and_then(|w| w.document());
    if let Some(el) = doc.and_then(|d| d.query_selector(&format!("[data-testid=\"{id}\"]")).ok().flatten()) {
        let opts = web_sys::ScrollIntoViewOptions::new();
        opts.set_block(web_sys::ScrollLogicalPosition::Nearest);
        opts.set_behavior(web_sys::ScrollBehavior::Smooth);
        el.scroll_into_view_with_scroll_into_view_options(&opts);
    }
}

/// Properties of [`Page`].
#[derive(Properties, PartialEq)]
pub struct PageProps {
    /// What the worker sent last.
    pub view: Rc<SessionView>,
    /// The error banner's text.
    pub error: Option<String>,
    /// Sends an action to the worker.
    pub dispatch: Callback<Action>,
    /// Embed mode.
    pub embed: bool,
    /// The share link was just copied.
    #[prop_or_default]
    pub copied: bool,
    /// "Your host": the last captured host's predictions.
    #[prop_or_default]
    pub built: Option<Built>,
    /// "Your host": why the last capture was refused (shown beside its Build button).
    #[prop_or_default]
    pub host_error: Option<String>,
}

/// The sandbox's layout: every panel drawn from the view, every control an [`Action`].
#[component]
pub fn Page(p: &PageProps) -> Html {
    let random_n = use_state(|| 16u32);
    let show_threads = use_state(|| false);
    let host_open = use_state(|| false);
    let (sv, dispatch, embed) = (&p.view, &p.dispatch, p.embed);
    let v = &sv.hosts[0];
    let send = |a: fn() -> Action| dispatch.reform(move |_| a());
    let command = |from: Origin| dispatch.reform(move |line: String| Action::Command { host: 0, line, from });
    let on_command = command(Origin::Console);
    let on_play = dispatch.reform(|p: bool| if p { Action::Play } else { Action::Pause });
    let on_step = send(|| Action::Step);
    let on_speed = dispatch.reform(Action::Speed);
    let on_reset = send(|| Action::Reset);
    let on_run_end = send(|| Action::RunToEnd);
    let on_back = dispatch.reform(|_: MouseEvent| Action::Back);
    let on_add = dispatch.reform(Action::AddFlow);
    let on_random = {
        let n = *random_n;
        dispatch.reform(move |_: MouseEvent| Action::Command {
            host: 0,
            line: format!("flow random {n}"),
            from: Origin::Control,
        })
    };
    let on_random_n = {
        let random_n = random_n.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            random_n.set(el.value().parse().unwrap_or(16));
        })
    };
    let on_migrate = command(Origin::Control).reform(|(tid, cpu): (u32, u16)| format!("thread migrate {tid} {cpu}"));
    let on_driver = command(Origin::Control).reform(|d: String| format!("nic driver {d}"));
    let on_trace = dispatch.reform(Action::Trace);
    // A flow picked in the matrix: traced, and the trace panel brought into view.
    let on_trace_here = dispatch.reform(|f: u32| {
        scroll_to_testid(Some("flow-trace"));
        Action::Trace(f)
    });
    let on_rfs_queue = dispatch.reform(Action::RfsQueue);
    let on_filters = dispatch.reform(Action::FilterWindow);
    let on_next = send(|| Action::NextStep);
    // "Next step" brings its target into view (the outline alone may be a screen away).
    {
        let target = v.lesson.highlight.clone();
        let step = v.lesson.step;
        let first = use_mut_ref(|| true);
        use_effect_with(step, move |_| {
            if !std::mem::replace(&mut *first.borrow_mut(), false) {
                scroll_to_testid(target.as_deref());
            }
        });
    }
    let on_seek = dispatch.reform(|e: Event| {
        let el: web_sys::HtmlInputElement = e.target_unchecked_into();
        // A range input's value is always a number in its range.
        Action::Seek(el.value().parse().unwrap_or(0))
    });
    // Another lesson keeps the form the URL asks for.
    let on_lesson = {
        let dispatch = dispatch.clone();
        Callback::from(move |id: String| {
            dispatch.emit(Action::OpenLesson(id));
            if challenge_mode() {
                dispatch.emit(Action::Challenge(true));
            }
        })
    };
    let on_predict = dispatch.reform(Action::Predict);
    let on_hint = dispatch.reform(|_: ()| Action::Hint);
    let on_challenge = dispatch.reform(|on: bool| {
        set_url_mode(on);
        Action::Challenge(on)
    });
    // Several commands from one switch (RPS on every queue): each is echoed; the first refusal
    // stops the rest and shows in the banner.
    let on_commands = dispatch.reform(|lines: Vec<String>| Action::Commands { host: 0, lines });
    let on_upload = dispatch.reform(|text: String| Action::Load {
        text,
        from: Origin::Control,
    });
    let on_build = dispatch
        .reform(|(capture, flows, sets): (String, String, Vec<String>)| Action::ImportHost { capture, flows, sets });
    // A prediction's row marks its cell on the host picture, brought into view.
    let host_picture = if v.wire.is_some() { "wire" } else { "host-matrix" };
    let on_mark = dispatch.reform(move |cell: Option<(u16, u16)>| {
        scroll_to_testid(Some(host_picture));
        Action::MatrixCell(cell)
    });
    // "Your host" is a line under the console until asked for (the lesson pages stay as
    // short as they were), then a panel of its own at the top of the lower half.
    let your_host_open = *host_open || p.built.is_some();
    let to_your_host = {
        let host_open = host_open.clone();
        Callback::from(move |_: MouseEvent| host_open.set(true))
    };
    {
        let asked = *host_open;
        use_effect_with(asked, move |asked| {
            if *asked {
                scroll_to_testid(Some("your-host"));
            }
        });
    }
    let on_share = dispatch.reform(|e: MouseEvent| {
        e.prevent_default();
        Action::Share
    });

    let rxq = ChartData::rx_queues(&v.queues);
    let cpu = ChartData::Bars {
        title: "softirq load per CPU (‰ of the last 100 ms)",
        x: "CPU",
        y: "softirq ‰",
        values: v.cpus.iter().map(|c| u64::from(c.softirq_permille)).collect(),
        warn: v.cpus.iter().map(|c| c.softirq_permille > 800).collect(),
    };
    let ncpus = v.cpus.len() as u16;
    let share = format!("{}#s={}", base_url(), v.permalink);
    // The timeline ends at the scenario's length, or where time has played on to.
    let duration_ms = v.duration_ms.max(v.now_ns / 1_000_000);
    // Guided steps point at a control or chart: a style rule rendered with the page outlines
    // it, so the outline holds through re-renders and appears with a target that comes later
    // (the tc panel once the block exists). Scenarios are validated so; the check stays here
    // because only such names may go into a style rule.
    let outline = v
        .lesson
        .highlight
        .as_deref()
        .filter(|id| steerlab_scenario::is_testid(id));
    // The charts and figure panels, by data-testid: the lesson's own sits beside the host on
    // the first screen, the others further down.
    let mut panels: Vec<(&str, Html)> = vec![
        (
            "chart-arfs",
            html! { <Chart testid="chart-arfs" label="aRFS add, update, skip and expire per second, log scale" data={ChartData::Lines { title: "aRFS driver calls per second (log scale)", y: "per second", series: v.arfs_series.clone(), log: true, marks: v.marks.clone() }} /> },
        ),
        (
            "chart-locality",
            html! { <Chart testid="chart-locality" label="local and remote packets per second" data={ChartData::Lines { title: "packets per second: on the reader's CPU or not", y: "packets/s", series: v.locality_series.clone(), log: false, marks: v.marks.clone() }} /> },
        ),
        (
            "chart-rxq",
            html! { <Chart testid="chart-rxq" label="bar chart of packets per RX queue" data={rxq} /> },
        ),
        (
            "chart-cpu",
            html! { <Chart testid="chart-cpu" label="bar chart of softirq load per CPU" data={cpu} /> },
        ),
        (
            "chart-cost",
            html! { <Chart testid="chart-cost" label="CPU time per packet, softirq, sys and user, in ns" data={ChartData::Lines { title: "CPU time per packet (ns): softirq, sys, user", y: "ns per packet", series: v.cost_series.clone(), log: false, marks: v.marks.clone() }} /> },
        ),
        (
            "tc-block",
            html! { <div><h2>{ "tc ingress block" }</h2><TcBlockPicture view={v.tc.clone()} /><TcCounters figures={v.figures.clone()} /></div> },
        ),
        ("xdp-cost", html! { <XdpCost view={v.xdp.clone()} /> }),
        ("tx-path", html! { <TxPath view={v.tx.clone()} /> }),
    ];
    // The tc block has a panel of its own where the lesson is about it; elsewhere its
    // counters sit under the cost ledger, one line while the host has no ingress filter (a
    // panel of their own made the page a row taller). The XDP bar and the transmit path are
    // drawn where there is an XDP program or a sender.
    let tc_key = v.lesson.chart == "tc-block";
    let no_tc = v.figures.get("tc.filtercnt") == "0";
    panels.push(("cost-ledger", html! {
        <div>
            <h2>{ "Where the time goes" }</h2>
            <Ledger figures={v.figures.clone()} />
            if !tc_key && no_tc {
                <p class="muted" data-testid="tc-counters">{ "tc: no ingress filters (tc qdisc add dev eth0 ingress, then tc filter add …)" }</p>
            } else if !tc_key {
                <TcCounters figures={v.figures.clone()} />
            }
        </div>
    }));
    let key = panels.iter().position(|(id, _)| *id == v.lesson.chart).unwrap_or(1);
    let shown = |i: usize, id: &str| {
        i != key
            && match id {
                "tc-block" => tc_key,
                "xdp-cost" => v.xdp.is_some(),
                "tx-path" => v.tx.is_some(),
                _ => true,
            }
    };
    let focus_console = Callback::from(|_: MouseEvent| {
        let input = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector("[data-testid=console-input]").ok().flatten());
        if let Some(el) = input.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = el.focus();
        }
    });
    html! {
        <main class={classes!("sandbox", embed.then_some("embed"))}>
            <button class="skip" data-testid="skip-to-console" onclick={focus_console}>{ "Skip to the console" }</button>
            if let Some(id) = outline {
                <style data-testid="step-highlight" data-target={id.to_string()}>
                    { format!("[data-testid=\"{id}\"] {{ outline: 3px dashed var(--c1) !important; outline-offset: 3px; }}") }
                </style>
            }
            <header class="topbar">
                if embed {
                    <a class="open-full" data-testid="open-full" href={share.clone()} target="_blank" rel="noopener">{ "Open full sandbox ↗" }</a>
                } else {
                    <h1>{ "steerlab" }</h1>
                }
                <Transport playing={sv.playing} speed={sv.speed} sim_time={v.sim_time.clone()} progress={v.progress_permille}
                    {on_play} {on_step} {on_speed} {on_reset} on_run_end={Some(on_run_end)} eta={sv.eta.clone().map(AttrValue::from)}
                    behind={sv.behind.clone().map(AttrValue::from)} />
                <span class="timeline">
                    <button data-testid="step-back" onclick={on_back} title="a second back in time, paused">{ icon(Icon::Back) }{ "Back 1 s" }</button>
                    <span class="track">
                        <input type="range" data-testid="timeline" min={v.earliest_ms.to_string()} max={duration_ms.to_string()} step="100"
                            value={(v.now_ns / 1_000_000).to_string()} onchange={on_seek}
                            aria-label={format!("simulated time: drag to go back or forward; the scenario's suggested length is {} s", v.duration_ms / 1000)} />
                        // The suggested length is a mark on the timeline, not a wall.
                        <span class="length-mark" data-testid="length-mark" aria-hidden="true"
                            style={format!("left: {:.1}%", 100.0 * (v.duration_ms.saturating_sub(v.earliest_ms)) as f64 / (duration_ms.saturating_sub(v.earliest_ms)).max(1) as f64)}></span>
                    </span>
                    if sv.run_ended {
                        <span class="run-ended" data-testid="run-ended" role="status">
                            { format!("past the suggested {} s: time runs on", v.duration_ms / 1000) }
                        </span>
                    }
                </span>
                <a data-testid="share-link" class="share" href={share} onclick={on_share} title="a link to this exact state (copied to the clipboard)">{ icon(Icon::Link) }{ "Share" }</a>
                if p.copied {
                    <span class="copied" data-testid="share-copied" role="status">{ "copied" }</span>
                }
                if p.built.is_some() {
                    // A captured host's link carries what the capture said of it.
                    <span class="share-warning" data-testid="share-warning">{ "the link carries your host's addresses and rules" }</span>
                }
            </header>
            if let Some(message) = &p.error {
                <p class="error" role="alert" data-testid="error-banner">{ message }</p>
            }
            if let Some(p) = v.restoring {
                <p class="notice" data-testid="restore-progress" role="status">
                    { "Restoring the shared state (replaying its commands at their times): " }
                    <progress max="1000" value={p.to_string()} aria-label="restore progress"></progress>
                    { format!(" {}%", p / 10) }
                </p>
            }
            <div class="lesson-col">
                <LessonPanel lesson={v.lesson.clone()} on_select={on_lesson.clone()} {on_next} on_run={on_command.clone()}
                    {on_predict} {on_hint} on_open={on_lesson} {on_challenge} />
                <Console view={v.console.clone()} on_command={on_command.clone()} />
                if !embed && !your_host_open {
                    <p class="your-host-teaser">
                        <button data-testid="open-your-host" onclick={to_your_host}>{ "Your host…" }</button>
                        { " Which queue and CPU will a connection hit on your machine? Paste its capture." }
                    </p>
                }
            </div>
            <div class="stage">
                <EvidenceStrip figures={v.lesson.evidence.clone()} />
                <section class="panel" aria-label="host">
                    <div class="panel-head">
                        <h2>{ "Host: RX queues and CPUs" }</h2>
                        <Settings driver={v.driver.clone()} {on_driver} />
                    </div>
                    <Metrics local={v.local} remote={v.remote} arfs_update={v.arfs_update} flow_count={v.flow_count} />
                    <HostDescription text={AttrValue::from(v.host_text.clone())} />
                    if let Some(wire) = &v.wire {
                        <crate::components::wire::Wire view={wire.clone()} on_select={on_trace.clone()} traced={v.traced} />
                    }
                    if let Some(m) = &v.matrix {
                        <HostMatrix view={m.clone()} cpus={v.cpus.clone()} on_select={dispatch.reform(Action::MatrixCell)} on_trace={on_trace_here.clone()}
                            mark={v.lesson.steps.get(v.lesson.step).and_then(|s| s.cell)} />
                    }
                </section>
                <section class="panel key" aria-label="the lesson's chart">{ panels[key].1.clone() }</section>
            </div>
            <div class="more">
            if your_host_open {
                <YourHost built={p.built.clone()} error={p.host_error.clone()} {on_build} {on_mark} />
            }
            <section class="panel threads-panel" aria-label="threads on CPUs">
                <h2>{ "Threads on CPUs" }</h2>
                // A big host's queue and CPU chips (288 at seed 000's) cost most of a frame to
                // draw: shown on demand there (the matrix above says where packets go).
                if v.cpus.len() <= BIG_HOST_CPUS || *show_threads {
                    <Host queues={v.queues.clone()} cpus={v.cpus.clone()} on_migrate={on_migrate.clone()} />
                } else {
                    <button data-testid="show-threads" onclick={{ let s = show_threads.clone(); move |_: MouseEvent| s.set(true) }}>
                        { format!("Show the {} queues and {} CPUs with their threads (drag to migrate)", v.queues.len(), ncpus) }
                    </button>
                }
                <Migrate threads={v.threads.clone()} cpus={ncpus} {on_migrate} on_command={on_command.clone()} />
            </section>
            { for panels.iter().enumerate().filter(|(i, (id, _))| shown(*i, id)).map(|(_, (_, h))| html! { <section class="panel">{ h.clone() }</section> }) }
            <section class="panel">
                <h2>{ "Add flows" }</h2>
                <AddFlow on_submit={on_add} />
                <label>{ "Random flows " }
                    <select data-testid="random-flow-count" onchange={on_random_n} aria-label="how many random flows">
                        { for [16u32, 256, 1000].iter().map(|&n| html! { <option value={n.to_string()} selected={n == *random_n}>{ n }</option> }) }
                    </select>
                </label>
                <button data-testid="add-random-flows" onclick={on_random}>{ format!("Add {} random flows", *random_n) }</button>
            </section>
            <section class="panel">
                <h2>{ "Features and scenario" }</h2>
                <Features ntuple={v.ntuple} answered={format!("{} {}", v.console.lines.len(), v.console.lines.last().map_or("", |l| l.command.as_str()))} sock_entries={v.sock_entries} rx_queues={v.queues.len() as u16} cpus={ncpus}
                    {on_commands} scenario_json={AttrValue::Rc(v.scenario_json.clone())} {on_upload} />
            </section>
            <section class="panel">
                <h2>{ "Trace a flow" }</h2>
                <TracePanel flows={v.flow_labels.clone()} selected={v.traced} trace={v.trace.clone()} rss_key={v.rss_key.clone()} on_select={on_trace} />
            </section>
            <section class="panel">
                <h2>{ "aRFS filters" }</h2>
                <ArfsTable rows={Rc::new(v.filters.clone())} first={v.filters_first} total={v.filters_total} on_scroll={on_filters} />
            </section>
            <section class="panel">
                <h2>{ "RFS tables" }</h2>
                <RfsTables rfs={v.rfs.clone()} queues={v.queues.len() as u16} on_queue={on_rfs_queue} />
            </section>
            <section class="panel">
                <h2>{ "XPS map" }</h2>
                <div class="table-wrap" tabindex="0" role="region" aria-label="XPS map"><XpsMap rows={v.xps.clone()} /></div>
            </section>
            </div>
            <footer class="footer">{ "trace digest " }<code data-testid="digest">{ &v.digest }</code></footer>
        </main>
    }
}
