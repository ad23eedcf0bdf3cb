//! No CPU works more time than there is (issue 51): in every built-in lesson, played as a
//! learner plays it (its steps' commands, then its challenge's solution), no CPU's booked
//! time (user + sys + softirq) in any second of simulated time exceeds the second. Where a
//! model would need more, its work waits (mlx5's worker) or its packets drop, as the kernel's
//! would.

use steerlab_engine::ledger::Ledger;
use steerlab_engine::Sim;
use steerlab_scenario::lesson_run::{LessonRun, READ_NS, WATCH_NS};
use steerlab_scenario::{lesson_ids, load};

const SECOND: u64 = 1_000_000_000;

/// What a second may hold beyond itself: mlx5's worker finishes an item it has begun and
/// pays the overrun from its next turn, so a second may end with part of the next one's
/// item booked (a hardware write and a walk, at most a quota of removals: well under this).
const ONE_ITEM_NS: u64 = 1_000_000;

/// The stages that booked most of `cpu`'s time from `before` to now.
fn biggest(sim: &Sim, cpu: usize, before: &Ledger) -> String {
    let now = sim.cpu_ledger(cpu as u16).expect("a CPU of the host");
    let mut d: Vec<(u64, &str)> = now.iter().map(|(s, ns)| (ns - before.get(s), s.name())).collect();
    d.sort_unstable_by(|a, b| b.cmp(a));
    d.iter()
        .take(4)
        .map(|(ns, s)| format!("{s} {ns} ns"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Each CPU's booked time so far.
fn booked(sim: &Sim) -> Vec<u64> {
    sim.snapshot()
        .cpus
        .iter()
        .map(|c| c.user_ns + c.sys_ns + c.softirq_ns)
        .collect()
}

/// Runs `d` ns a second at a time, checking every CPU's time in each second.
fn run_checked(run: &mut LessonRun, d: u64, what: &str) {
    let end = run.now() + d;
    let mut before = booked(run.sim());
    let ledgers = |sim: &Sim| {
        (0..sim.config().cpus)
            .map(|c| sim.cpu_ledger(c).expect("a CPU"))
            .collect::<Vec<_>>()
    };
    let mut before_ledgers = ledgers(run.sim());
    while run.now() < end {
        let t0 = run.now();
        run.run_for(SECOND.min(end - t0))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let span = run.now() - t0;
        if span == 0 {
            break;
        }
        let after = booked(run.sim());
        for (cpu, (a, b)) in after.iter().zip(&before).enumerate() {
            let used = a - b;
            assert!(
                used <= span + ONE_ITEM_NS,
                "{what}: CPU {cpu} booked {:.1} % of {t0}..{} ns ({used} ns in {span} ns: {})",
                used as f64 * 100.0 / span as f64,
                run.now(),
                biggest(run.sim(), cpu, &before_ledgers[cpu])
            );
        }
        before = after;
        before_ledgers = ledgers(run.sim());
    }
}

#[test]
fn no_cpu_is_booked_past_the_clock_in_any_lesson() {
    // Every lesson's every variant (`lesson.variants`), each picked by its seed.
    let hosts = lesson_ids().flat_map(|id| {
        let s = load(id, &[]).unwrap_or_else(|e| panic!("{id}: {e}"));
        let others = s.other_variants(|seed| load(id, &[seed]));
        let others = others.into_iter().map(move |(k, v)| {
            (
                format!("{id} (variant {k})"),
                v.unwrap_or_else(|e| panic!("{id} variant {k}: {e}")),
            )
        });
        std::iter::once((id.to_string(), s)).chain(others)
    });
    for (id, s) in hosts {
        let mut guided = LessonRun::new(s.clone(), false).unwrap();
        run_checked(&mut guided, READ_NS, &format!("{id} at its start"));
        for (k, step) in s
            .lesson
            .steps
            .iter()
            .enumerate()
            .filter(|(_, st)| !st.commands.is_empty())
        {
            for line in &step.commands {
                guided.command(line).unwrap_or_else(|e| panic!("{id}: {line}: {e}"));
            }
            run_checked(&mut guided, WATCH_NS, &format!("{id} after step {}", k + 1));
        }
        let c = s.lesson.challenge.as_ref().expect("every lesson has a challenge");
        let mut challenge = LessonRun::new(s.clone(), true).unwrap();
        run_checked(&mut challenge, READ_NS, &format!("{id}'s challenge"));
        for line in &c.solution {
            challenge.command(line).unwrap_or_else(|e| panic!("{id}: {line}: {e}"));
        }
        run_checked(&mut challenge, WATCH_NS, &format!("{id}'s challenge solved"));
    }
}
