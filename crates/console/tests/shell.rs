//! The shell forms that write a file on many queues in one line (`echo V | tee GLOB`,
//! `for q in ...; do ...; done`), the globs they use, and their failures: bash's and tee's
//! words, and a line that fails changes nothing even where bash and tee would have written
//! part of it.

mod common;

use common::{err, fingerprint, host_with, ok};
use steerlab_console::execute;
use steerlab_engine::{HostConfig, Sim};

const Q: &str = "/sys/class/net/eth0/queues";

/// 16 CPUs and 12 queues each way: enough for `rx-10` and `rx-11` to sort before `rx-2`.
fn twelve() -> Sim {
    host_with(HostConfig {
        cpus: 16,
        rx_queues: 12,
        tx_queues: 12,
        reta_size: 16,
        ..HostConfig::default()
    })
}

/// The lesson's host: 144 CPUs, 144 queues.
fn big() -> Sim {
    host_with(HostConfig {
        cpus: 144,
        rx_queues: 144,
        tx_queues: 144,
        reta_size: 256,
        ..HostConfig::default()
    })
}

fn flow_cnts(s: &Sim) -> Vec<u32> {
    (0..s.config().rx_queues).map(|q| s.flow_cnt(q)).collect()
}

/// `echo V | tee FILE...`: tee writes its input to standard output once (not once per file,
/// coreutils tee.c) and to every file the glob matched.
#[test]
fn tee_writes_every_matched_file_and_prints_once() {
    let mut s = twelve();
    assert_eq!(ok(&mut s, &format!("echo 2048 | tee {Q}/rx-*/rps_flow_cnt")), "2048\n");
    assert_eq!(flow_cnts(&s), [2048; 12]);
    // Other files are untouched.
    assert!((0..12).all(|q| s.rps_cpus(q).to_list().is_empty()));
    // Several files of different kinds, named one by one.
    assert_eq!(
        ok(&mut s, &format!("echo 3 | tee {Q}/tx-0/xps_rxqs {Q}/tx-1/xps_rxqs")),
        "3\n"
    );
    assert_eq!(
        (s.xps_rxqs(0).unwrap().to_list(), s.xps_rxqs(1).unwrap().to_list()),
        ("0-1".to_string(), "0-1".to_string())
    );
    // tx-* is the TX queues.
    ok(&mut s, &format!("echo f0 | tee {Q}/tx-*/xps_cpus"));
    assert!((0..12).all(|q| s.xps_cpus(q).unwrap().to_list() == "4-7"));
}

/// `sudo` is dropped (the console is root), `> /dev/null` discards tee's copy, and `-a` is a
/// write like any other on sysfs.
#[test]
fn sudo_tee_to_dev_null_prints_nothing() {
    let mut s = twelve();
    assert_eq!(
        ok(
            &mut s,
            &format!("echo 4096 | sudo tee {Q}/rx-*/rps_flow_cnt > /dev/null")
        ),
        ""
    );
    assert_eq!(flow_cnts(&s), [4096; 12]);
    assert_eq!(
        ok(
            &mut s,
            &format!("echo 1024|sudo tee -a {Q}/rx-*/rps_flow_cnt >/dev/null")
        ),
        ""
    );
    assert_eq!(flow_cnts(&s), [1024; 12]);
    assert_eq!(
        ok(&mut s, "echo 5 | tee"),
        "5\n",
        "no file: tee only copies to standard output"
    );
    // sudo in front of any command.
    ok(&mut s, "sudo ethtool -L eth0 combined 2");
    assert_eq!(s.config().rx_queues, 2);
    assert_eq!(
        ok(&mut s, "sudo sysctl -w net.core.rps_sock_flow_entries=32768"),
        "net.core.rps_sock_flow_entries = 32768\n"
    );
    ok(&mut s, &format!("sudo echo f > {Q}/rx-1/rps_cpus"));
    assert_eq!(s.rps_cpus(1).to_list(), "0-3");
}

/// `for q in GLOB; do echo V > $q/FILE; done`, with `$q`, `${q}` or `"$q"`, and `;` with or
/// without blanks around it.
#[test]
fn for_over_a_glob_writes_every_queue() {
    for line in [
        format!("for q in {Q}/rx-*; do echo 2048 > $q/rps_flow_cnt; done"),
        format!("for q in {Q}/rx-*; do echo 2048 > ${{q}}/rps_flow_cnt; done"),
        format!("for q in {Q}/rx-*; do echo 2048 > \"$q/rps_flow_cnt\"; done"),
        format!("for q in {Q}/rx-*;do echo 2048 >$q/rps_flow_cnt;done"),
        format!("  for q in {Q}/rx-* ; do echo 2048 > $q/rps_flow_cnt ; done ; "),
        format!("for queue in {Q}/rx-*; do sudo echo 2048 > $queue/rps_flow_cnt; done"),
        format!("for q in {Q}/rx-*; do echo 2048 | sudo tee $q/rps_flow_cnt > /dev/null; done"),
    ] {
        let mut s = twelve();
        assert_eq!(ok(&mut s, &line), "", "{line}");
        assert_eq!(flow_cnts(&s), [2048; 12], "{line}");
    }
}

/// `for q in 0 1 2; do ...rx-$q...; done`: a list of words, the variable inside a path.
#[test]
fn for_over_words() {
    let mut s = twelve();
    ok(&mut s, &format!("for q in 0 1 2; do echo f > {Q}/rx-$q/rps_cpus; done"));
    assert_eq!(
        (0..4).map(|q| s.rps_cpus(q).to_list()).collect::<Vec<_>>(),
        ["0-3", "0-3", "0-3", ""]
    );
    // An empty list runs the body no time, as in bash.
    let before = fingerprint(&s);
    assert_eq!(
        ok(&mut s, &format!("for q in ; do echo f > {Q}/rx-$q/rps_cpus; done")),
        ""
    );
    assert_eq!(fingerprint(&s), before);
}

/// A body of several commands runs in order: a `cat` shows the write before it, `echo`
/// without a redirection prints, `tee` prints once per turn.
#[test]
fn for_body_runs_its_commands_in_order() {
    let mut s = twelve();
    let out = ok(
        &mut s,
        &format!("for q in 0 1; do echo $q; echo f0 > {Q}/rx-$q/rps_cpus; cat {Q}/rx-${{q}}/rps_cpus; done"),
    );
    assert_eq!(out, "0\n00f0\n1\n00f0\n");
    let out = ok(
        &mut s,
        &format!("for q in 2 3; do echo 4 | tee {Q}/rx-$q/rps_flow_cnt; done"),
    );
    assert_eq!((out.as_str(), s.flow_cnt(2), s.flow_cnt(3)), ("4\n4\n", 4, 4));
    // Only the loop's variable is set; any other expands to nothing, as an unset one does.
    // Single quotes keep `$` and `*`, double quotes keep `*`.
    assert_eq!(
        ok(&mut s, "for q in 7; do echo '$q' \"$q\" ${q} $other \"x*\" '*'; done"),
        "$q 7 7 x* *\n"
    );
    // A `;` list of file commands is planned the same way.
    assert_eq!(
        ok(&mut s, &format!("echo 8 > {Q}/tx-0/xps_rxqs; cat {Q}/tx-0/xps_rxqs")),
        "008\n"
    );
}

/// Globs expand in bash's order (`strcoll`, the C locale: byte order), `rx-10` before `rx-2`;
/// `cat` prints one line per file in that order.
#[test]
fn globs_sort_like_bash() {
    let mut s = twelve();
    let listed = ok(&mut s, &format!("echo {Q}/rx-*"));
    let names: Vec<&str> = listed
        .trim_end()
        .split(' ')
        .map(|p| p.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(
        names,
        ["rx-0", "rx-1", "rx-10", "rx-11", "rx-2", "rx-3", "rx-4", "rx-5", "rx-6", "rx-7", "rx-8", "rx-9"]
    );
    ok(&mut s, &format!("echo 400 > {Q}/rx-10/rps_cpus"));
    let out = ok(&mut s, &format!("cat {Q}/rx-*/rps_cpus"));
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["0000", "0000", "0400", "0000", "0000", "0000", "0000", "0000", "0000", "0000", "0000", "0000"]
    );
    // `*` in the file name, and in both components.
    assert_eq!(ok(&mut s, &format!("cat {Q}/rx-10/*")), "0400\n0\n");
    assert_eq!(
        ok(&mut s, &format!("cat {Q}/*-1/*")).lines().count(),
        4,
        "rx-1's two files, tx-1's two"
    );
    // A loop over tx-1* takes tx-1, tx-10, tx-11.
    assert_eq!(
        ok(&mut s, &format!("for q in {Q}/tx-1*; do echo $q; done")),
        format!("{Q}/tx-1\n{Q}/tx-10\n{Q}/tx-11\n")
    );
}

/// `echo V > GLOB` matching several files is bash's `ambiguous redirect`; the hint gives the
/// same line in the two forms that work. One match is not ambiguous.
#[test]
fn a_glob_redirection_is_ambiguous() {
    let mut s = twelve();
    let before = fingerprint(&s);
    let e = err(&mut s, &format!("echo 2048 > {Q}/rx-*/rps_flow_cnt"));
    assert_eq!(
        e,
        "bash: /sys/class/net/eth0/queues/rx-*/rps_flow_cnt: ambiguous redirect\n\
hint: echo 2048 | tee /sys/class/net/eth0/queues/rx-*/rps_flow_cnt\n      \
for q in /sys/class/net/eth0/queues/rx-*; do echo 2048 > $q/rps_flow_cnt; done"
    );
    assert_eq!(fingerprint(&s), before);
    // Both forms of the hint work.
    for line in e.lines().map(|l| l.trim_start_matches("hint:").trim()).skip(1) {
        let mut s = twelve();
        ok(&mut s, line);
        assert_eq!(flow_cnts(&s), [2048; 12], "{line}");
    }
    // A variable that expands to nothing is ambiguous too, named as typed.
    assert!(err(&mut s, "echo f > $nothing").starts_with("bash: $nothing: ambiguous redirect\n"));
    // One RX queue: the glob matches one file, and bash writes it.
    let mut one = host_with(HostConfig {
        cpus: 4,
        rx_queues: 1,
        tx_queues: 1,
        reta_size: 16,
        ..HostConfig::default()
    });
    ok(&mut one, &format!("echo 2048 > {Q}/rx-*/rps_flow_cnt"));
    assert_eq!(one.flow_cnt(0), 2048);
}

/// A glob that matches nothing stays as typed (bash without `nullglob`) and fails as a missing
/// file, in each tool's words (coreutils quotes a name with a `*` in it).
#[test]
fn a_glob_that_matches_nothing_is_a_missing_file() {
    let mut s = twelve();
    let before = fingerprint(&s);
    let head = |e: String| e.lines().next().unwrap_or("").to_string();
    assert_eq!(
        head(err(&mut s, &format!("echo 1 > {Q}/rx-*/bogus"))),
        "bash: /sys/class/net/eth0/queues/rx-*/bogus: No such file or directory"
    );
    assert_eq!(
        head(err(&mut s, &format!("echo 1 | tee {Q}/rx-*/bogus"))),
        "tee: '/sys/class/net/eth0/queues/rx-*/bogus': No such file or directory"
    );
    assert_eq!(
        head(err(&mut s, &format!("cat {Q}/rx-*/bogus"))),
        "cat: '/sys/class/net/eth0/queues/rx-*/bogus': No such file or directory"
    );
    assert_eq!(
        head(err(
            &mut s,
            "for q in /sys/class/net/eth1/queues/rx-*; do echo f > $q/rps_cpus; done"
        )),
        "bash: /sys/class/net/eth1/queues/rx-*/rps_cpus: No such file or directory"
    );
    // Relative globs match nothing either: the console has no working directory of queues.
    assert_eq!(ok(&mut s, "echo rx-*"), "rx-*\n");
    assert_eq!(fingerprint(&s), before);
}

/// The lesson's step on a 144-queue host, in one line each way; then every way of failing
/// half way leaves all 144 queues as they were, where bash's loop and tee would have written
/// the files before the bad one.
#[test]
fn many_writes_are_all_or_nothing() {
    let mut s = big();
    ok(
        &mut s,
        &format!("for q in {Q}/rx-*; do echo 2048 > $q/rps_flow_cnt; done"),
    );
    assert_eq!(flow_cnts(&s), vec![2048; 144]);
    assert_eq!(
        ok(&mut s, &format!("echo 4096 | sudo tee {Q}/rx-*/rps_flow_cnt")),
        "4096\n"
    );
    assert_eq!(flow_cnts(&s), vec![4096; 144]);
    let all: String = (0..=144).map(|q| format!("{q} ")).collect();
    let failing = [
        // The last turn names a queue the host does not have.
        (
            format!("for q in {all}; do echo 2048 > {Q}/rx-$q/rps_flow_cnt; done"),
            "bash: /sys/class/net/eth0/queues/rx-144/rps_flow_cnt: No such file or directory",
        ),
        // The last turn's value names a CPU the host lacks (160 of 0-143): bitmap_parse's
        // EOVERFLOW.
        (
            format!(
                "for m in 1 2 4 1,00000000,00000000,00000000,00000000,00000000; do echo $m > {Q}/rx-0/rps_cpus; done"
            ),
            "bash: echo: write error: Value too large for defined data type",
        ),
        // A bad value for every file (144 tables of 131072 entries: past the sandbox's memory):
        // tee names the first it would write.
        (
            format!("echo 70000 | tee {Q}/rx-*/rps_flow_cnt"),
            "tee: /sys/class/net/eth0/queues/rx-0/rps_flow_cnt: Invalid argument",
        ),
        // A good value, and one missing file among 145.
        (
            format!("echo 2048 | tee {Q}/rx-*/rps_flow_cnt {Q}/rx-144/rps_flow_cnt"),
            "tee: /sys/class/net/eth0/queues/rx-144/rps_flow_cnt: No such file or directory",
        ),
        // A read that fails after the writes of the turn.
        (
            format!("for q in {Q}/rx-*; do echo 2048 > $q/rps_flow_cnt; cat $q/nothing; done"),
            "cat: /sys/class/net/eth0/queues/rx-0/nothing: No such file or directory",
        ),
        // A `;` list whose second write is refused.
        (
            format!("echo f > {Q}/rx-0/rps_cpus; echo zz > {Q}/rx-1/rps_cpus"),
            "bash: echo: write error: Invalid argument",
        ),
        // An ambiguous redirection in the last turn.
        (
            format!("for q in 0 1 x; do echo 1 > {Q}/rx-$q*/rps_flow_cnt; done"),
            "bash: /sys/class/net/eth0/queues/rx-$q*/rps_flow_cnt: ambiguous redirect",
        ),
    ];
    for (line, words) in failing {
        let before = fingerprint(&s);
        let e = err(&mut s, &line);
        assert_eq!(e.lines().next(), Some(words), "{line}:\n{e}");
        assert!(e.lines().any(|l| l.starts_with("hint: ")), "{line}: no hint in\n{e}");
        assert_eq!(fingerprint(&s), before, "{line} changed the host");
    }
    assert_eq!(flow_cnts(&s), vec![4096; 144]);
}

/// Shell syntax the console does not take, in bash's words where bash refuses it too, and the
/// limits of the little shell in steerlab's; none changes the host.
#[test]
fn syntax_and_limits() {
    let cases = [
        (
            "for q in 0 1; do echo $q done",
            "bash: syntax error: unexpected end of file",
        ),
        ("for q in 0 1", "bash: syntax error: unexpected end of file"),
        (
            "for q in 0 1 do echo $q; done",
            "bash: syntax error near unexpected token `done'",
        ),
        ("for q in 0; do; done", "bash: syntax error near unexpected token `;'"),
        ("for q in 0; done", "bash: syntax error near unexpected token `done'"),
        ("for 1 in 0; do echo; done", "bash: `1': not a valid identifier"),
        ("done", "bash: syntax error near unexpected token `done'"),
        ("echo a;; echo b", "bash: syntax error near unexpected token `;'"),
        ("echo a | | tee", "bash: syntax error near unexpected token `|'"),
        ("echo f > ; echo", "bash: syntax error near unexpected token `;'"),
        ("echo ${q", "bash: ${q: bad substitution"),
        (
            "echo $(seq 0 3)",
            "bash: command substitution is not modelled in steerlab",
        ),
        (
            "for q in `seq 0 3`; do echo $q; done",
            "bash: command substitution is not modelled in steerlab",
        ),
        (
            "for q in 0; do ethtool -l eth0; done",
            "bash: steerlab runs echo, cat and tee in a loop or a ; list, not ethtool",
        ),
        (
            "ethtool -l eth0; ethtool -x eth0",
            "bash: steerlab runs echo, cat and tee in a loop or a ; list, not ethtool",
        ),
        (
            "for q in 0; do echo; done; echo",
            "bash: steerlab runs one loop per line, with nothing after `done'",
        ),
        (
            "echo 1 | sort",
            "bash: steerlab pipes echo into tee, and a command into grep",
        ),
        (
            "ethtool -S eth0 | tee /dev/null",
            "bash: steerlab pipes echo into tee, and a command into grep",
        ),
        (
            "ethtool -S eth0 | grep -P 'x+'",
            "grep: option -P is not supported in steerlab",
        ),
        (
            "tee /sys/class/net/eth0/queues/rx-0/rps_cpus",
            "tee: steerlab's tee writes what echo prints into it",
        ),
        ("echo 1 | tee --frob x", "tee: unrecognized option '--frob'"),
        ("echo 1 | tee -p x", "tee: invalid option -- 'p'"),
        (
            "echo 1 | tee /sys/class/net/eth0/queues/rx-0/rps_cpus > /tmp/x",
            "bash: steerlab's tee prints to the console or to > /dev/null",
        ),
        ("sudo", "usage: sudo [-AbEHknPS] [command [arg ...]]"),
    ];
    for (line, want) in cases {
        let mut s = twelve();
        let before = fingerprint(&s);
        let e = err(&mut s, line);
        assert_eq!(e.lines().next(), Some(want), "{line}:\n{e}");
        assert!(e.lines().any(|l| l.starts_with("hint: ")), "{line}: no hint in\n{e}");
        assert_eq!(fingerprint(&s), before, "{line}");
    }
}

/// `help` lists the many-queue forms; `help tee` and `help for` show them.
#[test]
fn help_names_the_forms() {
    let mut s = twelve();
    let help = ok(&mut s, "help");
    assert!(
        help.contains("\n  tee      echo VALUE | tee FILE... [> /dev/null]"),
        "{help}"
    );
    assert!(
        help.contains("\n  for      for q in /sys/class/net/DEV/queues/rx-*; do echo VALUE > $q/FILE; done\n"),
        "{help}"
    );
    assert!(
        help.contains("           echo VALUE | tee /sys/class/net/DEV/queues/rx-*/FILE"),
        "echo's forms: {help}"
    );
    assert!(ok(&mut s, "help for").starts_with("for q in /sys/class/net/DEV/queues/rx-*; do"));
    assert!(ok(&mut s, "help tee").starts_with("echo VALUE | tee FILE..."));
    // The forms `help` shows work as written, with DEV, VALUE and FILE filled in.
    for form in [
        "echo VALUE | tee /sys/class/net/DEV/queues/rx-*/FILE",
        "for q in /sys/class/net/DEV/queues/rx-*; do echo VALUE > $q/FILE; done",
    ] {
        let line = form
            .replace("DEV", "eth0")
            .replace("VALUE", "256")
            .replace("FILE", "rps_flow_cnt");
        let mut s = twelve();
        execute(&mut s, &line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(flow_cnts(&s), [256; 12], "{line}");
    }
}

/// A device with one TX queue lists `xps_cpus` but has no XPS: xps_cpus_store and
/// xps_cpus_show answer -ENOENT (`netif_is_multiqueue`, net/core/net-sysfs.c), as a veth made
/// with `numtxqueues 1` does (scripts/kernel-check.sh); with two queues the write is taken.
#[test]
fn a_single_queue_device_has_no_xps() {
    let mut s = host_with(HostConfig {
        cpus: 4,
        rx_queues: 1,
        tx_queues: 1,
        ..HostConfig::default()
    });
    let before = fingerprint(&s);
    let e = err(&mut s, &format!("echo 1 > {Q}/tx-0/xps_cpus"));
    assert_eq!(
        e.lines().next(),
        Some("bash: echo: write error: No such file or directory"),
        "{e}"
    );
    assert_eq!(fingerprint(&s), before);
    let e = err(&mut s, &format!("cat {Q}/tx-0/xps_cpus"));
    assert!(e.contains("No such file or directory"), "{e}");
    let mut two = host_with(HostConfig {
        cpus: 4,
        rx_queues: 2,
        tx_queues: 2,
        ..HostConfig::default()
    });
    ok(&mut two, &format!("echo 1 > {Q}/tx-0/xps_cpus"));
    assert_eq!(ok(&mut two, &format!("cat {Q}/tx-0/xps_cpus")), "1\n");
}
