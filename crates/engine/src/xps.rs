//! Transmit queue selection (kernel-semantics §5): `netdev_pick_tx` with the socket's cached
//! queue, XPS by receive queue (`xps_rxqs`) or by sending CPU (`xps_cpus`), and the
//! `skb_tx_hash` fallback whose flow dissection is the cost seed 003 measured.
//!
//! Seed 003 (Paolo Abeni, ixgbe, 2018): with one TX queue per CPU for only some CPUs, a sender
//! on a CPU without a map spends 7.55 % of its cycles in `netdev_pick_tx` (6.35 % in
//! `__skb_tx_hash`, 3.22 % in `__skb_flow_dissect`); with a map, 0.85 %, and netperf UDP_STREAM
//! goes from 11,497,225 to 12,736,058 messages in 10 s (+10.8 %).

use alloc::vec;
use alloc::vec::Vec;

use crate::cpuset::CpuSet;
use crate::rps::reciprocal_scale;

/// How a TX queue was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The socket's cached queue (`sk_tx_queue_get`), no selection ran.
    Cached,
    /// An XPS map (`get_xps_queue`).
    Map,
    /// `skb_tx_hash`: the flow is dissected and hashed.
    Hash,
}

/// XPS maps of one device: for each CPU and each RX queue, the TX queues listed for it in the
/// order they were written (`__netif_set_xps_queue`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Xps {
    by_cpu: Vec<Vec<u16>>,
    by_rxq: Vec<Vec<u16>>,
}

impl Xps {
    /// No maps, for `cpus` CPUs and `rx_queues` RX queues.
    pub fn new(cpus: u16, rx_queues: u16) -> Xps {
        Xps {
            by_cpu: vec![Vec::new(); usize::from(cpus)],
            by_rxq: vec![Vec::new(); usize::from(rx_queues)],
        }
    }

    /// `echo MASK > tx-Q/xps_cpus`: Q is appended to every listed CPU's list (no duplicates)
    /// and removed from the others, the last element moving into the hole
    /// (`remove_xps_queue`). The caller has checked the mask against the host's CPUs.
    pub fn set_cpus(&mut self, txq: u16, cpus: CpuSet) {
        Self::set(&mut self.by_cpu, txq, |i| cpus.contains(i));
    }

    /// `echo MASK > tx-Q/xps_rxqs` (bit i = RX queue i).
    pub fn set_rxqs(&mut self, txq: u16, rxqs: CpuSet) {
        Self::set(&mut self.by_rxq, txq, |i| rxqs.contains(i));
    }

    fn set(maps: &mut [Vec<u16>], txq: u16, listed: impl Fn(u16) -> bool) {
        for (i, list) in maps.iter_mut().enumerate() {
            let pos = list.iter().position(|&q| q == txq);
            match (listed(i as u16), pos) {
                (true, None) => list.push(txq),
                (false, Some(p)) => {
                    list.swap_remove(p);
                }
                _ => {}
            }
        }
    }

    /// `cat tx-Q/xps_cpus`: the CPUs whose list holds Q.
    pub fn cpus_of(&self, txq: u16) -> CpuSet {
        Self::holders(&self.by_cpu, txq)
    }

    /// `cat tx-Q/xps_rxqs`.
    pub fn rxqs_of(&self, txq: u16) -> CpuSet {
        Self::holders(&self.by_rxq, txq)
    }

    /// [`Xps::cpus_of`] and [`Xps::rxqs_of`] of TX queues `0..n` at once: one pass over the
    /// lists instead of one per queue (the page shows 64 queues' maps each frame, and a
    /// 144-CPU host has 144 lists to scan for each).
    pub fn holders_of_first(&self, n: u16) -> Vec<(CpuSet, CpuSet)> {
        let each = |maps: &[Vec<u16>]| {
            let mut sets = vec![CpuSet::EMPTY; usize::from(n)];
            for (i, list) in maps.iter().enumerate() {
                for &q in list {
                    if let Some(set) = sets.get_mut(usize::from(q)) {
                        set.insert(i as u16);
                    }
                }
            }
            sets
        };
        each(&self.by_cpu).into_iter().zip(each(&self.by_rxq)).collect()
    }

    fn holders(maps: &[Vec<u16>], txq: u16) -> CpuSet {
        let mut s = CpuSet::EMPTY;
        for (i, list) in maps.iter().enumerate() {
            if list.contains(&txq) {
                s.insert(i as u16);
            }
        }
        s
    }

    /// Whether any map is configured (`get_xps_queue` returns early otherwise).
    pub fn any(&self) -> bool {
        self.by_cpu.iter().chain(&self.by_rxq).any(|l| !l.is_empty())
    }

    /// Removes every map.
    pub fn clear(&mut self) {
        self.by_cpu
            .iter_mut()
            .chain(self.by_rxq.iter_mut())
            .for_each(Vec::clear);
    }

    /// `get_xps_queue` (net/core/dev.c): the receive-queue map first (with the socket's
    /// recorded RX queue), then the sending CPU's map; among several queues the flow hash
    /// picks (`reciprocal_scale`). Queues at or beyond `tx_queues` do not count.
    pub fn get_queue(&self, sender_cpu: u16, sk_rx_queue: Option<u16>, hash: u32, tx_queues: u16) -> Option<u16> {
        let lookup = |list: Option<&Vec<u16>>| -> Option<u16> {
            let list = list.filter(|l| !l.is_empty())?;
            let q = if list.len() == 1 {
                list[0]
            } else {
                list[reciprocal_scale(hash, list.len() as u32) as usize]
            };
            (q < tx_queues).then_some(q)
        };
        sk_rx_queue
            .and_then(|r| lookup(self.by_rxq.get(usize::from(r))))
            .or_else(|| lookup(self.by_cpu.get(usize::from(sender_cpu))))
    }
}

/// `skb_tx_hash` (net/core/dev.c) without traffic classes: `reciprocal_scale(hash, n)`.
pub const fn skb_tx_hash(hash: u32, tx_queues: u16) -> u16 {
    reciprocal_scale(hash, tx_queues as u32) as u16
}

/// What `netdev_pick_tx` looks at in a packet and its socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxSkb {
    /// The socket's cached queue (`sk_tx_queue_get`).
    pub cached: Option<u16>,
    /// `skb->ooo_okay`: the packet may take another queue without reordering.
    pub ooo_okay: bool,
    /// A connected socket (cached route): the pick is cached.
    pub connected: bool,
    /// The sending CPU (`skb->sender_cpu - 1`).
    pub sender_cpu: u16,
    /// The socket's recorded RX queue (`sk_rx_queue_get`).
    pub sk_rx_queue: Option<u16>,
    /// `skb_get_hash`.
    pub hash: u32,
}

/// `netdev_pick_tx` (net/core/dev.c): the socket's cached queue unless it is unset, out of
/// range or the packet may be reordered (`ooo_okay`); else XPS, else the hash. Returns the
/// queue, how it was chosen, and the new cached queue (the cache is written only for a
/// connected socket, and, v6.18, only when the queue changes).
pub fn pick_tx(xps: &Xps, skb: &TxSkb, tx_queues: u16) -> (u16, Pick, Option<u16>) {
    let TxSkb {
        cached,
        ooo_okay,
        connected,
        sender_cpu,
        sk_rx_queue,
        hash,
    } = *skb;
    if tx_queues <= 1 {
        // netdev_core_pick_tx: one real queue, no selection at all.
        return (0, Pick::Cached, cached);
    }
    if let Some(q) = cached.filter(|&q| !ooo_okay && q < tx_queues) {
        return (q, Pick::Cached, cached);
    }
    let (q, how) = match xps.get_queue(sender_cpu, sk_rx_queue, hash, tx_queues) {
        Some(q) => (q, Pick::Map),
        None => (skb_tx_hash(hash, tx_queues), Pick::Hash),
    };
    (q, how, if connected { Some(q) } else { cached })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The maps of the first queues at once are each queue's, read one by one.
    #[test]
    fn the_first_queues_maps_at_once_are_each_queues() {
        let mut x = Xps::new(8, 4);
        x.set_cpus(0, CpuSet::parse_list("0-3").unwrap());
        x.set_cpus(2, CpuSet::parse_list("2,5,7").unwrap());
        x.set_cpus(5, CpuSet::parse_list("1,6").unwrap());
        x.set_rxqs(2, CpuSet::parse_list("0,3").unwrap());
        x.set_rxqs(7, CpuSet::parse_list("1").unwrap());
        for n in [0, 3, 6, 9] {
            let rows = x.holders_of_first(n);
            assert_eq!(rows.len(), usize::from(n));
            for (q, row) in (0u16..).zip(&rows) {
                assert_eq!(*row, (x.cpus_of(q), x.rxqs_of(q)), "queue {q} of {n}");
            }
        }
        assert!(x.holders_of_first(9)[2].0.contains(5) && x.holders_of_first(9)[7].1.contains(1));
    }

    #[test]
    fn a_cpu_without_a_map_uses_the_hash_pick() {
        // ixgbe before seed 003's patch: 4 TX queues mapped to CPUs 0-3, CPUs 4-7 have none.
        let mut x = Xps::new(8, 4);
        for q in 0..4 {
            x.set_cpus(q, CpuSet::range(q, q + 1));
        }
        let h = 0x9e37_79b9;
        assert_eq!(
            pick_tx(
                &x,
                &TxSkb {
                    cached: None,
                    ooo_okay: false,
                    connected: false,
                    sender_cpu: 2,
                    sk_rx_queue: None,
                    hash: h
                },
                4
            ),
            (2, Pick::Map, None)
        );
        assert_eq!(
            pick_tx(
                &x,
                &TxSkb {
                    cached: None,
                    ooo_okay: false,
                    connected: false,
                    sender_cpu: 6,
                    sk_rx_queue: None,
                    hash: h
                },
                4
            ),
            (skb_tx_hash(h, 4), Pick::Hash, None)
        );
        assert_eq!(x.cpus_of(2), CpuSet::range(2, 3));
    }

    #[test]
    fn cache_ooo_okay_and_rxqs_order() {
        let mut x = Xps::new(4, 4);
        x.set_rxqs(3, CpuSet::range(1, 2));
        x.set_cpus(0, CpuSet::range(0, 4));
        // The RX-queue map wins over the CPU map.
        assert_eq!(
            pick_tx(
                &x,
                &TxSkb {
                    cached: None,
                    ooo_okay: false,
                    connected: true,
                    sender_cpu: 0,
                    sk_rx_queue: Some(1),
                    hash: 7
                },
                4
            ),
            (3, Pick::Map, Some(3))
        );
        // A connected socket keeps its queue until ooo_okay.
        assert_eq!(
            pick_tx(
                &x,
                &TxSkb {
                    cached: Some(3),
                    ooo_okay: false,
                    connected: true,
                    sender_cpu: 0,
                    sk_rx_queue: None,
                    hash: 7
                },
                4
            ),
            (3, Pick::Cached, Some(3))
        );
        assert_eq!(
            pick_tx(
                &x,
                &TxSkb {
                    cached: Some(3),
                    ooo_okay: true,
                    connected: true,
                    sender_cpu: 0,
                    sk_rx_queue: None,
                    hash: 7
                },
                4
            ),
            (0, Pick::Map, Some(0))
        );
        // Several queues for one CPU: list order is write order; the hash picks among them.
        x.set_cpus(2, CpuSet::range(0, 1));
        assert_eq!(x.get_queue(0, None, 0, 4), Some(0));
        assert_eq!(x.get_queue(0, None, u32::MAX, 4), Some(2));
        // Removal moves the last element into the hole.
        x.set_cpus(0, CpuSet::EMPTY);
        assert_eq!(x.get_queue(0, None, 0, 4), Some(2));
        x.clear();
        assert!(!x.any());
    }
}
