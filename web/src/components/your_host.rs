//! "Your host": paste or load a real host's capture (`scripts/capture-host.sh`) and flows on
//! it (one per line, or `ss -tn` output taken there); the worker builds that host with the
//! flows to play and sends where each lands. The predictions show as bars per RX queue (how
//! evenly the host spreads these flows, at a glance; a bar filters the table) and as a table
//! in the formats of `steerlab predict`, drawn a window of rows at a time so that 10,000 flows
//! scroll smoothly. A row marks its queue and CPU on the host picture. What the capture did not
//! say is listed, each choice with the field that holds it to correct (`steerlab import --set`);
//! a refused capture is said beside the Build button, its line quoted. The capture script is
//! offered as a download; nothing pasted leaves the browser (the worker reads it).

use std::rc::Rc;

use crate::protocol::Predicted;
use crate::protocol::{Assumption, Observation};
use yew::prelude::*;

/// The script that prints the capture (scripts/capture-host.sh), offered as a download.
/// The capture script, copied into the site beside the page (index.html, `copy-file`): a
/// download of its own rather than text in the module every learner fetches.
const CAPTURE_SCRIPT: &str = "capture-host.sh";

/// What the worker sent back for the last host built.
#[derive(Clone, Debug)]
pub struct Built {
    /// One prediction per flow.
    pub rows: Rc<Vec<Predicted>>,
    /// What the capture did not say, and the choices made.
    pub assumptions: Rc<Vec<Assumption>>,
    /// What the capture's counters show of drops and softirq load.
    pub observed: Rc<Vec<Observation>>,
    /// Its RX queues (from the host built, not the view: the two arrive apart).
    pub rx_queues: u16,
}

/// The same build: compared by its rows' allocation, not row by row (the page renders every
/// frame; 10,000 rows compared each time would cost a frame's budget).
impl PartialEq for Built {
    fn eq(&self, other: &Built) -> bool {
        Rc::ptr_eq(&self.rows, &other.rows)
    }
}

/// Properties of [`YourHost`].
#[derive(Properties, PartialEq)]
pub struct YourHostProps {
    /// The last host built, if any.
    pub built: Option<Built>,
    /// Why the last capture was refused, naming and quoting its line.
    #[prop_or_default]
    pub error: Option<String>,
    /// Build a host: the capture's text, the flows' text, the corrections (`FIELD=VALUE`).
    pub on_build: Callback<(String, String, Vec<String>)>,
    /// Mark a cell (RX queue, CPU) of the host picture.
    pub on_mark: Callback<Option<(u16, u16)>>,
}

/// Row height of the table, CSS pixels (the window of rows drawn is computed from it).
const ROW_PX: f64 = 22.0;
/// Rows drawn beyond the visible ones, above and below.
const SLACK: usize = 10;
/// Height of the table's scroll box, CSS pixels.
const BOX_PX: f64 = 330.0;

/// What is counted over a build's rows: flows per queue (the bars) and the tallest bar, rows
/// decided by rules, rows with a named history, and the distinct notes.
struct Summary {
    per_queue: Vec<usize>,
    most: usize,
    ruled: usize,
    history: usize,
    notes: Vec<String>,
}

impl Summary {
    fn of(b: &Built) -> Summary {
        let mut per_queue = vec![0usize; usize::from(b.rx_queues.max(1))];
        for r in b.rows.iter() {
            if let Some(n) = per_queue.get_mut(usize::from(r.queue)) {
                *n += 1;
            }
        }
        let most = per_queue.iter().copied().max().unwrap_or(0).max(1);
        let ruled = b.rows.iter().filter(|r| r.decided_by != "rss").count();
        let history = b.rows.iter().filter(|r| r.history.is_some()).count();
        let mut notes: Vec<&str> = b
            .rows
            .iter()
            .map(|r| r.note.as_str())
            .filter(|n| !n.is_empty())
            .collect();
        notes.sort_unstable();
        notes.dedup();
        let notes = notes.into_iter().map(str::to_string).collect();
        Summary {
            per_queue,
            most,
            ruled,
            history,
            notes,
        }
    }
}

/// Scrolls the table's box back to its first row (a new host, another queue's list).
fn table_to_top() {
    let doc = web_sys::window().and_then(|w| w.document());
    if let Some(el) = doc.and_then(|d| d.query_selector("[data-testid=\"your-host-table\"]").ok().flatten()) {
        el.set_scroll_top(0);
    }
}

/// The panel.
#[component]
pub fn YourHost(p: &YourHostProps) -> Html {
    let capture = use_state(String::new);
    let flows = use_state(String::new);
    // The learner's corrections of the assumptions: `FIELD=VALUE` lines, as `--set` takes them.
    let corrections = use_state(String::new);
    let top = use_state(|| 0.0f64);
    let filter = use_state(|| None::<u16>);
    let picked = use_state(|| None::<usize>);
    {
        // A new host: back to its first row, unfiltered.
        let (top, filter, picked) = (top.clone(), filter.clone(), picked.clone());
        use_effect_with(p.built.as_ref().map(|b| Rc::as_ptr(&b.rows) as usize), move |_| {
            top.set(0.0);
            filter.set(None);
            picked.set(None);
            // The box itself back to its top too, or a box scrolled down would show spacer.
            table_to_top();
        });
    }
    let text_input = |state: &UseStateHandle<String>| {
        let state = state.clone();
        Callback::from(move |e: InputEvent| {
            let el: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
            state.set(el.value());
        })
    };
    // A file read into a text box (a capture, or a long flow list: an upload beats a paste).
    let load_into = |state: &UseStateHandle<String>| {
        let state = state.clone();
        let cb = Callback::from(move |text: String| state.set(text));
        Callback::from(move |e: Event| super::read_picked_file(&e, &cb))
    };
    let build = {
        let (cb, capture, flows, corrections) =
            (p.on_build.clone(), capture.clone(), flows.clone(), corrections.clone());
        Callback::from(move |_: MouseEvent| {
            let sets = corrections
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect();
            cb.emit(((*capture).clone(), (*flows).clone(), sets))
        })
    };
    // A new capture: the corrections were of the last one.
    let capture_input = {
        let (capture, corrections) = (capture.clone(), corrections.clone());
        Callback::from(move |e: InputEvent| {
            let el: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
            capture.set(el.value());
            corrections.set(String::new());
        })
    };
    let on_scroll = {
        let top = top.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::Element = e.target_unchecked_into();
            top.set(f64::from(el.scroll_top()));
        })
    };

    // The page draws every frame; what is counted over the rows is counted once per build (and
    // per filter), not per frame.
    let summary = use_memo(p.built.clone(), |b| b.as_ref().map(Summary::of));
    let kept = use_memo((p.built.clone(), *filter), |(b, filter)| {
        b.as_ref().map_or_else(Vec::new, |b| {
            (0..b.rows.len())
                .filter(|&i| filter.is_none_or(|q| b.rows[i].queue == q))
                .collect::<Vec<usize>>()
        })
    });
    let results = p.built.as_ref().zip(summary.as_ref().as_ref()).map(|(b, sum)| {
        let rows = &b.rows;
        let (per_queue, most, ruled, history, notes) = (&sum.per_queue, sum.most, sum.ruled, sum.history, &sum.notes);
        let first = ((*top / ROW_PX) as usize).saturating_sub(SLACK).min(kept.len());
        let last = (first + (BOX_PX / ROW_PX) as usize + 2 * SLACK).min(kept.len());
        html! {
            <div class="your-host-results" data-testid="your-host-results">
                <p data-testid="your-host-summary">
                    { format!("{} on {} RX queues: {ruled} decided by ntuple rules, {history} whose queue or CPU depends on what the sockets do (named in the last column).",
                        crate::components::count(rows.len() as u64, "flow"), b.rx_queues) }
                    { " Press Play to send them; a row marks its queue and CPU on the host above." }
                </p>
                { observed(&b.observed) }
                { assumed(&b.assumptions, &corrections, text_input(&corrections)) }
                if !rows.is_empty() {
                    <p class="muted qcaption">{ "Flows per RX queue (a bar lists its flows):" }</p>
                    <div class="qbars" role="group" aria-label="flows per RX queue">
                        { for per_queue.iter().enumerate().map(|(q, &n)| bar(q, n, most, &filter, &top)) }
                    </div>
                    <div class="vtable" data-testid="your-host-table" onscroll={on_scroll} style={format!("height:{}px", BOX_PX.min((kept.len() + 1) as f64 * ROW_PX + 6.0))}>
                        <table>
                            <thead><tr><th>{ "flow (as received)" }</th><th>{ "hash" }</th><th>{ "fields" }</th><th>{ "index" }</th><th>{ "queue" }</th>
                                <th>{ "decided by" }</th><th>{ "IRQ CPU" }</th><th>{ "RPS CPU" }</th><th>{ "history" }</th></tr></thead>
                            <tbody>
                                <tr class="spacer" style={format!("height:{}px", first as f64 * ROW_PX)}></tr>
                                { for kept[first..last].iter().map(|&i| row(i, &rows[i], *picked == Some(i), &picked, &p.on_mark)) }
                                <tr class="spacer" style={format!("height:{}px", (kept.len() - last) as f64 * ROW_PX)}></tr>
                            </tbody>
                        </table>
                    </div>
                    <p class="muted" data-testid="your-host-shown">{ match *filter {
                        Some(q) => format!("{} on rx-{q} (click its bar again for all)", crate::components::count(kept.len() as u64, "flow")),
                        None => format!("{} in all", crate::components::count(kept.len() as u64, "flow")),
                    } }</p>
                    { for notes.iter().map(|n| html! { <p class="muted">{ format!("note: {n}") }</p> }) }
                }
            </div>
        }
    });
    html! {
        <section class="panel your-host" data-testid="your-host" aria-label="your host">
            { intro() }
            <div class="your-host-inputs">
                <label>{ "Capture" }
                    <textarea data-testid="your-host-capture" rows="6" spellcheck="false" value={(*capture).clone()} oninput={capture_input}
                        placeholder="$ ethtool -i ens1f0\ndriver: ice\n…" />
                </label>
                <label>{ "Flows (optional)" }
                    <textarea data-testid="your-host-flows" rows="6" spellcheck="false" value={(*flows).clone()} oninput={text_input(&flows)}
                        placeholder="tcp 203.0.113.7:40000 10.0.0.2:443\n… or the output of ss -tn" />
                </label>
            </div>
            <label>{ "Load a capture " }<input type="file" data-testid="your-host-file" accept=".txt,text/plain" onchange={load_into(&capture)} /></label>
            { " " }
            <label>{ "Load flows " }<input type="file" data-testid="your-host-flows-file" accept=".txt,text/plain" onchange={load_into(&flows)} /></label>
            { " " }
            <button data-testid="your-host-build" onclick={build} disabled={capture.trim().is_empty()}>{ "Build this host and predict" }</button>
            if let Some(e) = &p.error {
                <p class="error your-host-error" role="alert" data-testid="your-host-error">{ e }</p>
            }
            { results.unwrap_or_default() }
        </section>
    }
}

/// One assumption; one the learner can correct ends with the `FIELD=VALUE` that holds it, to
/// correct in the box below the list (as `--set`).
fn assumption(a: &Assumption) -> Html {
    html! { <li data-testid="your-host-assumption">{ &a.text }if let Some(set) = &a.set { { " " }<code>{ set }</code> }</li> }
}

/// The panel's heading and how to capture a host: the script to run there (offered as a
/// download), and that the paste stays in the browser.
fn intro() -> Html {
    html! {
        <>
            <h2>{ "Your host: where will each flow land?" }</h2>
            <p class="muted">
                { "On the machine: " }<code>{ "sh scripts/capture-host.sh IFACE > host.txt" }</code>
                { " (read only; " }<a data-testid="your-host-script" download="capture-host.sh" href={CAPTURE_SCRIPT}>{ "download the script" }</a>
                { "). Paste its output (or any of it) or load the file, add the flows to ask about (PROTO SRC:SPORT DST:DPORT as the NIC receives them, or " }
                <code>{ "ss -tn" }</code>{ " output taken there), and build. The same answers as " }<code>{ "steerlab predict host.txt" }</code>{ "." }
                <span data-testid="your-host-private">{ " Your paste never leaves this browser (Share puts the host in the link)." }</span>
            </p>
        </>
    }
}

/// What the capture's counters show, one item each, classed by where on the path
/// (`observed-ring`, `observed-backlog`, `observed-socket`, `observed-squeeze`,
/// `observed-softirq`): counters since boot, as the tools printed them.
fn observed(list: &[Observation]) -> Html {
    if list.is_empty() {
        return Html::default();
    }
    html! {
        <>
            <h3 class="observed-head">{ "Where its packets drop, and which CPU is loaded (counters since boot)" }</h3>
            <ul class="observed" data-testid="your-host-observed" aria-label="what the capture shows">
                { for list.iter().map(|o| html! { <li class={format!("observed-{}", o.place)}>{ &o.text }</li> }) }
            </ul>
        </>
    }
}

/// What the capture did not say and what was chosen, and the box that corrects them.
fn assumed(list: &[Assumption], corrections: &UseStateHandle<String>, oninput: Callback<InputEvent>) -> Html {
    if list.is_empty() {
        return Html::default();
    }
    html! {
        <details data-testid="your-host-assumptions" open=true>
            <summary>{ format!("Assumed or chosen ({})", list.len()) }</summary>
            <ul>{ for list.iter().map(assumption) }</ul>
            <label>{ "Corrections, FIELD=VALUE a line (as --set): " }
                <textarea data-testid="your-host-corrections" rows="2" spellcheck="false" value={(**corrections).clone()}
                    {oninput} placeholder="host.cpus=32" />
            </label>
        </details>
    }
}

/// A queue's bar: its flows against the tallest; a click lists its flows (again: all).
fn bar(q: usize, n: usize, most: usize, filter: &UseStateHandle<Option<u16>>, top: &UseStateHandle<f64>) -> Html {
    let on = **filter == Some(q as u16);
    let (filter, top) = (filter.clone(), top.clone());
    let click = Callback::from(move |_: MouseEvent| {
        filter.set(if on { None } else { Some(q as u16) });
        // Another list: from its first row (the box follows on its next scroll event).
        top.set(0.0);
        table_to_top();
    });
    let pct = n * 100 / most;
    html! {
        <button class={classes!("qbar", on.then_some("on"))} onclick={click} data-testid="your-host-queue"
            title={format!("rx-{q}: {n} flows (click to list them)")} aria-label={format!("rx-{q}: {n} flows")}>
            <span class="qarea"><span class="fill" style={format!("height:{pct}%;background:var(--c{})", q % 4)}></span></span>
            <span class="qlabel">{ q }</span>
        </button>
    }
}

/// A prediction's row; a click marks its queue and CPU on the host.
fn row(
    i: usize,
    r: &Predicted,
    is_picked: bool,
    picked: &UseStateHandle<Option<usize>>,
    mark: &Callback<Option<(u16, u16)>>,
) -> Html {
    let (mark, picked) = (mark.clone(), picked.clone());
    let cell = (r.queue, r.rps_cpu.unwrap_or(r.irq_cpu));
    let click = Callback::from(move |_: MouseEvent| {
        picked.set(Some(i));
        mark.emit(Some(cell));
    });
    let rps = r.rps_cpu.map_or_else(
        || {
            if r.rps == "off" {
                "–".to_string()
            } else {
                r.rps.clone()
            }
        },
        |c| c.to_string(),
    );
    html! {
        <tr key={i} data-testid="your-host-row" class={classes!(is_picked.then_some("picked"))} onclick={click}>
            <td class="mono">{ &r.flow }</td><td class="mono">{ &r.hash }</td><td>{ &r.fields }</td>
            <td class="num">{ r.indir_index }</td><td class="num">{ r.queue }</td>
            <td>{ &r.decided_by }</td><td class="num">{ r.irq_cpu }</td><td>{ rps }</td>
            <td>{ r.history.clone().unwrap_or_default() }</td>
        </tr>
    }
}
