//! Messages to the simulation worker (postcard bytes): refused, or an action the session
//! takes, pumped a while as the worker would.
#![no_main]

use libfuzzer_sys::fuzz_target;
use steerlab_web::controller::{decode, Action, Session};

fuzz_target!(|data: &[u8]| {
    let Ok(action) = decode::<Action>(data) else { return };
    // Far seeks and loads replay long runs: decoded only.
    if matches!(action, Action::Seek(ms) if ms > 2_000)
        || matches!(action, Action::RunToEnd | Action::Restore(_) | Action::Load { .. })
    {
        return;
    }
    let mut s = Session::default();
    s.apply(action);
    s.pump_until_idle(20);
    s.take();
});
