//! CPU sets: the kernel's `cpumask`, as written in sysfs (`rps_cpus`, `xps_cpus`: hex words of
//! 32 bits separated by commas, most significant first, `bitmap_parse`) and by `taskset -c`
//! (lists such as `0-3,8`, `bitmap_parselist`).

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

/// Most CPUs a host may have in the sandbox.
pub const MAX_CPUS: u16 = 1024;

/// A set of CPU ids below [`MAX_CPUS`], iterated in ascending order.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CpuSet([u64; (MAX_CPUS as usize) / 64]);

/// The CPUs of a [`CpuSet`] in ascending order ([`CpuSet::iter`]).
#[derive(Clone, Debug)]
pub struct Cpus<'a> {
    words: &'a [u64],
    /// The word being read, and its bits not yet returned.
    word: usize,
    bits: u64,
}

impl Iterator for Cpus<'_> {
    type Item = u16;

    fn next(&mut self) -> Option<u16> {
        while self.bits == 0 {
            self.word += 1;
            self.bits = *self.words.get(self.word)?;
        }
        let bit = self.bits.trailing_zeros() as u16;
        self.bits &= self.bits - 1;
        Some(self.word as u16 * 64 + bit)
    }
}

/// Why a CPU list or mask was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuSetError(pub String);

impl fmt::Display for CpuSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Default for CpuSet {
    fn default() -> Self {
        CpuSet::EMPTY
    }
}

impl fmt::Debug for CpuSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CpuSet({})", self.to_list())
    }
}

impl CpuSet {
    /// No CPU.
    pub const EMPTY: CpuSet = CpuSet([0; (MAX_CPUS as usize) / 64]);

    /// CPUs `lo..hi`.
    pub fn range(lo: u16, hi: u16) -> CpuSet {
        let mut s = CpuSet::EMPTY;
        for c in lo..hi.min(MAX_CPUS) {
            s.insert(c);
        }
        s
    }

    /// Adds `cpu` (ignored when `cpu >= MAX_CPUS`).
    pub fn insert(&mut self, cpu: u16) {
        if cpu < MAX_CPUS {
            self.0[usize::from(cpu / 64)] |= 1 << (cpu % 64);
        }
    }

    /// Whether `cpu` is in the set.
    pub fn contains(&self, cpu: u16) -> bool {
        cpu < MAX_CPUS && self.0[usize::from(cpu / 64)] & (1 << (cpu % 64)) != 0
    }

    /// Number of CPUs in the set.
    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// True when no CPU is in the set.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The CPUs in ascending order: word by word, each set bit by its trailing zeros (the
    /// views list every thread's set each frame; testing all 1024 ids cost most of that).
    pub fn iter(&self) -> Cpus<'_> {
        Cpus {
            words: &self.0,
            word: 0,
            bits: self.0[0],
        }
    }

    /// The `n`-th CPU in ascending order (whole words skipped by their counts).
    pub fn nth(&self, n: u32) -> Option<u16> {
        let mut n = n;
        for (i, &w) in self.0.iter().enumerate() {
            let ones = w.count_ones();
            if n < ones {
                let mut bits = w;
                for _ in 0..n {
                    bits &= bits - 1;
                }
                return Some(i as u16 * 64 + bits.trailing_zeros() as u16);
            }
            n -= ones;
        }
        None
    }

    /// The largest CPU id plus one (0 when empty).
    pub fn end(&self) -> u16 {
        self.0
            .iter()
            .rposition(|&w| w != 0)
            .map_or(0, |i| i as u16 * 64 + 64 - self.0[i].leading_zeros() as u16)
    }

    /// Keeps only CPUs below `n`.
    pub fn below(mut self, n: u16) -> CpuSet {
        for c in n..MAX_CPUS {
            self.0[usize::from(c / 64)] &= !(1 << (c % 64));
        }
        self
    }

    /// Parses a list like `0-3,8,10-11` (`bitmap_parselist`; also `taskset -c`).
    pub fn parse_list(text: &str) -> Result<CpuSet, CpuSetError> {
        let bad = || {
            CpuSetError(alloc::format!(
                "{text:?} is not a CPU list (e.g. 0-3,8; CPUs below {MAX_CPUS})"
            ))
        };
        let mut s = CpuSet::EMPTY;
        if text.trim().is_empty() {
            return Err(bad());
        }
        for part in text.trim().split(',') {
            let (lo, hi) = match part.split_once('-') {
                Some((a, b)) => (
                    a.parse::<u16>().map_err(|_| bad())?,
                    b.parse::<u16>().map_err(|_| bad())?,
                ),
                None => {
                    let c = part.parse::<u16>().map_err(|_| bad())?;
                    (c, c)
                }
            };
            if lo > hi || hi >= MAX_CPUS {
                return Err(bad());
            }
            for c in lo..=hi {
                s.insert(c);
            }
        }
        Ok(s)
    }

    /// Parses a hex mask like `ff` or `00000000,0000ff00` (`bitmap_parse`: 32-bit groups
    /// separated by commas, most significant first; an optional `0x` is accepted).
    pub fn parse_hex(text: &str) -> Result<CpuSet, CpuSetError> {
        let bad = || {
            CpuSetError(alloc::format!(
                "{text:?} is not a hex CPU mask (e.g. f or 00000000,0000ff00)"
            ))
        };
        let t = text.trim();
        let t = t.strip_prefix("0x").unwrap_or(t);
        let digits: Vec<u8> = t.bytes().filter(|&b| b != b',').collect();
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_hexdigit) {
            return Err(bad());
        }
        let mut s = CpuSet::EMPTY;
        for (bit4, &d) in digits.iter().rev().enumerate() {
            let v = (d as char).to_digit(16).unwrap_or(0);
            for b in 0..4 {
                if v & (1 << b) != 0 {
                    let cpu = bit4 * 4 + b;
                    if cpu >= usize::from(MAX_CPUS) {
                        return Err(CpuSetError(alloc::format!(
                            "{text:?} names CPUs above {}",
                            MAX_CPUS - 1
                        )));
                    }
                    s.insert(cpu as u16);
                }
            }
        }
        Ok(s)
    }

    /// The mask as sysfs prints it for a host of `ncpus` CPUs (`%*pb`).
    pub fn to_hex(&self, ncpus: u16) -> String {
        let groups = usize::from(ncpus.max(1)).div_ceil(32);
        let mut out = String::new();
        for g in (0..groups).rev() {
            let word = (self.0[g / 2] >> ((g % 2) * 32)) as u32;
            let digits = if g == groups - 1 {
                usize::from(ncpus).saturating_sub(g * 32).div_ceil(4).max(1)
            } else {
                8
            };
            let _ = write!(out, "{word:0digits$x}");
            if g > 0 {
                out.push(',');
            }
        }
        out
    }

    /// The set as a list, e.g. `0-3,8` (`%*pbl`).
    pub fn to_list(&self) -> String {
        let mut out = String::new();
        let cpus: Vec<u16> = self.iter().collect();
        let mut i = 0;
        while i < cpus.len() {
            let mut j = i;
            while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
                j += 1;
            }
            if !out.is_empty() {
                out.push(',');
            }
            let _ = if i == j {
                write!(out, "{}", cpus[i])
            } else {
                write!(out, "{}-{}", cpus[i], cpus[j])
            };
            i = j + 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_and_hex_round_trip() {
        let s = CpuSet::parse_list("0-3,8,40-41").unwrap();
        assert_eq!(s.len(), 7);
        assert_eq!(s.to_list(), "0-3,8,40-41");
        assert_eq!(s.to_hex(48), "0300,0000010f");
        assert_eq!(CpuSet::parse_hex("300,0000010f").unwrap(), s);
        assert_eq!(CpuSet::parse_hex("f").unwrap().to_hex(4), "f");
        assert_eq!(CpuSet::parse_hex("0x00000000,0000ff00").unwrap().to_list(), "8-15");
    }

    /// `iter`, `nth` and `end` scan words; they agree with testing every id, across word
    /// boundaries and at both ends.
    #[test]
    fn iteration_by_words_agrees_with_testing_each_id() {
        let lists = [
            "0",
            "63",
            "64",
            "63-64",
            "0-1023",
            "1023",
            "5,70-130,900-901,1023",
            "127-128,511-513",
        ];
        for list in lists.iter().copied().chain([""]) {
            let s = if list.is_empty() {
                CpuSet::EMPTY
            } else {
                CpuSet::parse_list(list).unwrap()
            };
            let each: Vec<u16> = (0..MAX_CPUS).filter(|&c| s.contains(c)).collect();
            assert_eq!(s.iter().collect::<Vec<_>>(), each, "{list}");
            for n in 0..=each.len() as u32 {
                assert_eq!(s.nth(n), each.get(n as usize).copied(), "{list} nth {n}");
            }
            assert_eq!(s.end(), each.last().map_or(0, |c| c + 1), "{list}");
        }
    }

    #[test]
    fn bad_input_is_refused() {
        for t in ["", "3-1", "a", "0-1024", "1,,2"] {
            assert!(CpuSet::parse_list(t).is_err(), "{t}");
        }
        for t in ["", "g", "0x"] {
            assert!(CpuSet::parse_hex(t).is_err(), "{t}");
        }
        assert!(CpuSet::parse_hex(&"f".repeat(257)).is_err());
    }
}
