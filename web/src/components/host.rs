//! The host: RX queues with fill bars, then CPUs grouped by NUMA node with their threads.
//! A CPU's colour shows its softirq load; threads can be dragged onto another CPU.

use yew::prelude::*;

use crate::components::count;
use crate::controller::{CpuView, QueueView};

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

/// Queues and CPUs (every one: each has its `data-testid`).
#[component]
pub fn Host(p: &HostProps) -> Html {
    let total: u64 = p.queues.iter().map(|q| q.packets).sum::<u64>().max(1);
    let nodes: u16 = p.cpus.iter().map(|c| c.node + 1).max().unwrap_or(1);
    html! {
        <div class="host">
            <ol class={classes!("queues", (p.queues.len() > 16).then_some("many"))} aria-label="RX queues">
                { for p.queues.iter().map(|q| {
                    let pct = q.packets * 100 / total;
                    let label = format!("rx-{}: {}, {}, {} dropped, IRQ on CPU {}", q.index, count(q.flows, "flow"), count(q.packets, "packet"), q.drops, q.irq_cpu);
                    html! {
                        <li data-testid={format!("rxq-{}", q.index)} class="queue" tabindex="0"
                            title={label.clone()} aria-label={label}>
                            <span class="qname">{ format!("rx-{}", q.index) }</span>
                            <span class="bar"><span class={classes!("fill", format!("c{}", q.index % 4), (q.drops > 0).then_some("warn"))}
                                style={format!("width:{pct}%")}></span></span>
                            <span class="qnum">{ format!("{} · {} pkts", count(q.flows, "flow"), q.packets) }</span>
                        </li>
                    }
                }) }
            </ol>
            { for (0..nodes).map(|n| html! {
                <fieldset class="node"><legend>{ format!("NUMA node {n}") }</legend>
                    <div class="cpus">
                        { for p.cpus.iter().filter(|c| c.node == n).map(|c| cpu(c, &p.on_migrate)) }
                    </div>
                </fieldset>
            }) }
        </div>
    }
}

fn cpu(c: &CpuView, on_migrate: &Callback<(u32, u16)>) -> Html {
    let target = c.index;
    let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
    let ondrop = {
        let on_migrate = on_migrate.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
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
        c.threads
    );
    html! {
        <div data-testid={format!("cpu-{}", c.index)} class="cpu" tabindex="0" title={label.clone()} aria-label={label}
            style={format!("--load:{}", c.softirq_permille)} {ondragover} {ondrop}>
            <span class="cpuname">{ c.index }</span>
            <span class="load" style={format!("height:{}%", c.softirq_permille / 10)}></span>
            { for c.threads.iter().map(|&t| {
                let ondragstart = Callback::from(move |e: DragEvent| {
                    if let Some(d) = e.data_transfer() {
                        let _ = d.set_data("text/plain", &t.to_string());
                    }
                });
                html! { <span data-testid={format!("thread-{t}")} class="thread" draggable="true" {ondragstart}
                    aria-label={format!("thread {t}")}>{ format!("T{t}") }</span> }
            }) }
        </div>
    }
}
