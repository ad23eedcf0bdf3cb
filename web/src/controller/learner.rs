//! A random learner (issue 21): sequences of what a learner does to a running host, on every
//! lesson's host: console lines drawn from the tools' grammar with valid and invalid values,
//! flows and threads added, threads migrated and pinned, driver and kernel switches, ticks,
//! step back, seek, and permalinks. After every move the host must hold its invariants (packets
//! conserved, counters that only grow while time goes forward, a ledger that adds up); at the
//! end, replaying the moves from the start gives the same digest, and every permalink taken on
//! the way restores the digest of its moment.
//!
//! `cargo test -p steerlab-web learner` runs it at CI's size; `LEARNER_CASES=N` runs more. The
//! same learner is a stateful fuzz target (`fuzz/fuzz_targets/learner.rs`, feature `learner`):
//! there libFuzzer's bytes choose the moves (8 bytes each, drawn from the same grammar), so
//! coverage steers which moves are made, up to a few hundred of them.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use super::{Action, Event, Origin, Session, ToPage};

/// One thing the learner does.
#[derive(Clone, Debug)]
enum Move {
    /// A console line.
    Line(String),
    /// Some ticks, one at a time.
    Step(u8),
    /// One tick back.
    StepBack,
    /// To a simulated time (ms), forwards or back.
    Seek(u64),
    /// Takes a permalink now; checked at the end.
    Share,
}

/// Console lines from the grammar of the tools steerlab models, values valid or not.
fn line() -> impl Strategy<Value = String> {
    let q = 0u16..10;
    let cpu = 0u16..150;
    prop_oneof![
        (1u16..12).prop_map(|n| format!("ethtool -X eth0 equal {n}")),
        Just("ethtool -X eth0 default".to_string()),
        (0u16..20).prop_map(|n| format!("ethtool -L eth0 combined {n}")),
        (q.clone(), 0u32..0x1ff).prop_map(|(q, m)| format!("echo {m:x} > /sys/class/net/eth0/queues/rx-{q}/rps_cpus")),
        (0u32..5000).prop_map(|n| format!("echo {n} | tee /sys/class/net/eth0/queues/rx-*/rps_flow_cnt")),
        (0u32..70_000).prop_map(|n| format!("sysctl -w net.core.rps_sock_flow_entries={n}")),
        (0u32..0x3f).prop_map(|m| format!("sysctl -w net.core.flow_limit_cpu_bitmap={m:x}")),
        prop_oneof![
            Just("generic"),
            Just("ice"),
            Just("ice-hash-match"),
            Just("mlx5"),
            Just("ixgbe"),
            Just("e1000")
        ]
        .prop_map(|d| format!("nic driver {d}")),
        prop_oneof![
            Just("6.10"),
            Just("6.14"),
            Just("6.15"),
            Just("6.16"),
            Just("6.18"),
            Just("5.4")
        ]
        .prop_map(|k| format!("kernel {k}")),
        prop_oneof![Just("always"), Just("cpuset")].prop_map(|r| format!("rfs record {r}")),
        (0u32..40, cpu.clone()).prop_map(|(t, c)| format!("thread migrate {t} {c}")),
        (0u32..40, cpu.clone()).prop_map(|(t, c)| format!("taskset -pc {c}-{} {t}", c + 2)),
        (0u32..40).prop_map(|t| format!("thread policy {t} pin")),
        (cpu.clone(), 0u32..3).prop_map(|(c, m)| format!("thread add {c} migrate {}", m * 50)),
        (1u32..200, 1u64..5000).prop_map(|(n, r)| format!("flow random {n} rate {r}")),
        (0u32..40).prop_map(|f| format!("flow close {f}")),
        (0u8..255, 1u16..60000, 0u32..40)
            .prop_map(|(a, p, t)| format!("flow add udp 10.9.0.{a}:{p} 10.0.0.1:53 rate 2000 readers {t}")),
        prop_oneof![Just("on"), Just("off")].prop_map(|o| format!("ethtool -K eth0 ntuple {o}")),
        (1u16..65535, q.clone()).prop_map(|(p, q)| format!("ethtool -N eth0 flow-type tcp4 dst-port {p} action {q}")),
        (q.clone(), cpu.clone(), 0u16..4).prop_map(|(q, c, w)| format!(
            "echo {c}-{} > /proc/irq/{}/smp_affinity_list",
            c + w,
            130 + q
        )),
        (0u8..255, 1u16..60000, q.clone()).prop_map(|(m, p, q)| format!(
            "ethtool -N eth0 flow-type udp4 src-ip 10.9.0.0 m 0.0.0.{m} dst-port {p} m 0xff action {q}"
        )),
        Just("grep -H . /proc/irq/*/effective_affinity_list".to_string()),
        Just("tc qdisc add dev eth0 ingress".to_string()),
        (1u16..5, 1u16..1000).prop_map(|(p, port)| format!(
            "tc filter add dev eth0 ingress prio {p} flower skip_hw ip_proto udp dst_port {port} action drop"
        )),
        prop_oneof![Just("xdp_drop"), Just("xdp_hash"), Just("nonsense")]
            .prop_map(|p| format!("ip link set dev eth0 xdp obj {p}")),
        Just("ip link set dev eth0 xdp off".to_string()),
        "[ -~]{0,24}",
    ]
}

fn a_move() -> impl Strategy<Value = Move> {
    prop_oneof![
        4 => line().prop_map(Move::Line),
        3 => (1u8..6).prop_map(Move::Step),
        1 => Just(Move::StepBack),
        1 => (0u64..400).prop_map(Move::Seek),
        1 => Just(Move::Share),
    ]
}

/// Pumps the worker's loop until it has nothing to do (a restore replays in slices).
fn settle(s: &mut Session) {
    assert!(s.pump_until_idle(1_000_000), "the session never settled");
}

fn digest(s: &Session) -> String {
    s.host(0).expect("a host").sim().snapshot().digest.hex()
}

/// A session on lesson `id`, paused at its start.
fn open(id: &str) -> Session {
    let mut s = Session::default();
    s.apply(Action::OpenLesson(id.to_string()));
    s.apply(Action::Pause);
    settle(&mut s);
    s
}

/// Applies a move; a permalink it took is returned with the digest of its moment.
fn play(s: &mut Session, m: &Move) -> Option<(String, String)> {
    match m {
        Move::Line(line) => s.apply(Action::Command {
            host: 0,
            line: line.clone(),
            from: Origin::Console,
        }),
        Move::Step(n) => (0..*n).for_each(|_| s.apply(Action::Step)),
        Move::StepBack => s.apply(Action::StepBack),
        Move::Seek(ms) => s.apply(Action::Seek(*ms)),
        Move::Share => {
            s.apply(Action::Share);
            let link = s.take().into_iter().find_map(|m| match m {
                ToPage::Event(Event::Permalink(l)) => Some(l),
                _ => None,
            });
            return link.map(|l| (l, digest(s)));
        }
    }
    settle(s);
    None
}

/// What only grows while time goes forward: (offered, delivered, drops, sock flow updates,
/// aRFS calls, tc drops).
fn monotonic(s: &Session) -> [u64; 6] {
    let c = s.host(0).expect("a host").sim().snapshot().counters;
    [
        c.offered,
        c.delivered,
        c.dropped(),
        c.sock_flow_updates,
        c.arfs_calls,
        c.tc_drop,
    ]
}

/// The invariants after a move.
fn check(s: &Session, before: &[u64; 6], forward: bool, what: &Move) -> Result<(), TestCaseError> {
    let sim = s.host(0).expect("a host").sim();
    let snap = sim.snapshot();
    let c = &snap.counters;
    prop_assert!(
        sim.conserved(),
        "{what:?}: offered {} != delivered {} + in flight {} + dropped {}",
        c.offered,
        c.delivered,
        snap.in_flight,
        c.dropped()
    );
    let booked: u64 = snap.ledger.iter().map(|(_, ns)| ns).sum();
    prop_assert_eq!(
        booked,
        c.user_ns + c.sys_ns + c.softirq_ns,
        "{:?}: the ledger adds up",
        what
    );
    if forward {
        let now = monotonic(s);
        prop_assert!(
            now.iter().zip(before).all(|(a, b)| a >= b),
            "{:?}: counters went back {:?} -> {:?}",
            what,
            before,
            now
        );
    }
    Ok(())
}

/// One learner on lesson `id`: the moves, the invariants after each, then the replay and the
/// permalinks.
fn learn(id: &str, moves: &[Move]) -> Result<(), TestCaseError> {
    let mut s = open(id);
    let mut links = Vec::new();
    for m in moves {
        let (t0, before) = (s.host(0).expect("a host").sim().now(), monotonic(&s));
        if let Some(link) = play(&mut s, m) {
            links.push(link);
        }
        let forward = s.host(0).expect("a host").sim().now() >= t0 && !matches!(m, Move::StepBack | Move::Seek(_));
        check(&s, &before, forward, m)?;
    }
    let live = digest(&s);
    let mut again = open(id);
    for m in moves {
        play(&mut again, m);
    }
    prop_assert_eq!(
        digest(&again),
        live,
        "{}: replaying the moves gives the live run's digest",
        id
    );
    for (link, at) in links {
        let mut r = Session::default();
        r.apply(Action::Restore(link));
        settle(&mut r);
        prop_assert_eq!(digest(&r), at, "{}: a permalink restores the digest of its moment", id);
    }
    Ok(())
}

/// The fuzz target's body: the first byte picks the lesson, the rest are the moves (8 bytes
/// each, up to 300). A broken invariant panics with the lesson, what broke and the moves.
pub fn fuzz(data: &[u8]) {
    let Some((&pick, stream)) = data.split_first() else {
        return;
    };
    let ids: Vec<&str> = steerlab_scenario::lesson_ids().collect();
    let id = ids[usize::from(pick) % ids.len()];
    let moves = moves_from(stream);
    if let Err(e) = learn(id, &moves) {
        panic!("{id}: {e}\nmoves: {moves:?}");
    }
}

/// A move per 8 bytes of `stream`, up to 300: each chunk seeds its own generator (XorShift,
/// with a constant mixed in so that no seed is all zeros) that draws the move from the
/// grammar. A mutation of one chunk changes one move, which is what lets libFuzzer's coverage
/// steer the sequence. (Proptest's pass-through RNG would make the bytes the draws themselves,
/// but it halves what is left for every nested strategy and then yields zeros, which rand's
/// unbiased range sampling rejects forever.)
fn moves_from(stream: &[u8]) -> Vec<Move> {
    stream
        .chunks(8)
        .take(300)
        .map(|chunk| {
            let mut seed = [0u8; 16];
            for (i, b) in seed.iter_mut().enumerate() {
                *b = chunk.get(i % 8).copied().unwrap_or(0) ^ (0x5a + i as u8);
            }
            let mut runner =
                TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::XorShift, &seed));
            a_move().new_tree(&mut runner).expect("a move always draws").current()
        })
        .collect()
}

/// CI's size: a few learners of up to 30 moves on every lesson (raise with LEARNER_CASES).
#[cfg(test)]
#[test]
fn random_learners_keep_every_invariant_on_every_lesson() {
    let cases = std::env::var("LEARNER_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    for id in steerlab_scenario::lesson_ids() {
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        runner
            .run(&proptest::collection::vec(a_move(), 1..30), |moves| learn(id, &moves))
            .unwrap_or_else(|e| panic!("{id}: {e}"));
    }
}

/// The fuzz target's way in: inputs of zeros or no bytes draw their moves and end (the
/// pass-through RNG hung on them), and the kept corpus plays through every check.
#[cfg(test)]
#[test]
fn the_fuzz_entry_draws_from_any_bytes_and_plays_its_corpus() {
    assert_eq!(moves_from(&[0; 2400]).len(), 300);
    assert_eq!(moves_from(&[0xff; 9]).len(), 2);
    assert!(moves_from(&[]).is_empty());
    fuzz(&[]);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/corpus/learner");
    let mut played = 0;
    for entry in std::fs::read_dir(dir).expect("the learner corpus") {
        fuzz(&std::fs::read(entry.expect("an entry").path()).expect("a corpus file"));
        played += 1;
    }
    assert!(played >= 6, "one input per lesson at least");
}
