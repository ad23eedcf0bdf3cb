//! The RX queues as fill bars: a bar's length is the queue's share of the packets.

use yew::prelude::*;

use crate::controller::QueueView;

/// Properties of [`Queues`].
#[derive(Properties, PartialEq)]
pub struct QueuesProps {
    /// The queues to draw.
    pub queues: Vec<QueueView>,
}

/// A row per RX queue with its share of traffic.
#[component]
pub fn Queues(props: &QueuesProps) -> Html {
    let total: u64 = props.queues.iter().map(|q| q.packets).sum::<u64>().max(1);
    html! {
        <ol class="queues">
            { for props.queues.iter().map(|q| {
                let pct = q.packets * 100 / total;
                html! {
                    <li data-testid={format!("rxq-{}", q.index)} class="queue" tabindex="0"
                        aria-label={format!("rx-{}: {} flows, {} packets", q.index, q.flows, q.packets)}>
                        <span class="qname">{ format!("rx-{}", q.index) }</span>
                        <span class="bar"><span class={classes!("fill", format!("c{}", q.index % 4))}
                            style={format!("width:{pct}%")}></span></span>
                        <span class="qnum">{ format!("{} flows · {} pkts", q.flows, q.packets) }</span>
                    </li>
                }
            }) }
        </ol>
    }
}
