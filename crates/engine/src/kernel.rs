//! Kernel generations: which release's RPS/RFS rules the host follows (kernel-semantics.md
//! §2.4–2.6).

use crate::names::named_enum;

named_enum! {
    /// Which kernel's RPS/RFS rules apply (kernel-semantics.md §2.4–2.6).
    Kernel {
        /// `flow_id` and slot = `hash & mask`, no active-flow check, expiry window `10 * mask`:
        /// mainline 6.10 to 6.14. Named "6.14" until issue 31, still accepted: the rules end
        /// there, but they start at 6.10, where `process_backlog` began to publish
        /// `input_queue_head` once per poll (`rps_input_queue_head_add`), which the sandbox's
        /// backlog does for every generation; earlier kernels published it per packet.
        V6_10 = "6.10" | "6.14",
        /// "net: rfs: hash function change" (6.15): slot and `flow_id` = `hash_32(hash, log)`,
        /// expiry window `10 << log`; `set_rps_cpu` still calls the driver unconditionally.
        /// Seed 000 was measured on these rules (the net tree of May 2025). They hold in
        /// mainline 6.15 (commit f3483c8e1da6).
        V6_15 = "6.15",
        /// 6.15 plus "net: rfs: add sock_rps_delete_flow() helper" (net-next, May 2025):
        /// unhashing a socket clears its `rps_sock_flow_table` entry (`inet_unhash`,
        /// `udp_lib_unhash`). Mainline 6.16 to 6.17.7.
        V6_16 = "6.16",
        /// 6.16 plus the active-flow check in `set_rps_cpu` and the hash kept in each entry
        /// ("net: Prevent RPS table overwrite of active flows", commit 97bcc5b6f454): mainline
        /// 6.18, and stable 6.17.8 and later.
        V6_18 = "6.18",
    }
}

impl Kernel {
    /// Which real kernels follow these rules: what the console says where the choice is made.
    pub const fn covers(self) -> &'static str {
        match self {
            Kernel::V6_10 => "mainline 6.10 to 6.14 (also accepted as 6.14): rps_dev_flow slot = hash & (rps_flow_cnt - 1), expiry window 10 x (rps_flow_cnt - 1), the backlog head published once per poll (before 6.10: per packet, not modelled)",
            Kernel::V6_15 => "mainline 6.15: slot = hash_32(hash, log) (commit f3483c8e1da6), expiry window 10 << log, no active-flow check, close leaves the sock-table entry",
            Kernel::V6_16 => "mainline 6.16 to 6.17.7: 6.15's rules, and a socket's close (unhash) clears its rps_sock_flow_table entry (sock_rps_delete_flow)",
            Kernel::V6_18 => "mainline 6.18 and stable 6.17.8+: 6.16's rules plus set_rps_cpu's active-flow check (commit 97bcc5b6f454)",
        }
    }

    /// Slots are `hash_32(hash, log)` rather than `hash & mask` (6.15+).
    pub const fn hashed_slots(self) -> bool {
        !matches!(self, Kernel::V6_10)
    }

    /// `set_rps_cpu` skips a slot that another live flow owns, and entries keep the flow's
    /// hash (6.18+).
    pub const fn active_flow_check(self) -> bool {
        matches!(self, Kernel::V6_18)
    }

    /// Unhashing a socket clears its `rps_sock_flow_table` entry (6.16+):
    /// `inet_unhash` (net/ipv4/inet_hashtables.c) and `udp_lib_unhash` (net/ipv4/udp.c) call
    /// `sock_rps_delete_flow` (include/net/rps.h).
    pub const fn close_clears_sock_entry(self) -> bool {
        matches!(self, Kernel::V6_16 | Kernel::V6_18)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A relabelled generation keeps its old name as an alias: it parses, but only the new
    /// name is printed or offered.
    #[test]
    fn an_old_generation_name_still_parses() {
        assert_eq!(Kernel::parse("6.14"), Some(Kernel::V6_10));
        assert_eq!(Kernel::parse("6.10"), Some(Kernel::V6_10));
        assert_eq!(Kernel::V6_10.name(), "6.10");
        assert_eq!(Kernel::accepted(), "6.10 | 6.15 | 6.16 | 6.18");
        assert_eq!(Kernel::parse("6.17"), None);
    }
}
