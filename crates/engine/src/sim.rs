//! The simulator: the only place that decides the order of the pipeline's stages.

use core::fmt;

use alloc::vec::Vec;

use crate::flow::FlowKey;
use crate::rss::{rss_hash, HashFields, Reta, RetaError};
use crate::time::Nanos;
use crate::toeplitz::{ToeplitzTable, MS_VERIFICATION_KEY};

/// A host with one multi-queue NIC and its flows.
#[derive(Clone, Debug)]
pub struct Sim {
    now: Nanos,
    toeplitz: ToeplitzTable,
    reta: Reta,
    rx_queues: u16,
    flows: Vec<Flow>,
    rx_packets: Vec<u64>,
}

#[derive(Clone, Debug)]
struct Flow {
    key: FlowKey,
    hash: u32,
    rate_pps: u64,
    /// Packets offered so far (so that fractional rates accumulate exactly).
    sent: u64,
    since: Nanos,
}

/// Why a command was refused. The state is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// The indirection table could not be set.
    Reta(RetaError),
    /// A value is out of its accepted range.
    OutOfRange {
        /// The field.
        field: &'static str,
        /// What is accepted.
        accepted: &'static str,
    },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Reta(e) => e.fmt(f),
            SimError::OutOfRange { field, accepted } => write!(f, "{field} out of range (accepted: {accepted})"),
        }
    }
}

/// What the host looks like now: plain data for the UI and tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// Simulated time.
    pub now: Nanos,
    /// Packets received per RX queue.
    pub rx_packets: Vec<u64>,
    /// Number of flows.
    pub flows: u32,
    /// The RX queue of every flow, in the order they were added.
    pub flow_queues: Vec<u16>,
}

impl Sim {
    /// A host with `rx_queues` queues and a 128-entry default indirection table, hashing with
    /// the Microsoft verification key.
    pub fn new(rx_queues: u16) -> Result<Sim, SimError> {
        if !(1..=512).contains(&rx_queues) {
            return Err(SimError::OutOfRange { field: "rx_queues", accepted: "1..=512" });
        }
        let reta = Reta::new_default(128, u32::from(rx_queues)).map_err(SimError::Reta)?;
        Ok(Sim {
            now: Nanos::ZERO,
            toeplitz: ToeplitzTable::new(&MS_VERIFICATION_KEY),
            reta,
            rx_queues,
            flows: Vec::new(),
            rx_packets: alloc::vec![0; usize::from(rx_queues)],
        })
    }

    /// Starts a flow of `rate_pps` packets per second.
    pub fn add_flow(&mut self, key: FlowKey, rate_pps: u64) -> Result<u32, SimError> {
        if !(1..=100_000_000).contains(&rate_pps) {
            return Err(SimError::OutOfRange { field: "rate_pps", accepted: "1..=100000000" });
        }
        let hash = rss_hash(&self.toeplitz, &key, HashFields::FOUR_TUPLE);
        self.flows.push(Flow { key, hash, rate_pps, sent: 0, since: self.now });
        Ok(self.flows.len() as u32 - 1)
    }

    /// `ethtool -X equal n`.
    pub fn set_reta_equal(&mut self, n: u32) -> Result<(), SimError> {
        self.reta = self.reta.equal(n, 0, u32::from(self.rx_queues)).map_err(SimError::Reta)?;
        Ok(())
    }

    /// Runs every packet due up to `until`.
    pub fn advance_to(&mut self, until: Nanos) {
        if until <= self.now {
            return;
        }
        for flow in &mut self.flows {
            let elapsed = u128::from(until.0 - flow.since.0);
            let due = (elapsed * u128::from(flow.rate_pps) / 1_000_000_000) as u64;
            let n = due - flow.sent;
            flow.sent = due;
            self.rx_packets[usize::from(self.reta.queue(flow.hash))] += n;
        }
        self.now = until;
    }

    /// The current state as plain data.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            now: self.now,
            rx_packets: self.rx_packets.clone(),
            flows: self.flows.len() as u32,
            flow_queues: self.flows.iter().map(|f| self.reta.queue(f.hash)).collect(),
        }
    }

    /// The flows' tuples.
    pub fn flow_keys(&self) -> impl Iterator<Item = &FlowKey> {
        self.flows.iter().map(|f| &f.key)
    }
}
