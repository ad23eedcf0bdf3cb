//! The lesson panel: pick a lesson, read its goal, follow its steps (each with the exact
//! commands to type, and what the kernel did), see when the goal is met or undone, and the
//! lesson's evidence strip: its key figures before the last change and now.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::count;
use crate::components::icon::{icon, Icon};
use crate::protocol::Better;
use crate::protocol::{ChallengeView, CompleteView, EvidenceView, GoalPart, LessonView, PredictView, Trend};

/// Properties of [`LessonPanel`].
#[derive(Properties, PartialEq)]
pub struct LessonProps {
    /// The lesson.
    pub lesson: Rc<LessonView>,
    /// Another lesson id.
    pub on_select: Callback<String>,
    /// Next step.
    pub on_next: Callback<()>,
    /// Run a step's command as if typed in the console.
    pub on_run: Callback<String>,
    /// The learner's answer to the lesson's question.
    pub on_predict: Callback<usize>,
    /// One more hint of the challenge.
    pub on_hint: Callback<()>,
    /// Open another lesson (the ending's "next lesson").
    pub on_open: Callback<String>,
    /// The challenge form on or off.
    pub on_challenge: Callback<bool>,
}

/// The lesson panel.
#[component]
pub fn LessonPanel(p: &LessonProps) -> Html {
    let l = &p.lesson;
    let select = p.on_select.reform(|e: Event| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        el.value()
    });
    let next = p.on_next.reform(|_: MouseEvent| ());
    // The current step is scrolled into view within the steps list when it changes (the page
    // itself scrolls only to the step's target, on "Next step").
    let list = use_node_ref();
    {
        let list = list.clone();
        use_effect_with(l.step, move |_| {
            if let Some(li) = list
                .cast::<web_sys::Element>()
                .and_then(|ol| ol.query_selector("li.current").ok().flatten())
            {
                if let (Some(ol), Some(li)) = (
                    list.cast::<web_sys::HtmlElement>(),
                    li.dyn_into::<web_sys::HtmlElement>().ok(),
                ) {
                    ol.set_scroll_top(li.offset_top() - ol.offset_top() - 8);
                }
            }
        });
    }
    // A host without steps (a captured one, an upload) has no end to reach.
    let at_end = !l.steps.is_empty() && l.step >= l.steps.len();
    let asked = l
        .predict
        .as_ref()
        .filter(|q| q.chosen.is_none() && !q.measuring && q.engine.is_none());
    // The current step is done (its commands ran) or has none: "Next step" is what to do.
    let current_done = l.steps.get(l.step).is_some_and(|s| s.done || s.commands.is_empty());
    // Focus goes to the next thing to do after a click on "run" (Next step, once the step
    // is done) or on an answer (the step's first "run"); typing in the console keeps it there.
    let focus = use_state(|| Focus::None);
    let next_ref = use_node_ref();
    let run_ref = use_node_ref();
    let question_ref = use_node_ref();
    {
        let (focus, next_ref, run_ref) = (focus.clone(), next_ref.clone(), run_ref.clone());
        let ready = (*focus, current_done, asked.is_none());
        use_effect_with(ready, move |&(want, done, answered)| {
            let target = match want {
                Focus::Next if done => next_ref.cast::<web_sys::HtmlElement>(),
                Focus::Run if answered => run_ref.cast::<web_sys::HtmlElement>(),
                _ => None,
            };
            if let Some(el) = target {
                let _ = el.focus();
                focus.set(Focus::None);
            }
        });
    }
    // A question that opens is scrolled into view (at 800 px the lesson column is long).
    {
        let question_ref = question_ref.clone();
        let open = asked.map(|q| q.question.clone());
        use_effect_with(open, move |open| {
            if open.is_some() {
                if let Some(el) = question_ref.cast::<web_sys::Element>() {
                    let opts = web_sys::ScrollIntoViewOptions::new();
                    opts.set_block(web_sys::ScrollLogicalPosition::Nearest);
                    el.scroll_into_view_with_scroll_into_view_options(&opts);
                }
            }
        });
    }
    let on_run = {
        let (on_run, focus) = (p.on_run.clone(), focus.clone());
        Callback::from(move |c: String| {
            focus.set(Focus::Next);
            on_run.emit(c);
        })
    };
    let on_predict = {
        let (on_predict, focus) = (p.on_predict.clone(), focus.clone());
        Callback::from(move |i: usize| {
            focus.set(Focus::Run);
            on_predict.emit(i);
        })
    };
    html! {
        <section class="panel lesson" aria-labelledby="lesson-title">
            <div class="lesson-head">
                <h2 id="lesson-title">{ &l.title }</h2>
                <label class="lesson-pick">{ "Lesson " }
                    <select data-testid="lesson-select" onchange={select} aria-label="lesson">
                        { for l.lesson_ids.iter().map(|id| html! {
                            <option value={id.clone()} selected={*id == l.id}>{ id }</option>
                        }) }
                    </select>
                </label>
            </div>
            if let Some(c) = &l.challenge {
                { challenge(c, &p.on_hint, &p.on_challenge) }
            } else if !l.goal.is_empty() {
                <p class="goal"><strong>{ "Goal: " }</strong>{ rich(&l.goal) }</p>
            }
            if let Some((name, seed)) = &l.student {
                <p class="muted small" data-testid="lesson-student">{ format!("Your own variant, {name} (seed {seed}).") }</p>
            }
            { goal_parts(&l.goal_parts) }
            { goal_state(l) }
            if let Some(why) = &l.wrong_way {
                <p class="wrong-way" data-testid="lesson-wrong-way" role="status">
                    <strong>{ "Not the lesson's way: " }</strong>{ rich(why) }
                </p>
            }
            if let Some(done) = &l.complete {
                { complete(done, &p.on_open) }
            }
            if l.challenge.is_none() {
                <ol class="steps" ref={list}>
                    { for l.steps.iter().enumerate().map(|(i, s)| step(StepCtx { l, asked, on_run: &on_run, on_predict: &on_predict, run_ref: &run_ref, question_ref: &question_ref }, i, s)) }
                </ol>
                if let Some(q) = l.predict.as_ref().filter(|q| q.chosen.is_some() || q.measuring || q.engine.is_some()) {
                    { result(q) }
                }
                if at_end && l.complete.is_none() {
                    <p class="lesson-end" data-testid="lesson-end" role="status">
                        { "That was the last step, and the goal is not met yet: go back to the step that changes the host, or try the challenge form." }
                    </p>
                }
            }
            <div class="lesson-foot">
                if l.challenge.is_none() && !l.steps.is_empty() {
                    <button data-testid="lesson-next" ref={next_ref} class={classes!(current_done.then_some("primary"))} onclick={next} disabled={at_end}>
                        { icon(Icon::Next) }{ if l.step + 1 >= l.steps.len() { "Finish" } else { "Next step" } }
                    </button>
                }
                if l.has_challenge {
                    <button data-testid="lesson-mode" onclick={p.on_challenge.reform({ let on = l.challenge.is_none(); move |_: MouseEvent| on })}>
                        { if l.challenge.is_some() { "Guided steps" } else { "Challenge form" } }
                    </button>
                }
                { sources(l) }
            </div>
        </section>
    }
}

/// The lesson's sources: the discussion it comes from, the kernel files, and what the fidelity
/// report says of the rules it rests on (built-in lessons only).
fn sources(l: &LessonView) -> Html {
    html! {
        <details>
            <summary>{ "Source, kernel files and fidelity" }</summary>
            <p class="source" data-testid="lesson-source">{ rich(&l.source) }</p>
            <ul>{ for l.kernel_files.iter().map(|f| html! { <li><code>{ f }</code></li> }) }</ul>
            if let Some([matched, simplified, departs]) = l.fidelity {
                <p data-testid="lesson-fidelity">
                    { format!("This lesson rests on {} that match Linux 6.18, {} and {}: ",
                        count(u64::from(matched), "rule"),
                        count(u64::from(simplified), "stated simplification"),
                        count(u64::from(departs), "departure")) }
                    <a href={format!("fidelity.html#lesson-{}", l.id)} target="_blank" rel="noopener">{ "the fidelity report" }</a>
                </p>
            }
        </details>
    }
}

/// What [`step`] draws a step with.
struct StepCtx<'a> {
    l: &'a LessonView,
    asked: Option<&'a PredictView>,
    on_run: &'a Callback<String>,
    on_predict: &'a Callback<usize>,
    run_ref: &'a NodeRef,
    question_ref: &'a NodeRef,
}

/// One step of the list: its text, its outcome once its commands ran, and, while it is
/// current, its question or its commands and what the kernel did.
fn step(cx: StepCtx<'_>, i: usize, s: &crate::protocol::StepView) -> Html {
    let current = i == cx.l.step;
    html! {
        <li class={classes!(current.then_some("current"), s.done.then_some("done"))} aria-current={current.then_some("step")}>
            <p class="step-text">{ rich(&s.text) }</p>
            if !s.outcome.is_empty() {
                <p class="step-outcome" data-testid="step-outcome">{ rich(&s.outcome) }</p>
            }
            if current {
                if let Some(q) = cx.asked {
                    { question(q, cx.l.held.as_deref(), cx.on_predict, cx.question_ref) }
                } else {
                    { for s.commands.iter().enumerate().map(|(k, c)| html! {
                        <div class="step-command">
                            <code data-testid="step-command">{ c }</code>
                            <button class="small" data-testid="step-run" ref={if k == 0 { cx.run_ref.clone() } else { NodeRef::default() }}
                                onclick={cx.on_run.reform({ let c = c.clone(); move |_: MouseEvent| c.clone() })}
                                aria-label={format!("run {c} in the console")}>{ "run" }</button>
                        </div>
                    }) }
                }
                if !s.kernel.is_empty() {
                    <details class="kernel" data-testid="step-kernel">
                        <summary>{ "What happened in the kernel" }</summary>
                        <p>{ rich(&s.kernel) }</p>
                    </details>
                }
            }
        </li>
    }
}

/// Where focus goes once the page has drawn the change a click asked for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Focus {
    None,
    /// "Next step", once the current step is done.
    Next,
    /// The current step's first "run", once its question is answered.
    Run,
}

/// The question asked before the step's commands: the commands appear once it is answered
/// (a command typed before waits for the answer: `held`).
fn question(q: &PredictView, held: Option<&str>, on: &Callback<usize>, node: &NodeRef) -> Html {
    html! {
        <fieldset class="predict" data-testid="lesson-predict" ref={node.clone()}>
            <legend>{ "Predict first: " }{ rich(&q.question) }</legend>
            if let Some(line) = held {
                <p class="held" data-testid="lesson-held" role="status"><code>{ line }</code>{ " waits for your answer: it runs once you choose." }</p>
            }
            <div class="choices">
                { for q.choices.iter().enumerate().map(|(i, c)| html! {
                    <button data-testid="lesson-predict-choice" onclick={on.reform(move |_: MouseEvent| i)}>{ rich(c) }</button>
                }) }
            </div>
            <p class="muted small">{ "Your answer shows the step's commands; the engine then says what the kernel did." }</p>
        </fieldset>
    }
}

/// The learner's answer and, once measured, the engine's: which was right, and why.
fn result(q: &PredictView) -> Html {
    let yours = q.chosen.and_then(|i| q.choices.get(i));
    let engine = q.engine.flatten();
    let verdict = match (q.chosen, q.engine) {
        (_, None) => "measuring",
        (None, Some(_)) => "skipped",
        (Some(c), Some(Some(e))) if c == e => "right",
        _ => "wrong",
    };
    html! {
        <div class={classes!("predict-result", verdict)} data-testid="lesson-predict-result" data-verdict={verdict} role="status">
            <p><strong>{ "Your prediction: " }</strong>{ yours.map_or_else(|| html! { "none (the commands ran first)" }, |y| rich(y)) }</p>
            if q.engine.is_none() && q.paused && q.measuring {
                <p class="notice" data-testid="lesson-predict-paused">{ "Time is paused: press Play, and the engine answers after a second for the change to settle and a second measured." }</p>
            } else if q.engine.is_none() {
                <p class="muted">{ "The engine is answering: a second for the change to settle, then a second measured…" }</p>
            } else {
                <p><strong>{ match verdict { "right" => "✔ Right. ", "wrong" => "✘ Not this time. ", _ => "" } }{ "The kernel did: " }</strong>
                    { engine.and_then(|e| q.choices.get(e)).map_or_else(|| html! { "none of the answers (see the strip)" }, |t| rich(t)) }</p>
                if let Some(w) = engine.and_then(|e| q.why.get(e)) {
                    <p>{ rich(w) }</p>
                }
                if let (Some(c), true) = (q.chosen, verdict == "wrong") {
                    if let Some(w) = q.why.get(c) { <p class="muted">{ "Your answer: " }{ rich(w) }</p> }
                }
                <p class="explain">{ rich(&q.explain) }</p>
            }
        </div>
    }
}

/// The challenge form: the goal without the steps, and hints on request.
fn challenge(c: &ChallengeView, on_hint: &Callback<()>, on_mode: &Callback<bool>) -> Html {
    let more = c.hints.len() < c.hints_total;
    html! {
        <div class="challenge" data-testid="lesson-challenge">
            <p class="goal"><strong>{ "Challenge: " }</strong>{ rich(&c.goal) }</p>
            <p class="muted small">{ rich("No steps: use the console (`help` lists the commands) and the panels. Hints when you want them.") }</p>
            <ol class="hints">{ for c.hints.iter().map(|h| html! { <li>{ rich(h) }</li> }) }</ol>
            <button data-testid="lesson-hint" onclick={on_hint.reform(|_: MouseEvent| ())} disabled={!more}>
                { if more { format!("Hint ({} of {})", c.hints.len() + 1, c.hints_total) } else { "No more hints".into() } }
            </button>
            { " " }
            <button class="linklike" onclick={on_mode.reform(|_: MouseEvent| false)}>{ "Show the guided steps" }</button>
        </div>
    }
}

/// The lesson's ending: what was learned, and the next lesson.
fn complete(done: &CompleteView, on_open: &Callback<String>) -> Html {
    html! {
        <div class="lesson-complete" data-testid="lesson-complete" role="status">
            <p><strong>{ "Lesson complete." }</strong></p>
            { for done.learned.lines().map(|l| html! { <p>{ rich(l) }</p> }) }
            { score(&done.score) }
            if let Some((id, title)) = &done.next {
                <button data-testid="lesson-complete-next" onclick={on_open.reform({ let id = id.clone(); move |_: MouseEvent| id.clone() })}>
                    { icon(Icon::Next) }{ format!("Next lesson: {title}") }
                </button>
            } else {
                <p class="muted">{ "That was the last lesson: open any of them again from the lesson list, or try their challenge forms." }</p>
            }
        </div>
    }
}

/// The learner's own score, in words and out of 100 (the rule the README gives).
fn score(s: &crate::protocol::Score) -> Html {
    let mut parts = Vec::new();
    if s.questions > 0 {
        parts.push(match (s.predicted, s.right) {
            (0, _) => "no prediction made".to_string(),
            (p, r) if r == p && p == s.questions => "prediction right".to_string(),
            (p, r) => format!("{r} of {p} predictions right"),
        });
    }
    if s.challenge {
        parts.push(format!(
            "challenge form, {} hint{}",
            s.hints,
            if s.hints == 1 { "" } else { "s" }
        ));
    }
    parts.push(match s.shortcuts {
        0 => "no wrong way tried".to_string(),
        1 => "1 wrong way tried".to_string(),
        n => format!("{n} wrong ways tried"),
    });
    parts.push(format!("goal met at {:.1} simulated s", s.sim_ms as f64 / 1000.0));
    html! {
        <p class="score" data-testid="lesson-score"><strong>{ format!("Your score: {}/100", s.points()) }</strong>{ format!(" ({})", parts.join(", ")) }</p>
    }
}

/// The goal's parts, each held or not: where the learner stands against the goal, folded to
/// one line ("2 of 3 parts hold") so that the first screen keeps the console.
fn goal_parts(parts: &[GoalPart]) -> Html {
    if parts.len() < 2 {
        return html! {};
    }
    let holding = parts.iter().filter(|p| p.holds == Some(true)).count();
    html! {
        <details class="goal-parts" data-testid="goal-parts">
            <summary>{ format!("Where you stand: {holding} of {} parts of the goal hold", parts.len()) }</summary>
            <ul aria-label="the goal's parts">
                { for parts.iter().map(|p| {
                    let (mark, class, said) = match (p.holds, &p.unread) {
                        (_, Some(command)) => ("?", "judging", format!("read it: {command}")),
                        (Some(true), None) => ("✔", "holds", "holds".into()),
                        (Some(false), None) => ("✘", "fails", "not yet".into()),
                        (None, None) => ("…", "judging", "being measured".into()),
                    };
                    // An unread part says how to read it to everyone; the others' state is seen.
                    let (shown, sr) = if p.unread.is_some() { (format!(" ({said})"), String::new()) } else { (String::new(), format!(" ({said})")) };
                    html! { <li class={class}><span aria-hidden="true">{ mark }</span>{ " " }{ rich(&p.label) }{ shown }<span class="sr-only">{ sr }</span></li> }
                }) }
            </ul>
        </details>
    }
}

/// A lesson text as the page shows it: `backquoted` spans as code, `https://` words as links.
fn rich(text: &str) -> Html {
    let part = |(i, t): (usize, &str)| -> Html {
        if i % 2 == 1 {
            return html! { <code>{ t.to_string() }</code> };
        }
        let mut out = Vec::new();
        let mut rest = t;
        while let Some(at) = rest.find("https://") {
            out.push(html! { { rest[..at].to_string() } });
            let end = rest[at..].find(char::is_whitespace).map_or(rest.len(), |e| at + e);
            let url = rest[at..end].trim_end_matches(['.', ',', ')']);
            out.push(html! { <a href={url.to_string()} target="_blank" rel="noopener">{ url.to_string() }</a> });
            rest = &rest[at + url.len()..];
        }
        out.push(html! { { rest.to_string() } });
        out.into_iter().collect()
    };
    text.split('`').enumerate().map(part).collect()
}

/// "Goal met", or the change that undid a goal met earlier.
fn goal_state(l: &LessonView) -> Html {
    match (&l.goal_met, &l.goal_undone_by) {
        (Some(true), _) => {
            html! { <p class="goal-met" data-testid="lesson-goal-met" role="status">{ "✔ Goal met" }</p> }
        }
        (_, Some(cmd)) => html! {
            <p class="goal-lost" data-testid="lesson-goal-lost" role="status">
                { "The goal was met (the lesson stays complete); " }<code>{ cmd }</code>{ " undid it." }
            </p>
        },
        _ => html! {},
    }
}

/// Properties of [`EvidenceStrip`].
#[derive(Properties, PartialEq)]
pub struct EvidenceProps {
    /// The lesson's figures.
    pub figures: Vec<EvidenceView>,
}

/// The lesson's key figures, before the learner's last change → now, coloured by whether
/// they moved the way that means success.
#[component]
pub fn EvidenceStrip(p: &EvidenceProps) -> Html {
    html! {
        <section class="evidence" data-testid="lesson-evidence" aria-label="the lesson's key figures: over the second before your first change, and over the last second">
            { for p.figures.iter().map(|f| {
                let (arrow, verdict) = verdict(f);
                let want = match f.better { Better::Down => "lower is better", Better::Up => "higher is better", Better::Watch => "a figure to watch" };
                let want = f.hidden.as_ref().map_or_else(|| want.to_string(), |command| format!("run {command} to read it"));
                html! {
                    <div class={classes!("figure", verdict)} title={format!("{}: {want}", f.label)}>
                        <span class="label">{ &f.label }</span>
                        <span class="values">
                            if f.before != "—" && f.trend != Trend::Same {
                                <span class="before" aria-label="before your first change">{ &f.before }</span>
                                <span class="arrow" aria-hidden="true">{ arrow }</span>
                            }
                            <strong class="now" aria-label="now">{ &f.now }</strong>
                            if !f.change.is_empty() {
                                <span class="change" data-testid="evidence-change" aria-label="change">{ &f.change }</span>
                            }
                        </span>
                        <span class="want">{ want.clone() }</span>
                    </div>
                }
            }) }
        </section>
    }
}

/// The arrow and the class of a figure's move: `good`, `bad` or none.
fn verdict(f: &EvidenceView) -> (&'static str, Option<&'static str>) {
    match (f.trend, f.better) {
        (Trend::Unknown, _) => ("→", None),
        (Trend::Same, _) => ("=", None),
        (Trend::Down, Better::Down) => ("↓", Some("good")),
        (Trend::Up, Better::Up) => ("↑", Some("good")),
        (Trend::Down, Better::Up) => ("↓", Some("bad")),
        (Trend::Up, Better::Down) => ("↑", Some("bad")),
        (Trend::Down, Better::Watch) => ("↓", None),
        (Trend::Up, Better::Watch) => ("↑", None),
    }
}
