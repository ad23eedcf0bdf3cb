//! The add-flow form.

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::controller::FlowForm;

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
    let onsubmit = {
        let (refs, proto, cb) = (refs.clone(), proto.clone(), props.on_submit.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let value = |r: &NodeRef| r.cast::<HtmlInputElement>().map(|i| i.value()).unwrap_or_default();
            cb.emit(FlowForm {
                src: value(&refs[0]),
                dst: value(&refs[1]),
                sport: value(&refs[2]),
                dport: value(&refs[3]),
                proto: proto.cast::<HtmlSelectElement>().map(|s| s.value()).unwrap_or_default(),
            });
        })
    };
    let field = |id: &str, label: &str, value: &str, r: &NodeRef| {
        // yew-macro reads `defaultvalue` only when rendering in a browser.
        let _ = value;
        html! {
            <label>{ label }
                <input data-testid={id.to_string()} name={id.to_string()} defaultvalue={value.to_string()} ref={r.clone()} />
            </label>
        }
    };
    html! {
        <form class="add-flow" data-testid="add-flow" {onsubmit} aria-label="add a flow">
            { field("flow-src", "source", "10.0.0.1", &refs[0]) }
            { field("flow-dst", "destination", "10.0.0.2", &refs[1]) }
            { field("flow-sport", "source port", "40000", &refs[2]) }
            { field("flow-dport", "destination port", "80", &refs[3]) }
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
