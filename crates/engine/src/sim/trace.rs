//! A flow's whole path as the engine would take it now, explained step by step: the tuple
//! bytes hashed, the Toeplitz hash, the indirection-table index, the NIC's queue choice and why,
//! the IRQ CPU, the XDP verdict and cost, tc, the RPS/RFS decision and why, the reader's CPU.
//! Read only: computing a trace changes nothing.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::records::RpsWhy;
use super::rfs::{decide_rps, RfsTables};
use super::{QueueRule, Sim};
use crate::rps::NO_CPU;
use crate::rss::hash_input;
use crate::tc::SwResult;

/// One flow's path, for the page's trace panel.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowTrace {
    /// The tuple as `proto src:sport -> dst:dport`.
    pub tuple: String,
    /// The bytes the NIC hashes (kernel-semantics §1.2 order).
    pub hash_input: Vec<u8>,
    /// Which fields (`sdfn` letters of `ethtool -N rx-flow-hash`).
    pub fields: String,
    /// The Toeplitz hash.
    pub hash: u32,
    /// `hash & (table size - 1)`.
    pub reta_index: u32,
    /// The table's queue at that index.
    pub reta_queue: u16,
    /// The queue the NIC picks now.
    pub queue: u16,
    /// Why that queue (ntuple rule, aRFS filter, ATR filter, RSS).
    pub queue_why: String,
    /// CPU of the queue's IRQ (where the driver's poll runs).
    pub irq_cpu: u16,
    /// XDP verdict and per-packet cost, if a program is loaded.
    pub xdp: Option<String>,
    /// tc ingress result, if a block exists.
    pub tc: Option<String>,
    /// The CPU whose backlog gets the packet (`None`: processed on the IRQ CPU).
    pub rps_cpu: Option<u16>,
    /// Why (get_rps_cpu's branch).
    pub rps_why: String,
    /// The reading thread's CPU, if the socket has a reader.
    pub reader_cpu: Option<u16>,
    /// Whether waking it from another CPU sends an IPI: its idle CPU does not poll
    /// (`host.idle = halt`).
    pub wake_ipi: bool,
}

impl Sim {
    /// The path of flow `f` now (`None` if no such flow).
    pub fn trace_flow(&self, f: u32) -> Option<FlowTrace> {
        let fl = self.flows.get(f as usize).filter(|_| !self.flow_closed(f))?;
        let fi = f as usize;
        let key = &self.info[fi].key;
        let fields = self.hash_fields[key.flow_type().index()];
        let (input, len) = hash_input(key, fields);
        let letters: String = [
            (fields.src_ip, 's'),
            (fields.dst_ip, 'd'),
            (fields.src_port, 'f'),
            (fields.dst_port, 'n'),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, c)| *c)
        .collect();
        let (queue, rule) = self.rx_queue(fi);
        let queue_why = match rule {
            QueueRule::Ntuple => format!("an ntuple rule sends it to rx-{queue} (exact filters come before RSS)"),
            QueueRule::Arfs => format!("an aRFS filter programmed by the driver sends it to rx-{queue}"),
            QueueRule::Atr => {
                format!("an ixgbe ATR signature filter (sampled from its transmits) sends it to rx-{queue}")
            }
            QueueRule::Rss => format!(
                "RSS: indirection table entry {} says rx-{queue}",
                self.reta.index(fl.nic_hash)
            ),
        };
        let irq_cpu = self.queues[usize::from(queue)].irq_cpu;
        let xdp = self.xdp.as_ref().map(|(p, c)| {
            let ps = self.cfg.costs.driver_rx_ps + c.kfunc_ps;
            format!(
                "{} ({} strategy): {} kfunc calls, {} not supported, verdict {}, {}.{:02} ns/pkt",
                p.name,
                p.strategy,
                c.calls,
                c.unsupported,
                p.action,
                ps / 1000,
                ps % 1000 / 10
            )
        });
        let tc = self.tc.as_ref().map(|b| {
            let c = b.classify(key);
            match c.sw {
                SwResult::DroppedInHw => "dropped in the NIC by an offloaded (in_hw) filter".into(),
                SwResult::Bypassed { missed: true } => "block bypassed in software (counters say every filter is skip_sw): a software filter that matches was skipped".into(),
                SwResult::Bypassed { missed: false } => "block bypassed in software; no software filter would match".into(),
                SwResult::Classified { action: Some(a), walked, .. } => format!("classified in software: {a} after {walked} filters"),
                SwResult::Classified { action: None, walked, .. } => format!("classified in software: no match after {walked} filters"),
            }
        });
        let reader_cpu = self.threads.get(fl.first_reader as usize).map(|t| t.cpu);
        let (rps_cpu, rps_why) = self.explain_rps(queue, fi);
        Some(FlowTrace {
            tuple: format!("{key}"),
            hash_input: input[..len].to_vec(),
            fields: letters,
            hash: fl.nic_hash,
            reta_index: self.reta.index(fl.nic_hash),
            reta_queue: self.reta.queue(fl.nic_hash),
            queue,
            queue_why,
            irq_cpu,
            xdp,
            tc,
            rps_cpu,
            rps_why,
            reader_cpu,
            wake_ipi: self.cfg.idle == crate::config::Idle::Halt,
        })
    }

    /// get_rps_cpu's decision for a packet of flow `f` on queue `q`, from the same function
    /// the receive path asks ([`decide_rps`]), with the backlog heads as they stand (read only).
    fn explain_rps(&self, q: u16, f: usize) -> (Option<u16>, String) {
        let rfs = RfsTables {
            kernel: self.cfg.kernel,
            cpu_mask: self.cpu_mask,
            ncpus: self.cfg.cpus,
        };
        let c = decide_rps(
            &rfs,
            &self.queues[usize::from(q)],
            q,
            self.flows[f].skb_hash,
            self.sock_ent(f),
            |cpu| self.cpus[usize::from(cpu)].backlog.head(),
        );
        let plain = |why: &str| match c.cpu {
            None => format!("{why}no RPS map: processed on the IRQ CPU"),
            Some(cpu) => format!("{why}RPS: the hash's high bits pick CPU {cpu} of rps_cpus (reciprocal_scale)"),
        };
        let why = match c.why {
            RpsWhy::Off => "no RPS map and no RFS table on this queue: processed on the IRQ CPU".into(),
            RpsWhy::NoHash => "the packet has no flow hash: processed on the IRQ CPU".into(),
            RpsWhy::RpsOnly => plain(""),
            RpsWhy::RfsOff => plain("RFS is off (rps_sock_flow_entries = 0); "),
            RpsWhy::NotRecorded => plain("RFS: rps_sock_flow_table holds another flow's entry (or none) for this hash; "),
            RpsWhy::Recorded { .. } if c.stamp.is_none() => plain("RFS: the recorded CPU is not valid; "),
            RpsWhy::Recorded { slot, was, next } if was == next => format!("RFS: the socket was last read on CPU {next} and flow table slot {slot} already points there"),
            RpsWhy::Recorded { slot, was: NO_CPU, next } => format!("RFS: the reader is on CPU {next}; slot {slot} holds no CPU yet (RPS_NO_CPU), so set_rps_cpu points it there"),
            RpsWhy::Recorded { slot, was, next } if c.switch.is_some() => format!("RFS: the reader is on CPU {next}; slot {slot} said CPU {was} and that CPU has processed this flow's packets, so set_rps_cpu moves it"),
            RpsWhy::Recorded { slot, was, next } => format!("RFS: the reader moved to CPU {next}; slot {slot} stays on CPU {was} until that CPU has processed this flow's queued packets (in-order rule)"),
        };
        (c.cpu, why)
    }
}
