//! Scenario files and `--set` overrides: every refusal names the field and what is accepted.

use steerlab_scenario::{lesson_ids, load, parse};

fn err(text: &str, sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    parse(text, &sets).unwrap_err().0
}

const MIN: &str = r#"{"schema": 1, "id": "t"}"#;

#[test]
fn every_built_in_lesson_parses_and_validates() {
    for id in lesson_ids() {
        let s = load(id, &[]).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(s.id, id);
        assert!(!s.lesson.check.is_empty(), "{id} has a goal check");
        assert!(!s.lesson.evidence.is_empty(), "{id} names its evidence figures");
        assert!(!s.lesson.kernel_files.is_empty(), "{id} names its kernel files");
        assert!(
            s.lesson.highlight.is_empty() || s.lesson.highlight.len() == s.lesson.steps.len(),
            "{id}: one highlight per step"
        );
    }
}

#[test]
fn typing_errors_name_their_path() {
    for (text, sets, want) in [
        (
            r#"{"schema":1,"id":"t","nic":{"drvier":"ice"}}"#,
            &[][..],
            "nic.drvier: unknown field",
        ),
        (
            r#"{"schema":1,"id":"t","nic":{"driver":"e1000"}}"#,
            &[],
            "nic.driver: \"e1000\" is not one of",
        ),
        (
            r#"{"schema":1,"id":"t","flows":[{},{"rate_pps":"fast"}]}"#,
            &[],
            "flows[1].rate_pps",
        ),
        (
            r#"{"schema":1,"id":"t","timeline":[{"at_ms":1}]}"#,
            &[],
            "timeline[0]: missing field `command`",
        ),
        (MIN, &["rfs.flow_cnt=-3"], "rfs.flow_cnt"),
        (MIN, &["nic.bogus=1"], "nic.bogus: unknown field"),
        (MIN, &["xdp.strategy=fast"], "xdp.strategy"),
        (MIN, &["tc.counting=new"], "tc.counting"),
        ("[1,2]", &[], "scenario:"),
        ("{", &[], "not valid JSON"),
    ] {
        let e = err(text, sets);
        assert!(e.contains(want), "{text} {sets:?}: {e}");
    }
}

#[test]
fn values_out_of_range_are_refused_with_the_accepted_range() {
    for (sets, want) in [
        (&["host.cpus=0"][..], "host.cpus"),
        (&["rfs.flow_cnt=2000000"], "rfs.flow_cnt"),
        (&["sim.duration_ms=0"], "sim.duration_ms"),
        (&["schema=9"], "schema"),
        (&["xdp.kfuncs=99"], "xdp"),
        (&["tc.insert_threads=100000"], "tc"),
        (&["xps.atr_sample_rate=0"], "xps.atr_sample_rate"),
        (&["nic.rx_usecs=10001"], "nic.rx_usecs"),
        (&["host.idle=mwait"], "poll | halt"),
    ] {
        let e = err(MIN, sets);
        assert!(e.contains(want), "{sets:?}: {e}");
    }
    let e = err(
        r#"{"schema":1,"id":"t","threads":[{"count":2,"cpus":"0-1"}],"flows":[{"readers_per_flow":65}]}"#,
        &[],
    );
    assert!(e.contains("readers_per_flow") && e.contains("0..=64"), "{e}");
    let e = err(
        r#"{"schema":1,"id":"t","timeline":[{"at_ms":18446744073709551615,"command":"help"}]}"#,
        &[],
    );
    assert!(e.contains("timeline[0].at_ms"), "{e}");
    // A guided step points at a page element by its data-testid, or at nothing.
    let e = err(
        r#"{"schema":1,"id":"t","lesson":{"steps":["a","b"],"highlight":["", "x\"] {}"]}}"#,
        &[],
    );
    assert!(e.contains("lesson.highlight[1]") && e.contains("a-z, 0-9, -"), "{e}");
    assert!(parse(
        r#"{"schema":1,"id":"t","lesson":{"steps":["a","b"],"highlight":["", "chart-arfs"]}}"#,
        &[]
    )
    .is_ok());
}

#[test]
fn overrides_keep_types_and_lists_stay_strings() {
    // host.cpus is a count even where the file does not set it; rps.cpus is a list.
    let s = parse(
        MIN,
        &["host.cpus=8".into(), "nic.rx_queues=8".into(), "rps.cpus=0-7".into()],
    )
    .unwrap();
    assert_eq!((s.host.cpus, s.rps.cpus.as_str()), (8, "0-7"));
    // The schema says which fields are text: a list that looks like a number stays a list,
    // an optional count is a count (issue 33: no hand-kept list of text fields).
    let s = parse(
        MIN,
        &[
            "rps.cpus=3".into(),
            "net.flow_limit_cpus=1".into(),
            "xdp.kfuncs=3".into(),
            "id=42".into(),
        ],
    )
    .unwrap();
    assert_eq!(
        (
            s.rps.cpus.as_str(),
            s.net.flow_limit_cpus.as_str(),
            s.xdp.kfuncs,
            s.id.as_str()
        ),
        ("3", "1", Some(3), "42")
    );
    // "6.14" is the old name of the 6.10 generation (issue 31): `--set` and a scenario file
    // written with it still load, as 6.10.
    let s = load("rss-basics", &["kernel=6.14".into(), "nic.driver=ice".into()]).unwrap();
    assert_eq!(s.kernel.0.name(), "6.10");
    let s = parse(r#"{"schema": 1, "id": "t", "kernel": "6.14"}"#, &[]).unwrap();
    assert_eq!(s.kernel.0.name(), "6.10");
    // The idle mode and interrupt moderation: named, and a count (absent: the driver's).
    let s = parse(MIN, &["host.idle=halt".into(), "nic.rx_usecs=8".into()]).unwrap();
    let cfg = s.host_config().unwrap();
    assert_eq!((cfg.idle.name(), cfg.rx_usecs), ("halt", Some(8)));
    let cfg = load("arfs-collision", &[]).unwrap().host_config().unwrap();
    assert_eq!(
        (cfg.idle.name(), cfg.rx_usecs, cfg.rx_usecs()),
        ("poll", None, 50),
        "ice's own"
    );
}

#[test]
fn a_step_is_its_text_or_an_object_and_a_goal_one_check_or_many() {
    let s = parse(
        r#"{"schema":1,"id":"t","lesson":{"steps":["look",{"text":"type","commands":["nic driver ice"],"kernel":"why"}],
            "check":[{"metric":"arfs.update","over_ms":100,"op":"lt","value":1},{"metric":"xdp.reads_hash","op":"eq","value":1}],
            "evidence":[{"label":"updates","metric":"arfs.update","better":"down"}]}}"#,
        &[],
    )
    .unwrap();
    let l = &s.lesson;
    assert_eq!((l.steps[0].text.as_str(), l.steps[0].commands.len()), ("look", 0));
    assert_eq!(
        (l.steps[1].commands[0].as_str(), l.steps[1].kernel.as_str()),
        ("nic driver ice", "why")
    );
    assert_eq!(l.check.len(), 2);
    assert!(l.evidence[0].rate, "evidence is a rate unless it says not");
    let one = parse(
        r#"{"schema":1,"id":"t","lesson":{"check":{"metric":"arfs.update","op":"eq","value":0}}}"#,
        &[],
    )
    .unwrap();
    assert_eq!(one.lesson.check.len(), 1, "one check object, as older files have it");
    for (text, want) in [
        (
            r#"{"schema":1,"id":"t","lesson":{"steps":[{"txt":"b"}]}}"#,
            "unknown field `txt`",
        ),
        (r#"{"schema":1,"id":"t","lesson":{"steps":[3]}}"#, "a step: its text"),
        (r#"{"schema":1,"id":"t","lesson":{"check":3}}"#, "a check"),
        (
            r#"{"schema":1,"id":"t","lesson":{"evidence":[{"label":"x","metric":"m","better":"sideways"}]}}"#,
            "sideways",
        ),
        (
            r#"{"schema":1,"id":"t","lesson":{"chart":"Not A Testid"}}"#,
            "lesson.chart",
        ),
        (
            r#"{"schema":1,"id":"t","lesson":{"steps":[{"text":"x","cell":[99,0]}]}}"#,
            "lesson.steps[0].cell",
        ),
    ] {
        let e = err(text, &[]);
        assert!(e.contains(want) && e.contains("lesson"), "{text}: {e}");
    }
}

#[test]
fn every_lessons_goal_and_evidence_name_figures_its_report_has() {
    for id in lesson_ids() {
        let s = load(id, &[]).unwrap();
        let sim = s.build().unwrap();
        let report = steerlab_scenario::Report::new(&s, &sim);
        for m in s.lesson.figure_paths() {
            assert!(report.get(m).is_some(), "{id}: {m} is not a report path");
        }
    }
}

#[test]
fn a_lesson_naming_a_figure_or_setting_the_host_lacks_is_refused() {
    for (lesson, want) in [
        (
            r#"{"check":{"metric":"arfs.updat","op":"eq","value":0}}"#,
            "lesson.check[0].metric",
        ),
        (
            r#"{"check":{"metric":"queues.rx.9.packets","op":"eq","value":0}}"#,
            "lesson.check[0].metric",
        ),
        (
            r#"{"check":{"metric":"tc.counting","op":"eq","value":0}}"#,
            "not a figure",
        ),
        (
            r#"{"check":[{"all":[{"setting":"thread.7.cpu","value":1}]}]}"#,
            "lesson.check[0].all[0].setting",
        ),
        (
            r#"{"evidence":[{"label":"x","metric":"nope"}]}"#,
            "lesson.evidence[0].metric",
        ),
        (
            r#"{"steps":["x"],"predict":[{"step":0,"question":"q","explain":"e","choices":[{"text":"a","why":"w","when":[{"metric":"nope","op":"eq","value":1}]},{"text":"b","why":"w","when":[{"metric":"m","op":"eq","value":1}]},{"text":"c","why":"w","when":[{"metric":"m","op":"eq","value":1}]}]}]}"#,
            "lesson.predict[0].choices[0].when[0].metric",
        ),
        (
            r#"{"steps":[{"text":"look","outcome":"then"}]}"#,
            "lesson.steps[0].outcome",
        ),
    ] {
        let text = format!(r#"{{"schema":1,"id":"t","host":{{"cpus":4}},"nic":{{"rx_queues":4}},"lesson":{lesson}}}"#);
        let e = err(&text, &[]);
        assert!(e.contains(want), "{lesson}: {e}");
    }
}

/// A lesson's variants are checked as the seed picks them: a bad override, an index past a
/// list, a variant that moves the seed or patches the variants are refused by their place.
#[test]
fn a_lesson_variants_refusals_name_the_variant() {
    let lesson = |variant: &str| {
        format!(
            r#"{{"schema":1,"id":"t","sim":{{"seed":1}},"threads":[{{"count":1}}],"lesson":{{"steps":["a","b"],"variants":[{{"name":"file"}},{variant}]}}}}"#
        )
    };
    for (variant, want) in [
        (
            r#"{"name":"v","set":["threads.5.cpus=1"]}"#,
            "lesson.variants[1].set: threads.5.cpus",
        ),
        (
            r#"{"name":"v","set":["sim.seed=2"]}"#,
            "lesson.variants[1].set: overrides of the host but sim.seed",
        ),
        (
            r#"{"name":"v","lesson":{"steps":{"7":{"text":"x"}}}}"#,
            "lesson.variants[1].lesson.steps.7",
        ),
        (
            r#"{"name":"v","lesson":{"variants":[]}}"#,
            "lesson.variants[1].lesson.variants",
        ),
        (r#"{"name":"v","sets":[]}"#, "lesson.variants[1]"),
    ] {
        let e = err(&lesson(variant), &[]);
        assert!(e.contains(want), "{variant}: {e}");
    }
    // The first variant is the file as written; the other, picked by seed 1, patches step 1.
    let s = steerlab_scenario::parse(
        &lesson(r#"{"name":"v","set":["threads.0.cpus=2"],"lesson":{"steps":{"1":{"text":"B"}}}}"#),
        &[],
    )
    .unwrap();
    assert_eq!(
        (s.variant(), s.lesson.steps[1].text.as_str(), s.threads[0].cpus.as_str()),
        (Some(1), "B", "2")
    );
}

/// A lesson file is untrusted input: its lists and nesting are bounded, each refusal naming
/// the field.
#[test]
fn a_lesson_files_lists_and_nesting_are_bounded() {
    let steps: Vec<String> = (0..65).map(|i| format!("\"step {i}\"")).collect();
    let e = err(
        &format!(r#"{{"schema":1,"id":"t","lesson":{{"steps":[{}]}}}}"#, steps.join(",")),
        &[],
    );
    assert!(e.contains("lesson.steps") && e.contains("at most 64"), "{e}");
    let mut part = r#"{"metric":"arfs.update","op":"eq","value":0}"#.to_string();
    for _ in 0..9 {
        part = format!(r#"{{"all":[{part}]}}"#);
    }
    let e = err(
        &format!(r#"{{"schema":1,"id":"t","lesson":{{"check":[{part}]}}}}"#),
        &[],
    );
    assert!(e.contains("lesson.check") && e.contains("8 deep"), "{e}");
}
