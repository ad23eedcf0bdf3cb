//! Playback speed: how far simulated time should have come by a given wall-clock instant.
//! One pacer drives every host of a session (the sandbox's one, the compare view's two). The
//! engine decides results by simulated time alone, so the wall clock only decides *when*
//! ticks run, never what they do.

/// Playback speeds: simulated ns per real ms (`u64::MAX`: as fast as the engine runs),
/// named as simulated seconds per real second. "1 s/s" is real time while the engine keeps
/// up; when it cannot, the page says the rate it really runs at ([`Pacer::behind`]).
pub const SPEEDS: [(&str, u64); 5] = [
    ("0.1 s/s", 100_000),
    ("1 s/s", 1_000_000),
    ("10 s/s", 10_000_000),
    ("100 s/s", 100_000_000),
    ("max", u64::MAX),
];

/// Real time over which the achieved rate is measured, ms.
const MEASURE_MS: f64 = 2000.0;

/// The default speed (index into [`SPEEDS`]): real time.
const DEFAULT_SPEED: usize = 1;

/// Most real time the hosts may fall behind before the debt is forgotten, ms: a host too big
/// to keep up, or a tab the browser put to sleep, goes on from where it is instead of racing.
const MAX_LAG_MS: f64 = 250.0;

/// Wall-clock pacing of simulated time.
#[derive(Clone, Debug, PartialEq)]
pub struct Pacer {
    speed: usize,
    /// (wall ms, simulated ns) from which the target counts: set on the first call after a
    /// start, a speed change or a jump of the hosts' time.
    anchor: Option<(f64, u64)>,
    /// (wall ms, simulated ns) where the current measuring window began.
    window: Option<(f64, u64)>,
    /// Simulated ns per real ms over the last whole window (0: not measured yet).
    achieved: f64,
}

impl Default for Pacer {
    fn default() -> Pacer {
        Pacer {
            speed: DEFAULT_SPEED,
            anchor: None,
            window: None,
            achieved: 0.0,
        }
    }
}

/// Whether speed `speed` (an index into [`SPEEDS`]) runs as fast as the engine can.
pub(super) fn unbounded(speed: usize) -> bool {
    SPEEDS.get(speed).is_some_and(|s| s.1 == u64::MAX)
}

impl Pacer {
    /// The speed (index into [`SPEEDS`]).
    pub fn speed(&self) -> usize {
        self.speed
    }

    /// Sets the speed (clamped to [`SPEEDS`]); the target counts anew from the next call.
    pub fn set_speed(&mut self, speed: usize) {
        self.speed = speed.min(SPEEDS.len() - 1);
        self.restart();
    }

    /// As fast as the engine runs.
    pub fn unbounded(&self) -> bool {
        unbounded(self.speed)
    }

    /// Forgets the anchor: time was paused, or the hosts' time jumped (seek, reset, a step).
    pub fn restart(&mut self) {
        (self.anchor, self.window, self.achieved) = (None, None, 0.0);
    }

    /// The rate time really ran at over the last two seconds, in simulated seconds per real
    /// second, when it fell more than 10 % short of the speed asked for (a host too big for
    /// the engine to keep up): the page says so rather than call it "1 s/s".
    pub fn behind(&self) -> Option<f64> {
        let rate = SPEEDS[self.speed].1;
        (rate != u64::MAX && self.achieved > 0.0 && self.achieved < 0.9 * rate as f64).then(|| self.achieved / 1e6)
    }

    /// The simulated time the hosts, now at `sim_ns`, should have reached at wall time
    /// `now_ms` (`u64::MAX` at full speed).
    pub fn target(&mut self, now_ms: f64, sim_ns: u64) -> u64 {
        let rate = SPEEDS[self.speed].1;
        if rate == u64::MAX {
            return u64::MAX;
        }
        match self.window {
            Some((w, s)) if now_ms - w >= MEASURE_MS => {
                self.achieved = sim_ns.saturating_sub(s) as f64 / (now_ms - w);
                self.window = Some((now_ms, sim_ns));
            }
            None => self.window = Some((now_ms, sim_ns)),
            Some(_) => {}
        }
        let (t0, s0) = *self.anchor.get_or_insert((now_ms, sim_ns));
        let due = s0.saturating_add(((now_ms - t0).max(0.0) * rate as f64) as u64);
        let limit = sim_ns.saturating_add((MAX_LAG_MS * rate as f64) as u64);
        if due > limit {
            self.anchor = Some((now_ms - MAX_LAG_MS, sim_ns));
            return limit;
        }
        due
    }

    /// Real ms until simulated time reaches `next_ns` (the hosts' next tick boundary) at this
    /// speed: how long the worker may sleep. 0 at full speed or when it is due.
    pub fn wait_ms(&self, now_ms: f64, next_ns: u64) -> f64 {
        let rate = SPEEDS[self.speed].1;
        match self.anchor {
            Some((t0, s0)) if rate != u64::MAX => {
                (t0 + next_ns.saturating_sub(s0) as f64 / rate as f64 - now_ms).max(0.0)
            }
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_time_is_one_simulated_second_per_second_and_forgets_a_long_lag() {
        let mut p = Pacer::default();
        assert_eq!(p.target(1000.0, 0), 0, "anchored at the first call");
        assert_eq!(
            p.target(1100.0, 0),
            100_000_000,
            "100 ms later: 100 ms of simulated time"
        );
        assert!((p.wait_ms(1100.0, 150_000_000) - 50.0).abs() < 1e-9);
        // Far behind (the engine could not keep up): the debt is capped, then counts from there.
        assert_eq!(p.target(5000.0, 200_000_000), 200_000_000 + 250_000_000);
        assert_eq!(p.target(5100.0, 450_000_000), 550_000_000);
        p.set_speed(4);
        assert!(p.unbounded());
        assert_eq!(p.target(6000.0, 0), u64::MAX);
        p.set_speed(99);
        assert_eq!(p.speed(), SPEEDS.len() - 1);
        p.set_speed(0);
        p.target(0.0, 0);
        assert_eq!(p.target(100.0, 0), 10_000_000, "0.1×");
    }
}
