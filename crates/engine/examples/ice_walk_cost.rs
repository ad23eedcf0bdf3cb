//! The bracket of `cost.ice_sync_entry_ns` (issue 31): what one entry of a walk shaped like
//! ice's `ice_sync_arfs_fltrs` costs on the machine it runs on. A linked list of 16,384
//! entries in a random order (dependent loads; the 128 bytes of each `ice_arfs_entry` a walk
//! touches), each entry reading its `rps_dev_flow` stamp (a random one of 144 x 512) and its
//! CPU's `input_queue_head` (`rps_may_expire_flow`). "clean": nothing else touches them;
//! "with a writer": another thread keeps rewriting the stamps and heads, as the softirqs of
//! other CPUs do, so the walk's reads miss to the other core. Run it with
//! `cargo run --release -p steerlab-engine --example ice_walk_cost`.
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Instant;

const N: usize = 16_384;
/// u64 words per entry: the lines of an `ice_arfs_entry` a walk touches.
const SLOT: usize = 128 / 8;
const FLOWS: usize = 144 * 512;
const CPUS: usize = 144;

fn rng(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

fn main() {
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut order: Vec<usize> = (0..N).collect();
    for i in (1..N).rev() {
        let j = (rng(&mut seed) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    // entries[k*SLOT + 0] = next entry index, [1] = flow index, [2] = cpu
    let mut entries = vec![0u64; N * SLOT];
    for w in 0..N {
        let (a, b) = (order[w], order[(w + 1) % N]);
        entries[a * SLOT] = b as u64;
        entries[a * SLOT + 1] = rng(&mut seed) % FLOWS as u64;
        entries[a * SLOT + 2] = rng(&mut seed) % CPUS as u64;
    }
    let flows: Arc<Vec<AtomicU32>> = Arc::new((0..FLOWS * 2).map(|_| AtomicU32::new(0)).collect());
    let heads: Arc<Vec<AtomicU32>> = Arc::new((0..CPUS * 16).map(|_| AtomicU32::new(0)).collect());
    let walk = |entries: &Vec<u64>, flows: &Vec<AtomicU32>, heads: &Vec<AtomicU32>, reps: usize| -> (f64, u64) {
        let mut expired = 0u64;
        let t = Instant::now();
        for _ in 0..reps {
            let mut e = order[0];
            for _ in 0..N {
                let f = entries[e * SLOT + 1] as usize;
                let c = entries[e * SLOT + 2] as usize;
                let qtail = flows[f * 2 + 1].load(Ordering::Relaxed);
                let head = heads[c * 16].load(Ordering::Relaxed);
                if (head.wrapping_sub(qtail) as i32) >= 5120 {
                    expired += 1;
                }
                e = entries[e * SLOT] as usize;
            }
        }
        (t.elapsed().as_nanos() as f64 / (reps * N) as f64, expired)
    };
    walk(&entries, &flows, &heads, 20);
    let (clean, x) = walk(&entries, &flows, &heads, 400);
    let stop = Arc::new(AtomicBool::new(false));
    let (f2, h2, s2) = (flows.clone(), heads.clone(), stop.clone());
    let writer = std::thread::spawn(move || {
        let mut s = 99u64;
        let mut n = 0u32;
        while !s2.load(Ordering::Relaxed) {
            let f = (rng(&mut s) % FLOWS as u64) as usize;
            f2[f * 2 + 1].store(n, Ordering::Relaxed);
            h2[(n as usize % CPUS) * 16].store(n, Ordering::Relaxed);
            n = n.wrapping_add(1);
        }
    });
    std::thread::sleep(std::time::Duration::from_millis(50));
    let (busy, y) = walk(&entries, &flows, &heads, 200);
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    println!("ns per entry: clean {clean:.2}, with a writer on the other core {busy:.2} ({x} {y})");
}
