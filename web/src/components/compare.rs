//! A/B compare (`?view=compare`): the same scenario on two hosts side by side, one transport.
//! Both hosts live in one worker session and advance tick by tick in lockstep; change the
//! driver, or type a command in one side's console, and watch the two diverge. Big hosts show
//! one host matrix each; the lesson's own table (the rows its seed reported, as
//! `steerlab run --vary` prints them) compares the two live, with their ratio.

use yew::prelude::*;

use crate::chart::ChartData;
use crate::client::use_session;
use crate::components::chart::Chart;
use crate::components::console::Console;
use crate::components::host::Host;
use crate::components::matrix::HostMatrix;
use crate::components::panels::{Metrics, Settings};
use crate::components::transport::Transport;
use crate::components::wire::Wire;
use crate::protocol::{Action, Event, HostId, Origin, ViewModel};

/// Properties of [`Compare`].
#[derive(Properties, PartialEq)]
pub struct CompareProps {
    /// Lesson both hosts run.
    pub lesson: AttrValue,
}

fn side((label, id, host): (&'static str, &'static str, HostId), v: &ViewModel, dispatch: &Callback<Action>) -> Html {
    let command = |from: Origin| dispatch.reform(move |line: String| Action::Command { host, line, from });
    let on_driver = command(Origin::Control).reform(|d: String| format!("nic driver {d}"));
    // A refused command shows its error in this side's console, in the tool's words.
    let on_command = command(Origin::Console);
    let rxq = ChartData::rx_queues(&v.queues);
    html! {
        <section class="panel" aria-label={format!("host {label}")} data-testid={format!("compare-{id}")}>
            <h2>{ format!("Host {label}") }</h2>
            <Settings driver={v.driver.clone()} {on_driver} />
            <Metrics local={v.local} remote={v.remote} arfs_update={v.arfs_update} flow_count={v.flow_count} />
            if let Some(wire) = &v.wire {
                <Wire view={wire.clone()} on_select={Callback::noop()} />
            }
            if let Some(m) = &v.matrix {
                <HostMatrix view={m.clone()} cpus={v.cpus.clone()} testid={format!("host-matrix-{id}")}
                    on_select={dispatch.reform(move |cell| Action::MatrixCellOf(host, cell))} on_trace={Callback::noop()} />
            } else {
                <Host queues={v.queues.clone()} cpus={v.cpus.clone()} on_migrate={Callback::noop()} />
            }
            <Chart testid={format!("chart-rxq-{id}")} label={format!("packets per RX queue, host {label}")} data={rxq} />
            <Console view={v.console.clone()} {on_command}
                testid={format!("console-{id}")} title={format!("Console, host {label}")} />
        </section>
    }
}

/// Two hosts, one clock.
#[component]
pub fn Compare(p: &CompareProps) -> Html {
    let error = use_state(|| None::<String>);
    // Embedded, the compare view is driven and heard as the single view is (its learning
    // moments name their host).
    let allow = use_memo((), |_| {
        crate::protocol::embed::parse_allow_list(crate::components::app::url::url_param("origin").as_deref())
    });
    let on_event = {
        let (error, allow) = (error.clone(), allow.clone());
        Callback::from(move |e: Event| match e {
            Event::Banner(b) => error.set(b),
            Event::Host(msg) => crate::components::app::host_page::post_json_to_parent(&allow, &msg),
            _ => {}
        })
    };
    let session = use_session(Action::OpenCompare(p.lesson.to_string()), on_event);
    let dispatch = session.dispatch;
    let lesson_id = session
        .view
        .as_ref()
        .and_then(|v| v.hosts.first())
        .map(|h| h.lesson.id.clone());
    crate::components::app::host_page::use_host_page(dispatch.clone(), allow, lesson_id);
    let banner = (*error)
        .clone()
        .map(|m| html! { <p class="error" role="alert" data-testid="error-banner">{ m }</p> });
    let Some(sv) = session.view.filter(|v| v.hosts.len() == 2) else {
        return html! { <main class="sandbox compare">{ for banner }<p class="notice" role="status" data-testid="loading">{ "Starting the simulation…" }</p></main> };
    };
    let (va, vb) = (&sv.hosts[0], &sv.hosts[1]);
    let l = &va.lesson;
    html! {
        <main class="sandbox compare">
            <header class="topbar">
                <h1>{ "steerlab: A/B" }</h1>
                <Transport playing={sv.playing} speed={sv.speed} sim_time={va.sim_time.clone()} progress={va.progress_permille}
                    on_play={dispatch.reform(|p: bool| if p { Action::Play } else { Action::Pause })}
                    on_step={dispatch.reform(|()| Action::Step)} on_speed={dispatch.reform(Action::Speed)}
                    on_reset={dispatch.reform(|()| Action::Reset)} />
            </header>
            { for banner }
            <section class="panel compare-lesson">
                <h2>{ &l.title }</h2>
                <p class="goal"><strong>{ "Goal: " }</strong>{ &l.goal }</p>
                <p class="muted">{ "Both hosts run this lesson on one clock. Change one (its driver, or a command in its console) and compare." }</p>
                { table(va, vb) }
            </section>
            { side(("A", "a", 0), va, &dispatch) }
            { side(("B", "b", 1), vb, &dispatch) }
        </main>
    }
}

/// B against A, as the evidence strip writes a change (one rule: `+12 %`, `×0.05`, "same"; `—`
/// when A is zero and B not).
fn versus(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if a == b => "same".to_string(),
        (Some(a), Some(b)) if a != 0.0 => crate::protocol::ratio_text(b / a),
        _ => "—".to_string(),
    }
}

/// A rate per second as the evidence strip prints one (`1.31G/s`, `620k/s`).
fn per_s(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_string(), |v| format!("{}/s", crate::protocol::human(v)))
}

/// The lesson's table for both hosts: totals since the start with B against A, and each
/// counter's rate over the last second with B against A (a ratio of totals hides what
/// happens now).
fn table(a: &ViewModel, b: &ViewModel) -> Html {
    if a.table.is_empty() {
        return html! {};
    }
    html! {
        <div class="table-wrap" tabindex="0" role="region" aria-label="the lesson's figures for both hosts">
        <table class="compare-table" data-testid="compare-table">
            <caption>{ format!("The lesson's figures: totals since the start ({}), as steerlab run --vary prints them, and rates over the last second", a.sim_time) }</caption>
            <thead><tr><th>{ "figure" }</th><th class="num">{ "A, total" }</th><th class="num">{ "B, total" }</th><th class="num">{ "B vs A" }</th>
                <th class="num">{ "A, per s" }</th><th class="num">{ "B, per s" }</th><th class="num">{ "B vs A, per s" }</th></tr></thead>
            <tbody>
                { for a.table.iter().zip(&b.table).map(|(x, y)| html! {
                    <tr><th scope="row">{ &x.label }</th><td class="num">{ &x.value }</td><td class="num">{ &y.value }</td><td class="num">{ versus(x.raw, y.raw) }</td>
                        <td class="num">{ per_s(x.per_s) }</td><td class="num">{ per_s(y.per_s) }</td><td class="num">{ versus(x.per_s, y.per_s) }</td></tr>
                }) }
            </tbody>
        </table>
        </div>
    }
}
