//! The console: the commands of a real host, with history (up/down), completion (Tab) and
//! scrolling output. Every control of the page also appears here as its command.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use std::rc::Rc;

use crate::protocol::ConsoleView;

/// Properties of [`Console`].
#[derive(Properties, PartialEq)]
pub struct ConsoleProps {
    /// Entries so far, and the commands typed (for recall).
    pub view: Rc<ConsoleView>,
    /// A command line to run.
    pub on_command: Callback<String>,
    /// Prefix of the `data-testid`s (`PREFIX-input`, `PREFIX-output`): one console per host
    /// in the compare view.
    #[prop_or(AttrValue::Static("console"))]
    pub testid: AttrValue,
    /// Heading.
    #[prop_or(AttrValue::Static("Console"))]
    pub title: AttrValue,
}

/// The console panel.
#[component]
pub fn Console(p: &ConsoleProps) -> Html {
    let input = use_node_ref();
    let recall = use_state(|| None::<usize>);
    let output = use_node_ref();
    {
        let output = output.clone();
        // A new console is a new `Rc` (it comes only when it changed).
        use_effect_with(Rc::as_ptr(&p.view) as usize, move |_| {
            if let Some(el) = output.cast::<web_sys::Element>() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    }
    let onkeydown = {
        let (input, recall, typed, cb) = (
            input.clone(),
            recall.clone(),
            p.view.typed.clone(),
            p.on_command.clone(),
        );
        Callback::from(move |e: KeyboardEvent| {
            let Some(el) = input.cast::<HtmlInputElement>() else {
                return;
            };
            match e.key().as_str() {
                "Enter" => {
                    let line = el.value();
                    el.set_value("");
                    recall.set(None);
                    cb.emit(line);
                }
                "ArrowUp" | "ArrowDown" if !typed.is_empty() => {
                    e.prevent_default();
                    let n = typed.len();
                    let i = match (*recall, e.key().as_str()) {
                        (None, "ArrowUp") => Some(n - 1),
                        (Some(i), "ArrowUp") => Some(i.saturating_sub(1)),
                        (Some(i), _) if i + 1 < n => Some(i + 1),
                        _ => None,
                    };
                    el.set_value(i.map_or("", |i| typed[i].as_str()));
                    recall.set(i);
                }
                // Tab completes only when that adds to a typed line; otherwise (an empty line,
                // nothing to add, Shift+Tab) it moves focus on as everywhere else on the page.
                "Tab" if !e.shift_key() && !el.value().trim().is_empty() => {
                    let line = el.value();
                    let options = crate::protocol::complete(&line);
                    let completed = match options.as_slice() {
                        [only] => Some(only.clone()),
                        _ => common_prefix(&options),
                    };
                    if let Some(c) = completed.filter(|c| c.len() > line.len()) {
                        e.prevent_default();
                        el.set_value(&c);
                    }
                }
                _ => {}
            }
        })
    };
    html! {
        <section class="panel console" id={format!("{}-panel", p.testid)} aria-label={p.title.clone()}>
            <h2>{ p.title.clone() }</h2>
            <pre class="console-output" data-testid={format!("{}-output", p.testid)} ref={output} tabindex="0" aria-live="polite">
                { for p.view.lines.iter().map(|l| html! {
                    <span class={classes!("entry", l.undone.then_some("undone"))}
                        title={l.undone.then_some("undone: time went back to before this command")}>
                        <span class="prompt">{ format!("# {}\n", l.command) }</span>
                        { match &l.output {
                            Ok(out) if out.is_empty() => html! {},
                            Ok(out) => html! { <span>{ format!("{}\n", out.trim_end()) }</span> },
                            Err(e) => html! { <span class="err">{ format!("{}\n", e.trim_end()) }</span> },
                        } }
                        if let Some(n) = &l.note {
                            <span class="note">{ format!("steerlab: {n}\n") }</span>
                        }
                        if l.undone {
                            <span class="note">{ "steerlab: undone (time went back to before it)\n" }</span>
                        }
                    </span>
                }) }
            </pre>
            <label class="console-line"><span aria-hidden="true">{ "# " }</span>
                <input data-testid={format!("{}-input", p.testid)} ref={input} {onkeydown} spellcheck="false" autocomplete="off"
                    aria-label="command line (Enter runs, Up/Down recall, Tab completes a typed word)" placeholder="help" />
            </label>
        </section>
    }
}

fn common_prefix(options: &[String]) -> Option<String> {
    let first = options.first()?;
    let mut len = first.len();
    for o in &options[1..] {
        len = len.min(first.bytes().zip(o.bytes()).take_while(|(a, b)| a == b).count());
    }
    (len > 0).then(|| first[..len].to_string())
}
