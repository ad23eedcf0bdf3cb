//! Runs side by side: `steerlab run LESSON --vary KEY=A,B` runs one scenario under each
//! combination of values and prints the figures in columns, the way the seeds print theirs
//! ("512: original vs patched"). A lesson's `table` names the rows its seed reported.
//!
//! One `--vary` holds one or more `KEY=V1,V2,...` items separated by spaces; their lists are
//! zipped (same length: `"rfs.flow_cnt=512,2048 rfs.sock_flow_entries=73728,294912"`). Several
//! `--vary` make the product, the first one outermost.

use crate::Report;

/// Most columns of one comparison.
pub const MAX_VARIANTS: usize = 16;

/// One column: the overrides it runs with and its heading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Heading: the varied values, space-separated.
    pub label: String,
    /// `path=value` overrides, applied after the user's `--set`s.
    pub sets: Vec<String>,
}

/// The columns of `specs` (the `--vary` arguments).
pub fn variants(specs: &[String]) -> Result<Vec<Variant>, String> {
    let mut out = vec![Variant {
        label: String::new(),
        sets: Vec::new(),
    }];
    for spec in specs {
        let axis = axis(spec)?;
        if out.len() * axis.len() > MAX_VARIANTS {
            return Err(format!(
                "--vary: {} combinations; at most {MAX_VARIANTS} accepted",
                out.len() * axis.len()
            ));
        }
        out = out
            .iter()
            .flat_map(|v| {
                axis.iter().map(move |(label, sets)| Variant {
                    label: if v.label.is_empty() {
                        label.clone()
                    } else {
                        format!("{} {label}", v.label)
                    },
                    sets: v.sets.iter().chain(sets).cloned().collect(),
                })
            })
            .collect();
    }
    Ok(out)
}

/// One `--vary` argument: its zipped values, each with its label and overrides.
fn axis(spec: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    let accepted = "accepted: KEY=V1,V2[,...] items separated by spaces, lists of one length";
    let mut lists: Vec<(&str, Vec<&str>)> = Vec::new();
    for item in spec.split_whitespace() {
        let (key, values) = item
            .split_once('=')
            .ok_or_else(|| format!("--vary {item:?}: no '='; {accepted}"))?;
        let values: Vec<&str> = values.split(',').collect();
        if key.is_empty() || values.iter().any(|v| v.is_empty()) {
            return Err(format!("--vary {item:?}: empty key or value; {accepted}"));
        }
        if let Some((first_key, first)) = lists.first() {
            if first.len() != values.len() {
                return Err(format!(
                    "--vary {spec:?}: {key} has {} values, {first_key} has {}; {accepted}",
                    values.len(),
                    first.len()
                ));
            }
        }
        lists.push((key, values));
    }
    let Some((_, first)) = lists.first() else {
        return Err(format!("--vary {spec:?}: nothing to vary; {accepted}"));
    };
    Ok((0..first.len())
        .map(|i| {
            // Label by the first key's value; the others follow it (a table size and its sock table).
            let label = first[i].to_string();
            (label, lists.iter().map(|(k, v)| format!("{k}={}", v[i])).collect())
        })
        .collect())
}

/// The figures of `columns` side by side: `rows` are (label, dotted metric path); with no rows,
/// every scalar of the first report.
pub fn table(rows: &[(String, String)], columns: &[(String, Report)]) -> String {
    let owned: Vec<(String, String)>;
    let rows = if rows.is_empty() {
        owned = columns
            .first()
            .map(|(_, r)| r.scalar_paths())
            .unwrap_or_default()
            .into_iter()
            .map(|p| (p.clone(), p))
            .collect();
        &owned
    } else {
        rows
    };
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|(_, path)| columns.iter().map(|(_, r)| cell(r, path)).collect())
        .collect();
    let label_w = rows.iter().map(|(l, _)| l.len()).max().unwrap_or(0).max(6);
    let col_w: Vec<usize> = (0..columns.len())
        .map(|c| {
            cells
                .iter()
                .map(|row| row[c].len())
                .chain([columns[c].0.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = format!("{:<label_w$}", "");
    for (c, (head, _)) in columns.iter().enumerate() {
        out.push_str(&format!(" | {head:>w$}", w = col_w[c]));
    }
    out.push('\n');
    out.push_str(&"-".repeat(out.trim_end().len()));
    out.push('\n');
    for ((label, _), row) in rows.iter().zip(&cells) {
        out.push_str(&format!("{label:<label_w$}"));
        for (c, v) in row.iter().enumerate() {
            out.push_str(&format!(" | {v:>w$}", w = col_w[c]));
        }
        out.push('\n');
    }
    out
}

/// A metric as the seeds print it: integers with thousands separators, `*_ns` totals in
/// seconds, anything else as is; "-" when the report has no such metric.
pub fn cell(r: &Report, path: &str) -> String {
    match r.get(path) {
        Some(serde_json::Value::Number(n)) if path.ends_with("_ns") => {
            format!("{:.1} s", n.as_f64().unwrap_or(0.0) / 1e9)
        }
        Some(serde_json::Value::Number(n)) => match n.as_u64() {
            Some(i) => thousands(i),
            None => n.to_string(),
        },
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v @ serde_json::Value::Bool(_)) => v.to_string(),
        Some(serde_json::Value::Null) | None => "-".into(),
        Some(_) => "…".into(),
    }
}

/// `12345` as `12,345` (the tables here, the importer's observations).
pub(crate) fn thousands(n: impl core::fmt::Display) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn zipped_within_a_vary_product_across() {
        let v = variants(&s(&[
            "rfs.flow_cnt=512,2048 rfs.sock_flow_entries=73728,294912",
            "nic.driver=ice-hash-match,ice",
        ]))
        .unwrap();
        let labels: Vec<&str> = v.iter().map(|x| x.label.as_str()).collect();
        assert_eq!(
            labels,
            ["512 ice-hash-match", "512 ice", "2048 ice-hash-match", "2048 ice"]
        );
        assert_eq!(
            v[3].sets,
            s(&["rfs.flow_cnt=2048", "rfs.sock_flow_entries=294912", "nic.driver=ice"])
        );
        assert_eq!(
            variants(&[]).unwrap(),
            vec![Variant {
                label: String::new(),
                sets: vec![]
            }]
        );
    }

    #[test]
    fn bad_specs_say_what_is_accepted() {
        for (spec, says) in [
            ("nic.driver", "no '='"),
            ("a=1,2 b=1", "b has 1 values, a has 2"),
            ("a=1,,2", "empty key or value"),
            ("=1", "empty key or value"),
            ("  ", "nothing to vary"),
        ] {
            let e = variants(&s(&[spec])).unwrap_err();
            assert!(e.contains(says) && e.contains("accepted"), "{spec}: {e}");
        }
        let e = variants(&s(&["a=1,2,3,4,5", "b=1,2,3,4"])).unwrap_err();
        assert!(e.contains("at most 16"), "{e}");
    }

    #[test]
    fn the_table_formats_like_the_seeds() {
        let r = |u: u64, ns: u64| {
            Report(serde_json::json!({"arfs": {"update": u}, "cpu": {"softirq_ns": ns}, "tc": {"counting": "usesw"}}))
        };
        let rows = [
            ("aRFS Update".to_string(), "arfs.update".to_string()),
            ("CPU Softirq".into(), "cpu.softirq_ns".into()),
            ("counting".into(), "tc.counting".into()),
            ("absent".into(), "x.y".into()),
        ];
        let t = table(
            &rows,
            &[
                ("512 ice-hash-match".into(), r(533_973, 1_245_000_000_000)),
                ("512 ice".into(), r(59, 920_000_000_000)),
            ],
        );
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "            | 512 ice-hash-match | 512 ice");
        assert_eq!(lines[2], "aRFS Update |            533,973 |      59");
        assert_eq!(lines[3], "CPU Softirq |           1245.0 s | 920.0 s");
        assert_eq!(lines[4], "counting    |              usesw |   usesw");
        assert_eq!(lines[5], "absent      |                  - |       -");
    }
}
