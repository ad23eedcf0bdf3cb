//! `steerlab lesson check FILE`: a trainer's lesson file checked before any learner meets it
//! (issue 49): it parses and validates (every figure the report has, every setting a part of
//! the host), each step's commands run on that host, each flow pattern selects flows; then
//! it is played as learners play it: its steps followed, each after the other, meet the
//! goal; its challenge's solution meets the challenge's goal; each of its `not_solutions`
//! leaves the goal unmet in both forms. It prints the evidence a learner will see.

use steerlab_scenario::goal::{self, Part};
use steerlab_scenario::lesson_run::{play, Played, READ_NS};
use steerlab_scenario::{Check, Scenario};

/// What a check found: the report's lines, and whether every part passed.
#[derive(Default)]
pub(crate) struct Findings {
    pub(crate) out: String,
    pub(crate) failed: usize,
}

impl Findings {
    fn ok(&mut self, line: impl AsRef<str>) {
        self.out.push_str(&format!("ok    {}\n", line.as_ref()));
    }

    fn fail(&mut self, line: impl AsRef<str>) {
        self.failed += 1;
        self.out.push_str(&format!("FAIL  {}\n", line.as_ref()));
    }

    fn note(&mut self, line: impl AsRef<str>) {
        self.out.push_str(&format!("      {}\n", line.as_ref()));
    }
}

/// Checks `scenario`'s lesson (`what` names it in the output).
pub(crate) fn check(what: &str, scenario: &Scenario) -> Findings {
    let mut f = Findings::default();
    let l = &scenario.lesson;
    f.ok(format!(
        "{what}: valid ({} steps, {} questions, {} goal parts, {} not-solutions{})",
        l.steps.len(),
        l.predict.len(),
        l.check.len(),
        l.not_solutions.len(),
        if l.challenge.is_some() { ", a challenge" } else { "" }
    ));
    if l.check.is_empty() {
        f.fail("lesson.check: the lesson has no goal: nothing can end it");
        return f;
    }
    commands_run(scenario, &mut f);
    patterns_select(scenario, &mut f);
    questions_ask(scenario, &mut f);
    solution_meets(scenario, &mut f);
    if let Some(c) = &l.challenge {
        if c.solution.is_empty() {
            f.fail("lesson.challenge.solution: none given: the challenge's goal is not shown reachable");
        } else {
            let run = play(scenario, true, std::slice::from_ref(&c.solution));
            report_play(&mut f, "challenge: its solution", &run, true);
        }
    }
    for (i, n) in l.not_solutions.iter().enumerate() {
        for challenge in [false, true] {
            if challenge && l.challenge.is_none() {
                continue;
            }
            let form = if challenge { "challenge" } else { "guided" };
            let run = play(scenario, challenge, std::slice::from_ref(&n.commands));
            report_play(
                &mut f,
                &format!("{form}: not_solutions[{i}] {:?}", n.commands.join("; ")),
                &run,
                false,
            );
        }
    }
    f
}

/// Every line the lesson hands a learner (steps, the challenge's solution, the
/// not-solutions) runs on the host: each list in order on the host as a learner finds it
/// (its timeline run to [`READ_NS`]).
fn commands_run(scenario: &Scenario, f: &mut Findings) {
    let l = &scenario.lesson;
    let steps: Vec<(String, &String)> = l
        .steps
        .iter()
        .enumerate()
        .flat_map(|(k, s)| s.commands.iter().map(move |c| (format!("lesson.steps[{k}]"), c)))
        .collect();
    let mut lists = vec![("the steps".to_string(), steps)];
    if let Some(c) = &l.challenge {
        lists.push((
            "the challenge's solution".into(),
            c.solution
                .iter()
                .map(|c| ("lesson.challenge.solution".to_string(), c))
                .collect(),
        ));
    }
    for (i, n) in l.not_solutions.iter().enumerate() {
        let at = format!("lesson.not_solutions[{i}]");
        lists.push((at.clone(), n.commands.iter().map(|c| (at.clone(), c)).collect()));
    }
    for (name, lines) in lists {
        let mut sim = match scenario.build().and_then(|mut sim| {
            scenario
                .run_from(&mut sim, steerlab_engine::Nanos(READ_NS))
                .map(|()| sim)
        }) {
            Ok(sim) => sim,
            Err(e) => return f.fail(format!("the host does not run: {e}")),
        };
        let bad: Vec<String> = lines
            .iter()
            .filter_map(|(at, line)| {
                steerlab_console::execute(&mut sim, line)
                    .err()
                    .map(|e| format!("{at}: {line:?}: {}", e.lines().next().unwrap_or("refused")))
            })
            .collect();
        if bad.is_empty() {
            f.ok(format!("{name}: {} commands run on this host", lines.len()));
        } else {
            bad.iter().for_each(|b| f.fail(b));
        }
    }
}

/// No question is answered by what the page shows with it: none of a choice's `tells` is in
/// the goal, the steps' texts, the evidence's labels or the question.
fn questions_ask(scenario: &Scenario, f: &mut Findings) {
    let l = &scenario.lesson;
    let found = steerlab_scenario::teach::giveaways(l);
    for (i, j, word) in &found {
        f.fail(format!(
            "lesson.predict[{i}].choices[{j}]: {word:?}, which tells this answer, is shown with the question (move it to the step's outcome)"
        ));
    }
    if found.is_empty() && !l.predict.is_empty() {
        let told = l
            .predict
            .iter()
            .flat_map(|q| &q.choices)
            .filter(|c| !c.tells.is_empty())
            .count();
        f.ok(format!(
            "questions: no answer's words are shown with its question ({told} answers name theirs)"
        ));
    }
}

/// Every flow pattern of the goals selects a flow of the host at its start.
fn patterns_select(scenario: &Scenario, f: &mut Findings) {
    let Ok(sim) = scenario.build() else { return };
    let l = &scenario.lesson;
    let goals = l.check.iter().chain(l.challenge.iter().flat_map(|c| c.check.iter()));
    let mut patterns = Vec::new();
    fn walk<'a>(c: &'a Check, out: &mut Vec<&'a goal::FlowPattern>) {
        match &c.part {
            Part::Flows { pattern, .. } => out.push(pattern),
            Part::All(parts) | Part::Any(parts) => parts.iter().for_each(|p| walk(p, out)),
            _ => {}
        }
    }
    goals.for_each(|c| walk(c, &mut patterns));
    for p in patterns {
        match goal::selected(&sim, p) {
            0 => f.fail(format!("flows \"{p}\": selects no flow of this host (a typo?)")),
            n => f.ok(format!("flows \"{p}\": selects {n} flows")),
        }
    }
}

/// The guided steps, followed each after the other as their text says, meet the goal.
fn solution_meets(scenario: &Scenario, f: &mut Findings) {
    let steps: Vec<Vec<String>> = scenario
        .lesson
        .steps
        .iter()
        .filter(|s| !s.commands.is_empty())
        .map(|s| s.commands.clone())
        .collect();
    let run = play(scenario, false, &steps);
    report_play(f, "guided: its steps, followed in order", &run, true);
    for (i, (q, a)) in scenario.lesson.predict.iter().zip(&run.answers).enumerate() {
        let name = |k: Option<usize>| {
            k.and_then(|k| q.choices.get(k))
                .map_or("none of the choices".to_string(), |c| format!("{:?}", c.text))
        };
        match (a, q.answer) {
            (None, _) => f.fail(format!(
                "lesson.predict[{i}]: its step's commands never ran: the engine cannot answer it"
            )),
            (Some(got), Some(want)) if *got != Some(want) => f.fail(format!(
                "lesson.predict[{i}]: the engine answers {} where the lesson teaches {}",
                name(*got),
                name(Some(want))
            )),
            (Some(None), None) => f.fail(format!("lesson.predict[{i}]: no choice describes what the engine did")),
            (Some(got), _) => f.ok(format!("lesson.predict[{i}]: the engine answers {}", name(*got))),
        }
    }
}

/// Reports a play: `want_met` says whether the goal should have been met.
fn report_play(f: &mut Findings, name: &str, p: &Played, want_met: bool) {
    if let Some(e) = &p.error {
        f.fail(format!("{name}: {e}"));
        return;
    }
    match (p.met, want_met) {
        (Some((k, t)), true) => {
            f.ok(format!(
                "{name}: goal met at {:.1} s (after group {})",
                t as f64 / 1e9,
                k + 1
            ));
            for (label, b, n) in &p.evidence {
                f.note(format!("evidence {label}: {} -> {}", figure(*b), figure(*n)));
            }
        }
        (None, false) => {
            f.ok(format!("{name}: goal not met"));
            parts(f, p);
        }
        (None, true) => {
            f.fail(format!("{name}: the goal was never met"));
            parts(f, p);
        }
        (Some((_, t)), false) => f.fail(format!(
            "{name}: meets the goal at {:.1} s: a shortcut the goal lets through",
            t as f64 / 1e9
        )),
    }
}

/// Each part of the goal at the end of a play.
fn parts(f: &mut Findings, p: &Played) {
    for (c, v) in p.checks.iter().zip(&p.last.parts) {
        let mark = match v {
            Some(true) => "holds",
            Some(false) => "fails",
            None => "not judged yet",
        };
        f.note(format!("{mark}: {}", c.describe()));
        if *v == Some(false) && !c.fails.is_empty() {
            f.note(format!("  the learner reads: {}", c.fails));
        }
    }
}

fn figure(x: Option<f64>) -> String {
    x.map_or("—".into(), |x| format!("{x:.2}"))
}

/// `steerlab lesson links`: for each student (one name a line), the link to their own variant
/// (`{base}?{target}&student=NAME`), checked first with `check`: its solution meets the goal
/// and no not-solution does, as `lesson check` plays them. Returns the text and the failures.
pub(crate) fn links(
    scenario: &Scenario,
    load: impl Fn(u64) -> Result<Scenario, String>,
    base: &str,
    target: &str,
    names: &str,
    check: bool,
) -> (String, usize) {
    let (mut out, mut failed) = (String::new(), 0);
    let sep = if base.contains('?') { '&' } else { '?' };
    for name in names
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let seed = steerlab_scenario::student_seed(scenario.sim.seed, name);
        if check {
            // The file loaded again with the student's seed: the seed picks the lesson's
            // variant (`lesson.variants`) as the page's `?student=` does.
            let variant = match load(seed) {
                Ok(v) => v,
                Err(e) => {
                    failed += 1;
                    out.push_str(&format!("# {name}: seed {seed}: does not load: {e}\n"));
                    continue;
                }
            };
            let which = variant
                .variant()
                .map(|k| format!(", variant {k} ({})", variant.lesson.variants[k].name))
                .unwrap_or_default();
            let f = self::check(name, &variant);
            if f.failed > 0 {
                failed += 1;
                out.push_str(&format!(
                    "# {name}: seed {seed}{which}: {} checks FAILED\n{}",
                    f.failed, f.out
                ));
                continue;
            }
            out.push_str(&format!(
                "# {name}: seed {seed}{which}: gradable (its solution meets the goal, no wrong way does)\n"
            ));
        }
        out.push_str(&format!("{base}{sep}{target}&student={}\n", url_encode(name)));
    }
    (out, failed)
}

/// Percent-encodes a URL query value (RFC 3986 unreserved characters kept).
pub(crate) fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' | b':' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
