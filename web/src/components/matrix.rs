//! The host matrix: a canvas of RX queues (rows) × CPUs (columns) for hosts too big for the
//! wire view. A cell's colour says where most of its packets of the last second were
//! processed (green on their reader's CPU, yellow on another CPU of its NUMA node, vermillion
//! on the other node) and its strength how many (log scale); a dark band marks a cell whose
//! packets mostly arrived on a queue that is not their reader's, even when RFS then moved
//! their processing to the reader. Dashed lines are NUMA boundaries. The left margin is each
//! queue's packets per second (vermillion: arrived on the wrong queue), the bottom margin
//! each CPU's softirq load, and the strip right of the cells each queue's aRFS filters added,
//! re-pointed and expired per second, with the re-points of the last 100 ms flashing. Hover names a cell; a click lists its busiest flows, each one a button that opens
//! its trace. Drawing is a few thousand rectangles per view, where 288 DOM chips and 400 SVG
//! paths took most of a frame at 144 CPUs.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

use crate::chart::{fit_to_device_pixels, PALETTE};
use crate::components::chart::use_css_size;
use crate::protocol::{CpuView, MatrixView};

/// Least real time between two paints, ms.
const MIN_PAINT_MS: f64 = 100.0;
/// Width of the queue labels, CSS px: never cleared by a frame.
const LABELS: f64 = 36.0;
/// Left margin (queue labels and packets/s bars), CSS px.
const LEFT: f64 = 78.0;
/// The aRFS strip and the right margin, CSS px.
const RIGHT: f64 = 26.0;
/// Top margin (CPU labels), CSS px.
const TOP: f64 = 18.0;
/// Bottom margin (softirq bars), CSS px.
const BOTTOM: f64 = 30.0;

/// The height of the cells' area for `queues` rows, CSS px.
fn rows_height(queues: u16) -> f64 {
    (f64::from(queues) * 14.0).clamp(160.0, 480.0)
}

/// A cell's width and height for this matrix `width` CSS px wide.
fn cell_size(m: &MatrixView, width: f64) -> (f64, f64) {
    (
        (width - LEFT - RIGHT) / f64::from(m.cpus.max(1)),
        rows_height(m.queues) / f64::from(m.queues.max(1)),
    )
}

/// The cell under CSS point (x, y), if any.
fn cell_at(m: &MatrixView, width: f64, (x, y): (f64, f64)) -> Option<(u16, u16)> {
    let (cw, ch) = cell_size(m, width);
    let (c, q) = (((x - LEFT) / cw).floor(), ((y - TOP) / ch).floor());
    (c >= 0.0 && q >= 0.0 && c < f64::from(m.cpus) && q < f64::from(m.queues)).then_some((q as u16, c as u16))
}

/// `rgba(...)` of palette colour `i` at `alpha`.
fn rgba(i: usize, alpha: f64) -> String {
    let plotters::style::RGBColor(r, g, b) = PALETTE[i];
    format!("rgba({r},{g},{b},{alpha:.3})")
}

/// The labels: every k-th queue and CPU (k so that they do not overlap) and the strip's name.
/// Drawn only when the canvas or the host's shape changes: canvas text makes the browser
/// resolve the font against the page's styles, a style recalculation each time.
fn paint_labels(ctx: &CanvasRenderingContext2d, m: &MatrixView, width: f64) {
    let (cw, ch) = cell_size(m, width);
    ctx.clear_rect(0.0, 0.0, width, TOP + rows_height(m.queues) + BOTTOM);
    ctx.set_fill_style_str("#5b6470");
    ctx.set_font("10px sans-serif");
    let every = |size: f64, room: f64| ((room / size).ceil() as u16).max(1);
    let (kq, kc) = (every(ch, 12.0), every(cw, 28.0));
    for q in (0..m.queues).step_by(usize::from(kq)) {
        let _ = ctx.fill_text(&format!("rx-{q}"), 0.0, TOP + f64::from(q) * ch + ch.min(10.0));
    }
    // CPU labels stop short of the strip's name.
    for c in (0..m.cpus).step_by(usize::from(kc)) {
        let x = LEFT + f64::from(c) * cw;
        if x + 22.0 < width - RIGHT {
            let _ = ctx.fill_text(&c.to_string(), x, TOP - 7.0);
        }
    }
    let _ = ctx.fill_text("aRFS", width - RIGHT, TOP - 7.0);
}

/// Cells an aRFS filter not the flows' own sent them to: a dot larger than the cell, so that
/// one such flow shows on a 144 × 144 host, and the ice fix visibly empties them.
fn paint_other_filter(ctx: &CanvasRenderingContext2d, cells: &[(u16, u16)], (cw, ch): (f64, f64)) {
    let r = (cw.max(ch) * 0.9).max(2.5);
    ctx.set_fill_style_str("#cc79a7");
    ctx.set_stroke_style_str("#1b1f24");
    ctx.set_line_width(0.8);
    for &(q, c) in cells {
        ctx.begin_path();
        let _ = ctx.arc(
            LEFT + (f64::from(c) + 0.5) * cw,
            TOP + (f64::from(q) + 0.5) * ch,
            r,
            0.0,
            std::f64::consts::TAU,
        );
        ctx.fill();
        ctx.stroke();
    }
}

/// NUMA boundaries: between the nodes' CPUs, and between queues whose IRQs are on different
/// nodes.
fn paint_numa(ctx: &CanvasRenderingContext2d, m: &MatrixView, (cw, ch): (f64, f64), width: f64) {
    let rows_h = rows_height(m.queues);
    if m.nodes > 1 {
        ctx.set_stroke_style_str("#1b1f24");
        ctx.set_line_width(1.0);
        let _ = ctx.set_line_dash(&js_sys::Array::of2(&4.0.into(), &3.0.into()));
        ctx.begin_path();
        let per = m.cpus / m.nodes.max(1);
        for n in 1..m.nodes {
            let x = LEFT + f64::from(n * per) * cw;
            ctx.move_to(x, TOP - 4.0);
            ctx.line_to(x, TOP + rows_h + 2.0);
        }
        for q in 1..m.queue_nodes.len() {
            if m.queue_nodes[q] != m.queue_nodes[q - 1] {
                let y = TOP + q as f64 * ch;
                ctx.move_to(LABELS, y);
                ctx.line_to(width - RIGHT, y);
            }
        }
        ctx.stroke();
        let _ = ctx.set_line_dash(&js_sys::Array::new());
    }
}

/// Draws the matrix's data on `ctx` (already scaled to CSS px), `width` CSS px wide, with the
/// cell a lesson step points at (`mark`) ringed; the labels stay as [`paint_labels`] drew them.
fn paint(ctx: &CanvasRenderingContext2d, m: &MatrixView, cpus: &[CpuView], width: f64, mark: Option<(u16, u16)>) {
    let rows_h = rows_height(m.queues);
    ctx.clear_rect(LABELS, TOP - 5.0, width - LABELS, rows_h + BOTTOM + 5.0);
    let (cw, ch) = cell_size(m, width);
    ctx.set_fill_style_str("#f3f5f7");
    ctx.fill_rect(LEFT, TOP, width - LEFT - RIGHT, rows_h);
    // Cells: hue by where most packets were processed, strength by log packets/s.
    let top = m.cells.iter().map(|c| c.total()).max().unwrap_or(1).max(1);
    let log_top = f64::from(top).ln_1p();
    // Cells are drawn in LEVELS strengths per colour, one fill style each: a style string is
    // parsed by the canvas every time it is set, and seed 000 has thousands of cells.
    const LEVELS: usize = 8;
    const HUES: [usize; 3] = [2, 1, 5];
    let mut row_pps = vec![[0u64; 2]; usize::from(m.queues)];
    let mut buckets: [Vec<(u16, u16)>; 3 * LEVELS] = Default::default();
    let mut wrong = Vec::new();
    let mut by_other = Vec::new();
    for c in &m.cells {
        if c.by_other_filter > 0 {
            by_other.push((c.queue, c.cpu));
        }
        let n = c.total();
        let row = &mut row_pps[usize::from(c.queue)];
        row[0] += u64::from(n - c.wrong_queue.min(n));
        row[1] += u64::from(c.wrong_queue.min(n));
        let level = ((f64::from(n).ln_1p() / log_top) * (LEVELS - 1) as f64).round() as usize;
        let hue = [c.local, c.near, c.far]
            .iter()
            .enumerate()
            .max_by_key(|&(i, v)| (*v, 3 - i))
            .map_or(0, |(i, _)| i);
        buckets[hue * LEVELS + level.min(LEVELS - 1)].push((c.queue, c.cpu));
        if c.wrong_queue * 2 > n {
            wrong.push((c.queue, c.cpu));
        }
    }
    for (b, cells) in buckets.iter().enumerate().filter(|(_, c)| !c.is_empty()) {
        let strength = 0.25 + 0.75 * (b % LEVELS) as f64 / (LEVELS - 1) as f64;
        ctx.set_fill_style_str(&rgba(HUES[b / LEVELS], strength));
        for &(q, c) in cells {
            ctx.fill_rect(
                LEFT + f64::from(c) * cw,
                TOP + f64::from(q) * ch,
                cw.max(1.0),
                ch.max(1.0),
            );
        }
    }
    // Arrived on a queue not the reader's: a dark band across the cell's top half.
    ctx.set_fill_style_str("rgba(27,31,36,0.55)");
    for &(q, c) in &wrong {
        ctx.fill_rect(
            LEFT + f64::from(c) * cw,
            TOP + f64::from(q) * ch,
            cw.max(1.0),
            (ch * 0.45).max(1.0),
        );
    }
    paint_other_filter(ctx, &by_other, (cw, ch));
    paint_numa(ctx, m, (cw, ch), width);
    // Left margin: each queue's packets per second, as a bar growing leftwards; vermillion
    // for the packets that arrived on a queue not their reader's.
    let row_top = row_pps.iter().map(|r| r[0] + r[1]).max().unwrap_or(1).max(1) as f64;
    for (q, &[right, wrong]) in row_pps.iter().enumerate() {
        let room = LEFT - LABELS - 4.0;
        let (w_right, w_wrong) = (room * right as f64 / row_top, room * wrong as f64 / row_top);
        let y = TOP + q as f64 * ch;
        ctx.set_fill_style_str(&rgba(0, 0.8));
        ctx.fill_rect(LEFT - 2.0 - w_right, y, w_right, (ch - 0.5).max(0.5));
        ctx.set_fill_style_str(&rgba(5, 0.9));
        ctx.fill_rect(LEFT - 2.0 - w_right - w_wrong, y, w_wrong, (ch - 0.5).max(0.5));
    }
    // The aRFS strip: add (blue), re-point (vermillion), expire (black), log strength, dim;
    // the re-points of the last 100 ms flash at full strength over them.
    let strip_top = m.arfs.iter().flatten().copied().max().unwrap_or(1).max(1);
    let log_strip = f64::from(strip_top).ln_1p();
    for (q, counts) in m.arfs.iter().enumerate() {
        for (k, (&n, colour)) in counts.iter().zip([0usize, 5, 7]).enumerate() {
            if n > 0 {
                ctx.set_fill_style_str(&rgba(colour, 0.1 + 0.5 * f64::from(n).ln_1p() / log_strip));
                ctx.fill_rect(
                    width - RIGHT + 3.0 + k as f64 * 7.0,
                    TOP + q as f64 * ch,
                    6.0,
                    ch.max(1.0),
                );
            }
        }
    }
    ctx.set_fill_style_str(&rgba(5, 1.0));
    for (q, _) in m.arfs_now.iter().enumerate().filter(|(_, &n)| n > 0) {
        ctx.fill_rect(width - RIGHT + 10.0, TOP + q as f64 * ch, 6.0, ch.max(1.0));
    }
    // Bottom margin: softirq load per CPU, scaled to the busiest (red above 80 %).
    let busiest = busiest_permille(cpus);
    for c in cpus.iter().take(usize::from(m.cpus)) {
        let h = 24.0 * f64::from(c.softirq_permille.min(1000)) / f64::from(busiest);
        ctx.set_fill_style_str(&rgba(if c.softirq_permille > 800 { 5 } else { 1 }, 0.9));
        ctx.fill_rect(
            LEFT + f64::from(c.index) * cw,
            TOP + rows_h + 2.0 + 24.0 - h,
            cw.max(1.0),
            h,
        );
    }
    if let Some((q, c)) = m.selected {
        ctx.set_stroke_style_str("#1b1f24");
        ctx.set_line_width(1.5);
        ctx.stroke_rect(
            LEFT + f64::from(c) * cw - 1.0,
            TOP + f64::from(q) * ch - 1.0,
            cw + 2.0,
            ch + 2.0,
        );
    }
    // The cell the lesson's step points at: a ring in the step outline's colour.
    if let Some((q, c)) = mark {
        ctx.set_stroke_style_str(&rgba(1, 1.0));
        ctx.set_line_width(2.0);
        ctx.stroke_rect(
            LEFT + f64::from(c) * cw - 3.0,
            TOP + f64::from(q) * ch - 3.0,
            cw + 6.0,
            ch + 6.0,
        );
    }
}

/// The busiest CPU's softirq load, per mille (at least 1).
fn busiest_permille(cpus: &[CpuView]) -> u32 {
    cpus.iter()
        .map(|c| c.softirq_permille)
        .max()
        .unwrap_or(1)
        .clamp(1, 1000)
}

/// Properties of [`HostMatrix`].
#[derive(Properties, PartialEq)]
pub struct MatrixProps {
    /// The picture.
    pub view: Rc<MatrixView>,
    /// The CPUs (softirq load).
    pub cpus: Vec<CpuView>,
    /// A cell was clicked (or cleared).
    pub on_select: Callback<Option<(u16, u16)>>,
    /// A flow of the selected cell should be traced.
    pub on_trace: Callback<u32>,
    /// The cell the current lesson step points at.
    #[prop_or_default]
    pub mark: Option<(u16, u16)>,
    /// `data-testid` of the canvas (one per host in the compare view).
    #[prop_or(AttrValue::Static("host-matrix"))]
    pub testid: AttrValue,
}

/// The host matrix with its hover line, the flows by fate and the selected cell's flows.
#[component]
pub fn HostMatrix(p: &MatrixProps) -> Html {
    let canvas = use_node_ref();
    let (size, generation) = use_css_size(&canvas);
    let hover = use_state(|| None::<(u16, u16)>);
    // The canvas shape (backing store size, queues, CPUs) its labels were drawn for.
    let labelled = use_memo((), |_| std::cell::Cell::new(None::<(u32, u32, u16, u16)>));
    // Painted at most every MIN_PAINT_MS (rates over the last second need no more): at full
    // speed a view comes every frame, and rastering the canvas each time took frames from
    // the page on a two-core machine where the engine has the other core.
    let last_paint = use_memo((), |_| std::cell::Cell::new(f64::NEG_INFINITY));
    let pending = use_mut_ref(|| None::<gloo::timers::callback::Timeout>);
    {
        let (canvas, size, cpus, labelled) = (canvas.clone(), size.clone(), p.cpus.clone(), labelled.clone());
        let (last_paint, pending) = (last_paint.clone(), pending.clone());
        use_effect_with((p.view.clone(), p.mark, generation), move |(m, mark, _)| {
            let (m, mark, painted) = (m.clone(), *mark, last_paint.clone());
            let draw = move || {
                let Some(el) = canvas.cast::<HtmlCanvasElement>() else {
                    return;
                };
                let css = size.of(&el);
                let scale = fit_to_device_pixels(&el, css);
                let Some(ctx) = el
                    .get_context("2d")
                    .ok()
                    .flatten()
                    .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
                else {
                    return;
                };
                let _ = ctx.set_transform(scale, 0.0, 0.0, scale, 0.0, 0.0);
                // A resized backing store is blank: the labels are drawn again.
                let shape = (el.width(), el.height(), m.queues, m.cpus);
                if labelled.get() != Some(shape) {
                    paint_labels(&ctx, &m, css.0);
                    labelled.set(Some(shape));
                }
                paint(&ctx, &m, &cpus, css.0, mark);
                painted.set(crate::components::now_ms());
            };
            let wait = last_paint.get() + MIN_PAINT_MS - crate::components::now_ms();
            // Replacing a pending paint cancels it: the newest view is painted.
            *pending.borrow_mut() = None;
            if wait <= 0.0 {
                draw();
            } else {
                *pending.borrow_mut() = Some(gloo::timers::callback::Timeout::new(wait as u32, draw));
            }
        });
    }
    let m = p.view.clone();
    let point = {
        let (canvas, m) = (canvas.clone(), m.clone());
        move |e: &MouseEvent| {
            let width = canvas
                .cast::<HtmlCanvasElement>()
                .map_or(1.0, |c| f64::from(c.client_width()));
            cell_at(&m, width, (f64::from(e.offset_x()), f64::from(e.offset_y())))
        }
    };
    let onmousemove = {
        let (hover, point) = (hover.clone(), point.clone());
        Callback::from(move |e: MouseEvent| hover.set(point(&e)))
    };
    let onmouseleave = {
        let hover = hover.clone();
        Callback::from(move |_| hover.set(None))
    };
    let onclick = p.on_select.reform(move |e: MouseEvent| point(&e));
    // The keyboard's way to what hover and click do: arrows move a cursor over the cells
    // (named in the hover line, which screen readers hear), Enter lists the cell's flows,
    // Escape closes the list.
    let onkeydown = {
        let (hover, m, on_select) = (hover.clone(), m.clone(), p.on_select.clone());
        Callback::from(move |e: KeyboardEvent| {
            let (q, c) = (*hover).or(m.selected).unwrap_or((0, 0));
            let (q, c) = (i32::from(q), i32::from(c));
            let moved = match e.key().as_str() {
                "ArrowUp" => (q - 1, c),
                "ArrowDown" => (q + 1, c),
                "ArrowLeft" => (q, c - 1),
                "ArrowRight" => (q, c + 1),
                "PageUp" => (q - 8, c),
                "PageDown" => (q + 8, c),
                "Enter" | " " => {
                    e.prevent_default();
                    return on_select.emit(Some((q as u16, c as u16)));
                }
                "Escape" => return on_select.emit(None),
                _ => return,
            };
            e.prevent_default();
            let clamp = |v: i32, n: u16| v.clamp(0, i32::from(n.max(1)) - 1) as u16;
            hover.set(Some((clamp(moved.0, m.queues), clamp(moved.1, m.cpus))));
        })
    };
    let described = hover.or(m.selected).or(p.mark).map(|(q, c)| describe(&m, q, c));
    html! {
        <div class="matrix">
            <canvas ref={canvas} class={classes!("host-matrix", m.measuring_ms.is_some().then_some("measuring"))} data-testid={p.testid.clone()} role="img" tabindex="0" {onmousemove} {onmouseleave} {onclick} {onkeydown}
                style={format!("height:{}px", TOP + rows_height(m.queues) + BOTTOM)}
                data-geometry={format!("{LEFT} {RIGHT} {TOP} {}", rows_height(m.queues))}
                aria-label={format!("{} RX queues by {} CPUs: packets per second of the last simulated second, green on the reader's CPU, yellow on its NUMA node, vermillion on the other node, dark band: arrived on a queue not the reader's; click a cell (or move with the arrow keys and press Enter) to list its flows", m.queues, m.cpus)}></canvas>
            if let Some(ms) = m.measuring_ms {
                <p class="matrix-measuring" data-testid="matrix-measuring" role="status">
                    { format!("Measuring your change ({ms} ms of 1,000): the picture is the last full second before it.") }
                </p>
            }
            <p class="matrix-hover" data-testid="matrix-hover" aria-live="polite">
                { described.unwrap_or_else(|| format!("rows: RX queues · columns: CPUs · cells: packets/s of the last {} ms · left: packets/s per queue · right: aRFS add / re-point / expire per s, re-points of the last {} ms flashing · bottom: softirq load per CPU (busiest {} %)", m.window_ms, m.now_ms, busiest_permille(&p.cpus) / 10)) }
            </p>
            <ul class="matrix-key" aria-label="colours of the matrix">
                <li><span class="chip own"></span>{ "on the reader's CPU" }</li>
                <li><span class="chip near"></span>{ "another CPU of its node" }</li>
                <li><span class="chip wrong"></span>{ if m.nodes > 1 { "the other NUMA node" } else { "no reader" } }</li>
                <li><span class="chip band"></span>{ "dark band / vermillion bar: arrived on a queue not its reader's" }</li>
                <li><span class="chip other-filter"></span>{ "dot: sent there by an aRFS filter not its own" }</li>
                if m.nodes > 1 { <li><span class="chip dash"></span>{ "NUMA boundary" }</li> }
                <li data-testid="sock-writes-now">{ format!("socket-table writes: {} in the last {} ms", m.sock_writes_now, m.now_ms) }</li>
            </ul>
            { fates_view(&m.fates) }
            if let Some((q, c)) = m.selected {
                <div class="cell-flows" data-testid="matrix-cell-flows">
                    <strong>{ format!("rx-{q} → CPU {c}: busiest flows ") }</strong>
                    <button class="small" onclick={p.on_select.reform(|_: MouseEvent| None)}>{ "close" }</button>
                    <ul>
                        { for m.selected_flows.iter().map(|f| {
                            let flow = f.flow;
                            html! {
                                <li class={classes!(f.remote.then_some("remote"))}>
                                    <button class="small" data-testid="matrix-trace" onclick={p.on_trace.reform(move |_: MouseEvent| flow)}>{ "trace" }</button>
                                    { format!(" {} · {} packets/s{}", f.label, f.pps, if f.remote { " · off its reader's CPU" } else { "" }) }
                                </li>
                            }
                        }) }
                    </ul>
                </div>
            }
        </div>
    }
}

/// The flows by what steers them: a stacked bar and its counts.
fn fates_view(f: &crate::protocol::Fates) -> Html {
    let fates = [
        ("own", "by their own aRFS filter", f.own_filter),
        (
            "wrong",
            "by an aRFS filter to a queue not their reader's",
            f.wrong_filter,
        ),
        ("rss", "by RSS", f.rss),
        ("other", "by another NIC rule", f.other_filter),
        ("dropped", "dropped", f.dropped),
    ];
    let total = fates.iter().map(|x| x.2).sum::<u32>().max(1);
    html! {
        <div class="fates" data-testid="flow-fates" aria-label="flows by what steers them">
            <div class="fate-bar" aria-hidden="true">
                { for fates.iter().filter(|x| x.2 > 0).map(|(k, _, n)| html! { <span class={classes!("fate", *k)} style={format!("width:{}%", f64::from(*n) * 100.0 / f64::from(total))}></span> }) }
            </div>
            <ul>
                { for fates.iter().map(|(k, label, n)| html! { <li><span class={classes!("chip", *k)}></span>{ format!("{} {label}", crate::components::count(*n, "flow")) }</li> }) }
            </ul>
        </div>
    }
}

/// One cell in words: its packets, their share on the reader's CPU, its queue's aRFS churn.
fn describe(m: &MatrixView, q: u16, c: u16) -> String {
    let cell = m.cells.iter().find(|x| x.queue == q && x.cpu == c).copied();
    let (local, wrong, other) = cell.map_or((0, 0, 0), |x| (x.local, x.wrong_queue, x.by_other_filter));
    let n = cell.map_or(0, |x| x.total());
    let share = if n == 0 {
        String::new()
    } else {
        let pct = |x: u32| u64::from(x) * 100 / u64::from(n);
        format!(
            ", {} % on the reader's CPU, {} % arrived on a queue not the reader's, {} % sent there by an aRFS filter not their own",
            pct(local),
            pct(wrong),
            pct(other)
        )
    };
    let [add, update, expire] = m.arfs.get(usize::from(q)).copied().unwrap_or_default();
    format!("rx-{q} → CPU {c}: {n} packets/s{share} · rx-{q}'s aRFS filters per s: {add} added, {update} re-pointed, {expire} expired")
}
