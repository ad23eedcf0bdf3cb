//! `steerlab`: the engine on the command line (product brief §4, "CLI").
//!
//! Exit status: 0 success, 1 a command of a script failed, 2 bad arguments or invalid input
//! (one line on stderr, never a panic).
#![forbid(unsafe_code)]

use std::net::IpAddr;
use std::process::ExitCode;

mod lesson;

use clap::{Parser, Subcommand};
use steerlab_engine::rss::{hash_input, HashFields};
use steerlab_engine::toeplitz::{ToeplitzTable, MS_VERIFICATION_KEY};
use steerlab_engine::{FlowKey, Proto};

#[derive(Parser)]
#[command(name = "steerlab", version, about = "A laboratory for Linux packet steering")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the Toeplitz RSS hash of a tuple as 0x%08x.
    Hash(HashArgs),
    /// List the built-in lessons, one id per line.
    Lessons,
    /// Run a lesson or a scenario file to the end and print its figures.
    Run(RunArgs),
    /// Apply console commands (from a file or stdin) to a host and print their output.
    Shell(ShellArgs),
    /// Read a real host's capture (scripts/capture-host.sh, or its outputs pasted alone) and
    /// print the scenario of that host; what the capture did not say goes to stderr.
    Import(ImportArgs),
    /// Predict where flows land on a host: hash, indirection index, RX queue, what decided it,
    /// IRQ CPU, RPS CPU.
    Predict(PredictArgs),
    /// Find flows of a template that land on a queue, or spread evenly over all queues.
    Solve(SolveArgs),
    /// A lesson file for trainers: `check` validates it and plays its solution and its
    /// not-solutions.
    #[command(subcommand)]
    Lesson(LessonCommand),
}

#[derive(Subcommand)]
enum LessonCommand {
    /// Validate a lesson file (figures, settings, commands, references), play its steps and
    /// its challenge's solution (each must meet the goal) and each of its not_solutions
    /// (none may), and print the evidence a learner will see. Exit 1 when a check fails.
    Check(LessonCheckArgs),
    /// Print the JSON Schema of a lesson (scenario) file, written from the types that read it.
    Schema,
    /// Print one link per student, each opening the learner's own variant of the lesson
    /// (`?student=NAME`); with --check, play each variant's solution and not-solutions first.
    Links(LessonLinksArgs),
}

#[derive(clap::Args)]
struct LessonLinksArgs {
    /// A lesson file (or a built-in lesson's id).
    file: String,
    /// Where the sandbox is served, e.g. https://host/courses/net342/steerlab/.
    #[arg(long)]
    base: String,
    /// A file of student names, one per line (`-` for stdin; empty lines and # comments skipped).
    #[arg(long)]
    students: String,
    /// Where the lesson file is served (for a file: its URL, or a path relative to --base; the
    /// file's name by default).
    #[arg(long = "lesson-url")]
    lesson_url: Option<String>,
    /// Check each student's variant as `lesson check` does (its solution meets the goal, no
    /// not-solution does) before printing its link.
    #[arg(long)]
    check: bool,
}

#[derive(clap::Args)]
struct LessonCheckArgs {
    /// A lesson file (or a built-in lesson's id).
    file: String,
    /// Override a scenario field first (a variant: --set sim.seed=7).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

#[derive(clap::Args)]
struct ImportArgs {
    /// The capture file (`-` for stdin).
    capture: String,
    /// Correct what the capture did not say (or any scenario field), e.g. --set host.cpus=16
    /// --set nic.rx_queues=8: each assumption printed names the field that holds it.
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    set: Vec<String>,
    /// One JSON object: the scenario (`scenario`, what plain `import` prints), what was assumed
    /// (`assumptions`) and what the capture's counters show (`observed`).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct PredictArgs {
    /// A capture (scripts/capture-host.sh), a scenario JSON file, or a lesson id.
    host: String,
    /// A flow as received: "PROTO SRC:SPORT DST:DPORT" (IPv6 in brackets); repeatable.
    #[arg(long = "flow", value_name = "FLOW")]
    flows: Vec<String>,
    /// A file of flows, one per line, or `ss -tn` / `ss -un` output taken on the host (`-` for
    /// stdin).
    #[arg(long = "flows", value_name = "FILE")]
    file: Option<String>,
    /// One JSON array, one object per flow.
    #[arg(long)]
    json: bool,
    /// Correct what the capture did not say (or any scenario field), e.g. --set host.cpus=16
    /// --set nic.rx_queues=8: each assumption printed names the field that holds it.
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    set: Vec<String>,
}

#[derive(clap::Args)]
struct SolveArgs {
    /// A capture, a scenario JSON file, or a lesson id.
    host: String,
    /// "PROTO SRC:SPORT DST:DPORT" with one `*`: a port, or an address's last part.
    #[arg(long)]
    template: String,
    /// The RX queue the flows must land on (with --count).
    #[arg(long, requires = "count", conflicts_with = "spread")]
    queue: Option<u16>,
    /// How many flows to find on --queue.
    #[arg(long, requires = "queue")]
    count: Option<usize>,
    /// Find N flows spread as evenly as possible over every queue of the indirection table.
    #[arg(long, value_name = "N")]
    spread: Option<usize>,
    /// One JSON array, one object per flow (the objects of predict).
    #[arg(long)]
    json: bool,
    /// Correct what the capture did not say (or any scenario field), e.g. --set host.cpus=16
    /// --set nic.rx_queues=8: each assumption printed names the field that holds it.
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    set: Vec<String>,
}

#[derive(clap::Args)]
struct RunArgs {
    /// A lesson id (see `steerlab lessons`) or a scenario JSON file.
    scenario: String,
    /// Seed of the run (sim.seed).
    #[arg(long)]
    seed: Option<u64>,
    /// Simulated seconds to run (sim.duration_ms / 1000).
    #[arg(long)]
    duration: Option<f64>,
    /// Override a scenario field, e.g. --set nic.driver=ice --set rfs.flow_cnt=2048.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Run once per value and print the runs side by side, e.g. --vary nic.driver=ice-hash-match,ice;
    /// KEY=V1,V2 items in one --vary are zipped, several --vary make the product.
    #[arg(long, value_name = "KEY=V1,V2")]
    vary: Vec<String>,
    /// Print one JSON object with the contract's keys instead of a table (with --vary, an
    /// array of {"label", "set", "report"}).
    #[arg(long)]
    json: bool,
    /// Also print the cost table in force (each stage's nanoseconds and its source) before
    /// the results (table output only).
    #[arg(long)]
    costs: bool,
}

#[derive(clap::Args)]
struct ShellArgs {
    /// File of commands, one per line (`#` starts a comment); default stdin.
    #[arg(long)]
    script: Option<std::path::PathBuf>,
    /// The host to apply them to (default: the default lesson's host, the first in teaching order; the NIC is eth0).
    #[arg(long)]
    scenario: Option<String>,
}

#[derive(clap::Args)]
struct HashArgs {
    /// The RSS key in hex, bytes optionally separated by ':' (default: the 40-byte Microsoft
    /// verification key).
    #[arg(long)]
    key: Option<String>,
    /// Source address of the received packet (IPv4 or IPv6).
    #[arg(long)]
    src: IpAddr,
    /// Destination address.
    #[arg(long)]
    dst: IpAddr,
    /// Source port: with --dport, hash the 4-tuple.
    #[arg(long, requires = "dport")]
    sport: Option<u16>,
    /// Destination port.
    #[arg(long, requires = "sport")]
    dport: Option<u16>,
}

/// Writes `text` to standard output. A reader that went away (`steerlab run … | head`) ends
/// the program quietly with the shell's SIGPIPE status, 141, instead of a panic.
fn emit(text: &str) -> Result<(), ExitCode> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(ExitCode::from(141)),
        Err(e) => {
            eprintln!("steerlab: cannot write the output: {e}");
            Err(ExitCode::from(1))
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let msg = e.to_string();
            let first = msg.lines().next().unwrap_or("invalid arguments");
            eprintln!("steerlab: {}", first.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Hash(args) => hash(&args),
        Command::Lessons => Ok(steerlab_scenario::lesson_ids().map(|id| format!("{id}\n")).collect()),
        Command::Run(args) => run(&args),
        Command::Shell(args) => return shell(&args),
        Command::Import(args) => import(&args),
        Command::Predict(args) => predict(&args),
        Command::Solve(args) => solve(&args),
        Command::Lesson(LessonCommand::Check(args)) => return lesson_check(&args),
        Command::Lesson(LessonCommand::Links(args)) => return lesson_links(&args),
        Command::Lesson(LessonCommand::Schema) => serde_json::to_string_pretty(&steerlab_scenario::json_schema())
            .map(|s| s + "\n")
            .map_err(|e| e.to_string()),
    };
    match result {
        Ok(out) => match emit(&out) {
            Ok(()) => ExitCode::SUCCESS,
            Err(code) => code,
        },
        Err(msg) => {
            eprintln!("steerlab: {msg}");
            ExitCode::from(2)
        }
    }
}

/// `steerlab lesson check`: 0 when every check passed, 1 when one failed, 2 for a file that
/// does not load.
fn lesson_check(args: &LessonCheckArgs) -> ExitCode {
    let scenario = match load(&args.file, &args.set) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("steerlab: {e}");
            return ExitCode::from(2);
        }
    };
    let mut found = lesson::check(&args.file, &scenario);
    // A lesson with variants: each of them, as a learner whose seed picks it meets it.
    let with_seed = |seed: String| load(&args.file, &[args.set.clone(), vec![seed]].concat());
    for (k, variant) in scenario.other_variants(with_seed) {
        let what = format!("{} (variant {k}: {})", args.file, scenario.lesson.variants[k].name);
        match variant {
            Ok(s) => {
                let more = lesson::check(&what, &s);
                found.out += &more.out;
                found.failed += more.failed;
            }
            Err(e) => {
                found.out += &format!("FAIL  {what}: {e}\n");
                found.failed += 1;
            }
        }
    }
    let summary = if found.failed == 0 {
        "lesson check: every check passed\n".to_string()
    } else {
        format!("lesson check: {} failed\n", found.failed)
    };
    match emit(&format!("{}{summary}", found.out)) {
        Ok(()) if found.failed == 0 => ExitCode::SUCCESS,
        Ok(()) => ExitCode::from(1),
        Err(code) => code,
    }
}

/// `steerlab lesson links`: a link per student; 1 when a checked variant fails, 2 for bad
/// input.
fn lesson_links(args: &LessonLinksArgs) -> ExitCode {
    let names = match read_input(&args.students, 1 << 20) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("steerlab: --students {}: {e}", args.students);
            return ExitCode::from(2);
        }
    };
    let built_in = steerlab_scenario::lesson(&args.file).is_some();
    let scenario = match load(&args.file, &[]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("steerlab: {e}");
            return ExitCode::from(2);
        }
    };
    let target = if built_in {
        format!("lesson={}", lesson::url_encode(&args.file))
    } else {
        let url = args.lesson_url.clone().unwrap_or_else(|| {
            std::path::Path::new(&args.file)
                .file_name()
                .map_or_else(|| args.file.clone(), |n| n.to_string_lossy().into_owned())
        });
        format!("lesson-url={}", lesson::url_encode(&url))
    };
    let load_seed = |seed: u64| load(&args.file, &[format!("sim.seed={seed}")]).map_err(|e| e.to_string());
    let (out, failed) = lesson::links(&scenario, load_seed, &args.base, &target, &names, args.check);
    match emit(&out) {
        Ok(()) if failed == 0 => ExitCode::SUCCESS,
        Ok(()) => ExitCode::from(1),
        Err(code) => code,
    }
}

/// Parses a key given as hex digits, with or without ':' between bytes.
fn parse_key(text: &str) -> Result<Vec<u8>, String> {
    let digits: String = text.chars().filter(|&c| c != ':').collect();
    if digits.is_empty() || digits.len() % 2 != 0 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!(
            "--key {text:?} is not an even number of hex digits (e.g. 6d5a56da... or 6d:5a:56:da:...)"
        ));
    }
    Ok((0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).unwrap_or(0))
        .collect())
}

fn hash(args: &HashArgs) -> Result<String, String> {
    let key = match &args.key {
        Some(text) => parse_key(text)?,
        None => MS_VERIFICATION_KEY.to_vec(),
    };
    let (sport, dport, fields) = match (args.sport, args.dport) {
        (Some(s), Some(d)) => (s, d, HashFields::FOUR_TUPLE),
        _ => (0, 0, HashFields::TWO_TUPLE),
    };
    let flow = FlowKey::new(args.src, args.dst, sport, dport, Proto::Tcp).map_err(|e| e.to_string())?;
    let (buf, len) = hash_input(&flow, fields);
    if key.len() < len + 4 {
        return Err(format!(
            "--key has {} bytes; a {len}-byte input needs at least {}",
            key.len(),
            len + 4
        ));
    }
    Ok(format!("0x{:08x}\n", ToeplitzTable::new(&key).hash(&buf[..len])))
}

/// Loads a lesson id or a scenario file, with overrides.
fn load(what: &str, overrides: &[String]) -> Result<steerlab_scenario::Scenario, String> {
    let text = match steerlab_scenario::lesson(what) {
        Some(t) => t.to_string(),
        None => {
            let meta = std::fs::metadata(what).map_err(|e| {
                format!(
                    "{what}: not a lesson id ({}) nor a readable file: {e}",
                    steerlab_scenario::lesson_ids().collect::<Vec<_>>().join(", ")
                )
            })?;
            if meta.len() > steerlab_scenario::MAX_BYTES as u64 {
                return Err(format!(
                    "{what}: {} bytes; scenarios are at most {} bytes",
                    meta.len(),
                    steerlab_scenario::MAX_BYTES
                ));
            }
            std::fs::read_to_string(what).map_err(|e| format!("{what}: {e}"))?
        }
    };
    steerlab_scenario::parse(&text, overrides).map_err(|e| format!("invalid scenario {what}: {e}"))
}

fn run(args: &RunArgs) -> Result<String, String> {
    let mut overrides = args.set.clone();
    if let Some(seed) = args.seed {
        overrides.push(format!("sim.seed={seed}"));
    }
    if let Some(d) = args.duration {
        if !(d.is_finite() && d > 0.0 && d <= 86_400.0) {
            return Err(format!("--duration {d}: accepted 0 < SECONDS <= 86400"));
        }
        overrides.push(format!("sim.duration_ms={}", ((d * 1000.0).round() as u64).max(1)));
    }
    if !args.vary.is_empty() {
        return run_side_by_side(args, &overrides);
    }
    let scenario = load(&args.scenario, &overrides)?;
    let sim = scenario
        .run()
        .map_err(|e| format!("invalid scenario {}: {e}", args.scenario))?;
    let report = steerlab_scenario::Report::new(&scenario, &sim);
    if args.json {
        return Ok(format!("{}\n", report.to_json()));
    }
    let mut out = String::new();
    if args.costs {
        // The cost table in force (defaults and the scenario's `cost.*` overrides).
        out.push_str("# cost table (ns; _ps: picoseconds), override with --set cost.NAME=N\n");
        for row in sim.config().costs.rows() {
            out.push_str(&format!("{row}\n"));
        }
        out.push('\n');
    }
    out.push_str(&report.to_table());
    Ok(out)
}

/// `run --vary`: every combination (validated before any runs), run on all cores, in columns.
fn run_side_by_side(args: &RunArgs, overrides: &[String]) -> Result<String, String> {
    use steerlab_scenario::compare;
    let variants = compare::variants(&args.vary)?;
    let scenarios = variants
        .iter()
        .map(|v| {
            load(&args.scenario, &[overrides, &v.sets[..]].concat()).map_err(|e| format!("{e} (column {:?})", v.label))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(scenarios.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<(usize, Result<steerlab_scenario::Report, String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(sc) = scenarios.get(i) else { break done };
                        let report = sc
                            .run()
                            .map(|sim| steerlab_scenario::Report::new(sc, &sim))
                            .map_err(|e| e.to_string());
                        done.push((i, report));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a run does not panic"))
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    let columns = variants
        .iter()
        .zip(results)
        .map(|(v, (_, r))| {
            r.map(|report| (v.label.clone(), report))
                .map_err(|e| format!("invalid scenario {} ({}): {e}", args.scenario, v.label))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if args.json {
        let items: Vec<serde_json::Value> = variants
            .iter()
            .zip(&columns)
            .map(|(v, (_, r))| serde_json::json!({"label": v.label, "set": v.sets, "report": r.0}))
            .collect();
        return Ok(format!("{}\n", serde_json::Value::Array(items)));
    }
    Ok(compare::table(&scenarios[0].lesson.table, &columns))
}

/// Reads a file given on the command line (`-`: stdin), at most `max` bytes.
fn read_input(path: &str, max: usize) -> Result<String, String> {
    let text = if path == "-" {
        std::io::read_to_string(std::io::stdin().take(max as u64 + 1)).map_err(|e| format!("stdin: {e}"))?
    } else {
        let meta = std::fs::metadata(path).map_err(|e| format!("{path}: {e}"))?;
        if meta.len() > max as u64 {
            return Err(format!("{path}: {} bytes; at most {max} accepted", meta.len()));
        }
        std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?
    };
    if text.len() > max {
        return Err(format!("{path}: more than {max} bytes"));
    }
    Ok(text)
}

use std::io::Read as _;

fn import(args: &ImportArgs) -> Result<String, String> {
    let text = read_input(&args.capture, steerlab_scenario::capture::MAX_CAPTURE_BYTES)?;
    let imported =
        steerlab_scenario::capture::import_with(&text, &args.set).map_err(|e| format!("{}: {e}", args.capture))?;
    if args.json {
        let all = serde_json::json!({
            "scenario": imported.json,
            "assumptions": imported.assumptions,
            "observed": imported.observed,
        });
        return serde_json::to_string_pretty(&all)
            .map(|j| format!("{j}\n"))
            .map_err(|e| e.to_string());
    }
    for a in &imported.assumptions {
        eprintln!("steerlab: assumed: {a}");
    }
    // What the counters show, under a heading of its own: counters since boot, as printed.
    if !imported.observed.is_empty() {
        eprintln!("steerlab: what the capture shows (counters since boot, as printed):");
        for o in &imported.observed {
            eprintln!("steerlab:   {}: {o}", o.place);
        }
    }
    let json = serde_json::to_string_pretty(&imported.json).map_err(|e| e.to_string())?;
    Ok(format!("{json}\n"))
}

/// The host of `predict` and `solve`: a lesson id, or a file holding a scenario or a capture,
/// with `sets` (`--set`) applied. The capture's assumptions go to stderr.
fn predict_host(what: &str, sets: &[String]) -> Result<steerlab_engine::Sim, String> {
    let text = match steerlab_scenario::lesson(what) {
        Some(_) => what.to_string(),
        None => read_input(what, steerlab_scenario::capture::MAX_CAPTURE_BYTES)?,
    };
    let (sim, assumed) = steerlab_scenario::predict::host_with(&text, sets).map_err(|e| format!("{what}: {e}"))?;
    for a in &assumed {
        eprintln!("steerlab: assumed: {a}");
    }
    Ok(sim)
}

fn predictions_out(rows: &[steerlab_scenario::predict::Predicted], json: bool) -> Result<String, String> {
    if json {
        return serde_json::to_string(rows)
            .map(|j| format!("{j}\n"))
            .map_err(|e| e.to_string());
    }
    Ok(steerlab_scenario::predict::table(rows))
}

fn predict(args: &PredictArgs) -> Result<String, String> {
    use steerlab_scenario::predict;
    let mut flows = args
        .flows
        .iter()
        .map(|f| predict::parse_flow(f).map_err(|e| format!("--flow {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(path) = &args.file {
        let text = read_input(path, 256 << 20)?;
        flows.extend(predict::parse_flows(&text).map_err(|e| format!("{path}: {e}"))?);
    }
    if flows.is_empty() {
        return Err("no flows: give --flow \"PROTO SRC:SPORT DST:DPORT\" or --flows FILE".into());
    }
    let sim = predict_host(&args.host, &args.set)?;
    let rows: Vec<_> = flows.iter().map(|k| predict::predict(&sim, k)).collect();
    predictions_out(&rows, args.json)
}

fn solve(args: &SolveArgs) -> Result<String, String> {
    use steerlab_scenario::predict;
    let template = predict::Template::parse(&args.template).map_err(|e| format!("--template {e}"))?;
    let sim = predict_host(&args.host, &args.set)?;
    let rows = match (args.queue, args.count, args.spread) {
        (Some(q), Some(n), None) => predict::solve_queue(&sim, &template, q, n)?,
        (None, None, Some(n)) => predict::solve_spread(&sim, &template, n)?,
        _ => return Err("give --queue Q --count N, or --spread N".into()),
    };
    predictions_out(&rows, args.json)
}

fn shell(args: &ShellArgs) -> ExitCode {
    let scenario = match load(
        args.scenario.as_deref().unwrap_or(steerlab_scenario::DEFAULT_LESSON),
        &[],
    ) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("steerlab: {e}");
            return ExitCode::from(2);
        }
    };
    let text = match &args.script {
        Some(path) => std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display())),
        None => std::io::read_to_string(std::io::stdin()).map_err(|e| format!("stdin: {e}")),
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            eprintln!("steerlab: {e}");
            return ExitCode::from(2);
        }
    };
    let mut sim = match scenario.build() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("steerlab: invalid scenario: {e}");
            return ExitCode::from(2);
        }
    };
    let mut failed = false;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let shown = match steerlab_console::execute(&mut sim, line) {
            Ok(out) => emit(&format!("$ {line}\n{out}")),
            Err(e) => {
                failed = true;
                emit(&format!("$ {line}\n{e}\n"))
            }
        };
        if let Err(code) = shown {
            return code;
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
