//! The cost ledger: every nanosecond the engine charges to a CPU is also booked to the pipeline
//! stage that spent it, so a learner can see where time goes ("XDP kfunc calls: 2.9 ns/pkt",
//! "skb_tx_hash: 7.5 % of sys time"), and the tests can check that the per-CPU user, sys and
//! softirq totals are exactly the sum of the stages.
//!
//! The tick loop does not multiply by prices: it books each stage's work in the stage's own
//! unit (a packet, a call, a read; picoseconds or nanoseconds where the amount varies) per
//! CPU, as [`Work`], and the nanoseconds are priced from the cost table (fixed for a host's
//! life) when a snapshot reads them. `floor(units × price / 1000)` per CPU and stage is what
//! charging picoseconds with a carried remainder gives, so packet and aggregate modes agree.

use crate::costs::Costs;

/// Which of the CPU's accounts a charge lands in (`/proc/stat` columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Application code.
    User,
    /// System calls and kworkers.
    Sys,
    /// NET_RX / NET_TX softirq.
    Softirq,
}

macro_rules! stages {
    ($($variant:ident = $name:literal, $class:ident, per $unit:literal at $price:expr, $doc:literal;)+) => {
        /// A stage of the pipeline that costs time.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub enum Stage { $(#[doc = concat!($doc, " (booked per ", $unit, ")")] $variant,)+ }

        impl Stage {
            /// Every stage, in pipeline order.
            pub const ALL: [Stage; [$($name),+].len()] = [$(Stage::$variant),+];

            /// The name used in reports (`ledger.NAME_ns`).
            pub const fn name(self) -> &'static str {
                match self { $(Stage::$variant => $name,)+ }
            }

            /// The account this stage is charged to.
            pub const fn class(self) -> Class {
                match self { $(Stage::$variant => Class::$class,)+ }
            }

            /// The price of one unit in picoseconds, from the cost table.
            pub fn price_ps(self, costs: &Costs) -> u64 {
                let price: fn(&Costs) -> u64 = match self { $(Stage::$variant => $price,)+ };
                price(costs)
            }
        }
    };
}

stages! {
    DriverRx = "driver_rx", Softirq, per "packet" at |c| c.driver_rx_ps, "NAPI poll per packet, up to and including an XDP program's base cost";
    XdpKfunc = "xdp_kfunc", Softirq, per "ps" at |_| 1, "XDP metadata kfunc calls and their fallbacks";
    Ipi = "ipi", Softirq, per "IPI" at |c| c.ipi_ns * 1000, "RPS IPIs to wake a remote backlog whose idle CPU halts (none to a polling idle CPU: call_function_single_prep_ipi)";
    WakeIpi = "wake_ipi", Softirq, per "IPI" at |c| c.ipi_ns * 1000, "IPIs to wake a reader from the CPU that processed its data, when its idle CPU halts (try_to_wake_up, ttwu_queue_wakelist; a polling idle CPU needs none)";
    RpsEnqueue = "rps_enqueue", Softirq, per "packet" at |c| c.rps_enqueue_ns * 1000, "enqueue_to_backlog and the dequeue on the target CPU";
    StackRx = "stack_rx", Softirq, per "packet" at |c| c.stack_rx_ns * 1000, "skb, GRO, IP and TCP/UDP receive";
    TcClassify = "tc_classify", Softirq, per "filter walked" at |c| c.tc_filter_ns * 1000, "tc ingress classification in software";
    RemotePenalty = "remote_penalty", Softirq, per "packet" at |c| c.remote_penalty_ns * 1000, "packets processed away from their reader's CPU";
    CrossNuma = "cross_numa", Softirq, per "node crossing" at |c| c.cross_numa_penalty_ns * 1000, "packet data crossing a NUMA node";
    ArfsSteer = "arfs_steer", Softirq, per "call" at |c| c.arfs_steer_ns * 1000, "ndo_rx_flow_steer calls";
    ArfsLock = "arfs_lock", Softirq, per "ns" at |_| 1000, "arfs_lock: mlx5's hold and wait per call (behind the other calls and the work's expiry walks), ice's wait behind the service task's walk";
    ArfsSync = "arfs_sync", Sys, per "entry walked" at |c| c.ice_sync_entry_ns * 1000, "ice's service task walking its aRFS list (ice_sync_arfs_fltrs)";
    ArfsExpiry = "arfs_expiry", Sys, per "entry walked" at |c| c.mlx5_expiry_entry_ns * 1000, "mlx5's work walking every rule for expiry after each item (arfs_may_expire_flow)";
    ArfsHw = "arfs_hw", Sys, per "filter write" at |c| c.arfs_hw_update_ns * 1000, "hardware filter writes from the driver's service task or work";
    AppRead = "app_read", User, per "read" at |c| c.app_read_ns / 2 * 1000, "the application's share of a read";
    SysRead = "sys_read", Sys, per "read" at |c| (c.app_read_ns - c.app_read_ns / 2) * 1000, "recvmsg in the kernel";
    AppWork = "app_work", User, per "ns" at |_| 1000, "the application's own work per message, for a flow whose reader has one (socket.rs)";
    SockRecord = "sock_record", Sys, per "write" at |c| c.sock_record_ns * 1000, "rps_sock_flow_table writes";
    TxSend = "tx_send", Sys, per "message" at |c| c.tx_send_ns * 1000, "sendmsg down to the driver, TX queue selection excluded";
    TxPickHash = "tx_pick_hash", Sys, per "ns" at |_| 1000, "netdev_pick_tx falling back to skb_tx_hash (flow dissection)";
    TxPickXps = "tx_pick_xps", Sys, per "ns" at |_| 1000, "netdev_pick_tx through an XPS map or the socket's cached queue";
    Atr = "atr", Sys, per "sample" at |c| c.atr_sample_ns * 1000, "ixgbe ATR sampling and Flow Director signature writes";
}

/// Nanoseconds booked per stage over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    ns: [u64; Stage::ALL.len()],
}

impl Ledger {
    /// Books `ns` to `stage`.
    pub fn book(&mut self, stage: Stage, ns: u64) {
        self.ns[stage as usize] += ns;
    }

    /// Total booked to `stage`.
    pub fn get(&self, stage: Stage) -> u64 {
        self.ns[stage as usize]
    }

    /// `(stage, ns)` for every stage, in pipeline order.
    pub fn iter(&self) -> impl Iterator<Item = (Stage, u64)> + '_ {
        Stage::ALL.iter().map(|&s| (s, self.get(s)))
    }

    /// Total booked to the stages of one class.
    pub fn class_total(&self, class: Class) -> u64 {
        self.iter().filter(|(s, _)| s.class() == class).map(|(_, n)| n).sum()
    }
}

/// The stages a received packet's path books (the IRQ CPU's poll, the target's enqueue and
/// stack, the penalties, the reader's read, an aRFS call): a [`Work`] row holds them first,
/// next to each other (eight words, a cache line's length).
const PATH: [Stage; 8] = [
    Stage::DriverRx,
    Stage::RpsEnqueue,
    Stage::StackRx,
    Stage::RemotePenalty,
    Stage::CrossNuma,
    Stage::ArfsSteer,
    Stage::AppRead,
    Stage::SysRead,
];

/// Where each stage's units live in a [`Work`] row: the [`PATH`] stages first, then the
/// others in pipeline order.
const SLOT: [u8; Stage::ALL.len()] = {
    let mut slot = [u8::MAX; Stage::ALL.len()];
    let mut next = 0;
    while next < PATH.len() {
        slot[PATH[next] as usize] = next as u8;
        next += 1;
    }
    let mut s = 0;
    while s < Stage::ALL.len() {
        if slot[s] == u8::MAX {
            slot[s] = next as u8;
            next += 1;
        }
        s += 1;
    }
    slot
};

/// One CPU's work per stage, in each stage's unit (each stage's doc names it); [`Prices`] turns it into
/// nanoseconds when a snapshot reads it. Stored in [`SLOT`] order, the path's stages first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work([u64; Stage::ALL.len()]);

impl Work {
    /// Books `units` of `stage`'s work.
    #[inline]
    pub fn add(&mut self, stage: Stage, units: u64) {
        self.0[SLOT[stage as usize] as usize] += units;
    }

    /// The units of `stage` booked.
    #[inline]
    pub fn get(&self, stage: Stage) -> u64 {
        self.0[SLOT[stage as usize] as usize]
    }
}

/// The price of a unit of each stage's work in picoseconds, from a cost table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prices([u64; Stage::ALL.len()]);

impl Prices {
    /// The prices of `costs`.
    pub fn new(costs: &Costs) -> Prices {
        Prices(Stage::ALL.map(|s| s.price_ps(costs)))
    }

    /// The price of one unit of `stage`, ps.
    pub fn ps(&self, stage: Stage) -> u64 {
        self.0[stage as usize]
    }

    /// Nanoseconds of `stage` in `work`: whole nanoseconds of the picoseconds booked.
    pub fn ns(&self, work: &Work, stage: Stage) -> u64 {
        crate::time::mul_div(work.get(stage), self.0[stage as usize], 1000)
    }

    /// Picoseconds of `class`'s stages in `now` since `before` (one CPU's work at two
    /// instants).
    pub fn class_ps_since(&self, now: &Work, before: &Work, class: Class) -> u64 {
        Stage::ALL
            .iter()
            .filter(|s| s.class() == class)
            .map(|&s| (now.get(s) - before.get(s)).saturating_mul(self.0[s as usize]))
            .fold(0u64, u64::saturating_add)
    }

    /// Nanoseconds of every stage in `work` (one CPU's booked time).
    pub fn total_ns(&self, work: &Work) -> u64 {
        Stage::ALL.iter().map(|&s| self.ns(work, s)).sum()
    }

    /// Nanoseconds per stage over the work of every CPU.
    pub fn ledger<'a>(&self, cpus: impl IntoIterator<Item = &'a Work>) -> Ledger {
        let mut l = Ledger::default();
        for w in cpus {
            for s in Stage::ALL {
                l.book(s, self.ns(w, s));
            }
        }
        l
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every stage has a slot of its own in a work row, the path's first.
    #[test]
    fn work_slots_are_a_permutation_with_the_path_first() {
        let mut seen = [false; Stage::ALL.len()];
        for s in Stage::ALL {
            let slot = SLOT[s as usize] as usize;
            assert!(!seen[slot], "{}", s.name());
            seen[slot] = true;
            assert_eq!(slot < PATH.len(), PATH.contains(&s), "{}", s.name());
        }
        assert_eq!(PATH.len() * 8, 64);
        let mut w = Work::default();
        for (i, s) in Stage::ALL.into_iter().enumerate() {
            w.add(s, i as u64 + 1);
        }
        assert!(Stage::ALL
            .into_iter()
            .enumerate()
            .all(|(i, s)| w.get(s) == i as u64 + 1));
    }

    /// Pricing takes 64 bits when the product fits and 128 when it does not: both give
    /// `floor(units × price / 1000)`.
    #[test]
    fn pricing_is_exact_past_64_bits() {
        let prices = Prices::new(&Costs::default());
        let price = prices.0[Stage::StackRx as usize];
        for units in [
            0,
            1,
            999,
            u64::MAX / price,
            u64::MAX / price + 1,
            u64::MAX / 3,
            u64::MAX,
        ] {
            let mut w = Work::default();
            w.add(Stage::StackRx, units);
            let want = (u128::from(units) * u128::from(price) / 1000) as u64;
            assert_eq!(prices.ns(&w, Stage::StackRx), want, "{units}");
        }
    }

    #[test]
    fn names_are_unique_and_books_add_up() {
        let mut seen = alloc::vec::Vec::new();
        for s in Stage::ALL {
            assert!(!seen.contains(&s.name()), "{}", s.name());
            seen.push(s.name());
        }
        let mut l = Ledger::default();
        l.book(Stage::StackRx, 600);
        l.book(Stage::DriverRx, 39);
        l.book(Stage::TxSend, 800);
        assert_eq!(l.class_total(Class::Softirq), 639);
        assert_eq!(l.class_total(Class::Sys), 800);
        assert_eq!(l.get(Stage::StackRx), 600);
    }

    /// Booking units and pricing them on reading gives what charging each packet's
    /// picoseconds with a carried remainder gives: runs of `m` and `m` single packets agree.
    #[test]
    fn work_priced_on_reading_is_what_a_carry_would_charge() {
        let costs = Costs::default();
        let prices = Prices::new(&costs);
        let mut cpus = [Work::default(); 2];
        let (mut carry, mut charged) = (0u64, 0u64);
        for m in [1u64, 7, 1, 1, 13, 1000, 3] {
            cpus[1].add(Stage::DriverRx, m);
            for _ in 0..m {
                let total = carry + costs.driver_rx_ps;
                carry = total % 1000;
                charged += total / 1000;
            }
        }
        assert_eq!(prices.ns(&cpus[1], Stage::DriverRx), charged);
        assert_eq!(prices.ns(&cpus[0], Stage::DriverRx), 0);
        cpus[0].add(Stage::AppRead, 3);
        cpus[0].add(Stage::SysRead, 3);
        cpus[0].add(Stage::XdpKfunc, 2_500);
        assert_eq!(
            prices.ledger([&cpus[0]]).class_total(Class::User),
            3 * (costs.app_read_ns / 2)
        );
        assert_eq!(prices.ns(&cpus[0], Stage::XdpKfunc), 2);
        let l = prices.ledger(&cpus);
        assert_eq!(l.get(Stage::DriverRx), charged);
        assert_eq!(
            l.class_total(Class::User) + l.class_total(Class::Sys),
            3 * costs.app_read_ns
        );
    }
}
