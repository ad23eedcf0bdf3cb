//! Kernel generations: which release's RPS/RFS rules the host follows (kernel-semantics.md
//! §2.4–2.6).

use crate::names::named_enum;

named_enum! {
    /// Which kernel's RPS/RFS rules apply (kernel-semantics.md §2.4–2.6).
    Kernel {
        /// `flow_id` and slot = `hash & mask`, no active-flow check, expiry window `10 * mask`.
        V6_14 = "6.14",
        /// "net: rfs: hash function change" (6.15): slot and `flow_id` = `hash_32(hash, log)`,
        /// expiry window `10 << log`; `set_rps_cpu` still calls the driver unconditionally.
        /// Seed 000 was measured on these rules (the net tree of May 2025).
        V6_15 = "6.15",
        /// 6.15 plus the active-flow check in `set_rps_cpu` and the hash kept in each entry
        /// ("net: Prevent RPS table overwrite of active flows", 6.18).
        V6_18 = "6.18",
    }
}

impl Kernel {
    /// Slots are `hash_32(hash, log)` rather than `hash & mask` (6.15+).
    pub const fn hashed_slots(self) -> bool {
        !matches!(self, Kernel::V6_14)
    }

    /// `set_rps_cpu` skips a slot that another live flow owns, and entries keep the flow's
    /// hash (6.18+).
    pub const fn active_flow_check(self) -> bool {
        matches!(self, Kernel::V6_18)
    }
}
