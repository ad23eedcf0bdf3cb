//! Trunk's entry point, for both threads: on the page it mounts the sandbox on the body; in
//! the simulation worker (the same module, started by `client.rs`) it runs the worker's loop.

use wasm_bindgen::JsCast;

fn main() {
    if js_sys::global().dyn_into::<web_sys::Window>().is_ok() {
        yew::Renderer::<steerlab_web::App>::new().render();
    } else {
        steerlab_web::worker::run();
    }
}
