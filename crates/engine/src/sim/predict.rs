//! Where a tuple's packets would land on this host as it is configured, before any of them has
//! arrived: what `steerlab predict` prints for a real host's capture. Only what the
//! configuration decides is predicted; what depends on history (an aRFS or ATR filter the
//! driver would program once the socket is read or sends, RFS following its reader, a software
//! hash with a boot-random key) is named, not guessed. Read only.

use crate::driver::Driver;
use crate::flow::{FlowKey, Proto};
use crate::ntuple;
use crate::rps::reciprocal_scale;
use crate::rss::HashFields;

use super::Sim;

/// What decides the RPS step for a tuple.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RpsPrediction {
    /// No `rps_cpus` map and no RFS table on the queue: processed on the IRQ CPU.
    Off,
    /// The NIC's L4 hash is the skb hash; `reciprocal_scale` of it picks this CPU of
    /// `rps_cpus` (`get_rps_cpu`, net/core/dev.c).
    Cpu(u16),
    /// The NIC hashed no ports (`rx-flow-hash … sd`), so the driver reports an L3 hash and
    /// `skb_get_hash` computes a software one (`__skb_get_hash`, SipHash with a key drawn at
    /// boot, net/core/flow_dissector.c): any CPU of the map, not predictable from outside.
    SoftwareHash,
    /// The queue has an RFS flow table but no `rps_cpus` map: without a recorded reader the
    /// packet stays on the IRQ CPU.
    RfsOnly,
}

/// A decision that depends on what the flow's sockets have done, so is named rather than
/// predicted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum History {
    /// aRFS: once a reader records its CPU, `set_rps_cpu` asks the driver
    /// (`ndo_rx_flow_steer`) for a filter to that CPU's queue.
    Arfs,
    /// ixgbe ATR: one transmitted TCP packet in `atr_sample_rate` programs a signature filter
    /// to the sending CPU's queue (`ixgbe_atr`).
    Atr,
}

/// One tuple's predicted path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prediction {
    /// The fields the NIC hashes for its flow type.
    pub fields: HashFields,
    /// The NIC's Toeplitz hash.
    pub hash: u32,
    /// `hash & (table size - 1)`.
    pub indir_index: u32,
    /// The RX queue.
    pub queue: u16,
    /// The location of the ntuple rule that decided the queue (`None`: RSS did).
    pub rule: Option<u32>,
    /// The CPU of the queue's IRQ.
    pub irq_cpu: u16,
    /// The RPS step.
    pub rps: RpsPrediction,
    /// RFS is on for the queue (`rps_sock_flow_entries` and `rps_flow_cnt`): a read of the
    /// socket would send its packets to the reader's CPU instead.
    pub rfs: bool,
    /// A filter that history may add and that would then decide the queue.
    pub history: Option<History>,
}

impl Sim {
    /// Where `key`'s packets would land now if none had arrived before (see the module).
    pub fn predict(&self, key: &FlowKey) -> Prediction {
        let fields = self.hash_fields[key.flow_type().index()];
        let (hash, skb_hash) = self.hashes(key);
        let indir_index = self.reta.index(hash);
        let rule = ntuple::rule_for(&self.ntuple, key);
        let queue = rule.map_or_else(|| self.reta.queue(hash), |r| r.queue);
        let rxq = &self.queues[usize::from(queue)];
        let rfs = rxq.table.is_some() && self.sock.is_some();
        let rps = match (rxq.rps_map.is_empty(), rxq.table.is_some()) {
            (true, false) => RpsPrediction::Off,
            (true, true) => RpsPrediction::RfsOnly,
            // hashes() returns the NIC's hash as the skb hash only when it is an L4 one.
            _ if !(fields.is_l4() && hash != 0 && skb_hash == hash) => RpsPrediction::SoftwareHash,
            _ => RpsPrediction::Cpu(rxq.rps_map[reciprocal_scale(hash, rxq.rps_map.len() as u32) as usize]),
        };
        // An ntuple rule comes before aRFS and ATR filters in the NIC's match order.
        let history = match self.cfg.driver {
            _ if rule.is_some() => None,
            Driver::Ice | Driver::IceHashMatch | Driver::Mlx5 if self.cfg.ntuple && rfs => Some(History::Arfs),
            // ixgbe turns ATR off while ntuple filters are on (ixgbe_set_features).
            Driver::Ixgbe if !self.cfg.ntuple && key.proto() == Proto::Tcp => Some(History::Atr),
            _ => None,
        };
        Prediction {
            fields,
            hash,
            indir_index,
            queue,
            rule: rule.map(|r| r.loc),
            irq_cpu: rxq.irq_cpu,
            rps,
            rfs,
            history,
        }
    }
}
