//! The data of the pictures that draw a lesson's mechanism (teaching.md: "show the
//! mechanism, not only the outcome"): the tc ingress block with where each kind of flow ends
//! (tc-bypass), and the transmit path from the sending thread's CPU through XPS or
//! `skb_tx_hash` to a TX queue (xps-pick-tx). The XDP cost bar's data is [`super::XdpView`].

use serde::{Deserialize, Serialize};
use steerlab_engine::tc::{Action, Classify, SwResult};
use steerlab_engine::time::mul_div;
use steerlab_engine::xps::Pick;
use steerlab_engine::{FlowKey, FlowView, Nanos, Proto};
use steerlab_scenario::teach::figure;

use super::Controller;

/// Where a kind of flow's packets end in the ingress block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TcEnd {
    /// A filter in the NIC dropped them (`skip_sw`, in hardware).
    NicDrop,
    /// A software filter dropped them (`tc_run` classified).
    SwDrop,
    /// Software classification was skipped and a software filter would have dropped them:
    /// they reach the socket (seed 001's flaw).
    Missed,
    /// They reach the socket as they should.
    Socket,
}

/// Flows of one kind (protocol and destination port), as the tc picture labels them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowKind {
    /// `DNS (UDP :53)`.
    pub label: String,
    /// Flows of this kind.
    pub flows: u32,
    /// Their packets per second over the last second.
    pub pps: u64,
    /// Where they end.
    pub end: TcEnd,
}

/// One filter of the block, as `tc filter show` names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcFilterView {
    /// `prio 1 flower ip_proto udp dst_port 53 action drop`.
    pub text: String,
    /// `skip_sw` in hardware: it runs in the NIC only.
    pub in_nic: bool,
    /// It runs in software (not `skip_sw`).
    pub in_sw: bool,
}

/// The ingress block as the tc lesson draws it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcPicture {
    /// `legacy` or `usesw`.
    pub counting: String,
    /// `tc_run` skips software classification for the whole block.
    pub bypass: bool,
    /// Why, from the block's counters.
    pub why: String,
    /// The filters.
    pub filters: Vec<TcFilterView>,
    /// The flows by kind.
    pub kinds: Vec<FlowKind>,
    /// Packets per second: dropped in the NIC, classified in software, bypassed.
    pub rates: [u64; 3],
}

/// One sending socket on the transmit path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxSender {
    /// What sends: `netperf`, `4 × iperf3` (sockets alike are one row).
    pub label: String,
    /// Its thread's CPU.
    pub cpu: u16,
    /// The TX queues the CPU's XPS map lists (empty: no map).
    pub map: Vec<u16>,
    /// How its TX queue was picked: `cached`, `xps` or `hash` (`""` before its first send).
    pub pick: String,
    /// The TX queue.
    pub queue: Option<u16>,
    /// Messages per second over the last second.
    pub msgs: u64,
}

/// The transmit path as the XPS lesson draws it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxPicture {
    /// The senders, in flow order.
    pub senders: Vec<TxSender>,
    /// TX queues.
    pub tx_queues: u16,
    /// What a pick costs, ns: `skb_tx_hash`, an XPS lookup; and a send without its pick.
    pub hash_ns: u64,
    /// An XPS map lookup, ns.
    pub map_ns: u64,
    /// A send, pick excluded, ns.
    pub send_ns: u64,
}

/// A port's usual service, for labels.
fn service(proto: Proto, port: u16) -> Option<&'static str> {
    Some(match (proto, port) {
        (_, 53) => "DNS",
        (Proto::Tcp, 80) => "web",
        (Proto::Tcp, 443) => "TLS",
        (Proto::Tcp, 22) => "ssh",
        (Proto::Tcp, 5201) => "iperf3",
        (_, 12865) => "netperf",
        _ => return None,
    })
}

/// What a flow is, in a word: its service (`DNS`), else `udp:5353`.
pub(super) fn short_kind(key: &FlowKey) -> String {
    match service(key.proto(), key.dport()) {
        Some(s) => s.to_string(),
        None => format!(
            "{}:{}",
            if key.proto() == Proto::Udp { "udp" } else { "tcp" },
            key.dport()
        ),
    }
}

/// `DNS (UDP :53)`, or `UDP :5353` without a known service.
fn kind_label(key: &FlowKey) -> String {
    let proto = if key.proto() == Proto::Udp { "UDP" } else { "TCP" };
    match service(key.proto(), key.dport()) {
        Some(s) => format!("{s} ({proto} :{})", key.dport()),
        None => format!("{proto} :{}", key.dport()),
    }
}

/// Where a packet the block classified like `c` ends.
fn end_of(c: &Classify) -> TcEnd {
    match c.sw {
        SwResult::DroppedInHw => TcEnd::NicDrop,
        SwResult::Bypassed { missed: true } => TcEnd::Missed,
        SwResult::Classified {
            action: Some(Action::Drop),
            ..
        } => TcEnd::SwDrop,
        _ => TcEnd::Socket,
    }
}

impl Controller {
    /// Packets per second of each of `flows` (the open flows, `view::open_flows`) over the
    /// last second, in their order (`None` before the matrix has a second's sample).
    fn flow_rates(&self, flows: &[(u32, FlowView)]) -> Option<Vec<u64>> {
        let start_ns = self.matrix.start_ns(self.sim.now().0)?;
        let span = (self.sim.now().0 - start_ns).max(1);
        Some(
            flows
                .iter()
                .map(|&(f, v)| {
                    let before = self.sim.flow_sent_at(f, Nanos(start_ns)).unwrap_or(0);
                    let n = v.packets.saturating_sub(before);
                    mul_div(n, 1_000_000_000, span)
                })
                .collect(),
        )
    }

    /// The ingress block's picture (`None` without an ingress qdisc); `flows` are the open
    /// flows.
    pub(super) fn tc_picture(&self, flows: &[(u32, FlowView)]) -> Option<TcPicture> {
        let block = self.sim.tc_block()?;
        let rates = self.flow_rates(flows).unwrap_or_default();
        let mut kinds: Vec<(FlowKey, FlowKind)> = Vec::new();
        for (&(f, _), &pps) in flows.iter().zip(&rates) {
            let Some(key) = self.sim.flow_key(f) else { continue };
            let label = kind_label(&key);
            match kinds.iter_mut().find(|(_, k)| k.label == label) {
                Some((_, k)) => {
                    k.flows += 1;
                    k.pps += pps;
                }
                None => kinds.push((
                    key,
                    FlowKind {
                        label,
                        flows: 1,
                        pps,
                        end: end_of(&block.classify(&key)),
                    },
                )),
            }
        }
        let filters = block
            .filters()
            .iter()
            .map(|f| {
                let flags = match (f.skip_sw, f.skip_hw) {
                    (true, _) => " skip_sw",
                    (_, true) => " skip_hw",
                    _ => "",
                };
                TcFilterView {
                    text: format!("prio {} flower{flags} {} action {}", f.prio, f.matches, f.action.name()),
                    in_nic: f.in_hw,
                    in_sw: !f.skip_sw,
                }
            })
            .collect();
        let why = match block.counting().name() {
            "legacy" => format!(
                "legacy counting: filtercnt {} {} skipswcnt {}",
                block.filtercnt(),
                if block.bypass_sw() { "==" } else { "!=" },
                block.skipswcnt()
            ),
            _ => format!(
                "usesw counting: {} tcf_proto{} with a software filter",
                block.useswcnt(),
                if block.useswcnt() == 1 { "" } else { "s" }
            ),
        };
        let samples = self.history.samples();
        let now = samples.last().map_or(0, |(t, _)| *t);
        let rate = |m: &str| figure(samples, m, true, now).unwrap_or(0.0).max(0.0) as u64;
        Some(TcPicture {
            counting: block.counting().name().to_string(),
            bypass: block.bypass_sw(),
            why,
            filters,
            kinds: kinds.into_iter().map(|(_, k)| k).collect(),
            rates: [rate("tc.hw_drop"), rate("tc.sw_classified"), rate("tc.bypassed")],
        })
    }

    /// The host in words, for a screen reader (the wire view and the matrix are pictures):
    /// the traffic of the last second, its busiest RX queues with their share processed off
    /// the reader's CPU, the busiest CPUs' softirq load, and aRFS's activity.
    /// `flows` are the open flows (`view::open_flows`).
    pub(super) fn host_text(&self, cpus: &[super::CpuView], flows: &[(u32, FlowView)]) -> String {
        let rates = self.flow_rates(flows);
        // Per RX queue: packets per second, and of them processed off the reader's CPU.
        let mut queues = vec![(0u64, 0u64); flows.iter().map(|(_, v)| usize::from(v.queue) + 1).max().unwrap_or(0)];
        for (i, (_, v)) in flows.iter().enumerate() {
            let pps = rates.as_ref().map_or(0, |r| r[i]);
            let q = &mut queues[usize::from(v.queue)];
            q.0 += pps;
            if v.away_from_reader() {
                q.1 += pps;
            }
        }
        let (total, off): (u64, u64) = queues.iter().fold((0, 0), |a, q| (a.0 + q.0, a.1 + q.1));
        let pct = |part: u64, of: u64| part * 100 / of.max(1);
        let mut busiest: Vec<(u16, (u64, u64))> = (0u16..).zip(queues).filter(|(_, q)| q.0 > 0).collect();
        // Queue and CPU numbers break ties: unstable sorts order these as stable ones would.
        busiest.sort_unstable_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(&b.0)));
        let queues_text: Vec<String> = busiest
            .iter()
            .take(6)
            .map(|(q, (n, r))| format!("rx-{q} {n}/s ({} % off the reader's CPU)", pct(*r, *n)))
            .collect();
        let mut hot: Vec<&super::CpuView> = cpus.iter().filter(|c| c.softirq_permille > 0).collect();
        hot.sort_unstable_by(|a, b| b.softirq_permille.cmp(&a.softirq_permille).then(a.index.cmp(&b.index)));
        let cpus_text: Vec<String> = hot
            .iter()
            .take(4)
            .map(|c| {
                format!(
                    "CPU {} {}.{} %",
                    c.index,
                    c.softirq_permille / 10,
                    c.softirq_permille % 10
                )
            })
            .collect();
        let samples = self.history.samples();
        let now = samples.last().map_or(0, |(t, _)| *t);
        let rate = |m: &str| figure(samples, m, true, now).unwrap_or(0.0).max(0.0) as u64;
        let mut text = format!(
            "Host: {} flows, {total} packets/s over the last second, {} % processed off their reader's CPU.",
            flows.len(),
            pct(off, total)
        );
        if !queues_text.is_empty() {
            let more = busiest.len().saturating_sub(6);
            let more = if more > 0 {
                format!(", and {more} more queues")
            } else {
                String::new()
            };
            text += &format!(" Busiest RX queues: {}{more}.", queues_text.join(", "));
        }
        if !cpus_text.is_empty() {
            text += &format!(" Busiest CPUs, softirq: {}.", cpus_text.join(", "));
        }
        let (add, update, expire) = (rate("arfs.add"), rate("arfs.update"), rate("arfs.expire"));
        if add + update + expire > 0 {
            text += &format!(" aRFS per second: {add} filters added, {update} re-pointed, {expire} expired.");
        }
        text
    }

    /// The transmit path's picture (`None` when no socket sends).
    pub(super) fn tx_picture(&self) -> Option<TxPicture> {
        let senders = self.sim.senders_view();
        if senders.is_empty() {
            return None;
        }
        let c = self.sim.config();
        let rates = self.history.sender_rates();
        // Sockets alike (same CPU, kind, pick and queue) are one row.
        let mut rows: Vec<(u32, TxSender)> = Vec::new();
        for (i, s) in senders.iter().enumerate() {
            let kind = self.sim.flow_key(s.flow).map(|k| short_kind(&k)).unwrap_or_default();
            let row = TxSender {
                label: kind,
                cpu: s.cpu,
                map: (0..c.tx_queues)
                    .filter(|&q| self.sim.xps_cpus(q).is_some_and(|set| set.contains(s.cpu)))
                    .collect(),
                pick: match s.last.map(|l| l.1) {
                    Some(Pick::Cached) => "cached",
                    Some(Pick::Map) => "xps",
                    Some(Pick::Hash) => "hash",
                    None => "",
                }
                .to_string(),
                queue: s.last.map(|l| l.0),
                msgs: rates.get(i).copied().unwrap_or(0),
            };
            match rows
                .iter_mut()
                .find(|(_, r)| (r.cpu, &r.label, &r.pick, r.queue) == (row.cpu, &row.label, &row.pick, row.queue))
            {
                Some((n, r)) => {
                    *n += 1;
                    r.msgs += row.msgs;
                }
                None => rows.push((1, row)),
            }
        }
        Some(TxPicture {
            senders: rows
                .into_iter()
                .map(|(n, mut r)| {
                    if n > 1 {
                        r.label = format!("{n} × {}", r.label);
                    }
                    r
                })
                .collect(),
            tx_queues: c.tx_queues,
            hash_ns: c.costs.tx_pick_hash_ns,
            map_ns: c.costs.tx_pick_xps_ns,
            send_ns: c.costs.tx_send_ns,
        })
    }
}
