//! The keyboard way to do what dragging a thread does.

use yew::prelude::*;

use crate::protocol::ThreadView;

/// Properties of [`Migrate`].
#[derive(Properties, PartialEq)]
pub struct MigrateProps {
    /// Threads.
    pub threads: Vec<ThreadView>,
    /// CPUs of the host.
    pub cpus: u16,
    /// Thread and target CPU.
    pub on_migrate: Callback<(u32, u16)>,
    /// A console command (the policy: `thread policy TID pin|migrate MS`).
    pub on_command: Callback<String>,
}

/// Thread select, CPU select, submit.
#[component]
pub fn Migrate(p: &MigrateProps) -> Html {
    let tid = use_state(|| 0u32);
    let cpu = use_state(|| 0u16);
    let on_tid = {
        let tid = tid.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            tid.set(el.value().parse().unwrap_or(0));
        })
    };
    let on_cpu = {
        let cpu = cpu.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            cpu.set(el.value().parse().unwrap_or(0));
        })
    };
    let submit = {
        let (tid, cpu, cb) = (tid.clone(), cpu.clone(), p.on_migrate.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            cb.emit((*tid, *cpu));
        })
    };
    let policy = use_state(|| "pin".to_string());
    let on_policy = {
        let policy = policy.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            policy.set(el.value());
        })
    };
    let apply = {
        let (tid, policy, cb) = (tid.clone(), policy.clone(), p.on_command.clone());
        Callback::from(move |_: MouseEvent| cb.emit(format!("thread policy {} {}", *tid, *policy)))
    };
    html! {
        <form class="migrate" data-testid="migrate-thread" onsubmit={submit} aria-label="migrate a thread">
            <label>{ "Thread" }
                <select data-testid="migrate-thread-select" onchange={on_tid}>
                    { for p.threads.iter().take(512).map(|t| html! {
                        <option value={t.id.to_string()} selected={t.id == *tid}>{ format!("T{} (CPU {}, cpuset {})", t.id, t.cpu, t.cpuset) }</option>
                    }) }
                </select>
            </label>
            <label>{ "to CPU" }
                <select data-testid="migrate-cpu-select" onchange={on_cpu}>
                    { for (0..p.cpus).map(|c| html! { <option value={c.to_string()} selected={c == *cpu}>{ c }</option> }) }
                </select>
            </label>
            <button type="submit" data-testid="migrate-submit">{ "Migrate" }</button>
            <label>{ "policy" }
                <select data-testid="thread-policy-select" onchange={on_policy}>
                    <option value="pin" selected={*policy == "pin"}>{ "pinned to its CPU" }</option>
                    <option value={format!("cpuset 0-{}", p.cpus.saturating_sub(1))}>{ "any CPU (cpuset)" }</option>
                    <option value="migrate 10">{ "auto-migrate every 10 ms" }</option>
                </select>
            </label>
            <button type="button" data-testid="thread-policy-submit" onclick={apply}>{ "Apply policy" }</button>
        </form>
    }
}
