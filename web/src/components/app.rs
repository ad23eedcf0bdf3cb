//! The top-level component: owns the controller, runs the animation timer with a per-frame
//! time budget, reads the lesson from the URL, lays out the page.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::timers::callback::Interval;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::chart::ChartData;
use crate::components::add_flow::AddFlow;
use crate::components::now_ms;
use crate::components::chart::Chart;
use crate::components::console::Console;
use crate::components::features::Features;
use crate::components::host::Host;
use crate::components::lesson::LessonPanel;
use crate::components::migrate::Migrate;
use crate::components::paths::Paths;
use crate::components::panels::{ArfsTable, Ledger, Metrics, Settings, TcCounters};
use crate::components::tables::{RfsTables, XpsMap};
use crate::components::trace::TracePanel;
use crate::components::transport::Transport;
use crate::controller::{Controller, FlowForm, ViewModel};

/// When a frame stops starting engine slices, ms (a slice takes 1-2 ms, so frames stay near
/// 8 ms): heavy scenarios (seed 000's 16,384 flows) run
/// fewer ticks per frame instead of blocking the page.
const FRAME_BUDGET_MS: f64 = 6.0;
/// Flows per engine slice: about 1-2 ms of work in the release wasm.
const FLOWS_PER_SLICE: u32 = 1024;
/// Animation timer period, ms.
const FRAME_PERIOD_MS: u32 = 16;

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
    web_sys::window().and_then(|w| Some(format!("{}{}", w.location().origin().ok()?, w.location().pathname().ok()?))).unwrap_or_default()
}

/// Posts `msg` to the parent window, to each allowed origin (the browser delivers it only to
/// the one the parent really has).
fn post_to_parent(allow: &[String], msg: &serde_json::Value) {
    let Some(w) = web_sys::window() else { return };
    let Ok(Some(parent)) = w.parent() else { return };
    if js_sys::Object::is(&parent, &w) {
        return; // not embedded
    }
    let Ok(data) = js_sys::JSON::parse(&msg.to_string()) else { return };
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
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else { return };
    params.set("lesson", id);
    if let Ok(h) = w.history() {
        let query: String = params.to_string().into();
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("{path}?{query}")));
    }
}

/// Records a frame's engine time for the e2e test's p50/p95 (window.steerlabFrameMs).
fn record_frame_ms(ms: f64) {
    let Some(w) = web_sys::window() else { return };
    let key = wasm_bindgen::JsValue::from_str("steerlabFrameMs");
    let arr = js_sys::Reflect::get(&w, &key).ok().and_then(|v| v.dyn_into::<js_sys::Array>().ok()).unwrap_or_else(|| {
        let a = js_sys::Array::new();
        let _ = js_sys::Reflect::set(&w, &key, &a);
        a
    });
    if arr.length() < 10_000 {
        arr.push(&ms.into());
    }
}

/// The controller the page opens with, and an error when the URL asked for something invalid.
fn initial() -> (Controller, Option<String>) {
    if let Some(link) = url_state() {
        // Replayed by the frames, a slice at a time: a long state never freezes the page.
        return match Controller::restoring(&link) {
            Ok(c) => (c, None),
            Err(e) => (Controller::new_default(), Some(e)),
        };
    }
    match url_param("lesson") {
        Some(id) => match Controller::for_lesson(&id) {
            Ok(c) => (c, None),
            Err(e) => (Controller::new_default(), Some(format!("?lesson={id}: {e}; opened the default lesson"))),
        },
        None => (Controller::new_default(), None),
    }
}

/// The page: the sandbox, or in embed mode with `?start=click` a light placeholder until the
/// learner starts it (a page with many embeds stays light).
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

/// A callback that applies `f` to the controller with the event's value, shows a refused
/// action's error in the banner (or clears it), and refreshes the view.
fn action<T: 'static>(
    controller: &Rc<RefCell<Controller>>,
    view: &UseStateHandle<ViewModel>,
    error: &UseStateHandle<Option<String>>,
    f: fn(&mut Controller, &T) -> Result<(), String>,
) -> Callback<T> {
    let (controller, view, error) = (controller.clone(), view.clone(), error.clone());
    Callback::from(move |x: T| {
        let result = f(&mut controller.borrow_mut(), &x);
        error.set(result.err());
        view.set(controller.borrow().view());
    })
}

/// Properties of [`Sandbox`].
#[derive(Properties, PartialEq)]
pub struct SandboxProps {
    /// Embed mode: no page chrome, compact, an "open full sandbox" link.
    pub embed: bool,
}

/// The sandbox itself.
#[component]
pub fn Sandbox(props: &SandboxProps) -> Html {
    let url_error = use_mut_ref(|| None::<String>);
    let controller = {
        let url_error = url_error.clone();
        use_mut_ref(move || {
            let (c, e) = initial();
            *url_error.borrow_mut() = e;
            c
        })
    };
    let view = use_state(|| controller.borrow().view());
    let error = use_state(|| url_error.borrow().clone());
    let allow = use_memo((), |_| crate::embed::parse_allow_list(url_param("origin").as_deref()));

    // The host page API: validated messages from allowed origins only.
    {
        let (controller, view, error, allow) = (controller.clone(), view.clone(), error.clone(), allow.clone());
        use_effect_with((), move |_| {
            post_to_parent(&allow, &serde_json::json!({"type": "steerlab:ready", "lesson": controller.borrow().scenario().id}));
            let window = web_sys::window().expect("a window");
            let listener = gloo::events::EventListener::new(&window, "message", move |e| {
                let Some(e) = e.dyn_ref::<web_sys::MessageEvent>() else { return };
                if !crate::embed::allowed(&allow, &e.origin()) {
                    return; // not an allowed host page: ignored, never answered
                }
                let data: serde_json::Value = js_sys::JSON::stringify(&e.data())
                    .ok()
                    .and_then(|s| s.as_string())
                    .and_then(|s| serde_json::from_str(&s).ok())
                    .unwrap_or(serde_json::Value::Null);
                let reply = |msg: serde_json::Value| post_to_parent(&allow, &msg);
                match crate::embed::parse_message(&data) {
                    Err(m) => reply(crate::embed::error_event(&m)),
                    Ok(msg) => {
                        use crate::embed::HostMessage as M;
                        let mut c = controller.borrow_mut();
                        match msg {
                            M::Command(line) => match c.command(&line) {
                                Ok(out) => reply(crate::embed::event("command", serde_json::json!({"command": line, "output": out}))),
                                Err(err) => reply(crate::embed::error_event(&format!("{line}: {err}"))),
                            },
                            M::Load(text) => match steerlab_scenario::parse(&text, &[]) {
                                Ok(sc) => match Controller::for_scenario(sc, steerlab_scenario::permalink::Source::Scenario(text)) {
                                    Ok(n) => {
                                        *c = n;
                                        error.set(None);
                                        reply(crate::embed::event("loaded", serde_json::json!({"lesson": c.scenario().id})));
                                    }
                                    Err(err) => reply(crate::embed::error_event(&err)),
                                },
                                Err(err) => reply(crate::embed::error_event(&err.to_string())),
                            },
                            M::GetState => {}
                            M::Play => c.set_playing(true),
                            M::Pause => c.set_playing(false),
                            M::Step => c.step(),
                        }
                        let v = c.view();
                        reply(crate::embed::state(&v.lesson.id, &v.sim_time, &v.digest, v.lesson.goal_met, &v.permalink, &v.report.0));
                        drop(c);
                        view.set(controller.borrow().view());
                    }
                }
            });
            move || drop(listener)
        });
    }

    // One timer drives the animation; dropping it (on unmount) stops it. It also reports the
    // page's height and the goal to an embedding page.
    {
        let controller = controller.clone();
        let view = view.clone();
        let allow = allow.clone();
        let error = error.clone();
        use_effect_with((), move |_| {
            let mut frame = 0u64;
            let mut last_height = 0;
            let mut goal_sent = false;
            // Views are rebuilt no more often than the page can draw them. After a frame that
            // set a view, the wait for the next timer callback is mostly that render (Yew's
            // diff, layout, the charts); the next view waits twice as long, so drawing takes
            // at most about a third of the time and the page answers input even on seed
            // 000's host. Small hosts render in a few ms: a view every frame.
            let (mut last_callback, mut next_view_at, mut rendered) = (now_ms(), 0.0, false);
            let interval = Interval::new(FRAME_PERIOD_MS, move || {
                frame += 1;
                let t0 = now_ms();
                if std::mem::take(&mut rendered) {
                    let render = (t0 - last_callback - FRAME_BUDGET_MS - f64::from(FRAME_PERIOD_MS)).max(0.0);
                    next_view_at = t0 + 2.0 * render;
                }
                last_callback = t0;
                let wanted = controller.borrow().wanted_ticks(frame);
                let sim0 = controller.borrow().sim().now().0;
                let was_restoring = controller.borrow().restore_progress().is_some();
                let mut ran = 0u64;
                // Ticks are run in slices of flows so that no frame blocks for long, however
                // many flows the scenario has.
                while ran < wanted && now_ms() - t0 < FRAME_BUDGET_MS {
                    if controller.borrow_mut().step_part(FLOWS_PER_SLICE) {
                        ran += 1;
                    } else if !controller.borrow().sim().in_tick() {
                        break; // the scenario's end
                    }
                }
                if let Some(e) = controller.borrow_mut().take_link_error() {
                    error.set(Some(e));
                }
                let restore_ended = was_restoring && controller.borrow().restore_progress().is_none();
                if ran > 0 {
                    record_frame_ms(now_ms() - t0);
                    let advanced = controller.borrow().sim().now().0 - sim0;
                    controller.borrow_mut().note_rate(advanced, f64::from(FRAME_PERIOD_MS));
                    for (kind, command) in controller.borrow_mut().take_events() {
                        post_to_parent(&allow, &crate::embed::event(kind, serde_json::json!({"command": command})));
                    }
                    if controller.borrow().goal_met() == Some(true) && !goal_sent {
                        goal_sent = true;
                        let id = controller.borrow().scenario().id.clone();
                        post_to_parent(&allow, &crate::embed::event("goal-met", serde_json::json!({"lesson": id})));
                    }
                }
                // The last frames of a run or a restore always show their state.
                let stopped = ran > 0 && controller.borrow().wanted_ticks(frame + 1) == 0;
                if (ran > 0 && t0 >= next_view_at) || stopped || restore_ended {
                    view.set(controller.borrow().view());
                    rendered = true;
                }
                if !allow.is_empty() && frame % 15 == 0 {
                    let h = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()).map_or(0, |e| e.scroll_height());
                    if h != last_height {
                        last_height = h;
                        post_to_parent(&allow, &serde_json::json!({"type": "steerlab:resize", "height": h}));
                    }
                }
            });
            move || drop(interval)
        });
    }

    macro_rules! on {
        (|$c:ident, $x:ident: $t:ty| $body:expr) => {
            action::<$t>(&controller, &view, &error, |$c, $x| $body)
        };
    }
    let on_add = on!(|c, form: FlowForm| c.add_flow(form));
    let random_n = use_state(|| 16u32);
    let on_random = {
        let n = *random_n;
        on!(|c, n: u32| c.add_random_flows(*n)).reform(move |_: MouseEvent| n)
    };
    let on_random_n = {
        let random_n = random_n.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            random_n.set(el.value().parse().unwrap_or(16));
        })
    };
    let on_play = on!(|c, p: bool| {
        c.set_playing(*p);
        Ok(())
    });
    let on_step = on!(|c, _u: ()| {
        c.step();
        Ok(())
    });
    let on_speed = on!(|c, s: usize| {
        c.set_speed(*s);
        Ok(())
    });
    let on_reset = on!(|c, _u: ()| {
        c.reset();
        Ok(())
    });
    let on_migrate = on!(|c, m: (u32, u16)| c.migrate(m.0, m.1));
    let on_driver = on!(|c, d: String| c.set_driver(d));
    // Errors of typed commands are shown in the console itself, in the tool's words.
    let on_command = on!(|c, line: String| c.command(line).map(drop).or(Ok(())));
    let on_back = on!(|c, _e: MouseEvent| {
        c.step_back();
        Ok(())
    });
    let on_trace = on!(|c, f: u32| {
        c.trace(*f);
        Ok(())
    });
    let on_rfs_queue = on!(|c, q: u16| {
        c.show_rfs_queue(*q);
        Ok(())
    });
    let on_next = on!(|c, _u: ()| {
        c.next_step();
        Ok(())
    });
    let on_seek = on!(|c, e: Event| {
        let el: web_sys::HtmlInputElement = e.target_unchecked_into();
        el.value().parse::<u64>().map(|ms| c.seek(steerlab_engine::Nanos::from_ms(ms))).map_err(|_| "timeline: not a time".to_string())
    });
    let on_lesson = on!(|c, id: String| {
        *c = Controller::for_lesson(id)?;
        set_url_lesson(id);
        Ok(())
    });
    // Several commands from one switch (RPS on every queue): each is echoed; the first refusal
    // stops the rest and shows in the banner.
    let on_commands = on!(|c, lines: Vec<String>| lines.iter().try_for_each(|l| c.command(l).map(drop)));
    let on_upload = on!(|c, text: String| {
        let scenario = steerlab_scenario::parse(text, &[]).map_err(|e| format!("uploaded scenario: {e}"))?;
        *c = Controller::for_scenario(scenario, steerlab_scenario::permalink::Source::Scenario(text.clone()))?;
        Ok(())
    });
    let on_run_end = on!(|c, _u: ()| {
        c.set_speed(crate::controller::SPEEDS.len() - 1);
        c.set_playing(true);
        Ok(())
    });
    let on_share = {
        let controller = controller.clone();
        Callback::from(move |e: MouseEvent| {
            let Some(w) = web_sys::window() else { return };
            e.prevent_default();
            let link = controller.borrow().permalink();
            let _ = w.location().set_hash(&format!("s={link}"));
            let _ = w.navigator().clipboard().write_text(&format!("{}#s={link}", base_url()));
        })
    };

    let v = &*view;
    let rxq = ChartData::Bars {
        title: "packets per RX queue",
        x: "RX queue",
        y: "packets",
        values: v.queues.iter().map(|q| q.packets).collect(),
        warn: v.queues.iter().map(|q| q.drops > 0).collect(),
    };
    let cpu = ChartData::Bars {
        title: "softirq load per CPU (‰ of the last 100 ms)",
        x: "CPU",
        y: "softirq ‰",
        values: v.cpus.iter().map(|c| u64::from(c.softirq_permille)).collect(),
        warn: v.cpus.iter().map(|c| c.softirq_permille > 800).collect(),
    };
    let arfs = ChartData::Lines { title: "aRFS driver calls per second", y: "per second", series: v.arfs_series.clone() };
    let locality = ChartData::Lines { title: "packets per second: on the reader's CPU or not", y: "packets/s", series: v.locality_series.clone() };
    let cost = ChartData::Lines { title: "CPU time per packet (ns): softirq, sys, user", y: "ns per packet", series: v.cost_series.clone() };
    let typed = controller.borrow().typed().to_vec();
    let ncpus = v.cpus.len() as u16;
    let share = format!("{}#s={}", base_url(), v.permalink);
    let full = format!("{}#s={}", base_url(), v.permalink);
    let duration_ms = controller.borrow().scenario().sim.duration_ms;
    let embed = props.embed;
    // Guided steps point at a control or chart: a style rule rendered with the page outlines
    // it, so the outline holds through re-renders and appears with a target that comes later
    // (the tc panel once the block exists). Scenarios are validated so; the check stays here
    // because only such names may go into a style rule.
    let outline = v.lesson.highlight.as_deref().filter(|id| steerlab_scenario::is_testid(id));
    html! {
        <main class={classes!("sandbox", embed.then_some("embed"))}>
            if let Some(id) = outline {
                <style data-testid="step-highlight" data-target={id.to_string()}>
                    { format!("[data-testid=\"{id}\"] {{ outline: 3px dashed var(--c1) !important; outline-offset: 3px; }}") }
                </style>
            }
            <header class="topbar">
                if embed {
                    <a class="open-full" data-testid="open-full" href={full} target="_blank" rel="noopener">{ "Open full sandbox ↗" }</a>
                } else {
                    <h1>{ "steerlab" }</h1>
                }
                <Transport playing={v.playing} speed={v.speed} sim_time={v.sim_time.clone()} progress={v.progress_permille}
                    {on_play} {on_step} {on_speed} {on_reset} on_run_end={Some(on_run_end)} eta={v.eta.clone().map(AttrValue::from)} />
                <Settings driver={v.driver.to_string()} {on_driver} />
                <span class="timeline">
                    <button data-testid="step-back" onclick={on_back} aria-label="step back in time">{ "⏮ Back" }</button>
                    <input type="range" data-testid="timeline" min="0" max={duration_ms.to_string()} step="100"
                        value={(v.now_ns / 1_000_000).to_string()} onchange={on_seek} aria-label="simulated time: drag to go back or forward" />
                </span>
                <a data-testid="share-link" class="share" href={share} onclick={on_share} aria-label="permalink to this exact state (copied to the clipboard)">{ "🔗 Share" }</a>
            </header>
            if let Some(message) = &*error {
                <p class="error" role="alert" data-testid="error-banner">{ message }</p>
            }
            if let Some(p) = v.restoring {
                <p class="notice" data-testid="restore-progress" role="status">
                    { "Restoring the shared state (replaying its commands at their times): " }
                    <progress max="1000" value={p.to_string()} aria-label="restore progress"></progress>
                    { format!(" {}%", p / 10) }
                </p>
            }
            <LessonPanel lesson={v.lesson.clone()} on_select={on_lesson} {on_next} />
            <section class="panel wide" aria-label="host">
                <h2>{ "Host: RX queues and CPUs" }</h2>
                <Metrics local={v.local} remote={v.remote} arfs_update={v.arfs_update} flow_count={v.flow_count} />
                if let Some(wire) = &v.wire {
                    <crate::components::wire::Wire view={wire.clone()} on_select={on_trace.clone()} />
                }
                <Paths paths={v.paths.clone()} queues={v.queues.len() as u16} cpus={ncpus} />
                <Host queues={v.queues.clone()} cpus={v.cpus.clone()} on_migrate={on_migrate.clone()} />
                <Migrate threads={v.threads.clone()} cpus={ncpus} {on_migrate} on_command={on_command.clone()} />
            </section>
            <section class="panel" aria-label="charts">
                <Chart testid="chart-rxq" label="bar chart of packets per RX queue" data={rxq} />
                <Chart testid="chart-locality" label="local and remote packets per second" data={locality} />
            </section>
            <section class="panel" aria-label="CPU and aRFS charts">
                <Chart testid="chart-cpu" label="bar chart of softirq load per CPU" data={cpu} />
                <Chart testid="chart-arfs" label="aRFS add, update, skip and expire per second" data={arfs} />
            </section>
            <section class="panel" aria-label="cost chart">
                <Chart testid="chart-cost" label="CPU time per packet, softirq, sys and user, in ns" data={cost} />
            </section>
            <Console lines={v.console.clone()} {typed} {on_command} />
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
                <Features ntuple={v.ntuple} sock_entries={v.sock_entries} rx_queues={v.queues.len() as u16} cpus={ncpus}
                    {on_commands} scenario_json={v.scenario_json.clone()} {on_upload} />
            </section>
            <section class="panel">
                <h2>{ "Trace a flow" }</h2>
                <TracePanel flows={v.flow_labels.clone()} selected={v.traced} trace={v.trace.clone()} rss_key={v.rss_key.clone()} on_select={on_trace} />
            </section>
            <section class="panel">
                <h2>{ "aRFS filters" }</h2>
                <ArfsTable rows={v.filters.clone()} total={v.filters_total} />
            </section>
            <section class="panel">
                <h2>{ "RFS tables and XPS map" }</h2>
                <RfsTables rfs={v.rfs.clone()} queues={v.queues.len() as u16} on_queue={on_rfs_queue} />
                <XpsMap rows={v.xps.clone()} />
            </section>
            <section class="panel">
                <h2>{ "Where the time goes" }</h2>
                <Ledger report={v.report.clone()} />
                <TcCounters report={v.report.clone()} />
            </section>
            <footer class="footer">{ "trace digest " }<code data-testid="digest">{ &v.digest }</code></footer>
        </main>
    }
}
