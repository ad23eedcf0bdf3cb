//! The per-flow trace (every decision on the flow's path and why) and, for the RSS lesson, the
//! Toeplitz bit-walk: click input bits and watch each set bit's 32-bit key window XOR into
//! the hash.

use std::rc::Rc;

use crate::protocol::FlowTrace;
use yew::prelude::*;

/// Properties of [`TracePanel`].
#[derive(Properties, PartialEq)]
pub struct TraceProps {
    /// Flows to choose from: (index, label).
    pub flows: Rc<Vec<(u32, String)>>,
    /// The chosen flow.
    pub selected: u32,
    /// Its trace.
    pub trace: Option<FlowTrace>,
    /// The RSS key.
    pub rss_key: Vec<u8>,
    /// Another flow was chosen.
    pub on_select: Callback<u32>,
}

/// The 32-bit window of `key` starting at bit `i` (the Toeplitz matrix row for input bit i).
fn window(key: &[u8], i: usize) -> u32 {
    (0..32).fold(0u32, |w, b| {
        let bit = i + b;
        let v = key.get(bit / 8).map_or(0, |byte| (byte >> (7 - bit % 8)) & 1);
        (w << 1) | u32::from(v)
    })
}

/// The trace panel.
#[component]
pub fn TracePanel(p: &TraceProps) -> Html {
    let select = p.on_select.reform(|e: Event| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        el.value().parse().unwrap_or(0)
    });
    let Some(t) = &p.trace else {
        return html! { <p>{ "No flows yet." }</p> };
    };
    let row = |k: &str, v: String| html! { <div><dt>{ k.to_string() }</dt><dd>{ v }</dd></div> };
    html! {
        <div class="trace">
            <label>{ "Flow " }
                <select data-testid="trace-flow-select" onchange={select} aria-label="flow to trace">
                    { for p.flows.iter().map(|(i, l)| html! { <option value={i.to_string()} selected={*i == p.selected}>{ l }</option> }) }
                </select>
            </label>
            <dl class="trace-steps" data-testid="flow-trace">
                { row("tuple", t.tuple.clone()) }
                { row("hashed fields", format!("{} ({} bytes)", t.fields, t.hash_input.len())) }
                { row("Toeplitz hash", format!("0x{:08x}", t.hash)) }
                { row("indirection table", format!("entry {} → rx-{}", t.reta_index, t.reta_queue)) }
                { row("NIC queue", format!("rx-{}: {}", t.queue, t.queue_why)) }
                { row("IRQ CPU", format!("CPU {}", t.irq_cpu)) }
                { row("XDP", t.xdp.clone().unwrap_or_else(|| "no program".into())) }
                { row("tc ingress", t.tc.clone().unwrap_or_else(|| "no ingress qdisc".into())) }
                { row("RPS/RFS", t.rps_why.clone()) }
                { row("reader", reader(t)) }
            </dl>
            <BitWalk input={t.hash_input.clone()} rss_key={p.rss_key.clone()} hash={t.hash} />
        </div>
    }
}

/// Where the reader runs, and what a packet processed elsewhere costs to wake it.
fn reader(t: &FlowTrace) -> String {
    let on = t.rps_cpu.unwrap_or(t.irq_cpu);
    match t.reader_cpu {
        None => "none (consumed in softirq)".into(),
        Some(c) if c == on => format!("thread on CPU {c}, where its packets are processed"),
        Some(c) if t.wake_ipi => format!(
            "thread on CPU {c}: CPU {on} processes its packets and, while it sleeps between them, wakes it with an IPI (idle CPUs halt)"
        ),
        Some(c) => format!(
            "thread on CPU {c}: CPU {on} processes its packets and, while it sleeps between them, wakes it from there without an IPI (its idle CPU polls)"
        ),
    }
}

/// Properties of [`BitWalk`].
#[derive(Properties, PartialEq)]
pub struct BitWalkProps {
    /// The hashed bytes.
    pub input: Vec<u8>,
    /// The RSS key.
    pub rss_key: Vec<u8>,
    /// The engine's hash of `input` (the walk must agree).
    pub hash: u32,
}

/// The Toeplitz bit-walk.
#[component]
pub fn BitWalk(p: &BitWalkProps) -> Html {
    let flipped = use_state(Vec::<usize>::new);
    {
        let flipped = flipped.clone();
        use_effect_with(p.input.clone(), move |_| flipped.set(Vec::new()));
    }
    let mut input = p.input.clone();
    for &b in flipped.iter() {
        if let Some(byte) = input.get_mut(b / 8) {
            *byte ^= 0x80 >> (b % 8);
        }
    }
    let set: Vec<usize> = (0..input.len() * 8)
        .filter(|&b| input[b / 8] & (0x80 >> (b % 8)) != 0)
        .collect();
    let hash = set.iter().fold(0u32, |h, &b| h ^ window(&p.rss_key, b));
    let toggle = |b: usize| {
        let flipped = flipped.clone();
        Callback::from(move |_: MouseEvent| {
            let mut v = (*flipped).clone();
            match v.iter().position(|&x| x == b) {
                Some(i) => {
                    v.remove(i);
                }
                None => v.push(b),
            }
            flipped.set(v);
        })
    };
    html! {
        <details class="bitwalk" data-testid="toeplitz-bitwalk">
            <summary>{ "Toeplitz bit-walk: click input bits" }</summary>
            <div class="bits" role="group" aria-label="input bits">
                { for (0..input.len() * 8).map(|b| {
                    let on = input[b / 8] & (0x80 >> (b % 8)) != 0;
                    html! { <button class={classes!("bit", on.then_some("on"), (b % 8 == 0).then_some("byte"))} onclick={toggle(b)}
                        aria-pressed={on.to_string()} aria-label={format!("input bit {b}")}>{ if on { "1" } else { "0" } }</button> }
                }) }
            </div>
            <table class="windows">
                <caption>{ format!("{} set bits: hash = XOR of their key windows", set.len()) }</caption>
                <tbody>
                    { for set.iter().take(24).map(|&b| html! {
                        <tr><td>{ format!("bit {b}") }</td><td><code>{ format!("{:032b}", window(&p.rss_key, b)) }</code></td></tr>
                    }) }
                </tbody>
            </table>
            <p>{ "hash = " }<code data-testid="bitwalk-hash">{ format!("0x{hash:08x}") }</code>
                if flipped.is_empty() { { format!(" (the engine: 0x{:08x})", p.hash) } } else { { " (bits changed: a different flow)" } }</p>
        </details>
    }
}
