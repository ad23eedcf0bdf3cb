//! Where packets go, drawn: each flow path RX queue → processing CPU is a line whose width
//! grows with the number of flows on it; paths processed away from the reader's CPU are in the
//! warning colour; dashes move along the lines (still under prefers-reduced-motion). A large
//! host draws its busiest paths only, and still: hundreds of animated SVG paths made the browser
//! restyle and repaint the page every frame (seed 000's host: a frame every 300 ms).

use yew::prelude::*;

/// Paths animated at most: more are drawn still.
const ANIMATED_PATHS: usize = 64;

/// Properties of [`Paths`].
#[derive(Properties, PartialEq)]
pub struct PathsProps {
    /// The busiest paths in queue order: (queue, CPU, remote, flows).
    pub paths: Vec<crate::controller::Path>,
    /// Over all paths: remote flows, flows, paths.
    pub total: (u32, u32, u32),
    /// RX queues.
    pub queues: u16,
    /// CPUs.
    pub cpus: u16,
}

/// The path diagram (SVG). Large hosts are drawn by density: one pixel row per queue or CPU.
#[component]
pub fn Paths(p: &PathsProps) -> Html {
    let (w, h) = (600.0f64, 220.0f64);
    let y = |i: u16, n: u16| 12.0 + (h - 24.0) * (f64::from(i) + 0.5) / f64::from(n.max(1));
    let (remote, total, all) = p.total;
    let shown = &p.paths; // the worker sends the busiest (controller::view::MAX_PATHS)
    let label = format!(
        "flow paths from RX queues (left) to processing CPUs (right); {remote} of {total} flows processed away from their reader{}",
        if shown.len() < all as usize { format!("; the {} busiest of {all} paths drawn", shown.len()) } else { String::new() }
    );
    let still = all as usize > ANIMATED_PATHS;
    html! {
        <svg class={classes!("paths", still.then_some("still"))} data-testid="paths" viewBox={format!("0 0 {w} {h}")} role="img" aria-label={label}>
            <text x="4" y="10" class="axis">{ "RX queues" }</text>
            <text x={(w - 90.0).to_string()} y="10" class="axis">{ "CPUs" }</text>
            { for shown.iter().map(|&(q, c, r, n)| {
                let (y1, y2) = (y(q, p.queues), y(c, p.cpus));
                let width = 1.0 + f64::from(n).ln_1p() * 1.5;
                html! { <path class={classes!("path", r.then_some("remote"))} stroke-width={format!("{width:.1}")}
                    d={format!("M 70 {y1:.1} C 300 {y1:.1}, 300 {y2:.1}, {} {y2:.1}", w - 70.0)} /> }
            }) }
            if p.queues <= 32 {
                { for (0..p.queues).map(|q| html! { <text x="4" y={(y(q, p.queues) + 4.0).to_string()} class="tick">{ format!("rx-{q}") }</text> }) }
            }
            if p.cpus <= 32 {
                { for (0..p.cpus).map(|c| html! { <text x={(w - 60.0).to_string()} y={(y(c, p.cpus) + 4.0).to_string()} class="tick">{ format!("CPU {c}") }</text> }) }
            }
        </svg>
    }
}
