//! Trunk's entry point: mounts the sandbox on the page body.

fn main() {
    yew::Renderer::<steerlab_web::App>::new().render();
}
