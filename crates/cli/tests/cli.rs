//! The `steerlab` binary as a user runs it: output format and exit status.

use std::process::Command;

fn steerlab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_steerlab")).args(args).output().expect("run steerlab");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
    )
}

#[test]
fn hash_prints_published_values() {
    // Microsoft "Verifying the RSS Hash Calculation", first row, IPv4 with and without ports.
    let (code, out, _) = steerlab(&["hash", "--src", "66.9.149.187", "--dst", "161.142.100.80", "--sport", "2794", "--dport", "1766"]);
    assert_eq!((code, out.as_str()), (0, "0x51ccc178\n"));
    let (code, out, _) = steerlab(&["hash", "--src", "66.9.149.187", "--dst", "161.142.100.80"]);
    assert_eq!((code, out.as_str()), (0, "0x323e8fc2\n"));
    // IPv6 row 1 of the same suite.
    let (code, out, _) = steerlab(&[
        "hash", "--src", "3ffe:2501:200:1fff::7", "--dst", "3ffe:2501:200:3::1", "--sport", "2794", "--dport", "1766",
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
