//! Memory stays flat however long a class runs (issue 29): a host played for 30 simulated
//! minutes, with a learner's commands along the way and steps back now and then, holds what
//! it held after its first five minutes: the same number of samples, snapshots and console
//! lines, and no more resident memory (`/proc/self/statm`, Linux; the page's worker runs the
//! same controller code).
#![cfg(not(target_arch = "wasm32"))]

use steerlab_engine::Nanos;
use steerlab_web::controller::Controller;

/// Resident memory of this process, bytes (`None` off Linux).
fn resident() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[test]
fn thirty_minutes_of_class_hold_no_more_memory_than_five() {
    let mut c = Controller::new_default();
    let commands = [
        "ethtool -X eth0 equal 3",
        "ethtool -X eth0 weight 1 1 2",
        "ethtool -X eth0 default",
    ];
    let mut at_5 = None;
    for minute in 1..=30u64 {
        for (i, line) in commands.iter().enumerate() {
            c.run_for(Nanos::from_ms(15_000));
            c.command(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            if i == 1 {
                // A step back: the later command is undone, time goes on from there.
                c.back();
                c.set_playing(true);
            }
        }
        c.run_for(Nanos::from_ms(17_000));
        let _ = c.view();
        if minute == 5 {
            at_5 = Some((c.footprint(), resident()));
        }
    }
    assert!(c.sim().now() >= Nanos::from_ms(30 * 60_000), "{}", c.sim().now());
    let (held_5, rss_5) = at_5.expect("five minutes");
    let (held_30, rss_30) = (c.footprint(), resident());
    eprintln!("held after 5 and 30 simulated minutes: {held_5:?} / {held_30:?}; resident {rss_5:?} / {rss_30:?}");
    // Samples, snapshots, console lines and the matrix's samples are bounded; the learner's
    // commands stay (a link replays them) and grow by the commands typed.
    assert_eq!(held_5.bounded(), held_30.bounded(), "{held_5:?} / {held_30:?}");
    assert!(held_30.console <= 200, "the console keeps its last 200 lines");
    if let (Some(a), Some(b)) = (rss_5, rss_30) {
        assert!(
            b < a + 8 * 1024 * 1024,
            "resident {a} B after 5 minutes, {b} B after 30"
        );
    }
}
