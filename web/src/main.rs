//! Trunk's entry point for the page's module: mounts the sandbox. The simulation worker is a
//! module of its own (`worker_main.rs`), so this one carries no engine, console or scenario
//! code, and the worker's carries no Yew.

fn main() {
    // Into #app, beside web/boot.js's first screen (which gives way at the first view).
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"));
    match root {
        Some(root) => yew::Renderer::<steerlab_web::App>::with_root(root).render(),
        None => yew::Renderer::<steerlab_web::App>::new().render(),
    };
}
