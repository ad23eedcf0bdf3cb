//! The sandbox's layout: the transport and timeline, the lesson and its console, the host
//! picture beside the lesson's own chart, and the other panels below, each drawn from the
//! view; every control becomes an [`Action`].

use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::url::{base_url, challenge_mode, set_url_mode};
use crate::chart::ChartData;
use crate::components::add_flow::AddFlow;
use crate::components::chart::Chart;
use crate::components::console::Console;
use crate::components::features::Features;
use crate::components::host::Host;
use crate::components::icon::{icon, Icon};
use crate::components::lesson::{EvidenceStrip, LessonPanel};
use crate::components::matrix::HostMatrix;
use crate::components::migrate::Migrate;
use crate::components::panels::{ArfsTable, DropPlaces, HostDescription, Ledger, Metrics, Settings, TcCounters};
use crate::components::pictures::{TcBlockPicture, TxPath, XdpCost};
use crate::components::tables::{RfsTables, XpsMap};
use crate::components::trace::TracePanel;
use crate::components::transport::Transport;
use crate::components::your_host::{Built, YourHost};
use crate::protocol::{Action, Origin, SessionView, ViewModel};

/// Hosts with more CPUs show their queue and CPU chips on demand only.
const BIG_HOST_CPUS: usize = 32;

/// Scrolls the element with this `data-testid` into view, if it is off screen.
fn scroll_to_testid(id: Option<&str>) {
    let Some(id) = id.filter(|id| crate::protocol::is_testid(id)) else {
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
    let on_command = dispatch.reform(|line: String| Action::Command {
        host: 0,
        line,
        from: Origin::Console,
    });
    // Guided steps point at a control or chart: a style rule rendered with the page outlines
    // it, so the outline holds through re-renders and appears with a target that comes later
    // (the tc panel once the block exists). Scenarios are validated so; the check stays here
    // because only such names may go into a style rule.
    let outline = v
        .lesson
        .highlight
        .as_deref()
        .filter(|id| crate::protocol::is_testid(id));
    let (panels, key) = chart_panels(v);
    let focus_console = Callback::from(|_: MouseEvent| {
        let input = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector("[data-testid=console-input]").ok().flatten());
        if let Some(el) = input.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = el.focus();
        }
    });
    html! {
        <main class={classes!("sandbox", embed.then_some("embed"), sv.full_speed().then_some("full-speed"))}>
            <button class="skip" data-testid="skip-to-console" onclick={focus_console}>{ "Skip to the console" }</button>
            if let Some(id) = outline {
                <style data-testid="step-highlight" data-target={id.to_string()}>
                    { format!("[data-testid=\"{id}\"] {{ outline: 3px dashed var(--c1) !important; outline-offset: 3px; }}") }
                </style>
            }
            { topbar(sv, dispatch, embed, p.copied, p.built.is_some()) }
            if v.restored {
                <p class="notice restored" data-testid="restored-paused" role="status">
                    { format!("This is a shared state, restored at t = {}: time is paused here. Press Play to go on.", v.sim_time) }
                </p>
            }
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
                { lesson_column(v, dispatch, on_command) }
                if !embed && !your_host_open {
                    <p class="your-host-teaser">
                        <button data-testid="open-your-host" onclick={to_your_host}>{ "Your host…" }</button>
                        { " Which queue and CPU will a connection hit on your machine? Paste its capture." }
                    </p>
                }
            </div>
            <div class="stage">
                <EvidenceStrip figures={v.lesson.evidence.clone()} />
                { host_panel(v, dispatch) }
                <section class="panel key" aria-label="the lesson's chart">{ panels[key].1.clone() }</section>
            </div>
            <div class="more">
                if your_host_open {
                    { your_host(v, dispatch, p) }
                }
                { threads_panel(v, dispatch, &show_threads) }
                { for panels.iter().enumerate().filter(|(i, (id, _))| shown(v, *i == key, id)).map(|(_, (_, h))| html! { <section class="panel">{ h.clone() }</section> }) }
                { lower_panels(v, dispatch, &random_n) }
            </div>
            <footer class="footer">{ "trace digest " }<code data-testid="digest">{ &v.digest }</code></footer>
        </main>
    }
}

/// The top bar: the title (or an embed's way out), the transport, the timeline and Share.
fn topbar(sv: &SessionView, dispatch: &Callback<Action>, embed: bool, copied: bool, built: bool) -> Html {
    let v = &sv.hosts[0];
    let send = |a: fn() -> Action| dispatch.reform(move |_| a());
    let on_play = dispatch.reform(|p: bool| if p { Action::Play } else { Action::Pause });
    let on_back = dispatch.reform(|_: MouseEvent| Action::Back);
    let on_seek = dispatch.reform(|e: Event| {
        let el: web_sys::HtmlInputElement = e.target_unchecked_into();
        // A range input's value is always a number in its range.
        Action::Seek(el.value().parse().unwrap_or(0))
    });
    let on_share = dispatch.reform(|e: MouseEvent| {
        e.prevent_default();
        Action::Share
    });
    let share = format!("{}#s={}", base_url(), v.permalink);
    // The timeline ends at the scenario's length, or where time has played on to.
    let duration_ms = v.duration_ms.max(v.now_ns / 1_000_000);
    html! {
        <header class="topbar">
            if embed {
                <a class="open-full" data-testid="open-full" href={share.clone()} target="_blank" rel="noopener">{ "Open full sandbox ↗" }</a>
            } else {
                <h1>{ "steerlab" }</h1>
            }
            <Transport playing={sv.playing} speed={sv.speed} sim_time={v.sim_time.clone()} progress={v.progress_permille}
                {on_play} on_step={send(|| Action::Step)} on_speed={dispatch.reform(Action::Speed)} on_reset={send(|| Action::Reset)}
                on_run_end={Some(send(|| Action::RunToEnd))} eta={sv.eta.clone().map(AttrValue::from)}
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
            if copied {
                <span class="copied" data-testid="share-copied" role="status">{ "copied" }</span>
            }
            if built {
                // A captured host's link carries what the capture said of it.
                <span class="share-warning" data-testid="share-warning">{ "the link carries your host's addresses and rules" }</span>
            }
        </header>
    }
}

/// The lesson panel and the console under it.
fn lesson_column(v: &ViewModel, dispatch: &Callback<Action>, on_command: Callback<String>) -> Html {
    // Another lesson keeps the form the URL asks for.
    let on_lesson = {
        let dispatch = dispatch.clone();
        Callback::from(move |id: String| {
            // A lesson file's `next` may be a URL: the page opens it as `?lesson-url=`.
            if id.contains('/') || id.ends_with(".json") {
                if let Some(url) = super::lesson_url::next_url(&id) {
                    let _ = web_sys::window().map(|w| w.location().set_href(&url));
                }
                return;
            }
            dispatch.emit(Action::OpenLesson(id));
            if challenge_mode() {
                dispatch.emit(Action::Challenge(true));
            }
        })
    };
    let on_challenge = dispatch.reform(|on: bool| {
        set_url_mode(on);
        Action::Challenge(on)
    });
    html! {
        <>
            <LessonPanel lesson={v.lesson.clone()} on_select={on_lesson.clone()} on_next={dispatch.reform(|_| Action::NextStep)}
                on_run={on_command.clone()} on_predict={dispatch.reform(Action::Predict)} on_hint={dispatch.reform(|_: ()| Action::Hint)}
                on_open={on_lesson} {on_challenge} />
            <Console view={v.console.clone()} {on_command} />
        </>
    }
}

/// The host: its metrics, its description in words, and its picture (the wire view of a small
/// host, the queue × CPU matrix of a big one).
fn host_panel(v: &ViewModel, dispatch: &Callback<Action>) -> Html {
    let on_driver = dispatch.reform(|d: String| Action::Command {
        host: 0,
        line: format!("nic driver {d}"),
        from: Origin::Control,
    });
    // A flow picked in the matrix: traced, and the trace panel brought into view.
    let on_trace_here = dispatch.reform(|f: u32| {
        scroll_to_testid(Some("flow-trace"));
        Action::Trace(f)
    });
    html! {
        <section class="panel" aria-label="host">
            <div class="panel-head">
                <h2>{ "Host: RX queues and CPUs" }</h2>
                <Settings driver={v.driver.clone()} {on_driver} />
            </div>
            <Metrics local={v.local} remote={v.remote} arfs_update={v.arfs_update} flow_count={v.flow_count} />
            <HostDescription text={AttrValue::from(v.host_text.clone())} />
            if let Some(wire) = &v.wire {
                <crate::components::wire::Wire view={wire.clone()} on_select={dispatch.reform(Action::Trace)} traced={v.traced} />
            }
            if let Some(m) = &v.matrix {
                <HostMatrix view={m.clone()} cpus={v.cpus.clone()} on_select={dispatch.reform(Action::MatrixCell)} on_trace={on_trace_here}
                    mark={v.lesson.steps.get(v.lesson.step).and_then(|s| s.cell)} />
            }
        </section>
    }
}

/// "Your host": a capture and flows built into a host, its predictions marked on the picture.
fn your_host(v: &ViewModel, dispatch: &Callback<Action>, p: &PageProps) -> Html {
    let on_build = dispatch
        .reform(|(capture, flows, sets): (String, String, Vec<String>)| Action::ImportHost { capture, flows, sets });
    // A prediction's row marks its cell on the host picture, brought into view.
    let host_picture = if v.wire.is_some() { "wire" } else { "host-matrix" };
    let on_mark = dispatch.reform(move |cell: Option<(u16, u16)>| {
        scroll_to_testid(Some(host_picture));
        Action::MatrixCell(cell)
    });
    html! { <YourHost built={p.built.clone()} error={p.host_error.clone()} {on_build} {on_mark} /> }
}

/// The threads on their CPUs (drag to migrate) and the keyboard form that does the same.
fn threads_panel(v: &ViewModel, dispatch: &Callback<Action>, show_threads: &UseStateHandle<bool>) -> Html {
    let on_migrate = dispatch.reform(|(tid, cpu): (u32, u16)| Action::Command {
        host: 0,
        line: format!("thread migrate {tid} {cpu}"),
        from: Origin::Control,
    });
    let on_command = dispatch.reform(|line: String| Action::Command {
        host: 0,
        line,
        from: Origin::Console,
    });
    let ncpus = v.cpus.len() as u16;
    let show = {
        let s = show_threads.clone();
        move |_: MouseEvent| s.set(true)
    };
    html! {
        <section class="panel threads-panel" aria-label="threads on CPUs">
            <h2>{ "Threads on CPUs" }</h2>
            // A big host's queue and CPU chips (288 at seed 000's) cost most of a frame to
            // draw: shown on demand there (the matrix above says where packets go).
            if v.cpus.len() <= BIG_HOST_CPUS || **show_threads {
                <Host queues={v.queues.clone()} cpus={v.cpus.clone()} on_migrate={on_migrate.clone()} />
            } else {
                <button data-testid="show-threads" onclick={show}>
                    { format!("Show the {} queues and {} CPUs with their threads (drag to migrate)", v.queues.len(), ncpus) }
                </button>
            }
            <Migrate threads={v.threads.clone()} cpus={ncpus} {on_migrate} {on_command} />
        </section>
    }
}

/// The charts and figure panels, by `data-testid`, and which is the lesson's own (shown
/// beside the host on the first screen; the others further down).
fn chart_panels(v: &ViewModel) -> (Vec<(&'static str, Html)>, usize) {
    let rxq = ChartData::rx_queues(&v.queues);
    let cpu = ChartData::Bars {
        title: "softirq load per CPU (‰ of the last 100 ms)",
        x: "CPU",
        y: "softirq ‰",
        values: v.cpus.iter().map(|c| u64::from(c.softirq_permille)).collect(),
        warn: v.cpus.iter().map(|c| c.softirq_permille > 800).collect(),
    };
    let lines = |title, y, series: &Vec<crate::protocol::Series>, log| ChartData::Lines {
        title,
        y,
        series: series.clone(),
        log,
        marks: v.marks.clone(),
    };
    let question_open = v
        .lesson
        .predict
        .as_ref()
        .is_some_and(|q| q.chosen.is_none() && !q.measuring && q.engine.is_none());
    let mut panels: Vec<(&str, Html)> = vec![
        (
            "chart-arfs",
            html! { <Chart testid="chart-arfs" label="aRFS add, update, skip and expire per second, log scale" data={lines("aRFS driver calls per second (log scale)", "per second", &v.arfs_series, true)} /> },
        ),
        (
            "chart-locality",
            html! { <Chart testid="chart-locality" label="local and remote packets per second" data={lines("packets per second: on the reader's CPU or not", "packets/s", &v.locality_series, false)} /> },
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
            html! { <Chart testid="chart-cost" label="CPU time per packet, softirq, sys and user, in ns" data={lines("CPU time per packet (ns): softirq, sys, user", "ns per packet", &v.cost_series, false)} /> },
        ),
        (
            "tc-block",
            html! { <div><h2>{ "tc ingress block" }</h2><TcBlockPicture view={v.tc.clone()} /><TcCounters figures={v.figures.clone()} /></div> },
        ),
        // While the lesson's question is open the bar keeps its parts' costs to itself: they
        // are the answer to "how much less time?".
        (
            "xdp-cost",
            html! { <XdpCost view={v.xdp.clone()} conceal={question_open} /> },
        ),
        ("tx-path", html! { <TxPath view={v.tx.clone()} /> }),
    ];
    // Latency where the lesson shows it (its evidence or its chart).
    if !v.latency_series.is_empty() {
        panels.push((
            "chart-latency",
            html! { <Chart testid="chart-latency" label="latency from a packet's arrival at the NIC to its read, 50th and 99th percentile, in microseconds, log scale; dropped packets are not counted" data={lines("latency, NIC to read (µs, log scale; drops not counted): p50, p99", "µs", &v.latency_series, true)} /> },
        ));
    }
    // "Where did my packets go?" where the lesson is about it, or once a packet was dropped
    // (a host that drops nothing keeps its page a row shorter).
    if v.lesson.chart == "drop-places" || v.figures.drops.iter().any(|d| d.total > 0) {
        panels.push(("drop-places", html! { <DropPlaces figures={v.figures.clone()} /> }));
    }
    // The tc block has a panel of its own where the lesson is about it; elsewhere its
    // counters sit under the cost ledger, one line while the host has no ingress filter (a
    // panel of their own made the page a row taller).
    let tc_key = v.lesson.chart == "tc-block";
    let no_tc = v.figures.tc.filtercnt == 0;
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
    (panels, key)
}

/// Whether a chart or figure panel is drawn further down: not the lesson's own (drawn beside
/// the host), the tc block where the lesson is about it, the XDP bar and the transmit path
/// where there is an XDP program or a sender.
fn shown(v: &ViewModel, is_key: bool, id: &str) -> bool {
    !is_key
        && match id {
            "tc-block" => v.lesson.chart == "tc-block",
            "xdp-cost" => v.xdp.is_some(),
            "tx-path" => v.tx.is_some(),
            _ => true,
        }
}

/// The panels at the bottom: flows to add, features and the scenario, the trace, the aRFS and
/// RFS tables and the XPS map.
fn lower_panels(v: &ViewModel, dispatch: &Callback<Action>, random_n: &UseStateHandle<u32>) -> Html {
    let on_random = {
        let n = **random_n;
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
    // Several commands from one switch (RPS on every queue): each is echoed; the first refusal
    // stops the rest and shows in the banner.
    let on_commands = dispatch.reform(|lines: Vec<String>| Action::Commands { host: 0, lines });
    let on_upload = dispatch.reform(|text: String| Action::Load {
        text,
        from: Origin::Control,
    });
    let answered = format!(
        "{} {}",
        v.console.lines.len(),
        v.console.lines.last().map_or("", |l| l.command.as_str())
    );
    html! {
        <>
            <section class="panel">
                <h2>{ "Add flows" }</h2>
                <AddFlow on_submit={dispatch.reform(Action::AddFlow)} />
                <label>{ "Random flows " }
                    <select data-testid="random-flow-count" onchange={on_random_n} aria-label="how many random flows">
                        { for [16u32, 256, 1000].iter().map(|&n| html! { <option value={n.to_string()} selected={n == **random_n}>{ n }</option> }) }
                    </select>
                </label>
                <button data-testid="add-random-flows" onclick={on_random}>{ format!("Add {} random flows", **random_n) }</button>
            </section>
            <section class="panel">
                <h2>{ "Features and scenario" }</h2>
                <Features ntuple={v.ntuple} {answered} sock_entries={v.sock_entries} rx_queues={v.queues.len() as u16} cpus={v.cpus.len() as u16}
                    {on_commands} scenario_json={AttrValue::Rc(v.scenario_json.clone())} {on_upload} />
            </section>
            <section class="panel">
                <h2>{ "Trace a flow" }</h2>
                <TracePanel flows={v.flow_labels.clone()} selected={v.traced} trace={v.trace.clone()} rss_key={v.rss_key.clone()} on_select={dispatch.reform(Action::Trace)} />
            </section>
            <section class="panel">
                <h2>{ "aRFS filters" }</h2>
                <ArfsTable rows={Rc::new(v.filters.clone())} first={v.filters_first} total={v.filters_total} work_queued={v.work_queued} on_scroll={dispatch.reform(Action::FilterWindow)} />
            </section>
            <section class="panel">
                <h2>{ "RFS tables" }</h2>
                <RfsTables rfs={v.rfs.clone()} queues={v.queues.len() as u16} on_queue={dispatch.reform(Action::RfsQueue)} />
            </section>
            <section class="panel">
                <h2>{ "XPS map" }</h2>
                <div class="table-wrap" tabindex="0" role="region" aria-label="XPS map"><XpsMap rows={v.xps.clone()} /></div>
            </section>
        </>
    }
}
