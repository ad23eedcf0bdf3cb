//! The built-in lessons are the files in `lessons/`: adding a lesson is adding its file. This
//! writes their ids and titles, in teaching order (each lesson's `next` leads to the one
//! after; a lesson no other names starts the chain; any left over follow by id), and their
//! texts for the `embedded-lessons` build, and how many of the rules each rests on match the
//! kernel (docs/fidelity/rules.json), into `$OUT_DIR/lessons.rs` (`src/lessons.rs` includes it).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons");
    println!("cargo:rerun-if-changed={}", dir.display());
    // id -> (title, next, path)
    let mut lessons: BTreeMap<String, (String, String, String)> = BTreeMap::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("crates/scenario/lessons")
        .map(|e| e.expect("a lesson file").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path).expect("a lesson file's text");
        let v: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
        let field = |p: &str| v.pointer(p).and_then(|x| x.as_str()).unwrap_or_default().to_string();
        let id = field("/id");
        assert_eq!(
            path.file_stem().and_then(|s| s.to_str()),
            Some(id.as_str()),
            "{}: a lesson's file is named after its id",
            path.display()
        );
        println!("cargo:rerun-if-changed={}", path.display());
        lessons.insert(
            id,
            (
                field("/lesson/title"),
                field("/lesson/next"),
                path.display().to_string(),
            ),
        );
    }
    let named: Vec<&str> = lessons.values().map(|(_, next, _)| next.as_str()).collect();
    let mut order: Vec<String> = Vec::new();
    let mut at = lessons.keys().find(|id| !named.contains(&id.as_str())).cloned();
    while let Some(id) = at.filter(|id| lessons.contains_key(id) && !order.contains(id)) {
        at = Some(lessons[&id].1.clone());
        order.push(id);
    }
    order.extend(
        lessons
            .keys()
            .filter(|id| !order.contains(id))
            .cloned()
            .collect::<Vec<_>>(),
    );
    let mut out = String::new();
    let n = order.len();
    writeln!(
        out,
        "/// The default lesson: the first in teaching order (what the page opens without `?lesson=`,\n/// the shell's host).\npub const DEFAULT_LESSON: &str = {:?};",
        order.first().expect("at least one lesson file")
    )
    .unwrap();
    writeln!(
        out,
        "/// How many built-in lessons there are.\npub(crate) const LESSON_COUNT: usize = {n};"
    )
    .unwrap();
    writeln!(out, "/// Lesson ids and titles, in teaching order (what the lesson list and an ending's \"next\n/// lesson\" show without the lesson's text): one per file of `lessons/`.\npub const LESSON_TITLES: [(&str, &str); LESSON_COUNT] = [").unwrap();
    for id in &order {
        writeln!(out, "    ({id:?}, {:?}),", lessons[id].0).unwrap();
    }
    writeln!(out, "];\n/// The lessons' texts, compiled in, in the order of [`LESSON_TITLES`].\n#[cfg(feature = \"embedded-lessons\")]\nconst TEXTS: [&str; LESSON_COUNT] = [").unwrap();
    for id in &order {
        writeln!(out, "    include_str!({:?}),", lessons[id].2).unwrap();
    }
    writeln!(out, "];").unwrap();
    // docs/fidelity/rules.json (issue 51): per lesson, its rules that match the kernel, are
    // stated simplifications, or depart, in the order of LESSON_TITLES.
    let rules_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/fidelity/rules.json");
    println!("cargo:rerun-if-changed={}", rules_path.display());
    let rules: Vec<serde_json::Value> = std::fs::read_to_string(&rules_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    writeln!(
        out,
        "/// Per lesson (the order of [`LESSON_TITLES`]), its rules in docs/fidelity/rules.json that match
/// the kernel, are stated simplifications, and depart.
const FIDELITY: [[u16; 3]; LESSON_COUNT] = ["
    )
    .unwrap();
    for id in &order {
        let mut c = [0u16; 3];
        for r in &rules {
            let here = r["lessons"]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x == id.as_str()));
            let k = ["match", "simplification", "departs"]
                .iter()
                .position(|v| r["verdict"] == *v);
            if let (true, Some(k)) = (here, k) {
                c[k] += 1;
            }
        }
        writeln!(out, "    {c:?},").unwrap();
    }
    writeln!(out, "];").unwrap();
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("lessons.rs");
    std::fs::write(dest, out).expect("write lessons.rs");
}
