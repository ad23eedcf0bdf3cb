//! steerlab-engine: a deterministic simulator of how a Linux host steers packets over NIC
//! queues and CPUs.
//!
//! The engine is a pure state machine: no I/O, no clock (time is passed in as [`Nanos`]), no
//! global state, one seeded portable generator ([`rng::Rng`]). The same configuration, commands
//! and seed give the same results on every target.
#![forbid(unsafe_code)]
#![no_std]
#![warn(missing_docs)]

extern crate alloc;

pub mod arfs;
pub mod backlog;
pub mod config;
pub mod costs;
pub mod cpuset;
pub mod driver;
pub mod error;
pub mod flow;
pub mod flow_limit;
pub mod kernel;
pub mod ledger;
pub mod metrics;
pub mod names;
pub mod ntuple;
pub mod rng;
pub mod rps;
pub mod rss;
pub mod sim;
pub mod tc;
pub mod time;
pub mod toeplitz;
pub mod xdp;
pub mod xps;

pub use config::{HostConfig, Idle, Mode, RecordPolicy, XpsMap};
pub use cpuset::{CpuSet, Cpus};
pub use driver::Driver;
pub use error::{ConfigError, SimError};
pub use flow::{FlowKey, FlowType, Proto};
pub use kernel::Kernel;
pub use names::NamedEnum;
pub use ntuple::NtupleRule;
pub use sim::{
    truesize, CoreSysctl, DropPoint, FlowSpec, FlowTrace, FlowView, History, Prediction, QueueRule, RpsPrediction,
    SenderView, Setting, Sim, Snapshot, SocketView, ThreadSpec, TxSpec, IRQBALANCE_INTERVAL,
};
pub use time::Nanos;
