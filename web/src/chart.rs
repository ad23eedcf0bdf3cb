//! Charts drawn with plotters on a canvas, sized by devicePixelRatio so they stay crisp, with
//! legends and axis labels; exported as PNG (the canvas) and CSV (the data).

use pb::{BackendColor, BackendCoord, DrawingErrorKind};
use plotters::prelude::*;
use plotters_backend as pb;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::protocol::{QueueView, Series};

/// Okabe-Ito colour-blind-safe palette (Okabe & Ito, "Color Universal Design", 2008).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(230, 159, 0),   // orange
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(213, 94, 0),    // vermillion: the warning colour (remote, drops)
    RGBColor(240, 228, 66),  // yellow
    RGBColor(0, 0, 0),       // black
];

/// What a chart shows.
#[derive(Clone, Debug, PartialEq)]
pub enum ChartData {
    /// One bar per item (RX queue, CPU); `warn` bars are drawn in the warning colour.
    Bars {
        title: &'static str,
        x: &'static str,
        y: &'static str,
        values: Vec<u64>,
        warn: Vec<bool>,
    },
    /// Lines over the last samples (per 100 ms of simulated time); `log`: a log10 y axis
    /// (a storm of thousands per second stays visible beside a million, values below 1 sit
    /// at 1).
    Lines {
        title: &'static str,
        y: &'static str,
        series: Vec<Series>,
        log: bool,
        /// The learner's commands, in seconds from the first sample: a dashed line each.
        marks: Vec<f64>,
    },
}

impl ChartData {
    /// Packets per second per RX queue over the last simulated second, queues that dropped
    /// in the warning colour (the sandbox's chart and each compare host's).
    pub fn rx_queues(queues: &[QueueView]) -> ChartData {
        ChartData::Bars {
            title: "packets per second per RX queue (the last simulated second)",
            x: "RX queue",
            y: "packets/s",
            values: queues.iter().map(|q| q.pps).collect(),
            warn: queues.iter().map(|q| q.drops > 0 && !q.drops_hidden).collect(),
        }
    }

    /// The data as CSV (header row, then one row per item or sample).
    pub fn to_csv(&self) -> String {
        match self {
            ChartData::Bars { x, y, values, .. } => {
                let mut out = format!("{x},{y}\n");
                values
                    .iter()
                    .enumerate()
                    .for_each(|(i, v)| out.push_str(&format!("{i},{v}\n")));
                out
            }
            ChartData::Lines { series, .. } => {
                let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
                let mut out = format!("sample,{}\n", names.join(","));
                let n = series.iter().map(|s| s.values.len()).max().unwrap_or(0);
                for i in 0..n {
                    let row: Vec<String> = series
                        .iter()
                        .map(|s| s.values.get(i).map_or(String::new(), |v| format!("{v:.0}")))
                        .collect();
                    out.push_str(&format!("{i},{}\n", row.join(",")));
                }
                out
            }
        }
    }
}

/// A canvas's CSS size, read from the DOM once and again only after [`CssSize::forget`] (the
/// window resized, or the canvas's height changed). Reading `clientWidth` after the page
/// changed makes the browser recompute styles and layout there and then; once per canvas and
/// frame that cost more than the simulation on seed 000's host.
#[derive(Debug, Default)]
pub struct CssSize(std::cell::Cell<Option<(f64, f64)>>);

impl CssSize {
    /// The size, from the cache or from the DOM (cached once the canvas is laid out).
    pub fn of(&self, canvas: &HtmlCanvasElement) -> (f64, f64) {
        if let Some(size) = self.0.get() {
            return size;
        }
        let size = (f64::from(canvas.client_width()), f64::from(canvas.client_height()));
        if size.0 > 1.0 && size.1 > 1.0 {
            self.0.set(Some(size));
        }
        (size.0.max(1.0), size.1.max(1.0))
    }

    /// Reads the DOM again next time.
    pub fn forget(&self) {
        self.0.set(None);
    }
}

/// Resizes the canvas backing store to its CSS size times devicePixelRatio; returns the ratio.
pub fn fit_to_device_pixels(canvas: &HtmlCanvasElement, (css_w, css_h): (f64, f64)) -> f64 {
    let ratio = web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .unwrap_or(1.0)
        .max(1.0);
    let (w, h) = ((css_w * ratio).round() as u32, (css_h * ratio).round() as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    ratio
}

/// plotters' canvas backend, except that text is measured with the canvas's own
/// `measureText`. plotters' default measures each label by adding a span to the page and
/// reading its `offsetHeight`, which makes the browser restyle and lay out the whole page once
/// per label: on seed 000's host that was most of the page's time.
///
/// It also draws unrotated text itself and sets the context's font only when it changes:
/// plotters-canvas sets it for every label, and the browser parses the CSS font string each
/// time (15 % of the page's time at 144 CPUs, where the charts have hundreds of labels).
/// Rotated text goes to plotters-canvas, inside a save/restore that gives the font back.
struct Canvas {
    inner: CanvasBackend,
    ctx: CanvasRenderingContext2d,
    /// The font this frame last set on the context.
    font: std::cell::RefCell<String>,
}

impl Canvas {
    fn set_font<T: pb::BackendTextStyle>(&self, style: &T) {
        let font = format!(
            "{} {}px {}",
            style.style().as_str(),
            style.size(),
            style.family().as_str()
        );
        if *self.font.borrow() != font {
            self.ctx.set_font(&font);
            *self.font.borrow_mut() = font;
        }
    }
}

type CanvasError = <CanvasBackend as DrawingBackend>::ErrorType;

impl DrawingBackend for Canvas {
    type ErrorType = CanvasError;
    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_pixel(point, color)
    }
    fn draw_line<S: pb::BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_line(from, to, style)
    }
    fn draw_rect<S: pb::BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_rect(a, b, style, fill)
    }
    fn draw_path<S: pb::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_path(path, style)
    }
    fn draw_circle<S: pb::BackendStyle>(
        &mut self,
        c: BackendCoord,
        r: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_circle(c, r, style, fill)
    }
    fn fill_polygon<S: pb::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.fill_polygon(vert, style)
    }
    fn draw_text<T: pb::BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        let color = style.color();
        if !matches!(style.transform(), pb::FontTransform::None) || color.alpha == 0.0 {
            return self.inner.draw_text(text, style, pos);
        }
        self.set_font(style);
        let anchor = style.anchor();
        self.ctx.set_text_align(match anchor.h_pos {
            pb::text_anchor::HPos::Left => "start",
            pb::text_anchor::HPos::Center => "center",
            pb::text_anchor::HPos::Right => "end",
        });
        self.ctx.set_text_baseline(match anchor.v_pos {
            pb::text_anchor::VPos::Top => "top",
            pb::text_anchor::VPos::Center => "middle",
            pb::text_anchor::VPos::Bottom => "bottom",
        });
        let (r, g, b) = color.rgb;
        self.ctx
            .set_fill_style_str(&format!("rgba({r},{g},{b},{})", color.alpha));
        match self.ctx.fill_text(text, f64::from(pos.0), f64::from(pos.1)) {
            Ok(()) => Ok(()),
            // The backend reports the error in its own type.
            Err(_) => self.inner.draw_text(text, style, pos),
        }
    }
    fn estimate_text_size<T: pb::BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        // The same font string text is drawn with.
        self.set_font(style);
        let width = self.ctx.measure_text(text).map_or(0.0, |m| m.width());
        Ok((width.ceil() as u32, style.size().ceil() as u32))
    }
}

/// A value on a y axis in few characters: `0.2`, `950`, `12.5k`, `2M`: one decimal at most,
/// none when it would be 0; the unit is picked after rounding (999,950 is `1M`).
fn compact(v: f64) -> String {
    let (x, unit) = match v.abs() {
        a if a >= 999_950_000.0 => (v / 1e9, "G"),
        a if a >= 999_950.0 => (v / 1e6, "M"),
        a if a >= 999.95 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let digits = if (x * 10.0).round() % 10.0 == 0.0 { 0 } else { 1 };
    format!("{x:.digits$}{unit}")
}

/// A series' colour: "remote" always in the warning colour, the others by their place.
fn colour(k: usize, s: &Series) -> RGBColor {
    if s.name == "remote" {
        PALETTE[5]
    } else {
        PALETTE[k % 5]
    }
}

/// The lines' legend, top left in the plot (`area`: its pixel ranges; the newest values are
/// on the right). Drawn here: plotters' series labels measure each label by adding a span to
/// the page (a forced layout per label per frame).
fn legend(
    root: &DrawingArea<Canvas, plotters::coord::Shift>,
    (xs, ys): (std::ops::Range<i32>, std::ops::Range<i32>),
    series: &[Series],
    scale: f64,
) -> Result<(), String> {
    if series.is_empty() {
        return Ok(());
    }
    let px = |v: f64| (v * scale) as i32;
    let text = TextStyle::from((FontFamily::SansSerif, 11.0 * scale)).pos(pb::text_anchor::Pos::new(
        pb::text_anchor::HPos::Left,
        pb::text_anchor::VPos::Center,
    ));
    let label_w = series
        .iter()
        .filter_map(|s| root.estimate_text_size(&s.name, &text).ok())
        .map(|(w, _)| w as i32)
        .max()
        .unwrap_or(0);
    let (row, pad) = (px(16.0), px(6.0));
    let (w, h) = (label_w + 3 * pad + px(16.0), row * series.len() as i32 + pad);
    let (x0, y0) = (xs.start + pad, ys.start + pad);
    let boxed = |style: ShapeStyle| Rectangle::new([(x0, y0), (x0 + w, y0 + h)], style);
    root.draw(&boxed(WHITE.mix(0.8).filled())).map_err(|e| e.to_string())?;
    root.draw(&boxed(BLACK.into())).map_err(|e| e.to_string())?;
    for (k, s) in series.iter().enumerate() {
        let y = y0 + pad / 2 + row * k as i32 + row / 2;
        let stroke = colour(k, s).stroke_width(px(3.0) as u32);
        root.draw(&PathElement::new(vec![(x0 + pad, y), (x0 + pad + px(16.0), y)], stroke))
            .map_err(|e| e.to_string())?;
        root.draw_text(&s.name, &text, (x0 + 2 * pad + px(16.0), y))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A chart's frame on `root`: its title, room for the axes' labels and names, and the axes
/// over `xs` × `ys` (`scale`: device pixels per CSS pixel).
fn frame<'a>(
    root: &'a DrawingArea<Canvas, plotters::coord::Shift>,
    title: &str,
    xs: std::ops::Range<f64>,
    ys: std::ops::Range<f64>,
    scale: f64,
) -> Result<
    ChartContext<
        'a,
        Canvas,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    String,
> {
    let px = |v: f64| (v * scale) as u32;
    ChartBuilder::on(root)
        .caption(title, (FontFamily::SansSerif, 14.0 * scale))
        .margin(px(8.0))
        .x_label_area_size(px(38.0))
        .y_label_area_size(px(56.0))
        .build_cartesian_2d(xs, ys)
        .map_err(|e| e.to_string())
}

/// Draws `data` on `canvas`, whose CSS size is `css`.
pub fn draw(canvas: HtmlCanvasElement, css: (f64, f64), data: &ChartData) -> Result<(), String> {
    let scale = fit_to_device_pixels(&canvas, css);
    let font = |px: f64| (FontFamily::SansSerif, px * scale);
    let ctx: CanvasRenderingContext2d = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into().ok())
        .ok_or("canvas has no 2d context")?;
    let inner = CanvasBackend::with_canvas_object(canvas).ok_or("canvas has no 2d context")?;
    let backend = Canvas {
        inner,
        ctx,
        font: Default::default(),
    };
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let px = |v: f64| (v * scale) as u32;
    match data {
        ChartData::Bars {
            title,
            x,
            y,
            values,
            warn,
        } => {
            // Bars on the same f64 × f64 axes as the lines: one instantiation of plotters'
            // chart code for both kinds keeps the page bundle smaller.
            let n = values.len().max(1) as f64;
            let top = values.iter().copied().max().unwrap_or(0).max(1) as f64;
            let mut chart = frame(&root, title, -0.5f64..n - 0.5, 0f64..top * 1.1, scale)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .max_light_lines(1)
                .x_desc(*x)
                .y_desc(*y)
                // Ticks fall between bars too: only whole numbers name a bar.
                .x_label_formatter(&|v| {
                    if (v - v.round()).abs() < 1e-6 {
                        format!("{}", v.round() as i64)
                    } else {
                        String::new()
                    }
                })
                .y_label_formatter(&|v| compact(*v))
                .label_style(font(11.0))
                .axis_desc_style(font(12.0))
                .draw()
                .map_err(|e| e.to_string())?;
            chart
                .draw_series(values.iter().enumerate().map(|(i, &v)| {
                    let color = if warn.get(i).copied().unwrap_or(false) {
                        PALETTE[5]
                    } else {
                        PALETTE[i % 4]
                    };
                    let x = i as f64;
                    Rectangle::new([(x - 0.45, 0.0), (x + 0.45, v as f64)], color.filled())
                }))
                .map_err(|e| e.to_string())?;
        }
        ChartData::Lines {
            title,
            y,
            series,
            log,
            marks,
        } => {
            let n = series.iter().map(|s| s.values.len()).max().unwrap_or(0).max(2);
            // On a log axis a line is drawn at log10(v); ticks name whole powers of ten only.
            let at = |v: f64| if *log { v.max(1.0).log10() } else { v };
            let top = series
                .iter()
                .flat_map(|s| s.values.iter().copied())
                .fold(1.0f64, f64::max);
            let ys = if *log {
                0f64..(at(top) + 0.3).ceil()
            } else {
                0f64..top * 1.1
            };
            let (y_lo, y_hi) = (ys.start, ys.end);
            let mut chart = frame(&root, title, 0f64..(n - 1) as f64 / 10.0, ys, scale)?;
            let label = |v: &f64| match *log {
                false => compact(*v),
                true if (v - v.round()).abs() < 1e-6 => compact(10f64.powf(v.round())),
                true => String::new(),
            };
            chart
                .configure_mesh()
                .max_light_lines(1)
                .x_desc("simulated seconds (last 12 s)")
                .y_desc(*y)
                .y_label_formatter(&label)
                .label_style(font(11.0))
                .axis_desc_style(font(12.0))
                .draw()
                .map_err(|e| e.to_string())?;
            // The learner's commands: a dashed line at each, so a change reads against its cause.
            for &m in marks.iter().filter(|&&m| m >= 0.0 && m <= (n - 1) as f64 / 10.0) {
                chart
                    .draw_series(DashedLineSeries::new(
                        [(m, y_lo), (m, y_hi)],
                        px(5.0),
                        px(4.0),
                        BLACK.mix(0.6).stroke_width(px(1.5)),
                    ))
                    .map_err(|e| e.to_string())?;
            }
            for (k, s) in series.iter().enumerate() {
                chart
                    .draw_series(LineSeries::new(
                        s.values.iter().enumerate().map(|(i, &v)| (i as f64 / 10.0, at(v))),
                        colour(k, s).stroke_width(px(2.0)),
                    ))
                    .map_err(|e| e.to_string())?;
            }
            legend(&root, chart.plotting_area().get_pixel_range(), series, scale)?;
        }
    }
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::compact;

    #[test]
    fn axis_values_are_compact() {
        let shown: Vec<String> = [
            0.0,
            0.2,
            1.1,
            950.0,
            999.96,
            1000.0,
            12_500.0,
            400_000.0,
            999_950.0,
            2_000_000.0,
            1_250_000.0,
            3e9,
        ]
        .into_iter()
        .map(compact)
        .collect();
        assert_eq!(
            shown,
            ["0", "0.2", "1.1", "950", "1k", "1k", "12.5k", "400k", "1M", "2M", "1.2M", "3G"]
        );
    }
}
