//! The lesson panel: pick a lesson, read its goal, follow its steps, see when the goal is met
//! and which kernel files explain it.

use yew::prelude::*;

use crate::controller::LessonView;

/// Properties of [`LessonPanel`].
#[derive(Properties, PartialEq)]
pub struct LessonProps {
    /// The lesson.
    pub lesson: LessonView,
    /// Another lesson id.
    pub on_select: Callback<String>,
    /// Next step.
    pub on_next: Callback<()>,
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
    html! {
        <section class="panel lesson" aria-labelledby="lesson-title">
            <label>{ "Lesson " }
                <select data-testid="lesson-select" onchange={select} aria-label="lesson">
                    { for l.lesson_ids.iter().map(|id| html! {
                        <option value={id.clone()} selected={*id == l.id}>{ id }</option>
                    }) }
                </select>
            </label>
            <h2 id="lesson-title">{ &l.title }</h2>
            <p class="goal"><strong>{ "Goal: " }</strong>{ &l.goal }</p>
            if l.goal_met == Some(true) {
                <p class="goal-met" data-testid="lesson-goal-met" role="status">{ "✔ Goal met" }</p>
            }
            <ol class="steps">
                { for l.steps.iter().enumerate().map(|(i, s)| html! {
                    <li class={classes!((i == l.step).then_some("current"))} aria-current={(i == l.step).then_some("step")}>{ s }</li>
                }) }
            </ol>
            <button data-testid="lesson-next" onclick={next}>{ "Next step" }</button>
            <details>
                <summary>{ "What happened in the kernel" }</summary>
                <ul>{ for l.kernel_files.iter().map(|f| html! { <li><code>{ f }</code></li> }) }</ul>
                <p class="source">{ &l.source }</p>
            </details>
        </section>
    }
}
