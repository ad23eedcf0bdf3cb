//! The lesson's key figures as the strip prints them (`lesson-evidence`): each a steady rate,
//! "before" over the last full simulated second before the learner's first change (the lesson
//! as they found it), "now" over the last full second once a second has passed since the last
//! command; and the change between them, signed and sized by one rule everywhere, the compare
//! view's ratios too (teaching.md, "Figures that teach"): `−7 %` when the ratio is between 0.5
//! and 2, `×0.02` or `×15` outside (two significant figures below 1), `+160k/s` when "before"
//! is about zero, and "unchanged" when both print the same.

use serde::{Deserialize, Serialize};
use steerlab_scenario::teach::{figure, SETTLE_NS, WINDOW_NS};
use steerlab_scenario::{Better, Evidence, Totals};

/// One figure of the `lesson-evidence` strip, formatted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceView {
    /// The name the lesson's steps use.
    pub label: String,
    /// Before the change ("—" before any change).
    pub before: String,
    /// Now ("measuring…" within two seconds of a change, "paused" while time stands still
    /// there).
    pub now: String,
    /// The change from before to now, signed (empty until both are known).
    pub change: String,
    /// The direction that means success.
    pub better: Better,
    /// How the figure moved from before to now.
    pub trend: Trend,
    /// The command that prints it, while the lesson has the learner find it
    /// (`Lesson::find_by_reading`): the figure is not shown until then.
    pub hidden: Option<String>,
}

impl EvidenceView {
    /// Keeps the figure to itself until the learner runs `command`.
    pub(super) fn conceal(&mut self, command: &str) {
        (self.before, self.now, self.change) = ("—".into(), "?".into(), String::new());
        self.trend = Trend::Unknown;
        self.hidden = Some(command.to_string());
    }
}

/// How an evidence figure moved since the change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Trend {
    /// No change yet, or not measurable.
    Unknown,
    /// Both print the same.
    Same,
    /// Went up.
    Up,
    /// Went down.
    Down,
}

/// The figures of `evidence` before (taken at the change, `before`) and now. `last_change`
/// is the simulated time of the learner's last command (`None`: none yet); `paused` whether
/// time stands still.
pub(super) fn strip(
    evidence: &[Evidence],
    before: Option<&[Option<f64>]>,
    samples: &[(u64, Totals)],
    last_change: Option<u64>,
    paused: bool,
) -> Vec<EvidenceView> {
    let latest = samples.last().map_or(0, |(t, _)| *t);
    // "Now" is the last full second, and it starts a settling second after the change.
    let steady = last_change.is_none_or(|c| latest >= c + SETTLE_NS + WINDOW_NS);
    evidence
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let now = steady.then(|| figure(samples, &e.metric, e.rate, latest)).flatten();
            let before = before.and_then(|b| b.get(i).copied().flatten());
            let (before_text, now_text) = (format_value(e, before), format_value(e, now));
            let now_text = match (now, steady, paused) {
                (None, false, true) => "paused".to_string(),
                (None, false, false) => "measuring…".to_string(),
                _ => now_text,
            };
            let (change, trend) = match (before, now) {
                (Some(b), Some(n)) => change(e, b, n, &before_text, &now_text),
                _ => (String::new(), Trend::Unknown),
            };
            EvidenceView {
                label: e.label.clone(),
                before: before_text,
                now: now_text,
                change,
                better: e.better,
                trend,
                hidden: None,
            }
        })
        .collect()
}

/// The figures of `evidence` at the change made at `at` (each over the full second before it).
pub(super) fn before(evidence: &[Evidence], samples: &[(u64, Totals)], at: u64) -> Vec<Option<f64>> {
    evidence
        .iter()
        .map(|e| figure(samples, &e.metric, e.rate, at))
        .collect()
}

/// The change from `b` to `n`, as printed, and its direction.
fn change(e: &Evidence, b: f64, n: f64, b_text: &str, n_text: &str) -> (String, Trend) {
    if b_text == n_text {
        return ("unchanged".to_string(), Trend::Same);
    }
    let trend = if n > b { Trend::Up } else { Trend::Down };
    // About zero before: a ratio says nothing, the absolute change does.
    if b.abs() < 1e-9 || b.abs() * 1000.0 < n.abs() {
        let d = format_value(e, Some(n - b));
        let sign = if n >= b { "+" } else { "" };
        return (format!("{sign}{d}"), trend);
    }
    (ratio_text(n / b), trend)
}

/// A ratio as a person writes a change: `+12 %`, `−7 %` between ×0.5 and ×2, else `×0.02`,
/// `×15`.
pub fn ratio_text(r: f64) -> String {
    if (0.5..=2.0).contains(&r) {
        let pct = (r - 1.0) * 100.0;
        let digits = if pct.abs() < 10.0 { 1 } else { 0 };
        let text = format!("{:.digits$}", pct.abs());
        if text.trim_start_matches(['0', '.']).is_empty() {
            return "±0 %".to_string();
        }
        return format!("{}{text} %", if pct < 0.0 { "−" } else { "+" });
    }
    match r {
        0.0 => "×0".to_string(),
        // Two significant figures, no trailing zero: ×0.02, ×0.0099, ×0.5.
        r if r < 1.0 => {
            let digits = (1 - r.log10().floor() as i32).max(2) as usize;
            let text = format!("{r:.digits$}");
            format!("×{}", text.trim_end_matches('0').trim_end_matches('.'))
        }
        r if r < 10.0 => format!("×{r:.1}"),
        r => format!("×{r:.0}"),
    }
}

/// A figure as people read it: `6.1M/s`, `620k/s`, `41.80 ns`, "—" when there is none.
pub(super) fn format_value(e: &Evidence, v: Option<f64>) -> String {
    let Some(v) = v else { return "—".to_string() };
    // A time in ns reads in the unit of its size: 41.80 ns, 125 µs, 1.31 ms.
    if e.unit == "ns" && !e.rate && v.abs() >= 1e3 {
        let (x, unit) = if v.abs() >= 1e6 {
            (v / 1e6, "ms")
        } else {
            (v / 1e3, "µs")
        };
        return format!("{} {unit}", human(x));
    }
    let unit = if e.unit.is_empty() && e.rate {
        "/s"
    } else {
        e.unit.as_str()
    };
    let h = human(v);
    match h.strip_suffix(['k', 'M', 'G']) {
        // A unit of its own takes the multiplier: 2.12 GB/s, 41.80 ns.
        Some(n) if !unit.is_empty() && !unit.starts_with('/') => format!("{n} {}{unit}", &h[n.len()..]),
        _ if unit.is_empty() || unit.starts_with('/') => format!("{h}{unit}"),
        _ => format!("{h} {unit}"),
    }
}

/// Three significant figures with k, M, G suffixes; small values keep two decimals.
pub fn human(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = match a {
        a if a >= 1e9 => (v / 1e9, "G"),
        a if a >= 1e6 => (v / 1e6, "M"),
        a if a >= 1e4 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let digits = if suffix.is_empty() && a < 100.0 && v.fract() != 0.0 {
        2
    } else if x.abs() >= 100.0 || suffix.is_empty() {
        0
    } else if x.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{x:.digits$}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(rate: bool, unit: &str) -> Evidence {
        Evidence {
            label: "x".into(),
            metric: "m".into(),
            rate,
            unit: unit.into(),
            better: Better::Down,
        }
    }

    #[test]
    fn figures_read_like_a_person_writes_them() {
        assert_eq!(human(0.0), "0");
        assert_eq!(human(7.0), "7");
        assert_eq!(human(41.8), "41.80");
        assert_eq!(human(9_999.0), "9999");
        assert_eq!(human(620_400.0), "620k");
        assert_eq!(human(1_630_000.0), "1.63M");
        assert_eq!(human(13_200_000_000.0), "13.2G");
        let e = ev(true, "");
        assert_eq!(format_value(&e, Some(620_400.0)), "620k/s");
        assert_eq!(format_value(&e, None), "—");
        assert_eq!(format_value(&ev(false, "ns"), Some(41.8)), "41.80 ns");
        assert_eq!(format_value(&ev(false, "ns"), Some(125_952.0)), "126 µs");
        assert_eq!(format_value(&ev(false, "ns"), Some(1_310_720.0)), "1.31 ms");
        assert_eq!(format_value(&ev(true, "B/s"), Some(2.12e9)), "2.12 GB/s");
    }

    /// The cases: 41.80 → 38.94 ns is −6.8 %, not "="; 1.16M → 1.24M msgs/s +6.9 %;
    /// a storm to zero is ×0; from zero, the absolute change.
    #[test]
    fn a_change_is_signed_and_sized() {
        let ns = ev(false, "ns");
        let show = |e: &Evidence, b: f64, n: f64| change(e, b, n, &format_value(e, Some(b)), &format_value(e, Some(n)));
        assert_eq!(show(&ns, 41.80, 38.94), ("−6.8 %".to_string(), Trend::Down));
        let r = ev(true, "");
        assert_eq!(show(&r, 1_157_425.0, 1_241_046.0).0, "+7.2 %");
        assert_eq!(show(&r, 4204.0, 0.0).0, "×0");
        assert_eq!(show(&r, 4204.0, 84.0).0, "×0.02");
        assert_eq!(show(&r, 4204.0, 21.0).0, "×0.005");
        assert_eq!(show(&r, 20.0, 300.0).0, "×15");
        assert_eq!(show(&r, 0.0, 160_000.0), ("+160k/s".to_string(), Trend::Up));
        assert_eq!(
            show(&r, 160_000.0, 160_400.0),
            ("unchanged".to_string(), Trend::Same),
            "both print 160k/s"
        );
        assert_eq!(
            show(&r, 4204.0, 41.5).0,
            "×0.0099",
            "two significant figures, not ×0.010"
        );
        assert_eq!(ratio_text(0.1), "×0.1");
        assert_eq!(ratio_text(0.5), "−50 %");
        assert_eq!(ratio_text(1.0004), "±0 %");
    }
}
