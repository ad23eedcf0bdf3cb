//! The random learner as a stateful target: a sequence of up to 300 moves (console lines from
//! the tools' grammar, ticks, step back, seek, permalinks) on the lesson the first byte picks,
//! drawn from the input's bytes; every invariant checked after each move, then the replay and
//! every permalink (web/src/controller/learner.rs).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| steerlab_web::controller::learner::fuzz(data));
