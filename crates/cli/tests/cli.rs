//! The `steerlab` binary as a user runs it: output format and exit status.

use std::process::Command;

fn steerlab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_steerlab"))
        .args(args)
        .output()
        .expect("run steerlab");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
    )
}

#[test]
fn hash_prints_published_values() {
    // Microsoft "Verifying the RSS Hash Calculation", first row, IPv4 with and without ports.
    let (code, out, _) = steerlab(&[
        "hash",
        "--src",
        "66.9.149.187",
        "--dst",
        "161.142.100.80",
        "--sport",
        "2794",
        "--dport",
        "1766",
    ]);
    assert_eq!((code, out.as_str()), (0, "0x51ccc178\n"));
    let (code, out, _) = steerlab(&["hash", "--src", "66.9.149.187", "--dst", "161.142.100.80"]);
    assert_eq!((code, out.as_str()), (0, "0x323e8fc2\n"));
    // IPv6 row 1 of the same suite.
    let (code, out, _) = steerlab(&[
        "hash",
        "--src",
        "3ffe:2501:200:1fff::7",
        "--dst",
        "3ffe:2501:200:3::1",
        "--sport",
        "2794",
        "--dport",
        "1766",
    ]);
    assert_eq!((code, out.as_str()), (0, "0x40207d3d\n"));
}

#[test]
fn explicit_key_equals_default() {
    let key = "6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa";
    let (code, out, _) = steerlab(&["hash", "--key", key, "--src", "66.9.149.187", "--dst", "161.142.100.80"]);
    assert_eq!((code, out.as_str()), (0, "0x323e8fc2\n"));
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    for args in [
        &["hash", "--src", "1.2.3.400", "--dst", "1.2.3.4"][..],
        &["hash", "--src", "1.2.3.4", "--dst", "::1"],
        &["hash", "--key", "zz", "--src", "1.2.3.4", "--dst", "1.2.3.5"],
        &["hash", "--src", "1.2.3.4", "--dst", "1.2.3.5", "--sport", "1"],
        &["frobnicate"],
    ] {
        let (code, out, err) = steerlab(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
        assert!(err.starts_with("steerlab: "), "{err}");
    }
}

#[test]
fn lessons_lists_the_built_in_ids_one_per_line() {
    let (code, out, _) = steerlab(&["lessons"]);
    assert_eq!(code, 0);
    let ids: Vec<&str> = out.lines().collect();
    for id in ["rss-basics", "arfs-collision", "rfs-thread-churn"] {
        assert!(ids.contains(&id), "{id} in {ids:?}");
    }
}

#[test]
fn run_json_has_the_contract_keys_and_conserves_packets() {
    let (code, out, err) = steerlab(&["run", "rss-basics", "--duration", "1", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    for path in [
        "scenario",
        "seed",
        "sim_seconds",
        "digest",
        "packets/offered",
        "packets/delivered",
        "packets/in_flight",
        "packets/dropped/ring_full",
        "packets/dropped/backlog_full",
        "packets/dropped/xdp",
        "packets/dropped/tc",
        "steering/local",
        "steering/remote",
        "arfs/add",
        "arfs/update",
        "arfs/skip",
        "arfs/expire",
        "arfs/misprogram_avoided",
        "arfs/filters_active",
        "rfs/sock_flow_updates",
        "rfs/cpu_switches",
        "cpu/user_ns",
        "cpu/sys_ns",
        "cpu/softirq_ns",
        "cpu/cross_numa_bytes",
        "queues/rx/0/queue",
        "queues/rx/0/packets",
        "queues/rx/0/drops",
        "cpus/0/cpu",
        "cpus/0/softirq_ns",
        "cpus/0/packets",
        "tc/filtercnt",
        "tc/skipswcnt",
        "tc/useswcnt",
        "tc/bypass_sw",
        "tc/sw_classified",
        "tc/sw_missed",
        "xps/hash_picks",
        "xps/map_picks",
        "xdp/ns_per_pkt",
        "xdp/mpps_per_core",
    ] {
        assert!(v.pointer(&format!("/{path}")).is_some(), "missing {path}");
    }
    let n = |p: &str| v.pointer(p).and_then(|x| x.as_u64()).unwrap();
    let dropped: u64 = ["ring_full", "backlog_full", "xdp", "tc"]
        .iter()
        .map(|k| n(&format!("/packets/dropped/{k}")))
        .sum();
    assert_eq!(
        n("/packets/offered"),
        n("/packets/delivered") + n("/packets/in_flight") + dropped
    );
    assert!(n("/packets/offered") > 0);
    // Same seed, same digest; another seed is accepted.
    let (_, again, _) = steerlab(&["run", "rss-basics", "--duration", "1", "--json"]);
    assert_eq!(out, again, "deterministic");
    let (code, table, _) = steerlab(&["run", "rss-basics", "--duration", "1", "--seed", "9"]);
    assert_eq!(code, 0);
    assert!(table.lines().any(|l| l.starts_with("packets.offered")), "{table}");
}

#[test]
fn run_overrides_are_validated_with_one_line_errors() {
    for args in [
        &["run", "no-such-lesson"][..],
        &["run", "rss-basics", "--set", "nic.bogus=1"],
        &["run", "rss-basics", "--set", "nic.driver=e1000"],
        &["run", "rss-basics", "--set", "rfs.flow_cnt=-3"],
        &["run", "rss-basics", "--set", "novalue"],
        &["run", "rss-basics", "--duration", "abc"],
    ] {
        let (code, out, err) = steerlab(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: one line, got {err}");
    }
    let (_, _, err) = steerlab(&["run", "rss-basics", "--set", "nic.driver=e1000"]);
    assert!(
        err.contains("nic.driver") && err.contains("ice-hash-match"),
        "names the field and what is accepted: {err}"
    );
}

#[test]
fn shell_runs_a_script_and_reports_failure_in_its_status() {
    let dir = std::env::temp_dir().join(format!("steerlab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ok = dir.join("ok.txt");
    std::fs::write(&ok, "ethtool -X eth0 equal 2\nethtool -x eth0\n").unwrap();
    let (code, out, err) = steerlab(&["shell", "--script", ok.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("RX flow hash indirection table for eth0"), "{out}");
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "ethtool -X eth0 equal 2\nbogus command\n").unwrap();
    let (code, out, _) = steerlab(&["shell", "--script", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("command not found"), "{out}");
    let (code, _, _) = steerlab(&["shell", "--script", "/nonexistent/file"]);
    assert_eq!(code, 2);
}

#[test]
fn run_costs_prints_the_cost_table_with_sources_and_overrides() {
    let (code, out, err) = steerlab(&[
        "run",
        "xdp-kfunc-cost",
        "--duration",
        "0.01",
        "--costs",
        "--set",
        "cost.xdp_kfunc_call_ps=1200",
    ]);
    assert_eq!(code, 0, "{err}");
    let row = out
        .lines()
        .find(|l| l.starts_with("xdp_kfunc_call_ps"))
        .expect("the kfunc row");
    assert!(row.contains("1200") && row.contains("seed 004"), "{row}");
    assert!(out
        .lines()
        .any(|l| l.starts_with("driver_rx_ps") && l.contains("38940")));
    assert!(out.contains("packets.offered"));
}

#[test]
fn run_vary_prints_the_seed_table_side_by_side() {
    let (code, out, err) = steerlab(&[
        "run",
        "tc-bypass",
        "--duration",
        "0.1",
        "--vary",
        "tc.counting=legacy,usesw",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("legacy") && lines[0].contains("usesw"), "{out}");
    let row = |label: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no row {label}: {out}"))
            .to_string()
    };
    // The lesson's own rows (seed 001): legacy counters bypass software, usesw does not.
    let bypass: Vec<String> = row("software bypassed")
        .split('|')
        .skip(1)
        .map(|c| c.trim().to_string())
        .collect();
    assert_eq!(bypass, ["true", "false"]);
    assert!(row("16 x 100,000 inserts (s)").contains("50.8"));

    // Zipped within one --vary, product across; JSON: one report per column.
    let (code, out, err) = steerlab(&[
        "run",
        "xdp-kfunc-cost",
        "--duration",
        "0.01",
        "--json",
        "--vary",
        "xdp.kfuncs=0,3",
        "--vary",
        "xdp.strategy=call,inline",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let labels: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["0 call", "0 inline", "3 call", "3 inline"]);
    assert_eq!(v[2]["report"]["xdp"]["ns_per_pkt"], serde_json::json!(41.8));
    assert_eq!(v[3]["report"]["xdp"]["ns_per_pkt"], serde_json::json!(38.94));

    for (vary, says) in [
        ("xdp.kfuncs", "no '='"),
        ("xdp.kfuncs=0,1 xdp.strategy=call", "values"),
        ("xdp.kfuncs=0,99999", "xdp.kfuncs"),
    ] {
        let (code, out, err) = steerlab(&["run", "xdp-kfunc-cost", "--vary", vary]);
        assert_eq!((code, out.as_str()), (2, ""), "{vary}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{vary}: {err}");
    }
}

/// A reader that goes away (`steerlab solve … | head -1`) ends the program quietly with the
/// shell's SIGPIPE status, never a panic.
///
/// The output must be larger than a pipe's buffer (64 KiB on Linux): a smaller one could be
/// written whole before the test closes its end, and the program would rightly exit 0 (CI saw
/// that once, with `run`'s 2.5 KB report on a loaded machine). About 440 KB here, so the write
/// blocks until the reader is gone whatever the scheduling.
#[test]
fn a_closed_pipe_ends_quietly() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_steerlab"))
        .args([
            "solve",
            "rss-basics",
            "--template",
            "tcp 10.0.0.1:* 10.0.0.2:80",
            "--spread",
            "4000",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(141), "{stderr}");
}

const CAPTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../scenario/tests/fixtures/capture-ice.txt"
);

/// `import` prints a scenario that `run` takes, and says what it assumed on stderr;
/// `predict --json` has the contract's keys; `solve` lands where asked; bad input exits 2 with
/// one line naming the line at fault.
#[test]
fn import_predict_and_solve_a_captured_host() {
    let (code, out, err) = steerlab(&["import", CAPTURE]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.lines().all(|l| l.starts_with("steerlab: assumed: ")) && err.contains("ens1f0 is eth0"),
        "{err}"
    );
    let dir = std::env::temp_dir().join(format!("steerlab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("host.json");
    std::fs::write(&scenario, &out).unwrap();
    let (code, _, err) = steerlab(&["run", scenario.to_str().unwrap(), "--duration", "0.05", "--json"]);
    assert_eq!(code, 0, "the imported scenario runs: {err}");

    let (code, out, err) = steerlab(&[
        "predict",
        CAPTURE,
        "--flow",
        "tcp 203.0.113.7:40000 10.0.0.2:443",
        "--flow",
        "udp [2001:db8::7]:53 [2001:db8::2]:53",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let first = &rows[0];
    for key in [
        "flow",
        "hash",
        "indir_index",
        "queue",
        "decided_by",
        "irq_cpu",
        "rps_cpu",
    ] {
        assert!(first.get(key).is_some(), "predict --json lacks {key}: {first}");
    }
    assert_eq!(
        (
            first["flow"].as_str(),
            first["decided_by"].as_str(),
            first["queue"].as_u64()
        ),
        (Some("tcp 203.0.113.7:40000 10.0.0.2:443"), Some("ntuple:1023"), Some(6))
    );
    assert!(first["hash"].as_str().unwrap().len() == 10 && first["hash"].as_str().unwrap().starts_with("0x"));
    // The same host from the imported scenario answers the same.
    let (_, again, _) = steerlab(&[
        "predict",
        scenario.to_str().unwrap(),
        "--flow",
        "tcp 203.0.113.7:40000 10.0.0.2:443",
        "--flow",
        "udp [2001:db8::7]:53 [2001:db8::2]:53",
        "--json",
    ]);
    assert_eq!(again, out);

    let (code, out, _) = steerlab(&[
        "solve",
        CAPTURE,
        "--template",
        "tcp 203.0.113.7:* 10.0.0.2:80",
        "--queue",
        "3",
        "--count",
        "5",
        "--json",
    ]);
    assert_eq!(code, 0);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert!(rows.len() == 5 && rows.iter().all(|r| r["queue"] == 3), "{out}");

    let broken = dir.join("broken.txt");
    std::fs::write(
        &broken,
        std::fs::read_to_string(CAPTURE)
            .unwrap()
            .replace("Total 2 rules", "Total 3 rules"),
    )
    .unwrap();
    let (code, out, err) = steerlab(&[
        "predict",
        broken.to_str().unwrap(),
        "--flow",
        "tcp 1.2.3.4:5 6.7.8.9:10",
    ]);
    assert_eq!((code, out.as_str(), err.lines().count()), (2, "", 1), "{err}");
    assert!(err.contains(": line ") && err.contains("truncated?"), "{err}");
    let (code, _, err) = steerlab(&["predict", CAPTURE, "--flow", "tcp 1.2.3.4 6.7.8.9:10"]);
    assert_eq!(code, 2);
    assert!(err.contains("PROTO SRC:SPORT DST:DPORT"), "{err}");
    let (code, _, err) = steerlab(&[
        "solve",
        CAPTURE,
        "--template",
        "tcp 203.0.113.7:* 10.0.0.2:80",
        "--queue",
        "7",
        "--count",
        "1",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("only 0 flows"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A snippet pasted as people post it (a prompt, header-less /proc/interrupts rows): what was
/// assumed is said on stderr with the field that holds it, and `--set` corrects it on
/// `import`, `predict` and `solve` alike.
#[test]
fn import_and_predict_take_the_corrections_of_what_was_assumed() {
    const SNIPPET: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scenario/tests/fixtures/real/virtio-interrupts-rows.txt"
    );
    let dir = std::env::temp_dir().join(format!("steerlab-cli-set-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rows.txt");
    let text = std::fs::read_to_string(SNIPPET).unwrap();
    std::fs::write(
        &path,
        format!(
            "me@guest:~$ cat /proc/interrupts | grep virtio5\n{}",
            text.split_once('\n').unwrap().1
        ),
    )
    .unwrap();
    let path = path.to_str().unwrap();
    let (code, out, err) = steerlab(&["import", path]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("16 CPUs, from the counts of a /proc/interrupts row") && err.contains("[--set host.cpus=16]"),
        "{err}"
    );
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (json["host"]["cpus"].as_u64(), json["nic"]["rx_queues"].as_u64()),
        (Some(16), Some(4))
    );
    let (code, out, err) = steerlab(&["import", path, "--set", "host.cpus=32", "--set", "nic.rx_queues=8"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("(corrected: host.cpus=32)"), "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (json["host"]["cpus"].as_u64(), json["nic"]["rx_queues"].as_u64()),
        (Some(32), Some(8))
    );
    let (code, out, err) = steerlab(&[
        "predict",
        path,
        "--set",
        "nic.rx_queues=1",
        "--flow",
        "tcp 192.0.2.1:1 10.0.0.2:2",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"queue\":0"), "{out}");
    let (code, _, err) = steerlab(&[
        "predict",
        path,
        "--set",
        "host.cpus=lots",
        "--flow",
        "tcp 192.0.2.1:1 10.0.0.2:2",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("host.cpus") && err.lines().count() == 1, "{err}");
}

/// `steerlab lesson check`: a built-in lesson passes; a file naming a figure the report lacks
/// is refused naming it; a step command the host refuses, and a "wrong way" that meets the
/// goal, each fail the check with exit status 1.
#[test]
fn lesson_check_passes_a_lesson_and_fails_each_kind_of_broken_file() {
    let (code, out, err) = steerlab(&["lesson", "check", "tc-bypass"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("guided: its steps, followed in order: goal met")
            && out.ends_with("lesson check: every check passed\n"),
        "{out}"
    );
    assert!(
        out.contains("not_solutions[0]") && out.contains("goal not met"),
        "{out}"
    );
    let lesson: serde_json::Value = serde_json::from_str(steerlab_scenario::lesson("tc-bypass").unwrap()).unwrap();
    let dir = std::env::temp_dir().join(format!("steerlab-lesson-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let broken = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v = lesson.clone();
        edit(&mut v);
        let path = dir.join(name);
        std::fs::write(&path, v.to_string()).unwrap();
        steerlab(&["lesson", "check", path.to_str().unwrap()])
    };
    let (code, _, err) = broken("metric.json", &|v| {
        v["lesson"]["check"][0]["metric"] = "tc.sw_mised".into()
    });
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("lesson.check[0].metric") && err.contains("tc.sw_mised"),
        "{err}"
    );
    let (code, out, _) = broken("command.json", &|v| {
        v["lesson"]["steps"][2]["commands"][0] = "tc counting sideways".into();
    });
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL  lesson.steps[2]: \"tc counting sideways\""), "{out}");
    let (code, out, _) = broken("shortcut.json", &|v| {
        v["lesson"]["not_solutions"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"commands": ["tc counting usesw"], "why": "not really"}));
    });
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("meets the goal at") && out.contains("a shortcut the goal lets through"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `steerlab lesson links`: a link per student, each a variant of its own seed; with
/// --check each variant is played first.
#[test]
fn lesson_links_give_each_student_a_gradable_variant() {
    let dir = std::env::temp_dir().join(format!("steerlab-lesson-links-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let students = dir.join("students.txt");
    std::fs::write(&students, "Ada Lovelace\n# not a student\n\nLinus\n").unwrap();
    let (code, out, err) = steerlab(&[
        "lesson",
        "links",
        "tc-bypass",
        "--base",
        "https://host/courses/net342/steerlab/",
        "--students",
        students.to_str().unwrap(),
        "--check",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let links: Vec<&str> = out.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        links,
        [
            "https://host/courses/net342/steerlab/?lesson=tc-bypass&student=Ada%20Lovelace",
            "https://host/courses/net342/steerlab/?lesson=tc-bypass&student=Linus"
        ]
    );
    assert_eq!(out.matches("gradable").count(), 2, "{out}");
    let seeds: Vec<&str> = out.lines().filter_map(|l| l.split("seed ").nth(1)).collect();
    assert!(seeds.len() == 2 && seeds[0] != seeds[1], "a seed each: {seeds:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A lesson with variants (`packet-drops`: the socket or the ring): each student's seed picks
/// one, the check plays that one (not the file's), and the trainer reads which.
#[test]
fn lesson_links_check_the_variant_each_students_seed_picks() {
    let dir = std::env::temp_dir().join(format!("steerlab-lesson-variants-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let students = dir.join("students.txt");
    std::fs::write(&students, "ana\nbob\n").unwrap();
    let (code, out, err) = steerlab(&[
        "lesson",
        "links",
        "packet-drops",
        "--base",
        "https://host/lab/",
        "--students",
        students.to_str().unwrap(),
        "--check",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("# ana: seed 6645555738442503, variant 1 (ring:"), "{out}");
    assert!(
        out.contains("# bob: seed 3734049185729110, variant 0 (socket:"),
        "{out}"
    );
    assert_eq!(out.matches("gradable").count(), 2, "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `docs/lesson.schema.json` is what `steerlab lesson schema` writes from the types that read
/// a lesson file (regenerate: `steerlab lesson schema > docs/lesson.schema.json`).
#[test]
fn the_lesson_schema_in_docs_is_the_types_own() {
    let (code, out, err) = steerlab(&["lesson", "schema"]);
    assert_eq!(code, 0, "{err}");
    let committed =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/lesson.schema.json")).unwrap();
    let first = out.lines().zip(committed.lines()).position(|(a, b)| a != b);
    assert!(
        out == committed,
        "docs/lesson.schema.json is stale (first difference at line {:?}): regenerate it with steerlab lesson schema",
        first.map(|i| i + 1)
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for def in [
        "Lesson",
        "Step",
        "Check",
        "Prediction",
        "Choice",
        "Challenge",
        "NotSolution",
        "Evidence",
    ] {
        assert!(v["$defs"][def].is_object(), "the schema defines {def}");
    }
}

/// What a capture's counters show is printed under its own heading on stderr, and
/// `import --json` carries it with the scenario and the assumptions.
#[test]
fn import_says_what_the_counters_show() {
    const SNIPPET: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scenario/tests/fixtures/real/intel1g-stats-missed.txt"
    );
    let dir = std::env::temp_dir().join(format!("steerlab-cli-observed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("stats.txt");
    let text = std::fs::read_to_string(SNIPPET).unwrap();
    std::fs::write(
        &path,
        format!("$ ethtool -S eth0\n{}", text.split_once('\n').unwrap().1),
    )
    .unwrap();
    let path = path.to_str().unwrap();
    let (code, out, err) = steerlab(&["import", path]);
    assert_eq!(code, 0, "{err}");
    let heading = err.find("steerlab: what the capture shows").expect("the heading");
    assert!(
        err[heading..].contains(
            "steerlab:   ring: line 21: the NIC dropped 4,954 packets at its rings (ethtool -S: rx_missed_errors)"
        ),
        "{err}"
    );
    let scenario: serde_json::Value = serde_json::from_str(&out).unwrap();
    let (code, out, err) = steerlab(&["import", path, "--json"]);
    assert_eq!(code, 0, "{err}");
    let all: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(all["scenario"], scenario, "the scenario as plain import prints it");
    assert!(all["assumptions"].as_array().is_some_and(|a| !a.is_empty()));
    let observed = all["observed"].as_array().unwrap();
    assert_eq!(observed.len(), 2, "{observed:?}");
    assert_eq!(
        (observed[1]["place"].as_str(), observed[1]["line"].as_u64()),
        (Some("ring"), Some(21))
    );
    assert!(observed[1]["text"]
        .as_str()
        .unwrap()
        .starts_with("line 21: the NIC dropped 4,954 packets"));
    std::fs::remove_dir_all(&dir).ok();
}
