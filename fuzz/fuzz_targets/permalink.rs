//! Permalink text (`#s=` values): refused with a banner, or restored in the worker's slices to
//! the state it names.
#![no_main]

use libfuzzer_sys::fuzz_target;
use steerlab_web::controller::{Action, Session};

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
    s.pump_until_idle(10_000);
});
