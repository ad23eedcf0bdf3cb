//! Simulated time. The engine never reads a clock: every instant is passed in by the caller.

use core::fmt;

/// A point in simulated time or a duration, in integer nanoseconds since the start of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct Nanos(pub u64);

impl Nanos {
    /// Zero: the start of a run.
    pub const ZERO: Nanos = Nanos(0);

    /// `ms` milliseconds.
    pub const fn from_ms(ms: u64) -> Nanos {
        Nanos(ms * 1_000_000)
    }

    /// `us` microseconds.
    pub const fn from_us(us: u64) -> Nanos {
        Nanos(us * 1_000)
    }

    /// `s` seconds.
    pub const fn from_secs(s: u64) -> Nanos {
        Nanos(s * 1_000_000_000)
    }

    /// Saturating sum.
    pub const fn saturating_add(self, other: Nanos) -> Nanos {
        Nanos(self.0.saturating_add(other.0))
    }

    /// Saturating difference.
    pub const fn saturating_sub(self, other: Nanos) -> Nanos {
        Nanos(self.0.saturating_sub(other.0))
    }
}

impl fmt::Display for Nanos {
    /// Seconds with millisecond precision, like `12.345s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:03}s", self.0 / 1_000_000_000, (self.0 / 1_000_000) % 1000)
    }
}

/// `floor(a × b / d)` for a result that fits in 64 bits: the product in 64 bits when the
/// operands' bits fit there (nearly always), else in 128. wasm has no 64×64→128 multiply nor
/// a 128-bit divide (both are calls to compiler-rt), and the tick loop and every snapshot do
/// this per flow, per sender and per CPU and stage.
#[inline]
pub fn mul_div(a: u64, b: u64, d: u64) -> u64 {
    if a.leading_zeros() + b.leading_zeros() >= 64 {
        a * b / d
    } else {
        (u128::from(a) * u128::from(b) / u128::from(d)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::mul_div;

    /// Both ways of `mul_div` give the 128-bit quotient, on either side of the 64-bit bound.
    #[test]
    fn mul_div_is_exact_on_both_paths() {
        for (a, b) in [
            (0, 7),
            (1 << 31, 1 << 32),
            (1 << 32, 1 << 32),
            (u64::MAX, 1),
            (u64::MAX / 3, 5),
            (180_000_000_000, 100_000_000),
        ] {
            for d in [1, 1000, 1_000_000_000] {
                let want = u128::from(a) * u128::from(b) / u128::from(d);
                if let Ok(want) = u64::try_from(want) {
                    assert_eq!(mul_div(a, b, d), want, "{a} * {b} / {d}");
                }
            }
        }
    }
}
