//! The RFS tables (the global `rps_sock_flow_table` and one queue's `rps_dev_flow_table`) and
//! the XPS map, as the kernel holds them.

use std::rc::Rc;

use yew::prelude::*;

use crate::protocol::{RfsView, XpsRow};

/// Properties of [`RfsTables`].
#[derive(Properties, PartialEq)]
pub struct RfsProps {
    /// The view.
    pub rfs: RfsView,
    /// RX queues of the host.
    pub queues: u16,
    /// Another queue was chosen.
    pub on_queue: Callback<u16>,
}

/// The RFS tables panel.
#[component]
pub fn RfsTables(p: &RfsProps) -> Html {
    let r = &p.rfs;
    let select = p.on_queue.reform(|e: Event| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        el.value().parse().unwrap_or(0)
    });
    html! {
        <div data-testid="rfs-tables" class="table-wrap" tabindex="0" role="region" aria-label="RFS tables">
            <p>{ if r.sock_size == 0 { "rps_sock_flow_table: off (net.core.rps_sock_flow_entries = 0)".to_string() }
                 else { format!("rps_sock_flow_table: {} of {} entries hold a reader's CPU", r.sock_used, r.sock_size) } }</p>
            <label>{ "rps_dev_flow_table of " }
                <select data-testid="rfs-queue-select" onchange={select} aria-label="RX queue whose flow table is shown">
                    { for (0..p.queues).map(|q| html! { <option value={q.to_string()} selected={q == r.queue}>{ format!("rx-{q}") }</option> }) }
                </select>
                { format!(" ({} entries)", r.table_size) }
            </label>
            <table>
                <caption>{ format!("{} used entries shown", r.entries.len()) }</caption>
                <thead><tr><th>{ "slot" }</th><th>{ "cpu" }</th><th>{ "filter" }</th><th>{ "last_qtail" }</th></tr></thead>
                <tbody>
                    { for r.entries.iter().map(|(slot, cpu, filter, tail)| html! {
                        <tr><td>{ slot }</td><td>{ cpu }</td><td>{ filter.map_or("–".to_string(), |f| f.to_string()) }</td><td>{ tail }</td></tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// Properties of [`XpsMap`].
#[derive(Properties, PartialEq)]
pub struct XpsProps {
    /// One row per TX queue.
    pub rows: Rc<Vec<XpsRow>>,
}

/// The XPS map: `xps_cpus` as `cat tx-N/xps_cpus` prints it (a hex mask), the same CPUs as a
/// list, and `xps_rxqs`.
#[component]
pub fn XpsMap(p: &XpsProps) -> Html {
    let or_none = |s: &str| {
        if s.is_empty() {
            "none".to_string()
        } else {
            s.to_string()
        }
    };
    html! {
        <table data-testid="xps-map">
            <caption>{ "XPS map: which CPUs (and RX queues) pick each TX queue; CPUs in none fall back to skb_tx_hash" }</caption>
            <thead><tr><th>{ "TX queue" }</th><th>{ "xps_cpus (mask)" }</th><th>{ "CPUs" }</th><th>{ "xps_rxqs" }</th></tr></thead>
            <tbody>
                { for p.rows.iter().map(|r| html! {
                    <tr><td>{ format!("tx-{}", r.queue) }</td><td><code>{ &r.cpus_mask }</code></td><td>{ or_none(&r.cpus) }</td><td>{ or_none(&r.rxqs) }</td></tr>
                }) }
            </tbody>
        </table>
    }
}
