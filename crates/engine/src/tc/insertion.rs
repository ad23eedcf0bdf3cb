//! Seed 001's insertion side: how long parallel `tc -b` inserters take under each kernel's
//! counting lock.

use super::Counting;

/// Per-rule time of the device-serialised part of a filter insert, in ns: seed 001 after the
/// fix, 16 inserters × 100,000 rules in 17.718 s real. With the counting lock gone the
/// inserters overlap except in a section every insert still passes one at a time (the driver's
/// offload path), so the wall time is that section's total: 17.7 s / 1,600,000 = 11,062.5 ns,
/// rounded to 11,063.
pub const INSERT_SERIAL_NS: u64 = 11_063;

/// Per-rule time of the part of an insert that runs in parallel, in ns: seed 001 before the fix
/// took 50.780 s real because every insert took `block->cb_lock` for write
/// (`tcf_block_filter_cnt_update`), which waits for and blocks every offload holding it for
/// read, so whole inserts ran one at a time: 50.8 s / 1,600,000 = 31,750 ns per insert, of
/// which 31,750 − 11,063 = 20,687 ns is not device-serialised.
pub const INSERT_PARALLEL_NS: u64 = 20_687;

/// Wall time, in ns, for `inserters` processes each adding `rules_each` filters in parallel to
/// one block (seed 001's `tc -b rules_$i.txt &` × 16). Legacy: every insert is serialised
/// behind the write lock, `N·R·(serial+parallel)`. v6.14: Amdahl — the device-serialised
/// sections of all inserts run back to back while each inserter also needs its own `R` whole
/// inserts, so `max(N·R·serial, R·(serial+parallel))`. Saturates instead of overflowing.
///
/// Simplification: a two-part model fitted to the seed's two wall-clock times; user and sys
/// time (23.6 s / 4 m 13 s before, 7.8 s / 3 m 45 s after) are not modelled.
pub fn insertion_ns(inserters: u32, rules_each: u32, counting: Counting, serial_ns: u64, parallel_ns: u64) -> u64 {
    let rules = u64::from(inserters).saturating_mul(u64::from(rules_each));
    let whole = serial_ns.saturating_add(parallel_ns);
    match counting {
        Counting::Legacy => rules.saturating_mul(whole),
        Counting::Usesw => {
            if inserters == 0 {
                return 0;
            }
            rules
                .saturating_mul(serial_ns)
                .max(u64::from(rules_each).saturating_mul(whole))
        }
    }
}
