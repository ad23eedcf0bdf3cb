//! Arrival-to-read latency, minimal and honest: how long a packet waits between reaching the
//! NIC and its read (or the end of its softirq processing, for a reader that keeps up), from
//! what shapes it in the model:
//! - **moderation**: the vector fires `rx-usecs` after the first packet NAPI has not seen, so
//!   a packet that has its interrupt to itself waits the whole interval, and packets sharing
//!   one wait between nothing and the interval (evenly);
//! - **the poll's queue**: a poll takes a run's packets one after another at the CPU's
//!   softirq cost per packet (the ledger's, this tick), so a packet waits for those before it
//!   in its run: evenly between nothing and the run's length;
//! - **a full ring**: on a CPU whose polls ran out of time the ring stays full, and a packet
//!   it takes waits behind a ring's worth (`ring_size` descriptors) at that cost.
//!
//! - **a backlog that backs up**: an RPS target fed more than its CPU processes carries a
//!   queue from tick to tick (backlog.rs `end_tick`), and its packets wait behind it at its
//!   pace (`queued × each`);
//! - **a socket its reader does not keep up with**: what stays in `sk_receive_queue` waits
//!   for the reader's next reads at its pace (`queued × tick / reads`; socket.rs).
//!
//! Each queue's packets of a tick are spread over a 4 × 4 grid of the first two even waits
//! (the convolution sampled); the tick's backlog and socket waits, each with the packets it
//! holds up, are a mixture drawn in proportion over every point (the rest wait for neither).
//! Into a histogram of half-octave buckets that is halved every 125 ms: `latency.p50_ns` and
//! `latency.p99_ns` are of the last few hundred milliseconds, from arrival to the read for a
//! reader with work of its own, to the end of softirq processing for the others.
//!
//! Not in it (stated): a backlog's or a socket's wait within a tick that ends empty (the fluid
//! models of backlog.rs and socket.rs have none), the reader's wake-up, a ring's wait short of
//! full, `ksoftirqd`'s scheduling delay; a packet waits in a backlog or a socket, not both.

use alloc::vec::Vec;

use crate::time::Nanos;

use super::Sim;

/// Half-octave buckets from 64 ns (bucket 0 holds everything below 91 ns) to 2^30 ns.
const BUCKETS: usize = 48;

/// The histogram halves this often, so its quantiles are of the recent past.
const HALF_LIFE: Nanos = Nanos(125_000_000);

/// Recent packet latencies.
#[derive(Clone, Debug)]
pub(super) struct Latency {
    buckets: [u64; BUCKETS],
    next_halving: Nanos,
    /// This tick's waits in backlogs and sockets that back up: (ns, packets held).
    waits: Vec<(u64, u64)>,
}

impl Default for Latency {
    fn default() -> Self {
        Latency {
            buckets: [0; BUCKETS],
            next_halving: HALF_LIFE,
            waits: Vec::new(),
        }
    }
}

/// The bucket of `ns`: two per power of two, from 2^6.
fn bucket(ns: u64) -> usize {
    let ns = ns.max(64);
    let msb = 63 - ns.leading_zeros() as usize;
    let half = ((ns >> (msb - 1)) & 1) as usize;
    ((msb - 6) * 2 + half).min(BUCKETS - 1)
}

/// The middle of bucket `i`, ns.
fn middle(i: usize) -> u64 {
    let (msb, half) = (i / 2 + 6, (i % 2) as u64);
    let lo = (1u64 << msb) + half * (1u64 << (msb - 1));
    lo + (1u64 << (msb - 2))
}

impl Latency {
    fn add(&mut self, ns: u64, count: u64) {
        self.buckets[bucket(ns)] += count;
    }

    /// `packets` of this tick wait `ns` more in a backlog or a socket. Waits that fall in one
    /// bucket are kept as one, at their packets' mean, so that what each queue's samples are
    /// mixed with stays at most [`BUCKETS`] long on a host with a backlog on each of 144 CPUs
    /// (on seed 000 it made no measurable difference: few backlogs carry a queue there).
    pub(super) fn waited(&mut self, ns: u64, packets: u64) {
        let b = bucket(ns);
        match self.waits.iter_mut().find(|(w, _)| bucket(*w) == b) {
            Some((w, n)) => {
                *w = (*w * *n + ns * packets) / (*n + packets);
                *n += packets;
            }
            None => self.waits.push((ns, packets)),
        }
    }

    /// `count` packets that waited `ns` until their softirq ended, each drawn in proportion
    /// into the tick's further waits (`held` packets of `total` are held up; cumulative
    /// shares, so the counts add up to `count`).
    fn add_mixed(&mut self, ns: u64, count: u64, waits: &[(u64, u64)], total: u64) {
        let held: u64 = waits.iter().map(|w| w.1).sum();
        let total = total.max(held).max(1);
        let (mut cum, mut given) = (total - held, count * (total - held) / total);
        self.add(ns, given);
        for &(extra, n) in waits {
            cum += n;
            let upto = count * cum / total;
            self.add(ns + extra, upto - given);
            given = upto;
        }
    }

    /// The latency below which `permille` of the recent packets stayed (`None`: none yet).
    fn quantile(&self, permille: u64) -> Option<u64> {
        let total: u64 = self.buckets.iter().sum();
        if total == 0 {
            return None;
        }
        let want = (total * permille).div_ceil(1000).max(1);
        let mut seen = 0;
        self.buckets.iter().enumerate().find_map(|(i, &n)| {
            seen += n;
            (seen >= want).then(|| middle(i))
        })
    }
}

impl Sim {
    /// The tick's packets into the latency histogram (at the tick's end, after
    /// [`Sim::count_softirq`] counted each queue's interrupts and each CPU's cost per packet).
    pub(super) fn sample_latency(&mut self) {
        let now = Nanos(self.now.0 + self.cfg.tick_ns);
        if now >= self.latency.next_halving {
            self.latency.buckets.iter_mut().for_each(|b| *b /= 2);
            self.latency.next_halving = now.saturating_add(HALF_LIFE);
        }
        let turn = self.now.0 / self.cfg.tick_ns;
        let ring = u64::from(self.cfg.ring_size());
        let waits = core::mem::take(&mut self.latency.waits);
        let total: u64 = self.irqs.iter().map(|i| i.tick.0).sum();
        for (q, irq) in self.queues.iter().zip(&self.irqs) {
            let (n, irqs) = irq.tick;
            if n == 0 {
                continue;
            }
            let moderation = self.cfg.moderation_ns(n);
            let cpu = &self.softirq[usize::from(q.irq_cpu)];
            let each = cpu.pkt_ps / 1000;
            // A saturated poll never completes: one long run, and a full ring ahead.
            let run = if irqs == 0 { n } else { n.div_ceil(irqs) };
            let ring_wait = if cpu.full { ring * each } else { 0 };
            let alone = run <= 1;
            // The 4 × 4 grid of the two even waits, n packets spread over its 16 points; the
            // points a remainder fills go in bit-reversed order from a place that turns each
            // tick, so that a few packets a tick still cover both waits.
            let (share, extra) = (n / 16, n % 16);
            for k in 0..16u64 {
                let p = ((k + turn) % 16) as u8;
                let point = u64::from(p.reverse_bits() >> 4);
                let (i, j) = (point / 4, point % 4);
                let wait_irq = if alone {
                    moderation
                } else {
                    moderation * (2 * i + 1) / 8
                };
                let wait_poll = run * each * (2 * j + 1) / 8;
                let count = share + u64::from(k < extra);
                if count > 0 && waits.is_empty() {
                    self.latency.add(wait_irq + wait_poll + ring_wait + each, count);
                } else if count > 0 {
                    self.latency
                        .add_mixed(wait_irq + wait_poll + ring_wait + each, count, &waits, total);
                }
            }
        }
        self.latency.waits = waits;
        self.latency.waits.clear();
    }

    /// The recent packets' latency quantiles, ns: the median and the 99th percentile
    /// (`None` before a packet).
    pub fn latency(&self) -> Option<(u64, u64)> {
        Some((self.latency.quantile(500)?, self.latency.quantile(990)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_half_octaves_and_their_middles_fall_inside() {
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(64), 0);
        assert_eq!(bucket(96), 1);
        assert_eq!(bucket(128), 2);
        assert_eq!(bucket(1 << 40), BUCKETS - 1);
        for ns in [100u64, 1000, 50_000, 655_000, 10_000_000] {
            let m = middle(bucket(ns));
            assert!(m * 3 / 4 <= ns && ns <= m * 5 / 4 + 1, "{ns} in bucket of middle {m}");
        }
        let mut l = Latency::default();
        l.add(1000, 98);
        l.add(1_000_000, 2);
        assert_eq!(l.quantile(500), Some(middle(bucket(1000))));
        assert_eq!(l.quantile(990), Some(middle(bucket(1_000_000))));
    }
}
