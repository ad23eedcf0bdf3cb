//! Why a value or a command was refused. The state is unchanged in every case.

use alloc::string::String;
use core::fmt;

use crate::flow::FlowKey;
use crate::rss::RetaError;
use crate::tc::TcError;

/// A refused configuration value: which field, what was given, what is accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Field path, e.g. `rfs.flow_cnt`.
    pub field: String,
    /// What is accepted.
    pub accepted: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: out of range (accepted: {})", self.field, self.accepted)
    }
}

/// Why a command was refused. The state is unchanged. Callers match on the variant: the
/// console words each as its tool words the errno, and does not check an engine rule itself;
/// the text (`Display`) is what the scenario loader and the CLI print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// A value is out of range.
    Config(ConfigError),
    /// The indirection table could not be set.
    Reta(RetaError),
    /// A tc command the block refused.
    Tc(TcError),
    /// No thread with this id.
    NoThread(u32),
    /// A thread may not run on this CPU (`sched_setaffinity`).
    NotInCpuset {
        /// The thread.
        tid: u32,
        /// The CPU asked for.
        cpu: u16,
        /// Its cpuset, as a CPU list (`0-3,8`).
        cpuset: String,
    },
    /// A flow names a reader thread that does not exist.
    NoReader(u32),
    /// A sending flow without a thread to send from.
    SenderWithoutThread,
    /// The tuple is taken by another flow.
    FlowExists(FlowKey),
    /// No flow with this id.
    NoFlow(u32),
    /// The flow's connection is already closed.
    FlowClosed(u32),
    /// The tuple is a closed flow's.
    TimeWait(FlowKey),
    /// A batch of flows gives the same tuple twice.
    FlowGivenTwice(FlowKey),
    /// `ethtool -N` while `ntuple` is off.
    NtupleOff,
    /// No free location in the rule table (ethtool's `rmgr_find_empty_slot`).
    NtupleTableFull,
    /// A rule's location is outside the rule table.
    NtupleLocation {
        /// The location asked for.
        loc: u32,
        /// The table's locations (`0..slots`).
        slots: u32,
    },
    /// A rule's action names an RX queue the device does not have.
    NtupleQueue {
        /// The queue asked for (saturated: a ring cookie past `u16` is `u16::MAX`).
        queue: u16,
        /// The device's RX queues.
        rx_queues: u16,
    },
    /// ice: the Flow Director space that ntuple rules share with aRFS is full (`-ENOSPC`).
    FdirFull,
    /// ice: a partial-mask rule would change the input set of a flow type whose perfect
    /// (4-tuple) aRFS filters are active (`-EINVAL`).
    ArfsUsesFlowType(crate::flow::FlowType),
    /// No rule at this location.
    NoRule(u32),
    /// `ethtool -L` with no channel at all.
    NoChannels,
    /// `ethtool -L` past the device's maximum (one channel per CPU).
    TooManyChannels {
        /// The device's maximum.
        max: u16,
    },
    /// `ethtool -L` would drop a queue a user-set indirection table uses: the highest queue
    /// it names (the kernel's `max_rxfh_in_use`).
    RetaUsesQueue(u16),
    /// `ethtool -L` would drop a queue an ntuple rule sends to.
    RuleUsesQueue {
        /// The rule's location.
        loc: u32,
        /// Its queue.
        queue: u16,
    },
    /// `tc qdisc add … ingress` when the device has one.
    QdiscExists,
    /// `tc qdisc del … ingress` when the device has none.
    NoQdisc,
    /// A tc filter command without an ingress block.
    NoIngressBlock,
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Config(e) => e.fmt(f),
            SimError::Reta(e) => e.fmt(f),
            SimError::Tc(e) => e.fmt(f),
            SimError::NoThread(tid) => write!(f, "no thread {tid}"),
            SimError::NotInCpuset { tid, cpu, cpuset } => {
                write!(f, "CPU {cpu} is not in thread {tid}'s cpuset {cpuset}")
            }
            SimError::NoReader(tid) => write!(f, "flow reader: no thread {tid}"),
            SimError::SenderWithoutThread => f.write_str("a sending flow needs a thread: its first reader sends"),
            SimError::FlowExists(key) => write!(f, "flow {key} already exists"),
            SimError::NoFlow(id) => write!(f, "no flow {id}"),
            SimError::FlowClosed(id) => write!(f, "flow {id} is already closed"),
            SimError::TimeWait(key) => write!(
                f,
                "flow {key} was closed: its tuple is in TIME_WAIT (take another source port)"
            ),
            SimError::FlowGivenTwice(key) => write!(f, "flow {key} is given twice"),
            SimError::NtupleOff => f.write_str("ntuple filters are off (ethtool -K DEV ntuple on)"),
            SimError::NtupleTableFull => f.write_str("rmgr: Cannot find appropriate slot to insert rule"),
            SimError::NtupleLocation { loc, slots } => {
                write!(f, "location {loc} is outside the rule table (0..={})", slots - 1)
            }
            SimError::NtupleQueue { queue, rx_queues } => {
                write!(f, "action {queue}: the device's RX queues are 0..={}", rx_queues.saturating_sub(1))
            }
            SimError::FdirFull => f.write_str(
                "rmgr: Cannot insert RX class rule: No space left on device (ice: the Flow Director filters shared with aRFS are all in use)",
            ),
            SimError::ArfsUsesFlowType(t) => write!(
                f,
                "rmgr: Cannot insert RX class rule: Invalid argument (ice: aRFS using perfect flow type {}, cannot change input set)",
                t.name()
            ),
            SimError::NoRule(loc) => write!(f, "no rule at location {loc}"),
            SimError::NoChannels => f.write_str("combined: at least one channel"),
            SimError::TooManyChannels { max } => write!(f, "combined: at most {max} channels (one per CPU)"),
            SimError::RetaUsesQueue(q) => write!(
                f,
                "the indirection table uses queue {q}: reset it first (ethtool -X eth0 default)"
            ),
            SimError::RuleUsesQueue { loc, queue } => {
                write!(f, "ntuple rule {loc} sends to queue {queue}: delete it first")
            }
            SimError::QdiscExists => f.write_str("Exclusivity flag on, cannot modify."),
            SimError::NoQdisc => f.write_str("Cannot find specified qdisc on specified device."),
            SimError::NoIngressBlock => f.write_str("no ingress qdisc (tc qdisc add dev DEV ingress)"),
        }
    }
}

impl From<TcError> for SimError {
    fn from(e: TcError) -> Self {
        SimError::Tc(e)
    }
}

impl From<ConfigError> for SimError {
    fn from(e: ConfigError) -> Self {
        SimError::Config(e)
    }
}

pub(crate) fn range_err(field: &str, accepted: &str) -> SimError {
    SimError::Config(ConfigError {
        field: field.into(),
        accepted: accepted.into(),
    })
}
