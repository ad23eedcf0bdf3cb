//! Permalink text (`#s=` values): refused with a banner, or restored in the worker's slices to
//! the state it names.
#![no_main]

use libfuzzer_sys::fuzz_target;
use steerlab_web::controller::{Action, Next, Session};

fuzz_target!(|data: &[u8]| {
    let link = String::from_utf8_lossy(data).into_owned();
    // Restoring replays the named time: links past 200 ms are decoded only.
    if let Ok(state) = steerlab_scenario::permalink::decode(&link) {
        if state.t_ns > 200_000_000 {
            return;
        }
    }
    let mut s = Session::default();
    s.apply(Action::Restore(link));
    let mut t = 0.0;
    for _ in 0..10_000 {
        let mut clock = || {
            t += 0.01;
            t
        };
        if s.pump(&mut clock, 8.0) == Next::Idle {
            break;
        }
    }
});
