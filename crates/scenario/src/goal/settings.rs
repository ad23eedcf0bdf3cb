//! A goal's part that names a setting of the host: what a learner changed, read back from the
//! engine as the host has it now (the same values `ethtool`, `sysctl` and `cat` print). A
//! goal "on the mechanism" names the knob the lesson is about (`rfs.record` is `cpuset`) and
//! the ones a shortcut would turn (`net.core.rps_sock_flow_entries` stays above 0: RFS on).

use std::fmt;

use steerlab_engine::{CoreSysctl, HostConfig, Sim};

/// A setting a goal may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostSetting {
    /// `nic.driver`: the driver model (`nic driver`).
    Driver,
    /// `kernel`: the kernel generation (`kernel`).
    Kernel,
    /// `rfs.record`: when readers record their CPU (`rfs record`).
    Record,
    /// `tc.counting`: the tc block's bypass counting (`tc counting`).
    Counting,
    /// `xdp.program`: the attached XDP program's name (empty: none).
    XdpProgram,
    /// `xdp.strategy`: how its kfuncs are called (empty: no program).
    XdpStrategy,
    /// `net.core.rps_sock_flow_entries`.
    SockFlowEntries,
    /// `rfs.flow_cnt.min`: the smallest `rps_flow_cnt` of the RX queues (0: RFS is off on
    /// one of them).
    FlowCntMin,
    /// `channels`: RX queues (`ethtool -l`).
    Channels,
    /// `ntuple`: 1 when `ethtool -K DEV ntuple on` (aRFS and ntuple rules), else 0.
    Ntuple,
    /// `ntuple.rules`: `ethtool -N` rules installed.
    NtupleRules,
    /// `rss.indir.Q`: indirection-table entries that name RX queue Q.
    Indir(u16),
    /// `thread.T.cpu`: the CPU thread T runs on.
    ThreadCpu(u32),
    /// `thread.T.migrating`: 1 when thread T migrates on its own (a policy), else 0.
    ThreadMigrating(u32),
    /// `threads.migrating`: how many threads migrate on their own.
    ThreadsMigrating,
    /// `xps.cpu.C`: TX queues whose `xps_cpus` map holds CPU C.
    XpsCpu(u16),
    /// `irq.cpus`: how many CPUs take the RX queues' interrupts (their effective affinity).
    IrqCpus,
    /// `rps.cpus.min`: the fewest CPUs in an RX queue's `rps_cpus` (0: RPS off on one).
    RpsCpusMin,
    /// `net.core.NAME`: a `net.core` number (`netdev_max_backlog`, `netdev_budget`, …).
    Core(CoreSysctl),
    /// `flow.F.work_ns`: flow F's reader's own work per datagram (0: none set).
    FlowWork(u32),
    /// `flow.F.rcvbuf`: flow F's socket's `sk_rcvbuf` (0: its buffer is not modelled).
    FlowRcvbuf(u32),
}

/// A setting's value: a number, or a name.
#[derive(Clone, Debug, PartialEq)]
pub enum SettingValue {
    /// A count, a size, 0 or 1.
    Num(f64),
    /// A named choice (`ice`, `cpuset`).
    Text(String),
}

impl SettingValue {
    /// Whether `self op other`: numbers by value, names equal or not (a name against a
    /// number never holds).
    pub fn compare(&self, op: super::Op, other: &SettingValue) -> bool {
        match (self, other) {
            (SettingValue::Num(a), SettingValue::Num(b)) => op.holds(*a, *b),
            (SettingValue::Text(a), SettingValue::Text(b)) => match op {
                super::Op::Eq => a == b,
                super::Op::Ne => a != b,
                _ => false,
            },
            _ => false,
        }
    }
}

impl fmt::Display for SettingValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingValue::Num(n) => write!(f, "{n}"),
            SettingValue::Text(t) => f.write_str(t),
        }
    }
}

/// The settings with no index, by name.
const NAMED: [(&str, HostSetting); 12] = [
    ("nic.driver", HostSetting::Driver),
    ("kernel", HostSetting::Kernel),
    ("rfs.record", HostSetting::Record),
    ("tc.counting", HostSetting::Counting),
    ("xdp.program", HostSetting::XdpProgram),
    ("xdp.strategy", HostSetting::XdpStrategy),
    ("net.core.rps_sock_flow_entries", HostSetting::SockFlowEntries),
    ("rfs.flow_cnt.min", HostSetting::FlowCntMin),
    ("channels", HostSetting::Channels),
    ("ntuple", HostSetting::Ntuple),
    ("ntuple.rules", HostSetting::NtupleRules),
    ("threads.migrating", HostSetting::ThreadsMigrating),
];

impl HostSetting {
    /// The accepted names, for errors.
    pub const FORMS: &'static str = "nic.driver, kernel, rfs.record, tc.counting, xdp.program, xdp.strategy, net.core.rps_sock_flow_entries, net.core.netdev_max_backlog (and netdev_budget, netdev_budget_usecs, dev_weight, rmem_default, rmem_max), rfs.flow_cnt.min, rps.cpus.min, irq.cpus, channels, ntuple, ntuple.rules, threads.migrating, rss.indir.Q, thread.T.cpu, thread.T.migrating, xps.cpu.C, flow.F.work_ns, flow.F.rcvbuf";

    /// Parses a setting's name.
    pub fn parse(name: &str) -> Result<HostSetting, String> {
        if let Some(&(_, s)) = NAMED.iter().find(|(n, _)| *n == name) {
            return Ok(s);
        }
        match name {
            "irq.cpus" => return Ok(HostSetting::IrqCpus),
            "rps.cpus.min" => return Ok(HostSetting::RpsCpusMin),
            _ => {}
        }
        if let Some(&(c, _)) = name
            .strip_prefix("net.core.")
            .and_then(|n| CoreSysctl::ALL.iter().find(|(_, s)| *s == n))
        {
            return Ok(HostSetting::Core(c));
        }
        let index = |prefix: &str, suffix: &str| -> Option<u32> {
            name.strip_prefix(prefix)?.strip_suffix(suffix)?.parse().ok()
        };
        let small = |n: u32| u16::try_from(n).ok();
        let found = if let Some(q) = index("rss.indir.", "").and_then(small) {
            Some(HostSetting::Indir(q))
        } else if let Some(t) = index("thread.", ".cpu") {
            Some(HostSetting::ThreadCpu(t))
        } else if let Some(t) = index("thread.", ".migrating") {
            Some(HostSetting::ThreadMigrating(t))
        } else if let Some(f) = index("flow.", ".work_ns") {
            Some(HostSetting::FlowWork(f))
        } else if let Some(f) = index("flow.", ".rcvbuf") {
            Some(HostSetting::FlowRcvbuf(f))
        } else {
            index("xps.cpu.", "").and_then(small).map(HostSetting::XpsCpu)
        };
        found.ok_or_else(|| {
            format!(
                "{name:?} is not a setting a goal can name (accepted: {})",
                HostSetting::FORMS
            )
        })
    }

    /// Whether it is a name rather than a number.
    fn named(self) -> bool {
        matches!(
            self,
            HostSetting::Driver
                | HostSetting::Kernel
                | HostSetting::Record
                | HostSetting::Counting
                | HostSetting::XdpProgram
                | HostSetting::XdpStrategy
        )
    }

    /// Whether `value` is of its kind (a name for a named setting, a number else).
    pub fn check_value(self, value: &SettingValue) -> Result<(), String> {
        match (self.named(), value) {
            (true, SettingValue::Text(_)) | (false, SettingValue::Num(_)) => Ok(()),
            (true, _) => Err(format!("{self} is a name: compare it with \"is\"")),
            (false, _) => Err(format!("{self} is a number: compare it with \"value\"")),
        }
    }

    /// Whether it names a part of the host `cfg` describes, with `threads` threads (a thread
    /// that exists, a CPU of the host, a queue the NIC can have).
    pub fn validate(self, cfg: &HostConfig, threads: u32) -> Result<(), String> {
        let max_queues = cfg.cpus.min(steerlab_engine::config::MAX_QUEUES).max(cfg.rx_queues);
        match self {
            HostSetting::ThreadCpu(t) | HostSetting::ThreadMigrating(t) if t >= threads => {
                Err(format!("{self}: the host has {threads} threads"))
            }
            HostSetting::XpsCpu(c) if c >= cfg.cpus => Err(format!("{self}: the host has {} CPUs", cfg.cpus)),
            HostSetting::Indir(q) if q >= max_queues => Err(format!("{self}: the NIC has at most {max_queues} queues")),
            _ => Ok(()),
        }
    }

    /// Its value on `sim` now (`None`: the part it names is not there now: a queue removed
    /// by `ethtool -L`, a thread that is not).
    pub fn read(self, sim: &Sim) -> Option<SettingValue> {
        let cfg = sim.config();
        let num = |n: u64| Some(SettingValue::Num(n as f64));
        let text = |t: &str| Some(SettingValue::Text(t.to_string()));
        let migrating = |t: u32| sim.thread_migration(t).map(|every| u64::from(every.0 > 0));
        match self {
            HostSetting::Driver => text(cfg.driver.name()),
            HostSetting::Kernel => text(cfg.kernel.name()),
            HostSetting::Record => text(cfg.record.name()),
            HostSetting::Counting => text(cfg.tc_counting.name()),
            HostSetting::XdpProgram => text(sim.xdp().map_or("", |p| p.name.as_str())),
            HostSetting::XdpStrategy => text(sim.xdp().map_or("", |p| p.strategy.name())),
            HostSetting::SockFlowEntries => num(u64::from(sim.sock_flow_entries())),
            HostSetting::FlowCntMin => num(u64::from(
                (0..cfg.rx_queues).map(|q| sim.flow_cnt(q)).min().unwrap_or(0),
            )),
            HostSetting::Channels => num(u64::from(cfg.rx_queues)),
            HostSetting::Ntuple => num(u64::from(cfg.ntuple)),
            HostSetting::NtupleRules => num(sim.ntuple_rules().len() as u64),
            HostSetting::Indir(q) => {
                if q >= cfg.rx_queues {
                    return None;
                }
                num(sim.reta().entries().iter().filter(|&&e| e == q).count() as u64)
            }
            HostSetting::ThreadCpu(t) => num(u64::from(sim.thread(t)?.0)),
            HostSetting::ThreadMigrating(t) => num(migrating(t)?),
            HostSetting::ThreadsMigrating => num((0..sim.thread_count()).filter_map(migrating).sum()),
            HostSetting::XpsCpu(c) => num((0..cfg.tx_queues)
                .filter(|&q| sim.xps_cpus(q).is_some_and(|m| m.contains(c)))
                .count() as u64),
            HostSetting::IrqCpus => {
                let mut cpus: Vec<u16> = (0..cfg.rx_queues).filter_map(|q| sim.irq_cpu(q)).collect();
                cpus.sort_unstable();
                cpus.dedup();
                num(cpus.len() as u64)
            }
            HostSetting::RpsCpusMin => num((0..cfg.rx_queues).map(|q| sim.rps_cpus(q).len()).min().unwrap_or(0) as u64),
            HostSetting::Core(c) => num(u64::from(sim.core_sysctl(c))),
            HostSetting::FlowWork(f) => {
                if f >= sim.flow_count() {
                    return None;
                }
                num(sim.socket_view(f).map_or(0, |v| u64::from(v.app_ns)))
            }
            HostSetting::FlowRcvbuf(f) => {
                if f >= sim.flow_count() {
                    return None;
                }
                num(sim.socket_view(f).map_or(0, |v| u64::from(v.rcvbuf)))
            }
        }
    }
}

impl fmt::Display for HostSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((n, _)) = NAMED.iter().find(|(_, s)| s == self) {
            return f.write_str(n);
        }
        match self {
            HostSetting::Indir(q) => write!(f, "rss.indir.{q}"),
            HostSetting::ThreadCpu(t) => write!(f, "thread.{t}.cpu"),
            HostSetting::ThreadMigrating(t) => write!(f, "thread.{t}.migrating"),
            HostSetting::XpsCpu(c) => write!(f, "xps.cpu.{c}"),
            HostSetting::IrqCpus => f.write_str("irq.cpus"),
            HostSetting::RpsCpusMin => f.write_str("rps.cpus.min"),
            HostSetting::Core(c) => {
                let name = CoreSysctl::ALL.iter().find(|(k, _)| k == c).map_or("?", |(_, n)| n);
                write!(f, "net.core.{name}")
            }
            HostSetting::FlowWork(n) => write!(f, "flow.{n}.work_ns"),
            HostSetting::FlowRcvbuf(n) => write!(f, "flow.{n}.rcvbuf"),
            _ => f.write_str("?"),
        }
    }
}
