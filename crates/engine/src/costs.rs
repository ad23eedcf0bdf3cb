//! The cost ledger's table: nanoseconds charged per stage, each with its source. The user sees
//! the table with `steerlab run --costs` and what each stage cost in the page's ledger panel
//! and in `steerlab run` (`ledger.*`); any entry can be overridden by a scenario (`cost.NAME`,
//! also `--set cost.NAME=N`).
//!
//! Figures come from the seeds (`../shared/seeds/`) where they give one; the rest are
//! order-of-magnitude estimates, marked as such: the lessons depend on their ratios, not on
//! their exact values.

use core::fmt;

use crate::error::ConfigError;

/// One row of the table: name, value, where the value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostRow {
    /// `cost.NAME` in scenarios.
    pub name: &'static str,
    /// Nanoseconds (or picoseconds where the name says `_ps`).
    pub value: u64,
    /// Why this number.
    pub source: &'static str,
}

macro_rules! cost_table {
    ($($field:ident = $value:expr, $source:literal;)+) => {
        /// Per-stage costs in integer nanoseconds (picoseconds for `_ps` fields).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Costs { $(#[doc = $source] pub $field: u64,)+ }
        impl Default for Costs {
            fn default() -> Self { Costs { $($field: $value,)+ } }
        }
        impl Costs {
            /// The table with sources, in declaration order.
            pub fn rows(&self) -> [CostRow; [$(stringify!($field)),+].len()] {
                [$(CostRow { name: stringify!($field), value: self.$field, source: $source }),+]
            }
            /// `(name, value)` in declaration order: the table without its sources, so that a
            /// build that never prints them (the page) does not carry their text.
            fn values(&self) -> [(&'static str, u64); [$(stringify!($field)),+].len()] {
                [$((stringify!($field), self.$field)),+]
            }
            /// Sets `name` (a field of this table) to `value`.
            pub fn set(&mut self, name: &str, value: u64) -> Result<(), ConfigError> {
                match name {
                    $(stringify!($field) => self.$field = value,)+
                    _ => return Err(ConfigError { field: alloc::format!("cost.{name}"), accepted: alloc::string::String::from(concat!("one of:", $(" ", stringify!($field)),+)) }),
                }
                Ok(())
            }
        }
    };
}

cost_table! {
    driver_rx_ps = 38_940, "NAPI poll per packet including a trivial XDP program: seed 004, mlx5 XDP_DROP 25,678,262 pps = 38.94 ns/pkt (Toke Høiland-Jørgensen, bpf@vger 2022-12-08)";
    xdp_kfunc_call_ps = 953, "one XDP metadata kfunc call: seed 004, 2.86 ns for three calls (41.80 - 38.94 ns/pkt)";
    xdp_fallback_ps = 5_000, "an XDP program computing a value the driver does not expose (e.g. hashing the tuple in BPF): estimate";
    stack_rx_ns = 600, "skb alloc, GRO, IP and TCP receive per packet in softirq: estimate (order of magnitude of a 1-2 Mpps/core TCP receive path)";
    rps_enqueue_ns = 60, "enqueue_to_backlog and the remote dequeue per packet: estimate";
    ipi_ns = 1500, "one IPI: RPS waking a remote backlog (smp_call_function_single_async), or a reader woken from another CPU whose idle CPU halts (try_to_wake_up's wake list; none to a polling idle CPU): estimate, ~1-2 us on x86";
    remote_penalty_ns = 250, "per packet processed away from its reader's CPU: the socket's cache lines move to the reader (estimate)";
    cross_numa_penalty_ns = 400, "per packet whose data crosses a NUMA node on its way to the reader (estimate)";
    sock_record_ns = 20, "rps_record_sock_flow write that changes the entry: a shared cache line (estimate)";
    app_read_ns = 800, "one wakeup and recvmsg of the reader, user plus sys (the wake-up's activation runs on the reader's CPU: ttwu_queue_wakelist): one a packet while the reader sleeps between packets, else as many as it has time for (estimate)";
    arfs_steer_ns = 300, "ndo_rx_flow_steer call: bucket walk and entry update (estimate)";
    mlx5_lock_hold_ns = 400, "mlx5 arfs_lock hold per mlx5e_rx_flow_steer (estimate; seed 002 reports severe contention, no figure)";
    ice_sync_entry_ns = 5, "ice_sync_arfs_fltrs: one entry of the aRFS list walked under arfs_lock, with rps_may_expire_flow for an ACTIVE one. A calibrated value below the bracket a real entry costs: the walk is a chain of dependent loads over ~2 MB (16K entries, the lines of each ice_arfs_entry it reads) plus the rps_dev_flow stamps and input_queue_head lines that other CPUs' softirqs keep rewriting; the example ice_walk_cost measures 22-33 ns an entry with nothing else running and 73-177 ns with another core rewriting the stamps (AMD EPYC VM, 2 MB L2, 2026; an L2 hit, 4-5 ns, is the floor only for a list that fits in L2). Seed 000 bounds the effective value from above: every ice figure grows with it (the lock wait), and at 8 ns the sandbox's softirq with the fix passes the 9.2 % of 144 CPUs the seed measured (issue 51's lock spin; 6 ns before it). So the sandbox's walks or their hold of the lock overstate what a run of the service task costs by 5-30x; which is not known (README)";
    mlx5_expiry_entry_ns = 18, "arfs_may_expire_flow: one mlx5 rule visited under arfs_lock (the four tables' hash chains, newest first), with work_pending and, for a rule without pending work, rps_may_expire_flow reading its rps_dev_flow and its CPU's input_queue_head. Measured by the example mlx5_walk_cost for the lesson's host (512 rules in kmalloc-128 objects, 32 CPUs, rps_flow_cnt 2048): 4.7-7.2 ns a rule with nothing else running, 14-44 ns (median of four runs 18) with another core rewriting the stamps as the softirqs do while the flows run (AMD EPYC VM, 1 MB L2, 2026); 17-23 ns at 16,384 rules and 144 CPUs either way. The lesson's rules are stamped by every packet, so the rewritten case stands";
    arfs_hw_update_ns = 5000, "programming or removing one hardware filter from the service task (estimate)";
    tc_filter_ns = 25, "tc flower classification per filter walked in software (estimate; seed 001: the reason skip_sw should skip software)";
    tc_insert_serial_ns = 11_063, "per tc filter insert, device-serialised part: seed 001, 16 x 100,000 rules in 17.7 s after the fix";
    tc_insert_parallel_ns = 20_687, "per tc filter insert, parallel part: seed 001, 50.8 s before the fix (all serialised) minus the serialised part";
    tx_send_ns = 804, "sendmsg of a 1-byte UDP message to the driver, pick excluded: seed 003, 10 s / 11,497,225 msgs = 869.8 ns, minus 7.55 % in netdev_pick_tx";
    tx_pick_hash_ns = 66, "netdev_pick_tx via skb_tx_hash (flow dissect + hash): seed 003, 7.55 % of 869.8 ns";
    tx_pick_xps_ns = 7, "netdev_pick_tx via an XPS map: seed 003, 0.85 % of 785.2 ns (10 s / 12,736,058 msgs)";
    atr_sample_ns = 300, "ixgbe ATR: one sampled TX packet building and writing a signature filter (estimate)";
}

impl Costs {
    /// All costs are bounded so that sums over a run cannot overflow.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (name, value) in self.values() {
            if value > 10_000_000 {
                return Err(ConfigError {
                    field: alloc::format!("cost.{name}"),
                    accepted: "0..=10000000".into(),
                });
            }
        }
        Ok(())
    }
}

impl fmt::Display for CostRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:<24} {:>8}  {}", self.name, self.value, self.source)
    }
}
