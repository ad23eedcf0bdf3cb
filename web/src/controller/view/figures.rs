//! The figures the panels print beside the picture (the cost ledger, XDP, XPS and the tc
//! block's counters), typed, read from the engine's snapshot and its tc block: the numbers
//! `steerlab run` reports under the same names (`crates/scenario/src/report.rs`), without a
//! trip through the report's JSON.

use serde::{Deserialize, Serialize};
use steerlab_engine::{Sim, Snapshot};

/// The cost ledger and the XDP, XPS and tc figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// CPU time per pipeline stage, in the pipeline's order: its name, ns since the start, and
    /// ns per second over the last full simulated second (`None` before a second has passed).
    pub ledger: Vec<(String, u64, Option<u64>)>,
    /// The loaded XDP program's cost (`None`: no program).
    pub xdp: Option<XdpFigures>,
    /// Transmit queue picks.
    pub xps: XpsFigures,
    /// The ingress block's counters.
    pub tc: TcFigures,
    /// Where packets were dropped: each place with its count and the command that shows it.
    pub drops: Vec<DropPlace>,
}

/// A place where packets drop, as the "where did my packets go" view shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DropPlace {
    /// The place, in words.
    pub place: String,
    /// The counter a real tool shows for it, and the command that shows it.
    pub counter: String,
    pub command: String,
    /// Packets dropped there since the start, and in the last simulated second (`None`
    /// before a second has passed).
    pub total: u64,
    pub last_second: Option<u64>,
    /// Its report figure (`packets.dropped.socket`, ...).
    pub metric: String,
    /// The command that prints it, while the lesson has the learner find where packets drop
    /// (`Lesson::find_by_reading`): the counts are not shown until then.
    pub hidden: Option<String>,
}

/// `xdp.ns_per_pkt` and `xdp.mpps_per_core`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct XdpFigures {
    /// Per packet, driver base included, ns.
    pub ns_per_pkt: f64,
    /// Packets per second one core runs it at, millions.
    pub mpps_per_core: f64,
}

/// `xps.hash_picks`, `xps.map_picks` and `xps.msgs_per_sec`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct XpsFigures {
    /// TX queues picked by `skb_tx_hash`.
    pub hash_picks: u64,
    /// TX queues picked by the XPS map.
    pub map_picks: u64,
    /// Messages sent per second since the start.
    pub msgs_per_sec: u64,
}

/// The tc ingress block's counters (`tc.*`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcFigures {
    /// `tc counting`: which kernel's rule decides the bypass.
    pub counting: String,
    /// Filters in the block.
    pub filtercnt: u32,
    /// Of them, `skip_sw`.
    pub skipswcnt: u32,
    /// Of them, those that need software (`usesw`).
    pub useswcnt: u32,
    /// `tc_run` skips software classification.
    pub bypass_sw: bool,
    /// Packets classified in software, total.
    pub sw_classified: u64,
    /// Packets a software filter would have matched, skipped by the bypass, total.
    pub sw_missed: u64,
}

impl Figures {
    /// The figures of `sim` now (`s` is its snapshot; `samples` the history's, for the last
    /// second's rates).
    pub fn of(sim: &Sim, s: &Snapshot, samples: &[(u64, steerlab_scenario::Totals)]) -> Figures {
        let c = &s.counters;
        let block = sim.tc_block();
        let secs = (s.now.0 as f64 / 1e9).max(1e-9);
        Figures {
            ledger: s
                .ledger
                .iter()
                .map(|(stage, ns)| {
                    let path = format!("ledger.{}_ns", stage.name());
                    let second = steerlab_scenario::teach::figure(samples, &path, true, s.now.0);
                    (stage.name().to_string(), ns, second.map(|x| x.max(0.0).round() as u64))
                })
                .collect(),
            // As the report rounds them: 0.01 ns, 0.001 Mpps.
            xdp: s.xdp_ps.map(|ps| XdpFigures {
                ns_per_pkt: (ps as f64 / 10.0).round() / 100.0,
                mpps_per_core: (1e6 / ps as f64 * 1000.0).round() / 1000.0,
            }),
            xps: XpsFigures {
                hash_picks: c.xps_hash_picks,
                map_picks: c.xps_map_picks,
                msgs_per_sec: (c.tx_messages as f64 / secs).round() as u64,
            },
            drops: drop_places(sim, s, samples),
            tc: TcFigures {
                counting: sim.config().tc_counting.to_string(),
                filtercnt: block.map_or(0, |b| b.filtercnt()),
                skipswcnt: block.map_or(0, |b| b.skipswcnt()),
                useswcnt: block.map_or(0, |b| b.useswcnt()),
                bypass_sw: block.is_some_and(|b| b.bypass_sw()),
                sw_classified: c.tc_sw_classified,
                sw_missed: c.tc_sw_missed,
            },
        }
    }
}

/// Every place a packet can drop, in the path's order, with the report's figure for it.
fn drop_places(sim: &Sim, s: &Snapshot, samples: &[(u64, steerlab_scenario::Totals)]) -> Vec<DropPlace> {
    let c = &s.counters;
    let ring = sim.config().driver.ring_drop_counter();
    let places: [(&str, String, &str, &str, u64); 7] = [
        (
            "NIC ring full",
            ring.to_string(),
            "ethtool -S eth0",
            "packets.dropped.ring_full",
            c.ring_full,
        ),
        (
            "NIC tc filter",
            "in_hw drops".into(),
            "tc -s filter show dev eth0 ingress",
            "tc.hw_drop",
            c.tc_hw_drop,
        ),
        (
            "XDP program",
            "XDP_DROP".into(),
            "ethtool -S eth0",
            "packets.dropped.xdp",
            c.xdp_drop,
        ),
        (
            "tc filter (software)",
            "drops".into(),
            "tc -s filter show dev eth0 ingress",
            "packets.dropped.tc",
            c.tc_drop - c.tc_hw_drop.min(c.tc_drop),
        ),
        (
            "CPU backlog full",
            "softnet_stat column 2".into(),
            "cat /proc/net/softnet_stat",
            "packets.dropped.backlog_full",
            c.backlog_full,
        ),
        (
            "flow limit",
            "softnet_stat column 11".into(),
            "cat /proc/net/softnet_stat",
            "backlog.flow_limit_count",
            c.flow_limit,
        ),
        (
            "socket buffer full",
            "UdpRcvbufErrors".into(),
            "nstat -az UdpRcvbufErrors",
            "packets.dropped.socket",
            c.socket_drop,
        ),
    ];
    let rate = |path: &str| steerlab_scenario::teach::figure(samples, path, true, s.now.0);
    places
        .into_iter()
        .map(|(place, counter, command, path, total)| {
            // The software filters' rate: tc's drops less the NIC's (the report counts both).
            let second = match path {
                "packets.dropped.tc" => rate(path).zip(rate("tc.hw_drop")).map(|(a, b)| a - b),
                _ => rate(path),
            };
            DropPlace {
                place: place.into(),
                counter,
                command: command.into(),
                total,
                last_second: second.map(|x| x.max(0.0).round() as u64),
                metric: path.into(),
                hidden: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::Controller;
    use steerlab_engine::Nanos;
    use steerlab_scenario::Report;

    /// The panels print what `steerlab run` reports under the same names.
    #[test]
    fn the_figures_are_the_reports() {
        for id in ["xdp-kfunc-cost", "tc-bypass", "xps-pick-tx", "rss-basics"] {
            let mut c = Controller::for_lesson(id).unwrap();
            c.run_for(Nanos::from_ms(1000));
            let (sim, r) = (c.sim(), Report::totals(c.scenario(), c.sim()));
            let f = Figures::of(sim, &sim.snapshot(), &[]);
            let num = |path: &str| r.get(path).and_then(serde_json::Value::as_f64);
            assert_eq!(f.xdp.map(|x| x.ns_per_pkt), num("xdp.ns_per_pkt"), "{id}");
            assert_eq!(f.xdp.map(|x| x.mpps_per_core), num("xdp.mpps_per_core"), "{id}");
            assert_eq!(f.xps.hash_picks, r.int("xps.hash_picks"), "{id}");
            assert_eq!(f.xps.map_picks, r.int("xps.map_picks"), "{id}");
            assert_eq!(f.xps.msgs_per_sec, r.int("xps.msgs_per_sec"), "{id}");
            assert_eq!(
                Some(f.tc.counting.as_str()),
                r.get("tc.counting").and_then(|v| v.as_str())
            );
            assert_eq!(u64::from(f.tc.filtercnt), r.int("tc.filtercnt"), "{id}");
            assert_eq!(u64::from(f.tc.skipswcnt), r.int("tc.skipswcnt"), "{id}");
            assert_eq!(u64::from(f.tc.useswcnt), r.int("tc.useswcnt"), "{id}");
            assert_eq!(Some(f.tc.bypass_sw), r.get("tc.bypass_sw").and_then(|v| v.as_bool()));
            assert_eq!(f.tc.sw_classified, r.int("tc.sw_classified"), "{id}");
            assert_eq!(f.tc.sw_missed, r.int("tc.sw_missed"), "{id}");
            match id {
                "tc-bypass" => assert!(f.tc.filtercnt > 0 && f.tc.sw_classified + f.tc.sw_missed > 0, "{f:?}"),
                "xps-pick-tx" => assert!(f.xps.msgs_per_sec > 0, "{f:?}"),
                _ => {}
            }
            assert!(f.ledger.iter().any(|(_, ns, _)| *ns > 0), "{id}: time was booked");
            for (stage, ns, _) in &f.ledger {
                assert_eq!(*ns, r.int(&format!("ledger.{stage}_ns")), "{id}: {stage}");
            }
        }
        let mut c = Controller::for_lesson("xdp-kfunc-cost").unwrap();
        c.run_for(Nanos::from_ms(500));
        assert!(
            Figures::of(c.sim(), &c.sim().snapshot(), &[]).xdp.is_some(),
            "the XDP lesson loads a program"
        );
    }
}
