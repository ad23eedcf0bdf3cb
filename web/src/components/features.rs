//! Feature switches: each applies, and shows in the console, the command a user would type on
//! a real host (aRFS needs `ntuple`, RFS needs the socket flow table, RPS a CPU mask per queue).
//! Also the scenario's JSON: download it, or upload one (validated; a bad file changes nothing).

use yew::prelude::*;

/// Properties of [`Features`].
#[derive(Properties, PartialEq)]
pub struct FeaturesProps {
    /// `ethtool -K ntuple` state.
    pub ntuple: bool,
    /// The console's last entry (its count and command): when the switch's command has been
    /// answered, the switch shows what holds again.
    #[prop_or_default]
    pub answered: AttrValue,
    /// `rps_sock_flow_entries` in force.
    pub sock_entries: u32,
    /// RX queues (for the per-queue rps_cpus lines).
    pub rx_queues: u16,
    /// CPUs (for the RPS mask).
    pub cpus: u16,
    /// Command lines to run, in order.
    pub on_commands: Callback<Vec<String>>,
    /// The scenario's JSON for download.
    pub scenario_json: AttrValue,
    /// An uploaded scenario's text.
    pub on_upload: Callback<String>,
}

/// The switches panel.
#[component]
pub fn Features(p: &FeaturesProps) -> Html {
    // The switch shows the learner's click at once, until the worker has answered its command
    // (a view still on its way would otherwise flip the box back; a refused command flips it
    // back to what holds).
    let asked = use_state(|| None::<bool>);
    {
        let asked = asked.clone();
        use_effect_with((p.ntuple, p.answered.clone()), move |_| asked.set(None));
    }
    let ntuple = {
        let (cb, asked) = (p.on_commands.clone(), asked.clone());
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlInputElement = e.target_unchecked_into();
            asked.set(Some(el.checked()));
            cb.emit(vec![format!(
                "ethtool -K eth0 ntuple {}",
                if el.checked() { "on" } else { "off" }
            )]);
        })
    };
    let sock = {
        let cb = p.on_commands.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            cb.emit(vec![format!("sysctl -w net.core.rps_sock_flow_entries={}", el.value())]);
        })
    };
    let rps = {
        let (cb, queues, cpus) = (p.on_commands.clone(), p.rx_queues, p.cpus);
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let mask = if el.value() == "all" {
                crate::protocol::all_cpus_mask(cpus)
            } else {
                "0".into()
            };
            cb.emit(
                (0..queues)
                    .map(|q| format!("echo {mask} > /sys/class/net/eth0/queues/rx-{q}/rps_cpus"))
                    .collect(),
            );
        })
    };
    let upload = {
        let cb = p.on_upload.clone();
        Callback::from(move |e: Event| super::read_picked_file(&e, &cb))
    };
    let href = format!(
        "data:application/json;charset=utf-8,{}",
        js_sys::encode_uri_component(&p.scenario_json)
    );
    let sizes = [0u32, 4096, 32_768, 73_728, 294_912];
    html! {
        <div class="features">
            <label><input type="checkbox" data-testid="feature-ntuple" checked={asked.unwrap_or(p.ntuple)} onchange={ntuple} />{ " aRFS (ethtool -K eth0 ntuple)" }</label>
            <label>{ "RFS socket table " }
                <select data-testid="feature-sock-entries" onchange={sock}>
                    { for sizes.iter().map(|&n| html! { <option value={n.to_string()} selected={n == p.sock_entries}>{ if n == 0 { "off".to_string() } else { n.to_string() } }</option> }) }
                    if !sizes.contains(&p.sock_entries) { <option selected=true value={p.sock_entries.to_string()}>{ p.sock_entries }</option> }
                </select>
            </label>
            <label>{ "RPS " }
                <select data-testid="feature-rps" onchange={rps}>
                    <option value="keep" selected=true>{ "as configured" }</option>
                    <option value="all">{ "every CPU (rps_cpus = all)" }</option>
                    <option value="off">{ "off (rps_cpus = 0)" }</option>
                </select>
            </label>
            <a data-testid="scenario-download" href={href} download="steerlab-scenario.json">{ "⬇ Scenario JSON" }</a>
            <label>{ "⬆ Load a scenario " }<input type="file" accept=".json,application/json" data-testid="scenario-upload" onchange={upload} /></label>
        </div>
    }
}
