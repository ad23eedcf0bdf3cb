//! The packets-per-RX-queue chart (plotters on a canvas).

use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use crate::chart::draw_rx_queues;

/// Properties of [`RxChart`].
#[derive(Properties, PartialEq)]
pub struct RxChartProps {
    /// Packets per queue.
    pub packets: Vec<u64>,
}

/// Redraws whenever the counts change.
#[component]
pub fn RxChart(props: &RxChartProps) -> Html {
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        use_effect_with(props.packets.clone(), move |packets| {
            if let Some(el) = canvas.cast::<HtmlCanvasElement>() {
                if let Err(e) = draw_rx_queues(el, packets) {
                    gloo::console::error!(e);
                }
            }
        });
    }
    html! {
        <canvas ref={canvas} class="chart" data-testid="chart-rxq" role="img"
            aria-label="bar chart of packets per RX queue"></canvas>
    }
}
