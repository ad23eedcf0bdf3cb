//! A lesson file as a trainer (or anyone a link points at) writes it: refused with an error
//! naming the field, or judged as the page judges it (its goal over a second of samples, every
//! part of both forms) and checked for questions its text answers, without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use steerlab_scenario::{lesson_run::LessonRun, teach};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(scenario) = steerlab_scenario::parse(&text, &[]) else {
        return;
    };
    let _ = teach::giveaways(&scenario.lesson);
    // Hosts too big to play a million times stay parsed only.
    if scenario.host.cpus as u64 * scenario.flows.iter().map(|f| u64::from(f.count)).sum::<u64>() > 20_000 {
        return;
    }
    for challenge in [false, true] {
        let Ok(mut run) = LessonRun::new(scenario.clone(), challenge) else { return };
        for line in scenario.lesson.steps.iter().flat_map(|s| &s.commands).take(32) {
            let _ = run.command(line);
        }
        if run.run_for(1_000_000_000).is_ok() {
            let v = run.verdict();
            assert_eq!(v.parts.len(), scenario.lesson.goal(challenge).len());
            assert!(run.sim().conserved(), "packets lost");
        }
    }
});
