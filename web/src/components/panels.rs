//! Side panels: the headline metrics, the driver switch, the aRFS filter table (colliding
//! entries marked), the cost ledger and the XDP/XPS/tc figures, each with the numbers in the
//! form the real tools print them.

use yew::prelude::*;

use crate::components::count;
use crate::protocol::{driver_names, Figures, FilterRow};

/// Properties of [`Metrics`].
#[derive(Properties, PartialEq)]
pub struct MetricsProps {
    /// Local packets.
    pub local: u64,
    /// Remote packets.
    pub remote: u64,
    /// aRFS updates since the start.
    pub arfs_update: u64,
    /// Flows.
    pub flow_count: u32,
}

/// The host's totals, with a bar showing the share of packets processed on their reader's
/// CPU (grey until a packet has been processed).
#[component]
pub fn Metrics(p: &MetricsProps) -> Html {
    let total = p.local + p.remote;
    let local_pct = p.local * 100 / total.max(1);
    let label = if total == 0 {
        "no packet processed yet".to_string()
    } else {
        format!("{local_pct}% of packets processed on their reader's CPU")
    };
    html! {
        <div class="metrics-row">
        <dl class="metrics">
            <div><dt>{ "flows" }</dt><dd data-testid="flow-count">{ p.flow_count }</dd></div>
            <div><dt>{ "on the reader's CPU (total)" }</dt><dd data-testid="metric-local">{ p.local }</dd></div>
            <div><dt>{ "on another CPU (total)" }</dt><dd data-testid="metric-remote" class={classes!((p.remote > p.local).then_some("warn"))}>{ p.remote }</dd></div>
            <div><dt>{ "aRFS updates (total)" }</dt><dd data-testid="metric-arfs-update">{ p.arfs_update }</dd></div>
        </dl>
        <div class={classes!("locality", (total == 0).then_some("empty"))} role="img" aria-label={label.clone()} title={format!("{label} ({} local, {} remote)", count(p.local, "packet"), count(p.remote, "packet"))}>
            <span class="local" style={format!("width:{local_pct}%")}></span>
        </div>
        </div>
    }
}

/// Properties of [`Settings`].
#[derive(Properties, PartialEq)]
pub struct SettingsProps {
    /// Current driver name.
    pub driver: AttrValue,
    /// A driver was chosen.
    pub on_driver: Callback<String>,
}

/// The driver model switch (applied as `nic driver NAME`).
#[component]
pub fn Settings(p: &SettingsProps) -> Html {
    let change = p.on_driver.reform(|e: Event| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        el.value()
    });
    html! {
        <label class="setting">{ "Driver model " }
            <select data-testid="driver-select" onchange={change} aria-label="NIC driver model">
                { for driver_names().into_iter().map(|d| html! { <option value={d} selected={d == p.driver.as_str()}>{ d }</option> }) }
            </select>
        </label>
    }
}

/// Properties of [`ArfsTable`].
#[derive(Properties, PartialEq)]
pub struct ArfsTableProps {
    /// The rows of the scroll window the worker sent (colliding first).
    pub rows: std::rc::Rc<Vec<FilterRow>>,
    /// Index of the first of them among all live filters.
    pub first: u32,
    /// Live filters in all.
    pub total: usize,
    /// mlx5: updates waiting for its one worker.
    pub work_queued: u32,
    /// The table scrolled: the first row it needs now.
    pub on_scroll: Callback<u32>,
}

/// Height of a table row, px (`.arfs tr` in style.css).
const ROW_PX: i32 = 22;
/// Rows rendered beyond the visible window, each side.
const OVERSCAN: usize = 8;
/// Visible height of the table's scroll box, px (`.table-wrap`).
const VIEW_PX: i32 = 260;

/// The aRFS filter table, virtualised: only the rows in the scroll window are in the DOM (and
/// only they cross from the worker), so 16,384 filters cost what 30 do. Rows whose flow_id is
/// shared carry `data-collision="true"`.
#[component]
pub fn ArfsTable(p: &ArfsTableProps) -> Html {
    let top = use_state(|| 0i32);
    let onscroll = {
        let (top, cb) = (top.clone(), p.on_scroll.clone());
        Callback::from(move |e: Event| {
            let el: web_sys::Element = e.target_unchecked_into();
            top.set(el.scroll_top());
            cb.emit(((el.scroll_top() / ROW_PX) as u32).saturating_sub(OVERSCAN as u32));
        })
    };
    let n = p.total;
    let first = ((*top / ROW_PX) as usize).saturating_sub(OVERSCAN).min(n);
    let last = (first + (VIEW_PX / ROW_PX) as usize + 2 * OVERSCAN).min(n);
    // The rows this window needs that the worker has sent. When they are not all there (a new
    // host started its window at 0 under a scrolled table), the table asks for its window.
    let sent = p.first as usize..p.first as usize + p.rows.len();
    {
        let (cb, missing) = (p.on_scroll.clone(), first < sent.start || last > sent.end);
        use_effect_with((first, missing), move |&(first, missing)| {
            if missing {
                cb.emit(first as u32);
            }
        });
    }
    let (first, last) = (first.clamp(sent.start, sent.end), last.clamp(sent.start, sent.end));
    let pad = |rows: usize| html! { <tr aria-hidden="true" class="pad" style={format!("height:{}px", rows as i32 * ROW_PX)}></tr> };
    html! {
        <div class="table-wrap" {onscroll} tabindex="0" role="region" aria-label="aRFS filter table">
            <table data-testid="arfs-table" class="arfs" aria-rowcount={(n + 1).to_string()}>
                <caption>
                    { format!("aRFS filters: {} live, colliding flow_ids first", p.total) }
                    if p.work_queued > 0 {
                        <span class="backlog" data-testid="arfs-work-queued">{ format!("; {} waiting for mlx5's one worker (their flows' requests are skipped meanwhile)", count(u64::from(p.work_queued), "update")) }</span>
                    }
                </caption>
                <thead><tr><th>{ "id" }</th><th>{ "flow" }</th><th>{ "flow_id" }</th><th>{ "queue" }</th><th>{ "state" }</th></tr></thead>
                <tbody>
                    { pad(first) }
                    { for p.rows[first - sent.start..last - sent.start].iter().enumerate().map(|(i, r)| html! {
                        <tr data-collision={r.collision.to_string()} class={classes!(r.collision.then_some("collision"), r.pending.then_some("pending"))} aria-rowindex={(first + i + 2).to_string()}>
                            <td>{ r.id }</td><td>{ r.flow }</td><td>{ r.flow_id }</td><td>{ r.queue }</td>
                            <td>{ if r.pending { "pending" } else { "active" } }</td>
                        </tr>
                    }) }
                    { pad(n - last) }
                </tbody>
            </table>
        </div>
    }
}

/// Properties of [`Ledger`].
#[derive(Properties, PartialEq)]
pub struct LedgerProps {
    /// The ledger and figures.
    pub figures: Figures,
}

/// Where the CPU time went, per pipeline stage, as bars; plus the XDP, XPS and tc figures.
#[component]
pub fn Ledger(p: &LedgerProps) -> Html {
    let stages = &p.figures.ledger;
    // Shares of the last second (what the lesson's change moves); until a second has passed,
    // of the totals.
    let now = |(_, total, second): &(String, u64, Option<u64>)| second.unwrap_or(*total);
    let sum: u64 = stages.iter().map(now).sum::<u64>().max(1);
    let (xdp, xps) = (p.figures.xdp, p.figures.xps);
    let no_program = || "no program".to_string();
    html! {
        <div class="ledger" tabindex="0" role="region" aria-label="where the time goes">
            <table data-testid="cost-ledger" class="ledger-table">
                <caption>{ "CPU time by stage: the last simulated second, and since the start" }</caption>
                <thead><tr><th scope="col">{ "stage" }</th><th scope="col" class="num">{ "last second" }</th><th scope="col">{ "share" }</th><th scope="col" class="num">{ "since the start" }</th></tr></thead>
                <tbody>
                    { for stages.iter().filter(|(_, total, _)| *total > 0).map(|row| {
                        let (name, total, second) = row;
                        let permille = now(row) * 1000 / sum;
                        let share = if permille == 0 && now(row) > 0 { "<0.1 %".to_string() } else { format!("{}.{} %", permille / 10, permille % 10) };
                        html! {
                            <tr><th scope="row">{ name }</th>
                                <td class="num">{ second.map_or_else(|| "…".to_string(), |ns| format!("{:.1} ms", ns as f64 / 1e6)) }</td>
                                <td class="barcell"><span class="hbar" style={format!("width:{:.1}%", permille as f64 * 0.06)}></span>{ share }</td>
                                <td class="num">{ format!("{:.3} s", *total as f64 / 1e9) }</td></tr>
                        }
                    }) }
                </tbody>
            </table>
            <dl class="figures">
                <div><dt>{ "XDP ns/pkt" }</dt><dd data-testid="xdp-ns">{ xdp.map_or_else(no_program, |x| x.ns_per_pkt.to_string()) }</dd></div>
                <div><dt>{ "XDP Mpps/core" }</dt><dd>{ xdp.map_or_else(no_program, |x| x.mpps_per_core.to_string()) }</dd></div>
                <div><dt>{ "TX hash picks" }</dt><dd data-testid="xps-hash-picks">{ xps.hash_picks }</dd></div>
                <div><dt>{ "TX map picks" }</dt><dd>{ xps.map_picks }</dd></div>
                <div><dt>{ "TX msgs/s" }</dt><dd>{ xps.msgs_per_sec }</dd></div>
            </dl>
        </div>
    }
}

/// Properties of [`DropPlaces`].
#[derive(Properties, PartialEq)]
pub struct DropPlacesProps {
    /// The ledger and figures.
    pub figures: Figures,
}

/// "Where did my packets go": every place a packet can drop, its count, the counter a real
/// tool shows and the command to read it; a place dropping now is red.
#[component]
pub fn DropPlaces(p: &DropPlacesProps) -> Html {
    html! {
        <div>
            <h2>{ "Where did my packets go?" }</h2>
            <table data-testid="drop-places" class="ledger-table">
                <caption>{ "Drops by place, in the path's order: the last simulated second, and since the start" }</caption>
                <thead><tr><th scope="col">{ "place" }</th><th scope="col" class="num">{ "last second" }</th><th scope="col" class="num">{ "since the start" }</th><th scope="col">{ "on a real host" }</th></tr></thead>
                <tbody>
                    { for p.figures.drops.iter().map(|d| {
                        // A place the learner is to find shows nothing until they read its counter.
                        let (now, second, total, lead, tail) = match &d.hidden {
                            Some(_) => ("unread".to_string(), "?".to_string(), "?".to_string(), "run ", format!(" to read {}", d.counter)),
                            None => (
                                (d.last_second.unwrap_or(0) > 0).to_string(),
                                d.last_second.map_or_else(|| "…".to_string(), |n| format!("{n}/s")),
                                d.total.to_string(),
                                "",
                                format!(" {}", d.counter),
                            ),
                        };
                        html! {
                            <tr class={classes!((now == "true").then_some("warn"))} data-dropping={now.clone()}>
                                <th scope="row">{ &d.place }</th>
                                <td class="num">{ second }</td>
                                <td class="num">{ total }</td>
                                <td>{ lead }<code>{ &d.command }</code>{ tail }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// Properties of [`TcCounters`].
#[derive(Properties, PartialEq)]
pub struct TcProps {
    /// The ledger and figures.
    pub figures: Figures,
}

/// The tc ingress block's counters and the bypass decision (seed 001).
#[component]
pub fn TcCounters(p: &TcProps) -> Html {
    let tc = &p.figures.tc;
    let missed = tc.sw_missed;
    html! {
        <dl data-testid="tc-counters" class={classes!("figures", "tc", (missed > 0).then_some("warn"))}>
            <div><dt>{ "counting" }</dt><dd>{ &tc.counting }</dd></div>
            <div><dt>{ "filtercnt" }</dt><dd>{ tc.filtercnt }</dd></div>
            <div><dt>{ "skipswcnt" }</dt><dd>{ tc.skipswcnt }</dd></div>
            <div><dt>{ "useswcnt" }</dt><dd>{ tc.useswcnt }</dd></div>
            <div><dt>{ "software bypass" }</dt><dd data-testid="tc-bypass">{ if tc.bypass_sw { "yes: tc_run skips classification" } else { "no: filters run in software" } }</dd></div>
            <div><dt>{ "classified in software (total)" }</dt><dd>{ tc.sw_classified }</dd></div>
            <div><dt>{ "missed by the bypass (total)" }</dt><dd data-testid="tc-sw-missed">{ missed }</dd></div>
        </dl>
    }
}

/// Properties of [`HostDescription`].
#[derive(Properties, PartialEq)]
pub struct HostDescriptionProps {
    /// The host in words (`ViewModel::host_text`).
    pub text: AttrValue,
}

/// The host in words for a screen reader: what the wire view or the matrix shows, read out
/// politely, at most once a second (a view comes every frame; a reader would hear nothing
/// else). Hidden from sight: the pictures say it there.
#[component]
pub fn HostDescription(p: &HostDescriptionProps) -> Html {
    let shown = use_mut_ref(|| (AttrValue::default(), f64::NEG_INFINITY));
    let now = crate::components::now_ms();
    let text = {
        let mut s = shown.borrow_mut();
        if now - s.1 >= 1000.0 {
            *s = (p.text.clone(), now);
        }
        s.0.clone()
    };
    html! {
        <p class="sr-only" data-testid="host-description" aria-live="polite">{ text }</p>
    }
}
