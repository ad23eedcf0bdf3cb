//! A write of one steering knob (a file under `/sys/class/net/DEV/queues`, `/proc/sys/net/core`
//! or `/proc/irq`), checked by the setter's own rule before it is made.
//!
//! What a knob accepts depends only on the host's CPU and queue counts, which no knob changes,
//! so a batch of writes each checked against the host as it is has been checked against the host
//! each write will meet: the console checks a whole line of writes (a `for` loop, a `tee` to many
//! files) this way before the first, and a line that fails changes nothing.

use crate::cpuset::CpuSet;

use super::{rps_config, Sim, SimError};

/// One knob and the value written to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// `rx-Q/rps_cpus`.
    RpsCpus {
        /// The RX queue.
        queue: u16,
        /// Its RPS CPUs.
        cpus: CpuSet,
    },
    /// `rx-Q/rps_flow_cnt`.
    FlowCnt {
        /// The RX queue.
        queue: u16,
        /// Its flow table's entries.
        count: u32,
    },
    /// `tx-Q/xps_cpus`.
    XpsCpus {
        /// The TX queue.
        queue: u16,
        /// The CPUs that send on it.
        cpus: CpuSet,
    },
    /// `tx-Q/xps_rxqs` (bit i = RX queue i).
    XpsRxqs {
        /// The TX queue.
        queue: u16,
        /// The RX queues whose flows send on it.
        rx_queues: CpuSet,
    },
    /// `net.core.rps_sock_flow_entries`.
    SockFlowEntries(u32),
    /// `net.core.flow_limit_cpu_bitmap`.
    FlowLimitCpus(CpuSet),
    /// `net.core.flow_limit_table_len`.
    FlowLimitTableLen(u32),
    /// `/proc/irq/N/smp_affinity_list` of an RX queue's vector.
    IrqAffinity {
        /// The RX queue.
        queue: u16,
        /// The CPUs its interrupt may run on.
        cpus: CpuSet,
    },
}

impl Sim {
    /// Whether `setting` would be accepted, by the rule its setter applies; nothing changes.
    pub fn check_setting(&self, setting: &Setting) -> Result<(), SimError> {
        match *setting {
            Setting::RpsCpus { queue, cpus } => self.check_rps_cpus(Some(queue), cpus),
            Setting::FlowCnt { queue, count } => self.check_flow_cnt(Some(queue), count),
            Setting::XpsCpus { queue, cpus } => self.check_xps_cpus(queue, cpus),
            Setting::XpsRxqs { queue, rx_queues } => self.check_xps_rxqs(queue, rx_queues),
            Setting::SockFlowEntries(n) => rps_config::check_sock_flow_entries(n),
            Setting::FlowLimitCpus(cpus) => self.check_flow_limit_cpus(cpus),
            Setting::FlowLimitTableLen(n) => rps_config::check_flow_limit_table_len(n),
            Setting::IrqAffinity { queue, cpus } => self.check_irq_affinity(queue, cpus),
        }
    }

    /// Makes `setting`; on `Err` (the check of [`Sim::check_setting`]) nothing changed.
    pub fn apply_setting(&mut self, setting: &Setting) -> Result<(), SimError> {
        match *setting {
            Setting::RpsCpus { queue, cpus } => self.set_rps_cpus(Some(queue), cpus),
            Setting::FlowCnt { queue, count } => self.set_flow_cnt(Some(queue), count),
            Setting::XpsCpus { queue, cpus } => self.set_xps_cpus(queue, cpus),
            Setting::XpsRxqs { queue, rx_queues } => self.set_xps_rxqs(queue, rx_queues),
            Setting::SockFlowEntries(n) => self.set_sock_flow_entries(n),
            Setting::FlowLimitCpus(cpus) => self.set_flow_limit_cpus(cpus),
            Setting::FlowLimitTableLen(n) => self.set_flow_limit_table_len(n),
            Setting::IrqAffinity { queue, cpus } => self.set_irq_affinity(queue, cpus),
        }
    }
}
