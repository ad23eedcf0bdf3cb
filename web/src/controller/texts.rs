//! Figures in lesson texts, read from the engine (teaching.md: "every figure a text quotes
//! comes from the engine at that moment, never from a constant"). A text writes a figure as
//! `{{PATH}}` (a report value: `{{xdp.ns_per_pkt}}`), `{{rate:PATH}}` (a counter's rate over
//! the last full second: `{{rate:arfs.update}}`) or `{{share:STAGE}}` (a ledger stage's share
//! of its account's time: `{{share:tx_pick_hash}}`). A step's text is filled while the step
//! is current and keeps those figures once the learner moves on, so it reads as it did.

use steerlab_engine::ledger::Stage;
use steerlab_scenario::teach::figure;
use steerlab_scenario::Figures;

use super::evidence::human;

/// `text` with its figures filled from `samples` ("…" for a figure not measurable yet).
pub(super) fn fill<F: Figures>(text: &str, samples: &[(u64, F)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let Some(len) = rest[open..].find("}}") else { break };
        out.push_str(&rest[..open]);
        out.push_str(&figure_text(&rest[open + 2..open + len], samples));
        rest = &rest[open + len + 2..];
    }
    out.push_str(rest);
    out
}

/// One `{{…}}` figure as printed.
fn figure_text<F: Figures>(spec: &str, samples: &[(u64, F)]) -> String {
    let Some((now, last)) = samples.last() else {
        return "…".into();
    };
    let value = match spec.split_once(':') {
        Some(("rate", path)) => figure(samples, path, true, *now),
        Some(("share", stage)) => share(last, stage).map(|s| s * 100.0),
        _ => figure(samples, spec, false, *now),
    };
    match (value, spec.starts_with("share:")) {
        (None, _) => "…".into(),
        (Some(v), true) => format!("{v:.1} %"),
        (Some(v), false) => human(v),
    }
}

/// A ledger stage's nanoseconds as a share of its account's (user, sys or softirq) total.
fn share(r: &impl Figures, name: &str) -> Option<f64> {
    let stage = Stage::ALL.iter().find(|s| s.name() == name)?;
    let ns = |s: &Stage| r.number(&format!("ledger.{}_ns", s.name()));
    let total: f64 = Stage::ALL
        .iter()
        .filter(|s| s.class() == stage.class())
        .filter_map(ns)
        .sum();
    (total > 0.0).then(|| ns(stage).unwrap_or(0.0) / total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use steerlab_scenario::Report;

    #[test]
    fn figures_come_from_the_samples() {
        let samples: Vec<(u64, Report)> = (0..=10)
            .map(|i| {
                let r = serde_json::json!({
                    "arfs": {"update": i * 420},
                    "xdp": {"ns_per_pkt": 41.8},
                    "ledger": {"tx_send_ns": 804 * i, "tx_pick_hash_ns": 66 * i, "stack_rx_ns": 5},
                });
                (i * 100_000_000, Report(r))
            })
            .collect();
        assert_eq!(
            fill(
                "{{rate:arfs.update}} updates/s, {{xdp.ns_per_pkt}} ns, {{share:tx_pick_hash}}",
                &samples
            ),
            "4200 updates/s, 41.80 ns, 7.6 %"
        );
        assert_eq!(fill("{{rate:arfs.update}} and {{nope}}", &samples[..5]), "… and …");
        assert_eq!(fill("no figure, {{ unclosed", &samples), "no figure, {{ unclosed");
    }
}
