//! The page's components: each renders a slice of the view model and emits callbacks.

pub mod add_flow;
pub mod app;
pub mod queues;
pub mod rx_chart;
