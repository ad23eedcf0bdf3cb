//! The wire view on a canvas (small hosts): flows on the left, the NIC in the middle (its
//! exact-match filters above, the indirection table grid below), RX queues, then CPUs by NUMA
//! node with their threads. Packets fly as dots along the route the engine gave each flow's
//! last packets; a packet processed away from its reader's CPU turns to the warning colour on
//! its last leg, and a dashed line shows the way its data still has to go. Under
//! prefers-reduced-motion the routes are drawn still, without dots. Clicking a flow traces it.

use std::rc::Rc;

use gloo::timers::callback::Interval;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use steerlab_engine::QueueRule;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use crate::chart::{fit_to_device_pixels, PALETTE};
use crate::wire::{Flight, Layout, Stage, WireView};

/// Properties of [`Wire`].
#[derive(Properties, PartialEq)]
pub struct WireProps {
    /// The host now.
    pub view: Rc<WireView>,
    /// A flow was clicked.
    pub on_select: Callback<u32>,
}

/// Colour of RX queue `q`: the palette without its warning colour (vermillion) and black.
fn queue_colour(q: u16) -> RGBColor {
    const USABLE: [usize; 6] = [0, 1, 2, 3, 4, 6];
    PALETTE[USABLE[usize::from(q) % USABLE.len()]]
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

fn reduced_motion() -> bool {
    web_sys::window().and_then(|w| w.match_media("(prefers-reduced-motion: reduce)").ok().flatten()).is_some_and(|m| m.matches())
}

struct State {
    view: Rc<WireView>,
    flight: Flight,
    layout: Option<Layout>,
    /// Something changed since the last drawing.
    dirty: bool,
}

/// The wire view.
#[component]
pub fn Wire(p: &WireProps) -> Html {
    let canvas = use_node_ref();
    let state = use_mut_ref(|| State { view: Rc::new(WireView::default()), flight: Flight::default(), layout: None, dirty: true });
    let height = use_state(|| 200.0f64);
    {
        let (state, canvas, height) = (state.clone(), canvas.clone(), height.clone());
        use_effect_with(p.view.clone(), move |view| {
            let width = canvas.cast::<HtmlCanvasElement>().map_or(800.0, |c| f64::from(c.client_width()));
            let layout = Layout::new(view, width);
            if (layout.height - *height).abs() > 0.5 {
                height.set(layout.height);
            }
            let mut st = state.borrow_mut();
            st.flight.update(view, &layout, now_ms());
            st.view = view.clone();
            st.layout = Some(layout);
            st.dirty = true;
        });
    }
    {
        let (state, canvas) = (state.clone(), canvas.clone());
        use_effect_with((), move |_| {
            let still = reduced_motion();
            let interval = Interval::new(16, move || {
                let mut st = state.borrow_mut();
                if !st.dirty && (still || st.flight.dots.is_empty()) {
                    return;
                }
                st.dirty = false;
                if let (Some(c), Some(layout)) = (canvas.cast::<HtmlCanvasElement>(), st.layout.as_ref()) {
                    let _ = draw(c, &st.view, layout, &st.flight, now_ms(), still);
                }
            });
            move || drop(interval)
        });
    }
    let onclick = {
        let (state, on_select) = (state.clone(), p.on_select.clone());
        Callback::from(move |e: MouseEvent| {
            let st = state.borrow();
            let Some(layout) = st.layout.as_ref() else { return };
            let (x, y) = (f64::from(e.offset_x()), f64::from(e.offset_y()));
            if x < layout.reta_x {
                let i = ((y - layout.top) / layout.row).floor();
                if i >= 0.0 {
                    if let Some(f) = st.view.flows.get(i as usize) {
                        on_select.emit(f.index);
                    }
                }
            }
        })
    };
    let v = &p.view;
    let filtered = v.flows.iter().filter(|f| f.rule != QueueRule::Rss).count();
    let remote = v.flows.iter().filter(|f| f.remote()).count();
    let label = format!(
        "wire view: {} flows, {} through the indirection table, {filtered} through exact-match filters; {remote} processed away from their reader's CPU",
        v.flows.len(),
        v.flows.len() - filtered
    );
    html! {
        <canvas ref={canvas} class="wire" data-testid="wire" role="img" aria-label={label} {onclick}
            style={format!("height:{}px", height.round())}></canvas>
    }
}

/// One frame: the host and the dots in flight at `now`.
fn draw(canvas: HtmlCanvasElement, v: &WireView, l: &Layout, flight: &Flight, now: f64, still: bool) -> Result<(), String> {
    let k = fit_to_device_pixels(&canvas);
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("canvas has no 2d context")?;
    let root = backend.into_drawing_area();
    let e = |r: Result<(), DrawingAreaErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>>| r.map_err(|x| x.to_string());
    e(root.fill(&WHITE))?;
    let px = |(x, y): (f64, f64)| ((x * k) as i32, (y * k) as i32);
    let font = |size: f64| ("sans-serif", size * k).into_font();
    let text = |s: &str, at: (f64, f64), size: f64, anchor: HPos| {
        Text::new(s.to_string(), px(at), font(size).color(&BLACK).pos(Pos::new(anchor, VPos::Center)))
    };
    let warn = PALETTE[5];
    // Column captions.
    for (caption, x, anchor) in [
        ("flows", l.flow_x, HPos::Center),
        ("NIC", l.reta_x, HPos::Left),
        ("RX queues", l.queue_x, HPos::Center),
        ("CPUs", l.cpu_x, HPos::Center),
    ] {
        e(root.draw(&text(caption, (x, 12.0), 12.0, anchor)))?;
    }
    // The routes now, faint; remote last legs dashed in the warning colour towards the reader.
    for i in 0..v.flows.len() {
        let f = &v.flows[i];
        let r = l.route(v, i);
        let colour = queue_colour(f.queue).mix(0.35);
        e(root.draw(&PathElement::new(r[..3].iter().map(|&p| px(p)).collect::<Vec<_>>(), colour.stroke_width((k * 1.2) as u32))))?;
        let last = if f.remote() { warn.mix(0.6) } else { colour };
        e(root.draw(&PathElement::new(vec![px(r[2]), px(r[3])], last.stroke_width((k * if still { 2.5 } else { 1.2 }) as u32))))?;
        if f.remote() {
            let node = v.cpus.get(usize::from(f.reader_cpu)).map_or(0, |c| c.0);
            let to = l.cpu(f.reader_cpu, node);
            let (a, b) = (r[3], (to.0 + 26.0, to.1));
            let from = (a.0 + 26.0, a.1);
            e(root.draw(&DashedPathElement::new(vec![px(from), px(((a.0 + 40.0), (a.1 + b.1) / 2.0)), px(b)], (4.0 * k) as u32, (3.0 * k) as u32, warn.stroke_width(k.max(1.0) as u32))))?;
        }
    }
    // Flows.
    for (i, f) in v.flows.iter().enumerate() {
        let at = l.flow(i);
        e(root.draw(&Circle::new(px(at), (4.0 * k) as i32, queue_colour(f.queue).filled())))?;
        e(root.draw(&text(&format!("#{}", f.index), (at.0 - 9.0, at.1), 10.0, HPos::Right)))?;
    }
    // The NIC: the filters box, then the indirection table (each cell in its queue's colour;
    // cells some flow hashes to are outlined).
    let (fx, fy) = l.filter;
    let fw = (f64::from(l.reta_cols) * l.cell).max(130.0);
    e(root.draw(&Rectangle::new([px((fx - fw / 2.0, fy - 16.0)), px((fx + fw / 2.0, fy + 16.0))], BLACK.mix(0.5).stroke_width(k.max(1.0) as u32))))?;
    e(root.draw(&text("filters: ntuple, aRFS, ATR", (fx, fy), 9.0, HPos::Center)))?;
    for (i, &q) in v.reta.iter().enumerate() {
        let (x, y) = l.reta_cell(i as u32);
        let h = l.cell / 2.0 - 0.5;
        e(root.draw(&Rectangle::new([px((x - h, y - h)), px((x + h, y + h))], queue_colour(q).mix(0.45).filled())))?;
    }
    for f in v.flows.iter().filter(|f| f.rule == QueueRule::Rss) {
        let (x, y) = l.reta_cell(f.reta_index);
        let h = l.cell / 2.0;
        e(root.draw(&Rectangle::new([px((x - h, y - h)), px((x + h, y + h))], BLACK.stroke_width(k.max(1.0) as u32))))?;
    }
    e(root.draw(&text(&format!("indirection table ({} entries)", v.reta.len()), (l.reta_x, l.reta_y - 7.0), 10.0, HPos::Left)))?;
    // Queues and CPUs.
    for (q, &irq) in v.queues.iter().enumerate() {
        let (x, y) = l.queue(q as u16);
        e(root.draw(&Rectangle::new([px((x - 24.0, y - 7.0)), px((x + 24.0, y + 7.0))], queue_colour(q as u16).filled())))?;
        e(root.draw(&text(&format!("rx-{q}"), (x, y), 10.0, HPos::Center)))?;
        e(root.draw(&text(&format!("IRQ→{irq}"), (x + 28.0, y), 9.0, HPos::Left)))?;
    }
    for (c, (node, threads)) in v.cpus.iter().enumerate() {
        let (x, y) = l.cpu(c as u16, *node);
        e(root.draw(&Rectangle::new([px((x - 22.0, y - 7.0)), px((x + 22.0, y + 7.0))], BLACK.mix(0.12).filled())))?;
        e(root.draw(&text(&format!("CPU {c}"), (x, y), 10.0, HPos::Center)))?;
        if !threads.is_empty() {
            let names: Vec<String> = threads.iter().take(3).map(|t| format!("T{t}")).collect();
            e(root.draw(&text(&names.join(" "), (x + 26.0, y), 9.0, HPos::Left)))?;
        }
        if c == 0 || v.cpus[c - 1].0 != *node {
            e(root.draw(&text(&format!("node {node}"), (x - 26.0, y - l.row * 0.2), 9.0, HPos::Right)))?;
        }
    }
    // The packets.
    if !still {
        for d in &flight.dots {
            if let Some((at, stage)) = d.at(now) {
                let colour = match stage {
                    Stage::Dropped => BLACK,
                    Stage::LastLeg if d.remote => warn,
                    _ => queue_colour(d.colour),
                };
                e(root.draw(&Circle::new(px(at), (3.0 * k) as i32, colour.filled())))?;
            }
        }
    }
    let legend = if still {
        "routes only (reduced motion) · vermillion: processed off the reader's CPU".to_string()
    } else {
        format!("● 1 dot = {} packet{} · vermillion: processed off the reader's CPU · black: dropped", flight.per_dot.max(1), if flight.per_dot > 1 { "s" } else { "" })
    };
    e(root.draw(&text(&legend, (l.flow_x - 30.0, l.height - 8.0), 10.0, HPos::Left)))?;
    root.present().map_err(|x| x.to_string())
}
