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
    /// A `net.core` number the tick reads afresh: `netdev_max_backlog`, `netdev_budget`,
    /// `netdev_budget_usecs`, `dev_weight`, `rmem_default`, `rmem_max`.
    Core(CoreSysctl, u32),
    /// `/proc/irq/N/smp_affinity_list` of an RX queue's vector.
    IrqAffinity {
        /// The RX queue.
        queue: u16,
        /// The CPUs its interrupt may run on.
        cpus: CpuSet,
    },
}

/// The `net.core` numbers of [`Setting::Core`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoreSysctl {
    /// `netdev_max_backlog`: from the next tick, the backlogs' bound.
    NetdevMaxBacklog,
    /// `netdev_budget`: packets a `net_rx_action` run may take.
    NetdevBudget,
    /// `netdev_budget_usecs`: the time a run may take.
    NetdevBudgetUsecs,
    /// `dev_weight`: packets a NAPI poll may take.
    DevWeight,
    /// `rmem_default`: the buffer of sockets made from now on.
    RmemDefault,
    /// `rmem_max`: the most `SO_RCVBUF` may ask from now on.
    RmemMax,
}

impl CoreSysctl {
    /// Every one, with its sysctl name (`net.core.NAME`).
    pub const ALL: [(CoreSysctl, &'static str); 6] = [
        (CoreSysctl::NetdevMaxBacklog, "netdev_max_backlog"),
        (CoreSysctl::NetdevBudget, "netdev_budget"),
        (CoreSysctl::NetdevBudgetUsecs, "netdev_budget_usecs"),
        (CoreSysctl::DevWeight, "dev_weight"),
        (CoreSysctl::RmemDefault, "rmem_default"),
        (CoreSysctl::RmemMax, "rmem_max"),
    ];

    /// The field of the host's configuration it is.
    fn field(self, cfg: &mut crate::config::HostConfig) -> &mut u32 {
        match self {
            CoreSysctl::NetdevMaxBacklog => &mut cfg.netdev_max_backlog,
            CoreSysctl::NetdevBudget => &mut cfg.netdev_budget,
            CoreSysctl::NetdevBudgetUsecs => &mut cfg.netdev_budget_usecs,
            CoreSysctl::DevWeight => &mut cfg.dev_weight,
            CoreSysctl::RmemDefault => &mut cfg.rmem_default,
            CoreSysctl::RmemMax => &mut cfg.rmem_max,
        }
    }
}

impl Sim {
    /// The host's configuration with `which` set to `value`, checked by the configuration's
    /// own ranges (the sysctl's handler's: net/core/sysctl_net_core.c).
    fn with_core(&self, which: CoreSysctl, value: u32) -> Result<crate::config::HostConfig, SimError> {
        let mut cfg = self.cfg.clone();
        *which.field(&mut cfg) = value;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The current value of a `net.core` number.
    pub fn core_sysctl(&self, which: CoreSysctl) -> u32 {
        let c = &self.cfg;
        match which {
            CoreSysctl::NetdevMaxBacklog => c.netdev_max_backlog,
            CoreSysctl::NetdevBudget => c.netdev_budget,
            CoreSysctl::NetdevBudgetUsecs => c.netdev_budget_usecs,
            CoreSysctl::DevWeight => c.dev_weight,
            CoreSysctl::RmemDefault => c.rmem_default,
            CoreSysctl::RmemMax => c.rmem_max,
        }
    }
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
            Setting::Core(which, value) => self.with_core(which, value).map(drop),
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
            Setting::Core(which, value) => {
                self.cfg = self.with_core(which, value)?;
                Ok(())
            }
        }
    }
}
