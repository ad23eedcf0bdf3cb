//! The goal's parts: their file forms and errors, and how each is judged.

use super::*;
use crate::Report;

fn check(json: &str) -> Result<Check, String> {
    serde_json::from_str(json).map_err(|e| e.to_string())
}

/// Samples of one figure `m`, one every 100 ms.
fn samples(values: &[u64]) -> Vec<(u64, Report)> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| (i as u64 * 100_000_000, Report(serde_json::json!({ "m": v }))))
        .collect()
}

fn host() -> Sim {
    let s = crate::parse(
        r#"{"schema":1,"id":"t","host":{"cpus":4},"nic":{"rx_queues":4},
            "threads":[{"count":2,"cpus":"0-1","pin":true}],
            "flows":[{"count":2,"proto":"udp","src":"10.0.0.1","dst":"10.0.0.9","sport":1000,"dport":53,"rate_pps":1000,"readers_per_flow":1}]}"#,
        &[],
    )
    .expect("a valid host");
    s.build().expect("it builds")
}

fn judge_on(
    c: &Check,
    samples: &[(u64, Report)],
    since: u64,
    start: Option<&[(u64, Report)]>,
    sim: &Sim,
) -> Option<bool> {
    c.holds(&Judged {
        samples,
        since_ns: since,
        start,
        sim,
    })
}

#[test]
fn a_check_is_one_kind_with_its_keys_and_errors_say_what_is_accepted() {
    for (json, want) in [
        (r#"{"metric":"m","op":"eq"}"#, "needs \"value\""),
        (r#"{"metric":"m","value":1}"#, "needs \"op\""),
        (
            r#"{"metric":"m","op":"eq","value":1,"setting":"kernel"}"#,
            "one kind of check at a time",
        ),
        (r#"{"op":"eq","value":1}"#, "one kind of check at a time"),
        (r#"{"all":[]}"#, "at least one check"),
        (
            r#"{"all":[{"metric":"m","op":"eq","value":1}],"op":"eq"}"#,
            "does not belong",
        ),
        (r#"{"flows":"all"}"#, "needs \"where\""),
        (r#"{"flows":"all","where":"sideways"}"#, "not a property of a flow"),
        (r#"{"flows":"tcp 10.0.0.1 *","where":"open"}"#, "an endpoint is"),
        (r#"{"flows":"all","where":"open","value":2}"#, "a share, 0 to 1"),
        (
            r#"{"setting":"nic.drivr","is":"ice"}"#,
            "is not a setting a goal can name",
        ),
        (r#"{"setting":"nic.driver","value":1}"#, "is a name"),
        (r#"{"setting":"channels","is":"four"}"#, "is a number"),
        (r#"{"setting":"nic.driver","op":"gt","is":"ice"}"#, "eq or ne only"),
        (r#"{"metric":"m","op":"eq","value":1,"colour":"red"}"#, "unknown field"),
    ] {
        let e = check(json).expect_err(json);
        assert!(e.contains(want), "{json}: {e}");
    }
    // What is read back is what was written.
    for json in [
        r#"{"metric":"m","over_ms":500,"compare":"ratio","op":"lt","value":0.05,"label":"l","fails":"f"}"#,
        r#"{"any":[{"setting":"nic.driver","op":"eq","is":"ice"},{"setting":"channels","op":"ge","value":4.0}]}"#,
        r#"{"flows":"udp *:* *:53","where":"dropped=tc","op":"ge","value":0.5}"#,
    ] {
        let c = check(json).unwrap();
        let again = serde_json::to_string(&c).unwrap();
        assert_eq!(check(&again).unwrap(), c, "{json} -> {again}");
    }
}

#[test]
fn a_figure_is_judged_only_after_the_last_change_and_against_the_start_when_asked() {
    let sim = host();
    // 1,000 a second until 2 s, then 100 a second.
    let v: Vec<u64> = (0..=40)
        .map(|i| if i <= 20 { i * 100 } else { 2000 + (i - 20) * 10 })
        .collect();
    let s = samples(&v);
    let window = check(r#"{"metric":"m","over_ms":1000,"op":"lt","value":200}"#).unwrap();
    assert_eq!(
        judge_on(&window, &s[..20], 0, None, &sim),
        Some(false),
        "1,000 in the second before 1.9 s"
    );
    assert_eq!(
        judge_on(&window, &s, 0, None, &sim),
        Some(true),
        "100 in the last second"
    );
    assert_eq!(
        judge_on(&window, &s, 3_500_000_000, None, &sim),
        None,
        "the window starts before the change"
    );
    let now = check(r#"{"metric":"m","op":"ge","value":2200}"#).unwrap();
    assert_eq!(
        judge_on(&now, &s, 4_000_000_000, None, &sim),
        None,
        "no sample after the change"
    );
    assert_eq!(judge_on(&now, &s, 3_900_000_000, None, &sim), Some(true));
    // Against the start: the same window ending at START_NS of the untouched run.
    let start = samples(&(0..=30).map(|i| i * 100).collect::<Vec<_>>());
    let ratio = check(r#"{"metric":"m","over_ms":1000,"compare":"ratio","op":"lt","value":0.2}"#).unwrap();
    assert_eq!(judge_on(&ratio, &s, 0, None, &sim), None, "no start yet");
    assert_eq!(
        judge_on(&ratio, &s, 0, Some(&start), &sim),
        Some(true),
        "100/s against 1,000/s"
    );
    let change = check(r#"{"metric":"m","over_ms":1000,"compare":"change","op":"eq","value":-900}"#).unwrap();
    assert_eq!(judge_on(&change, &s, 0, Some(&start), &sim), Some(true));
}

#[test]
fn all_and_any_combine_known_unknown_and_failing_parts() {
    let sim = host();
    let s = samples(&[0, 1, 2]);
    let yes = r#"{"metric":"m","op":"eq","value":2}"#;
    let no = r#"{"metric":"m","op":"eq","value":9}"#;
    let unknown = r#"{"metric":"nope","op":"eq","value":0}"#;
    for (json, want) in [
        (format!(r#"{{"all":[{yes},{yes}]}}"#), Some(true)),
        (format!(r#"{{"all":[{yes},{unknown}]}}"#), None),
        (format!(r#"{{"all":[{unknown},{no}]}}"#), Some(false)),
        (format!(r#"{{"any":[{no},{yes}]}}"#), Some(true)),
        (format!(r#"{{"any":[{no},{unknown}]}}"#), None),
        (format!(r#"{{"any":[{no},{no}]}}"#), Some(false)),
    ] {
        assert_eq!(judge_on(&check(&json).unwrap(), &s, 0, None, &sim), want, "{json}");
    }
    let goal = [check(yes).unwrap(), check(no).unwrap()];
    let v = judge(
        &goal,
        &Judged {
            samples: &s,
            since_ns: 0,
            start: None,
            sim: &sim,
        },
    );
    assert_eq!(
        v,
        Verdict {
            met: Some(false),
            parts: vec![Some(true), Some(false)]
        }
    );
}

#[test]
fn flows_and_settings_are_read_from_the_host_now() {
    let mut sim = host();
    sim.advance_to(steerlab_engine::Nanos::from_ms(50));
    let s = vec![(sim.now().0, Report(serde_json::json!({})))];
    let holds = |json: &str, sim: &Sim| judge_on(&check(json).unwrap(), &s, 0, None, sim);
    assert_eq!(
        holds(r#"{"flows":"udp *:* *:53","where":"delivered"}"#, &sim),
        Some(true)
    );
    assert_eq!(holds(r##"{"flows":"#1","where":"open"}"##, &sim), Some(true));
    assert_eq!(
        holds(r#"{"flows":"tcp *:* *:*","where":"open"}"#, &sim),
        None,
        "selects no flow"
    );
    assert_eq!(
        holds(r#"{"flows":"all","where":"dropped","value":0}"#, &sim),
        Some(true)
    );
    assert_eq!(holds(r#"{"flows":"all","where":"steered=rss"}"#, &sim), Some(true));
    assert_eq!(holds(r#"{"setting":"channels","value":4}"#, &sim), Some(true));
    assert_eq!(
        holds(r#"{"setting":"nic.driver","op":"ne","is":"ice"}"#, &sim),
        Some(true)
    );
    assert_eq!(holds(r#"{"setting":"thread.1.cpu","value":1}"#, &sim), Some(true));
    assert_eq!(
        holds(r#"{"setting":"rss.indir.3","value":32}"#, &sim),
        Some(true),
        "128 cells over 4 queues"
    );
    steerlab_console::execute(&mut sim, "flow close 1").unwrap();
    steerlab_console::execute(&mut sim, "ethtool -X eth0 equal 3").unwrap();
    assert_eq!(
        holds(r#"{"flows":"all","where":"open","op":"eq","value":0.5}"#, &sim),
        Some(true)
    );
    assert_eq!(holds(r#"{"setting":"rss.indir.3","value":0}"#, &sim), Some(true));
    steerlab_console::execute(&mut sim, "ethtool -X eth0 default").unwrap();
    steerlab_console::execute(&mut sim, "ethtool -L eth0 combined 2").unwrap();
    assert_eq!(
        holds(r#"{"setting":"rss.indir.3","value":0}"#, &sim),
        None,
        "rx-3 is gone"
    );
    // A part that reads the host now waits for a sample after the last change.
    let later = judge_on(
        &check(r#"{"setting":"channels","value":2}"#).unwrap(),
        &s,
        sim.now().0,
        None,
        &sim,
    );
    assert_eq!(later, None);
}
