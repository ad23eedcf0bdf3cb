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

/// Most lines a source file outside tests may have (issue 33).
const MAX_FILE_LINES: usize = 700;
/// Most lines a function outside tests may have, signature to closing brace (issue 33).
const MAX_FN_LINES: usize = 150;
/// Functions still over the limit, each with why: `(file, function)`. An entry that is no
/// longer needed fails the test, so the list only shrinks.
const LONG_FUNCTIONS: &[(&str, &str)] = &[];

/// The code of `text` with string and char literals and comments blanked (braces in them do not
/// count), line by line.
fn code_only(text: &str) -> Vec<String> {
    let (mut out, mut line) = (Vec::new(), String::new());
    let chars: Vec<char> = text.chars().collect();
    let (mut i, mut in_str, mut raw_hashes) = (0, false, None::<usize>);
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            out.push(std::mem::take(&mut line));
            i += 1;
            continue;
        }
        if in_str {
            match (c, raw_hashes) {
                ('\\', None) => i += 1,
                ('"', None) => in_str = false,
                ('"', Some(n)) if chars[i + 1..].iter().take(n).filter(|&&h| h == '#').count() == n => {
                    in_str = false;
                    raw_hashes = None;
                    i += n;
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        let next = chars.get(i + 1).copied();
        match c {
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '"' => in_str = true,
            'r' if matches!(next, Some('"' | '#')) && !line.ends_with(|p: char| p.is_alphanumeric() || p == '_') => {
                let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
                if chars.get(i + 1 + hashes) == Some(&'"') {
                    in_str = true;
                    raw_hashes = Some(hashes);
                    i += hashes + 2;
                    continue;
                }
                line.push(c);
            }
            // A char literal ('x', '\n', '{'), not a lifetime ('a).
            '\'' if next == Some('\\') => {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
            }
            '\'' if chars.get(i + 2) == Some(&'\'') => i += 2,
            _ => line.push(c),
        }
        i += 1;
    }
    out.push(line);
    out
}

/// Each function of `text` outside its `#[cfg(test)]` module: its name and its lines.
fn function_lengths(text: &str) -> Vec<(String, usize)> {
    let lines = code_only(text);
    let end = lines
        .iter()
        .position(|l| l.starts_with("#[cfg(test)]"))
        .unwrap_or(lines.len());
    let mut found = Vec::new();
    for (start, line) in lines[..end].iter().enumerate() {
        let words: Vec<&str> = line.split(|c: char| !(c.is_alphanumeric() || c == '_')).collect();
        let Some(at) = words.iter().position(|w| *w == "fn") else {
            continue;
        };
        let name = words[at + 1..].iter().find(|w| !w.is_empty()).unwrap_or(&"");
        let (mut depth, mut opened) = (0i32, false);
        for (n, l) in lines[start..end].iter().enumerate() {
            for c in l.chars() {
                match c {
                    '{' => (depth, opened) = (depth + 1, true),
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if (opened && depth <= 0) || (!opened && l.trim_end().ends_with(';')) {
                found.push((name.to_string(), n + 1));
                break;
            }
        }
    }
    found
}

/// Files and functions a reader can hold (issue 33): in `crates/` and the page's `web/src`,
/// no source file over 700 lines and no function over 150, tests aside (`tests/` folders,
/// `tests.rs` files, a file's `#[cfg(test)]` module).
#[test]
fn files_and_functions_stay_small() {
    let mut long = Vec::new();
    let mut still_needed = Vec::new();
    for (path, text) in sources("crates").into_iter().chain(sources("web/src")) {
        let rel = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        if rel.contains("/tests/") || rel.ends_with("/tests.rs") {
            continue;
        }
        let lines = text.lines().count();
        if lines > MAX_FILE_LINES {
            long.push(format!("{rel}: {lines} lines (at most {MAX_FILE_LINES})"));
        }
        for (name, n) in function_lengths(&text) {
            let known = LONG_FUNCTIONS.contains(&(rel.as_str(), name.as_str()));
            if n > MAX_FN_LINES && known {
                still_needed.push((rel.clone(), name));
            } else if n > MAX_FN_LINES {
                long.push(format!("{rel}: fn {name} is {n} lines (at most {MAX_FN_LINES})"));
            }
        }
    }
    assert!(long.is_empty(), "split these by concern:\n{}", long.join("\n"));
    for (file, name) in LONG_FUNCTIONS {
        assert!(
            still_needed.iter().any(|(f, n)| f == file && n == name),
            "{file}: fn {name} is within {MAX_FN_LINES} lines now: remove it from LONG_FUNCTIONS"
        );
    }
}

/// The length scan itself: braces in strings, chars and comments do not count.
#[test]
fn function_lengths_skip_literals_and_comments() {
    let text = "fn a() {\n    let s = \"}}\"; // }\n    let c = '}';\n    let r = r#\"}\"#;\n}\nfn b<'x>(v: &'x str) -> &'x str {\n    v\n}\n";
    assert_eq!(function_lengths(text), [("a".to_string(), 5), ("b".to_string(), 3)]);
}

/// The page's module (web/src/main.rs: `components`, `client`, `chart`) reaches worker-side
/// code (`controller`, `worker`) and the engine, console and scenario crates only through
/// `web/src/protocol/`, the one list of what crosses between page and worker. No exceptions.
#[test]
fn the_page_reaches_the_worker_only_through_the_protocol() {
    let exceptions: &[&str] = &[];
    let forbidden = [
        "crate::controller",
        "crate::worker",
        "steerlab_engine",
        "steerlab_console",
        "steerlab_scenario",
    ];
    let mut page = sources("web/src/components");
    for f in ["web/src/client.rs", "web/src/chart.rs", "web/src/main.rs"] {
        let p = root().join(f);
        let text = fs::read_to_string(&p).unwrap_or_else(|e| panic!("{f}: {e}"));
        page.push((p, text));
    }
    assert!(page.len() > 20, "the page's files: {}", page.len());
    let mut found = Vec::new();
    for (path, text) in &page {
        let rel = path
            .strip_prefix(root())
            .expect("in the repository")
            .display()
            .to_string();
        for line in code_only(text) {
            for f in forbidden {
                if line.contains(f) && !exceptions.contains(&rel.as_str()) {
                    found.push(format!("{rel}: {}", line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the page reaches worker-side code outside web/src/protocol/ (re-export what crosses there):\n{}",
        found.join("\n")
    );
}
