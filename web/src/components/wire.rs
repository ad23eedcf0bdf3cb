//! The wire view on a canvas (small hosts): flows on the left, the NIC in the middle (its
//! exact-match filters above, the indirection table grid below), RX queues, then CPUs by NUMA
//! node with their threads. Packets fly as dots along the route the engine gave each flow's
//! last packets; a packet processed away from its reader's CPU turns to the warning colour on
//! its last leg, and a dashed line shows the way its data still has to go. Under
//! prefers-reduced-motion the routes are drawn still, without dots. Clicking a flow traces it.

use std::rc::Rc;

use crate::protocol::QueueRule;
use gloo::timers::callback::Interval;
use plotters::style::RGBColor;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

use crate::chart::{fit_to_device_pixels, PALETTE};
use crate::components::chart::use_css_size;
use crate::components::now_ms;
use crate::protocol::wire::{Flight, Layout, Stage, WireView};

/// Properties of [`Wire`].
#[derive(Properties, PartialEq)]
pub struct WireProps {
    /// The host now.
    pub view: Rc<WireView>,
    /// A flow was clicked (or chosen with the arrow keys).
    pub on_select: Callback<u32>,
    /// The flow the trace panel follows (the keys move from it).
    #[prop_or_default]
    pub traced: u32,
}

/// Colour of RX queue `q`: the palette without its warning colour (vermillion) and black.
fn queue_colour(q: u16) -> RGBColor {
    const USABLE: [usize; 6] = [0, 1, 2, 3, 4, 6];
    PALETTE[USABLE[usize::from(q) % USABLE.len()]]
}

fn reduced_motion() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-reduced-motion: reduce)").ok().flatten())
        .is_some_and(|m| m.matches())
}

struct State {
    view: Rc<WireView>,
    flight: Flight,
    layout: Option<Layout>,
    /// The view changed since the last drawing: the host layer is drawn again.
    dirty: bool,
    /// The host without its packets (an offscreen canvas): the frames that only move dots
    /// copy it instead of drawing every caption and table cell again.
    host: Option<HtmlCanvasElement>,
}

/// The wire view.
#[component]
pub fn Wire(p: &WireProps) -> Html {
    let canvas = use_node_ref();
    let state = use_mut_ref(|| State {
        view: Rc::new(WireView::default()),
        flight: Flight::default(),
        layout: None,
        dirty: true,
        host: None,
    });
    let height = use_state(|| 200.0f64);
    let (size, generation) = use_css_size(&canvas);
    {
        let (state, canvas, height, size) = (state.clone(), canvas.clone(), height.clone(), size.clone());
        use_effect_with((p.view.clone(), generation), move |(view, _)| {
            let width = canvas.cast::<HtmlCanvasElement>().map_or(800.0, |c| size.of(&c).0);
            let layout = Layout::new(view, width);
            if (layout.height - *height).abs() > 0.5 {
                height.set(layout.height);
                size.forget(); // the canvas changes height: read it again
            }
            let mut st = state.borrow_mut();
            st.flight.update(view, &layout, now_ms());
            st.view = view.clone();
            st.layout = Some(layout);
            st.dirty = true;
        });
    }
    {
        let (state, canvas, size) = (state.clone(), canvas.clone(), size.clone());
        use_effect_with((), move |_| {
            let still = reduced_motion();
            let interval = Interval::new(16, move || {
                let mut st = state.borrow_mut();
                if !st.dirty && (still || st.flight.dots.is_empty()) {
                    return;
                }
                if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                    let css = size.of(&c);
                    draw(&c, css, &mut st, now_ms(), still);
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
            let at = (f64::from(e.offset_x()), f64::from(e.offset_y()));
            if let Some(f) = layout.flow_at(at).and_then(|i| st.view.flows.get(i)) {
                on_select.emit(f.index);
            }
        })
    };
    // The keyboard's way to a click: Up and Down trace the previous or next flow.
    let onkeydown = {
        let (state, on_select, traced) = (state.clone(), p.on_select.clone(), p.traced);
        Callback::from(move |e: KeyboardEvent| {
            let st = state.borrow();
            let flows = &st.view.flows;
            let at = flows.iter().position(|f| f.index == traced);
            let next = match (e.key().as_str(), at) {
                ("ArrowDown", Some(i)) => i + 1,
                ("ArrowUp", Some(i)) => i.saturating_sub(1),
                ("ArrowDown" | "ArrowUp", None) => 0,
                _ => return,
            };
            e.prevent_default();
            if let Some(f) = flows.get(next.min(flows.len().saturating_sub(1))) {
                on_select.emit(f.index);
            }
        })
    };
    let v = &p.view;
    let filtered = v.flows.iter().filter(|f| f.view.rule != QueueRule::Rss).count();
    let remote = v.flows.iter().filter(|f| f.remote()).count();
    let label = format!(
        "wire view: {} flows, {} through the indirection table, {filtered} through exact-match filters; {remote} processed away from their reader's CPU; Up and Down trace a flow",
        v.flows.len(),
        v.flows.len() - filtered
    );
    html! {
        // The flow rows' geometry, for tests that click a flow: x, top, row pitch.
        <canvas ref={canvas} class="wire" data-testid="wire" role="img" tabindex="0" aria-label={label} {onclick} {onkeydown}
            data-flow-rows={format!("{} {} {}", Layout::FLOW_X, Layout::TOP, Layout::ROW)}
            style={format!("height:{}px", height.round())}></canvas>
    }
}

/// The canvas 2D context with the few strokes the wire view needs, in CSS pixels (the
/// transform scales to device pixels). Drawn directly rather than through plotters: these
/// shapes need no axes, and the page bundle stays smaller.
struct Pen(CanvasRenderingContext2d);

impl Pen {
    fn line(&self, points: &[(f64, f64)], colour: &str, width: f64, dashed: bool) {
        let c = &self.0;
        let dash = js_sys::Array::new();
        if dashed {
            dash.push(&4.0.into());
            dash.push(&3.0.into());
        }
        let _ = c.set_line_dash(&dash);
        c.set_stroke_style_str(colour);
        c.set_line_width(width);
        c.begin_path();
        for (i, &(x, y)) in points.iter().enumerate() {
            if i == 0 {
                c.move_to(x, y)
            } else {
                c.line_to(x, y)
            }
        }
        c.stroke();
    }

    fn dot(&self, (x, y): (f64, f64), r: f64, colour: &str) {
        let c = &self.0;
        c.set_fill_style_str(colour);
        c.begin_path();
        let _ = c.arc(x, y, r, 0.0, std::f64::consts::TAU);
        c.fill();
    }

    fn rect(&self, (x, y): (f64, f64), (w, h): (f64, f64), colour: &str, filled: bool) {
        if filled {
            self.0.set_fill_style_str(colour);
            self.0.fill_rect(x - w / 2.0, y - h / 2.0, w, h);
        } else {
            self.0.set_stroke_style_str(colour);
            self.0.set_line_width(1.0);
            let _ = self.0.set_line_dash(&js_sys::Array::new());
            self.0.stroke_rect(x - w / 2.0, y - h / 2.0, w, h);
        }
    }

    /// How wide `s` is drawn at `size` px, as [`Pen::text`] draws it.
    fn text_width(&self, s: &str, size: f64) -> f64 {
        self.0.set_font(&format!("{size}px sans-serif"));
        self.0.measure_text(s).map_or(0.0, |m| m.width())
    }

    fn text(&self, s: &str, (x, y): (f64, f64), size: f64, align: &str) {
        let c = &self.0;
        c.set_fill_style_str("#000");
        c.set_font(&format!("{size}px sans-serif"));
        c.set_text_align(align);
        c.set_text_baseline("middle");
        let _ = c.fill_text(s, x, y);
    }
}

/// `rgba()` of a palette colour.
fn css(c: (u8, u8, u8), alpha: f64) -> String {
    format!("rgba({},{},{},{alpha})", c.0, c.1, c.2)
}

/// The vermillion of packets processed away from their reader.
const WARN: (u8, u8, u8) = (PALETTE[5].0, PALETTE[5].1, PALETTE[5].2);

/// RX queue `queue`'s colour as RGB.
fn queue_rgb(queue: u16) -> (u8, u8, u8) {
    let c = queue_colour(queue);
    (c.0, c.1, c.2)
}

/// A canvas's 2D context, scaled by `k` (CSS to device pixels).
fn context(canvas: &HtmlCanvasElement, k: f64) -> Option<CanvasRenderingContext2d> {
    let ctx: CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
    ctx.set_transform(k, 0.0, 0.0, k, 0.0, 0.0).ok()?;
    Some(ctx)
}

/// One frame: the host layer (drawn again when the view or the size changed) and the dots in
/// flight at `now` over it.
fn draw(canvas: &HtmlCanvasElement, size: (f64, f64), st: &mut State, now: f64, still: bool) -> Option<()> {
    let k = fit_to_device_pixels(canvas, size);
    let State {
        view: v,
        flight,
        layout,
        dirty,
        host: layer,
    } = st;
    let l = layout.as_ref()?;
    if layer.is_none() {
        *layer = Some(
            web_sys::window()?
                .document()?
                .create_element("canvas")
                .ok()?
                .dyn_into()
                .ok()?,
        );
    }
    let layer = layer.as_ref()?;
    let resized = layer.width() != canvas.width() || layer.height() != canvas.height();
    if resized {
        layer.set_width(canvas.width());
        layer.set_height(canvas.height());
    }
    if *dirty || resized {
        // The whole layer: a layout shorter than the canvas (until the page resizes it)
        // leaves nothing of the previous drawing below it.
        let (w, h) = (f64::from(canvas.width()) / k, f64::from(canvas.height()) / k);
        draw_host(
            &Pen(context(layer, k)?),
            v,
            l,
            flight,
            still,
            (w.max(l.width), h.max(l.height)),
        );
        *dirty = false;
    }
    let ctx = context(canvas, 1.0)?;
    ctx.draw_image_with_html_canvas_element(layer, 0.0, 0.0).ok()?;
    if !still {
        ctx.set_transform(k, 0.0, 0.0, k, 0.0, 0.0).ok()?;
        let pen = Pen(ctx);
        for d in &flight.dots {
            if let Some((at, stage)) = d.at(now) {
                let colour = match stage {
                    Stage::Dropped => "#000".to_string(),
                    Stage::LastLeg if d.remote => css(WARN, 1.0),
                    _ => css(queue_rgb(d.colour), 1.0),
                };
                pen.dot(at, 3.0, &colour);
            }
        }
    }
    Some(())
}

/// The host without its packets on a white area of `size` CSS pixels: captions, routes,
/// flows, the NIC, queues and CPUs, legend.
fn draw_host(pen: &Pen, v: &WireView, l: &Layout, flight: &Flight, still: bool, (w, h): (f64, f64)) {
    pen.0.set_fill_style_str("#fff");
    pen.0.fill_rect(0.0, 0.0, w, h);
    let (warn, q) = (WARN, queue_rgb);
    // Column captions.
    for (caption, x, align) in [
        ("flows", l.flow_x, "center"),
        ("NIC", l.reta_x, "left"),
        ("RX queues", l.queue_x, "center"),
        ("CPUs", l.cpu_x, "center"),
    ] {
        pen.text(caption, (x, 12.0), 12.0, align);
    }
    // The routes now, faint; remote last legs in the warning colour, dashed towards the reader;
    // the routes through the marked cell (a matrix click, a prediction's row) thick.
    let marked = v
        .cell
        .filter(|&(q, c)| usize::from(q) < v.queues.len() && usize::from(c) < v.cpus.len());
    for (i, f) in v.flows.iter().enumerate() {
        let r = l.route(v, i);
        if marked == Some((f.view.queue, f.view.cpu)) {
            pen.line(&r, &css(q(f.view.queue), 1.0), 3.0, false);
        }
        pen.line(&r[..3], &css(q(f.view.queue), 0.35), 1.2, false);
        let last = if f.remote() {
            css(warn, 0.6)
        } else {
            css(q(f.view.queue), 0.35)
        };
        pen.line(&r[2..], &last, if still { 2.5 } else { 1.2 }, false);
        if f.remote() {
            let node = v.cpus.get(usize::from(f.view.reader_cpu)).map_or(0, |c| c.0);
            let to = l.cpu(f.view.reader_cpu, node);
            // Right of the threads' names, so that the arc never crosses them.
            let a = r[3];
            pen.line(
                &[(a.0 + 62.0, a.1), (a.0 + 84.0, (a.1 + to.1) / 2.0), (to.0 + 62.0, to.1)],
                &css(warn, 1.0),
                1.0,
                true,
            );
        }
    }
    // Flows.
    for (i, f) in v.flows.iter().enumerate() {
        let at = l.flow(i);
        pen.dot(at, 4.0, &css(q(f.view.queue), 1.0));
        pen.text(&format!("#{} {}", f.index, f.kind), (at.0 - 9.0, at.1), 10.0, "right");
    }
    // The NIC: the filters box, then the indirection table (each cell in its queue's colour;
    // cells some flow hashes to are outlined).
    // As wide as the table, and at least as its widest line with a margin (the browser's
    // sans-serif decides that width: at 800 px it overflowed a fixed 130 px).
    const KINDS: &str = "ntuple · aRFS · ATR · tc in_hw";
    let fw = (f64::from(l.reta_cols) * l.cell).max(pen.text_width(KINDS, 9.0) + 12.0);
    pen.rect(l.filter, (fw, 32.0), "rgba(0,0,0,0.5)", false);
    pen.text("NIC filters", (l.filter.0, l.filter.1 - 6.0), 10.0, "center");
    pen.text(KINDS, (l.filter.0, l.filter.1 + 7.0), 9.0, "center");
    for (i, &queue) in v.reta.iter().enumerate() {
        pen.rect(
            l.reta_cell(i as u32),
            (l.cell - 1.0, l.cell - 1.0),
            &css(q(queue), 0.45),
            true,
        );
    }
    for f in v.flows.iter().filter(|f| f.view.rule == QueueRule::Rss) {
        pen.rect(l.reta_cell(f.reta_index), (l.cell, l.cell), "#000", false);
    }
    pen.text(
        &format!("indirection table ({} entries)", v.reta.len()),
        (l.reta_x, l.reta_y - 7.0),
        10.0,
        "left",
    );
    // Queues and CPUs.
    for (i, &irq) in v.queues.iter().enumerate() {
        let at = l.queue(i as u16);
        pen.rect(at, (48.0, 14.0), &css(q(i as u16), 1.0), true);
        pen.text(&format!("rx-{i}"), at, 10.0, "center");
        if l.width >= 480.0 {
            // Narrow (the compare view): the queue's IRQ CPU stays in the host panel below.
            pen.text(&format!("IRQ→{irq}"), (at.0 + 28.0, at.1), 9.0, "left");
        }
    }
    for (c, (node, threads)) in v.cpus.iter().enumerate() {
        let at = l.cpu(c as u16, *node);
        pen.rect(at, (44.0, 14.0), "rgba(0,0,0,0.12)", true);
        pen.text(&format!("CPU {c}"), at, 10.0, "center");
        if !threads.is_empty() {
            let names: Vec<String> = threads.iter().take(3).map(|t| format!("T{t}")).collect();
            pen.text(&names.join(" "), (at.0 + 26.0, at.1), 9.0, "left");
        }
        if c == 0 || v.cpus[c - 1].0 != *node {
            pen.text(&format!("node {node}"), (at.0 - 26.0, at.1 - l.row * 0.2), 9.0, "right");
        }
    }
    // The marked cell: its queue and CPU outlined (the routes through both were drawn thick,
    // under the boxes).
    if let Some((mq, mc)) = marked {
        pen.rect(l.queue(mq), (54.0, 20.0), "#000", false);
        pen.rect(l.cpu(mc, v.cpus[usize::from(mc)].0), (50.0, 20.0), "#000", false);
    }
    let legend = if still {
        "routes only (reduced motion) · vermillion: processed off the reader's CPU".to_string()
    } else {
        format!(
            "● 1 dot = {} packet{} · vermillion: processed off the reader's CPU · black: dropped",
            flight.per_dot.max(1),
            if flight.per_dot > 1 { "s" } else { "" }
        )
    };
    pen.text(&legend, (l.flow_x - 30.0, l.height - 8.0), 10.0, "left");
}
