//! The host: RX queues with fill bars, then CPUs grouped by NUMA node with their threads.
//! A CPU's colour shows its softirq load; threads can be dragged onto another CPU.

use yew::prelude::*;

use crate::components::count;
use crate::protocol::{CpuView, QueueView};

/// Properties of [`Host`].
#[derive(Properties, PartialEq)]
pub struct HostProps {
    /// RX queues.
    pub queues: Vec<QueueView>,
    /// CPUs.
    pub cpus: Vec<CpuView>,
    /// A thread dropped on a CPU.
    pub on_migrate: Callback<(u32, u16)>,
}

/// Queues and CPUs (every one: each has its `data-testid`). While the pointer is over the CPUs
/// (and while a thread is dragged) their threads stay as they were when it came: time runs on,
/// and a thread its policy moves every few milliseconds would otherwise vanish from under the
/// pointer before it could be grabbed, or end the drag.
#[component]
pub fn Host(p: &HostProps) -> Html {
    let total: u64 = p.queues.iter().map(|q| q.packets).sum::<u64>().max(1);
    let nodes: u16 = p.cpus.iter().map(|c| c.node + 1).max().unwrap_or(1);
    let frozen = use_state(|| None::<Vec<Vec<u32>>>);
    let drag = Drag {
        start: {
            let (frozen, cpus) = (frozen.clone(), p.cpus.clone());
            Callback::from(move |()| {
                if frozen.is_none() {
                    frozen.set(Some(cpus.iter().map(|c| c.threads.clone()).collect()));
                }
            })
        },
        end: {
            let frozen = frozen.clone();
            Callback::from(move |()| frozen.set(None))
        },
    };
    let threads = |c: &CpuView| -> Vec<u32> {
        (*frozen)
            .as_ref()
            .and_then(|f| f.get(usize::from(c.index)).cloned())
            .unwrap_or_else(|| c.threads.clone())
    };
    let (hold, release) = (drag.start.clone(), drag.end.clone());
    let onmouseenter = Callback::from(move |_: MouseEvent| hold.emit(()));
    let onmouseleave = Callback::from(move |_: MouseEvent| release.emit(()));
    html! {
        <div class="host" {onmouseenter} {onmouseleave}>
            <ol class={classes!("queues", (p.queues.len() > 16).then_some("many"))} aria-label="RX queues">
                { for p.queues.iter().map(|q| {
                    let pct = q.packets * 100 / total;
                    let moving = q.irq_moving_to.map(|to| format!(" (its vector moved to CPU {to}: the poll follows once it completes)")).unwrap_or_default();
                    let dropped = if q.drops_hidden { "drops unread (ethtool -S eth0)".to_string() } else { format!("{} dropped", q.drops) };
                    let label = format!("rx-{}: {}, {}, {dropped}, IRQ on CPU {}{moving}", q.index, count(q.flows, "flow"), count(q.packets, "packet"), q.irq_cpu);
                    html! {
                        <li data-testid={format!("rxq-{}", q.index)} class="queue" tabindex="0"
                            title={label.clone()} aria-label={label}>
                            <span class="qname">{ format!("rx-{}", q.index) }</span>
                            <span class="bar"><span class={classes!("fill", format!("c{}", q.index % 4), (q.drops > 0 && !q.drops_hidden).then_some("warn"))}
                                style={format!("width:{pct}%")}></span></span>
                            <span class="qnum">{ format!("{} · {} pkts", count(q.flows, "flow"), q.packets) }</span>
                            if let Some(to) = q.irq_moving_to {
                                <span class="qmove" data-testid={format!("rxq-{}-moving", q.index)}>
                                    { format!("IRQ → CPU {to}, poll stuck on CPU {}", q.irq_cpu) }</span>
                            }
                        </li>
                    }
                }) }
            </ol>
            { for (0..nodes).map(|n| html! {
                <fieldset class="node"><legend>{ format!("NUMA node {n}") }</legend>
                    <div class="cpus">
                        { for p.cpus.iter().filter(|c| c.node == n).map(|c| cpu(c, &threads(c), &p.on_migrate, &drag)) }
                    </div>
                </fieldset>
            }) }
        </div>
    }
}

/// A drag's start and end (the threads freeze between them).
struct Drag {
    start: Callback<()>,
    end: Callback<()>,
}

fn cpu(c: &CpuView, threads: &[u32], on_migrate: &Callback<(u32, u16)>, drag: &Drag) -> Html {
    let target = c.index;
    let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
    let ondrop = {
        let (on_migrate, end) = (on_migrate.clone(), drag.end.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            end.emit(());
            let tid = e
                .data_transfer()
                .and_then(|d| d.get_data("text/plain").ok())
                .and_then(|t| t.parse().ok());
            if let Some(tid) = tid {
                on_migrate.emit((tid, target));
            }
        })
    };
    let label = format!(
        "CPU {}: softirq {}.{}%, {} packets, threads {:?}",
        c.index,
        c.softirq_permille / 10,
        c.softirq_permille % 10,
        c.packets,
        threads
    );
    html! {
        <div data-testid={format!("cpu-{}", c.index)} class="cpu" tabindex="0" title={label.clone()} aria-label={label}
            style={format!("--load:{}", c.softirq_permille)} {ondragover} {ondrop}>
            <span class="cpuname">{ c.index }</span>
            <span class="load" style={format!("height:{}%", c.softirq_permille / 10)}></span>
            { for threads.iter().map(|&t| {
                let start = drag.start.clone();
                let ondragstart = Callback::from(move |e: DragEvent| {
                    if let Some(d) = e.data_transfer() {
                        let _ = d.set_data("text/plain", &t.to_string());
                    }
                    start.emit(());
                });
                let end = drag.end.clone();
                let ondragend = Callback::from(move |_: DragEvent| end.emit(()));
                html! { <span key={t} data-testid={format!("thread-{t}")} class="thread" draggable="true" {ondragstart} {ondragend}
                    aria-label={format!("thread {t}")}>{ format!("T{t}") }</span> }
            }) }
        </div>
    }
}
