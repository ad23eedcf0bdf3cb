//! The cost ledger: every nanosecond the engine charges to a CPU is also booked to the pipeline
//! stage that spent it, so a learner can see where time goes ("XDP kfunc calls: 2.9 ns/pkt",
//! "skb_tx_hash: 7.5 % of sys time"), and the tests can check that the per-CPU user, sys and
//! softirq totals are exactly the sum of the stages.

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
    ($($variant:ident = $name:literal, $class:ident, $doc:literal;)+) => {
        /// A stage of the pipeline that costs time.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub enum Stage { $(#[doc = $doc] $variant,)+ }

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
        }
    };
}

stages! {
    DriverRx = "driver_rx", Softirq, "NAPI poll per packet, up to and including an XDP program's base cost";
    XdpKfunc = "xdp_kfunc", Softirq, "XDP metadata kfunc calls and their fallbacks";
    Ipi = "ipi", Softirq, "RPS IPIs to wake a remote backlog";
    RpsEnqueue = "rps_enqueue", Softirq, "enqueue_to_backlog and the dequeue on the target CPU";
    StackRx = "stack_rx", Softirq, "skb, GRO, IP and TCP/UDP receive";
    TcClassify = "tc_classify", Softirq, "tc ingress classification in software";
    RemotePenalty = "remote_penalty", Softirq, "packets processed away from their reader's CPU";
    CrossNuma = "cross_numa", Softirq, "packet data crossing a NUMA node";
    ArfsSteer = "arfs_steer", Softirq, "ndo_rx_flow_steer calls";
    ArfsLock = "arfs_lock", Softirq, "mlx5 arfs_lock hold and wait";
    ArfsHw = "arfs_hw", Sys, "hardware filter writes from the driver's service task or work";
    AppRead = "app_read", User, "the application's share of a read";
    SysRead = "sys_read", Sys, "recvmsg in the kernel";
    SockRecord = "sock_record", Sys, "rps_sock_flow_table writes";
    TxSend = "tx_send", Sys, "sendmsg down to the driver, TX queue selection excluded";
    TxPickHash = "tx_pick_hash", Sys, "netdev_pick_tx falling back to skb_tx_hash (flow dissection)";
    TxPickXps = "tx_pick_xps", Sys, "netdev_pick_tx through an XPS map or the socket's cached queue";
    Atr = "atr", Sys, "ixgbe ATR sampling and Flow Director signature writes";
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
