//! Trunk's entry point for the simulation worker's module (web/boot.js starts every worker
//! with it): the worker's loop, `steerlab_web::worker::run`. Built without the page's
//! components reachable, so the module carries no Yew, drawing or charts.

fn main() {
    steerlab_web::worker::run();
}
