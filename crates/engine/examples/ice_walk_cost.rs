//! The bracket of `cost.ice_sync_entry_ns` (issue 31): what one entry of a walk shaped like
//! ice's `ice_sync_arfs_fltrs` costs on the machine it runs on. A linked list of 16,384
//! entries in a random order (dependent loads; the 128 bytes of each `ice_arfs_entry` a walk
//! touches), each entry reading its `rps_dev_flow` stamp (a random one of 144 x 512) and its
//! CPU's `input_queue_head` (`rps_may_expire_flow`). "clean": nothing else touches them;
//! "with a writer": another thread keeps rewriting the stamps and heads, as the softirqs of
//! other CPUs do, so the walk's reads miss to the other core. Run it with
//! `cargo run --release -p steerlab-engine --example ice_walk_cost`.
use std::time::Instant;

mod walk;
use walk::{rng, shuffled, Stack};

const N: usize = 16_384;
/// u64 words per entry: the lines of an `ice_arfs_entry` a walk touches.
const SLOT: usize = 128 / 8;
const FLOWS: usize = 144 * 512;
const CPUS: usize = 144;

fn main() {
    let mut seed = 0x1234_5678_9abc_def0u64;
    let order = shuffled(N, &mut seed);
    // entries[k*SLOT + 0] = next entry index, [1] = flow index, [2] = cpu
    let mut entries = vec![0u64; N * SLOT];
    for w in 0..N {
        let (a, b) = (order[w], order[(w + 1) % N]);
        entries[a * SLOT] = b as u64;
        entries[a * SLOT + 1] = rng(&mut seed) % FLOWS as u64;
        entries[a * SLOT + 2] = rng(&mut seed) % CPUS as u64;
    }
    let stack = Stack::new(FLOWS, CPUS);
    let walk = |reps: usize| -> (f64, u64) {
        let mut expired = 0u64;
        let t = Instant::now();
        for _ in 0..reps {
            let mut e = order[0];
            for _ in 0..N {
                let (f, c) = (entries[e * SLOT + 1] as usize, entries[e * SLOT + 2] as usize);
                expired += u64::from(stack.may_expire(f, c, 512));
                e = entries[e * SLOT] as usize;
            }
        }
        (t.elapsed().as_nanos() as f64 / (reps * N) as f64, expired)
    };
    walk(20);
    let (clean, x) = walk(400);
    let (busy, y) = stack.with_writer(|| walk(200));
    println!("ns per entry: clean {clean:.2}, with a writer on the other core {busy:.2} ({x} {y})");
}
