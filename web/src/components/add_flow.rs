//! The add-flow form.

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::protocol::FlowForm;

/// Properties of [`AddFlow`].
#[derive(Properties, PartialEq)]
pub struct AddFlowProps {
    /// Called with the typed fields on submit.
    pub on_submit: Callback<FlowForm>,
}

/// Source, destination, ports and protocol of a new flow.
#[component]
pub fn AddFlow(props: &AddFlowProps) -> Html {
    let refs: [NodeRef; 4] = Default::default();
    let proto = use_node_ref();
    // Each field's error from the last submit, by the field's data-testid: shown beside it.
    let errors = use_state(Vec::<(&'static str, String)>::new);
    let onsubmit = {
        let (refs, proto, cb, errors) = (refs.clone(), proto.clone(), props.on_submit.clone(), errors.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let value = |r: &NodeRef| r.cast::<HtmlInputElement>().map(|i| i.value()).unwrap_or_default();
            let form = FlowForm {
                src: value(&refs[0]),
                dst: value(&refs[1]),
                sport: value(&refs[2]),
                dport: value(&refs[3]),
                proto: proto.cast::<HtmlSelectElement>().map(|s| s.value()).unwrap_or_default(),
            };
            let bad = form.field_errors();
            if bad.is_empty() {
                cb.emit(form);
            }
            errors.set(bad);
        })
    };
    // The example flow the fields start with, set once: the inputs are the learner's after.
    {
        let refs = refs.clone();
        use_effect_with((), move |_| {
            for (r, v) in refs.iter().zip(["10.0.0.1", "10.0.0.2", "40000", "80"]) {
                if let Some(i) = r.cast::<HtmlInputElement>() {
                    i.set_value(v);
                }
            }
        });
    }
    let field = |id: &'static str, label: &str, r: &NodeRef| {
        let error = errors.iter().find(|(f, _)| *f == id).map(|(_, e)| e.clone());
        html! {
            <label>{ label }
                <input data-testid={id} name={id} ref={r.clone()}
                    aria-invalid={error.is_some().then_some("true")} aria-describedby={error.is_some().then(|| format!("{id}-error"))} />
                if let Some(e) = error {
                    <span class="field-error" id={format!("{id}-error")} data-testid={format!("{id}-error")}>{ e }</span>
                }
            </label>
        }
    };
    html! {
        <form class="add-flow" data-testid="add-flow" {onsubmit} aria-label="add a flow">
            { field("flow-src", "source", &refs[0]) }
            { field("flow-dst", "destination", &refs[1]) }
            { field("flow-sport", "source port", &refs[2]) }
            { field("flow-dport", "destination port", &refs[3]) }
            <label>{ "protocol" }
                <select data-testid="flow-proto" name="flow-proto" ref={proto}>
                    <option value="tcp" selected=true>{ "tcp" }</option>
                    <option value="udp">{ "udp" }</option>
                </select>
            </label>
            <button type="submit" data-testid="flow-submit">{ "Add flow" }</button>
        </form>
    }
}
