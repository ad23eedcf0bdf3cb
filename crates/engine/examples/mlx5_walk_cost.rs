//! What `cost.mlx5_expiry_entry_ns` stands on (issue 51): one rule of a walk shaped like
//! mlx5's `arfs_may_expire_flow` (drivers/net/ethernet/mellanox/mlx5/core/en_arfs.c), on the
//! machine it runs on. `mlx5e_for_each_arfs_rule` visits the four tables' 256 hash chains in
//! order and each chain's rules newest first (an hlist: dependent loads); a rule is a
//! `kmalloc`'d `struct arfs_rule` of about 120 bytes (kmalloc-128: two cache lines), of which
//! the walk reads the hlist link, `arfs_work.data` (`work_pending`) and `rxq`, `flow_id`,
//! `filter_id`; for a rule without pending work `rps_may_expire_flow` reads the flow's
//! `rps_dev_flow` and its CPU's `input_queue_head`. The rules sit where the slab put them
//! (a random order in memory), their flows spread over the queues' tables.
//!
//! Sizes: the lesson's host (rfs-thread-churn: 512 rules, 2 x 16 CPUs, `rps_flow_cnt` 2048)
//! and a big one (16,384 rules, 144 CPUs). "clean": nothing else touches the stack's
//! stamps; "with a writer": another thread rewrites them, as the softirqs of other CPUs do
//! while the worker walks (every packet stamps its flow's `last_qtail`).
//! Run it with `cargo run --release -p steerlab-engine --example mlx5_walk_cost`.
use std::time::Instant;

mod walk;
use walk::{rng, shuffled, Stack};

/// u64 words per rule: kmalloc-128.
const SLOT: usize = 128 / 8;
/// Words of a rule: the hlist's next (its offset in `struct arfs_rule`: after `priv`,
/// `arfs_work`, `rule`), `arfs_work.data`, and `rxq` / `flow_id` / `filter_id` in the second line.
const NEXT: usize = 6;
const WORK: usize = 1;
const FLOW: usize = 8;
const CPU: usize = 9;
const CHAINS: usize = 4 * 256;
const END: u64 = u64::MAX;

/// ns per rule walked, clean and with a writer, for `n` rules on `cpus` CPUs.
fn measure(n: usize, cpus: usize, flow_cnt: usize) -> (f64, f64) {
    let mut seed = 0x5eed_0000_0000_0051 ^ n as u64;
    let place = shuffled(n, &mut seed);
    let mut rules = vec![0u64; n * SLOT];
    let mut heads = vec![END; CHAINS];
    let flows = cpus * flow_cnt;
    for &p in &place {
        // hlist_add_head: the newest rule first in its chain.
        let chain = (rng(&mut seed) % CHAINS as u64) as usize;
        rules[p * SLOT + NEXT] = heads[chain];
        heads[chain] = p as u64;
        rules[p * SLOT + WORK] = 0;
        rules[p * SLOT + FLOW] = rng(&mut seed) % flows as u64;
        rules[p * SLOT + CPU] = rng(&mut seed) % cpus as u64;
    }
    let stack = Stack::new(flows, cpus);
    let walk = |reps: usize| -> f64 {
        let mut expired = 0u64;
        let t = Instant::now();
        for _ in 0..reps {
            for &h in &heads {
                let mut r = h;
                while r != END {
                    let at = r as usize * SLOT;
                    if rules[at + WORK] == 0 {
                        let (f, c) = (rules[at + FLOW] as usize, rules[at + CPU] as usize);
                        expired += u64::from(stack.may_expire(f, c, flow_cnt as u32));
                    }
                    r = rules[at + NEXT];
                }
            }
        }
        let ns = t.elapsed().as_nanos() as f64 / (reps * n) as f64;
        std::hint::black_box(expired);
        ns
    };
    let reps = (20_000_000 / n).max(20);
    walk(reps / 10);
    let clean = walk(reps);
    let busy = stack.with_writer(|| walk(reps / 2));
    (clean, busy)
}

fn main() {
    for (n, cpus, flow_cnt) in [(512, 32, 2048), (16_384, 144, 512)] {
        let (clean, busy) = measure(n, cpus, flow_cnt);
        println!(
            "{n} rules, {cpus} CPUs: ns per rule walked: clean {clean:.2}, with a writer on the other core {busy:.2}"
        );
    }
}
