//! The lesson panel: pick a lesson, read its goal, follow its steps (each with the exact
//! commands to type, and what the kernel did), see when the goal is met or undone, and the
//! lesson's evidence strip: its key figures before the last change and now.

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::icon::{icon, Icon};
use crate::controller::{EvidenceView, LessonView, Trend};
use steerlab_scenario::Better;

/// Properties of [`LessonPanel`].
#[derive(Properties, PartialEq)]
pub struct LessonProps {
    /// The lesson.
    pub lesson: LessonView,
    /// Another lesson id.
    pub on_select: Callback<String>,
    /// Next step.
    pub on_next: Callback<()>,
    /// Run a step's command as if typed in the console.
    pub on_run: Callback<String>,
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
            <p class="goal"><strong>{ "Goal: " }</strong>{ rich(&l.goal) }</p>
            { goal_state(l) }
            <ol class="steps" ref={list}>
                { for l.steps.iter().enumerate().map(|(i, s)| {
                    let current = i == l.step;
                    html! {
                        <li class={classes!(current.then_some("current"), s.done.then_some("done"))} aria-current={current.then_some("step")}>
                            <p class="step-text">{ rich(&s.text) }</p>
                            if current {
                                { for s.commands.iter().map(|c| html! {
                                    <div class="step-command">
                                        <code data-testid="step-command">{ c }</code>
                                        <button class="small" data-testid="step-run" onclick={p.on_run.reform({ let c = c.clone(); move |_: MouseEvent| c.clone() })}
                                            aria-label={format!("run {c} in the console")}>{ "run" }</button>
                                    </div>
                                }) }
                                if !s.kernel.is_empty() {
                                    <details class="kernel" data-testid="step-kernel">
                                        <summary>{ "What happened in the kernel" }</summary>
                                        <p>{ rich(&s.kernel) }</p>
                                    </details>
                                }
                            }
                        </li>
                    }
                }) }
            </ol>
            <div class="lesson-foot">
                <button data-testid="lesson-next" onclick={next}>{ icon(Icon::Next) }{ "Next step" }</button>
                <details>
                    <summary>{ "Source and kernel files" }</summary>
                    <p class="source" data-testid="lesson-source">{ rich(&l.source) }</p>
                    <ul>{ for l.kernel_files.iter().map(|f| html! { <li><code>{ f }</code></li> }) }</ul>
                </details>
            </div>
        </section>
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
                { "The goal was met; your last change (" }<code>{ cmd }</code>{ ") undid it." }
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
        <section class="evidence" data-testid="lesson-evidence" aria-label="the lesson's key figures: before your last change, and now">
            { for p.figures.iter().map(|f| {
                let (arrow, verdict) = verdict(f);
                let want = match f.better { Better::Down => "lower is better", Better::Up => "higher is better", Better::Watch => "a figure to watch" };
                html! {
                    <div class={classes!("figure", verdict)} title={format!("{}: {want}", f.label)}>
                        <span class="label">{ &f.label }</span>
                        <span class="values">
                            <span class="before" aria-label="before your last change">{ &f.before }</span>
                            <span class="arrow" aria-hidden="true">{ arrow }</span>
                            <strong class="now" aria-label="now">{ &f.now }</strong>
                        </span>
                        <span class="want">{ want }</span>
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
