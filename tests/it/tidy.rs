//! Repository rules that a reviewer would otherwise check by hand.

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sources(sub: &str) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    rust_files(&root().join(sub), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = fs::read_to_string(&p).expect("read source");
            (p, text)
        })
        .collect()
}

/// Every Rust file starts with a module doc comment saying what it is for.
#[test]
fn every_module_has_a_doc_comment() {
    for dir in ["crates", "web/src", "tests"] {
        for (path, text) in sources(dir) {
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            assert!(
                first.starts_with("//!"),
                "{}: first line must be a //! module doc",
                path.display()
            );
        }
    }
}

/// The engine is a pure state machine: no clock, no I/O, no ambient randomness, no iteration
/// order from hashing (kernel-faithful determinism, issue 3).
#[test]
fn engine_is_pure() {
    let forbidden = [
        "std::",
        "HashMap",
        "HashSet",
        "Instant",
        "SystemTime",
        "rand::",
        "thread_local",
        "static mut",
    ];
    for (path, text) in sources("crates/engine/src") {
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for word in forbidden {
                assert!(
                    !code.contains(word),
                    "{}:{}: `{word}` is not allowed in the engine",
                    path.display(),
                    n + 1
                );
            }
        }
    }
}
