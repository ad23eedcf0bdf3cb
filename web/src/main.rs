//! Trunk's entry point, for both threads: on the page it mounts the sandbox on the body; in
//! the simulation worker (the same module, started by `client.rs`) it runs the worker's loop.

use wasm_bindgen::JsCast;

fn main() {
    if js_sys::global().dyn_into::<web_sys::Window>().is_ok() {
        // Into #app, beside web/boot.js's first screen (which gives way at the first view).
        let root = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("app"));
        match root {
            Some(root) => yew::Renderer::<steerlab_web::App>::with_root(root).render(),
            None => yew::Renderer::<steerlab_web::App>::new().render(),
        };
    } else {
        steerlab_web::worker::run();
    }
}
