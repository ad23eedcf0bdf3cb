//! Permalink text (`#s=` values): refused with a banner, or restored in the worker's slices to
//! the state it names.
#![no_main]

use libfuzzer_sys::fuzz_target;
use steerlab_web::controller::{Action, Session};

fuzz_target!(|data: &[u8]| {
    let link = String::from_utf8_lossy(data).into_owned();
    // Restoring replays the named time: links past 20 ms are decoded only (what a link says is
    // checked before any replay; a longer replay runs the same engine longer).
    if let Ok(state) = steerlab_scenario::permalink::decode(&link) {
        if state.t_ns > 20_000_000 {
            return;
        }
    }
    // Paused first: a refused link leaves the default lesson as it was, and pumping it would
    // only play that lesson on.
    let mut s = Session::default();
    s.apply(Action::Pause);
    s.apply(Action::Restore(link));
    s.pump_until_idle(10_000);
});
