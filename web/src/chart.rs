//! Charts drawn with plotters on a canvas, sized by devicePixelRatio so they stay crisp, with
//! legends and axis labels; exported as PNG (the canvas) and CSV (the data).

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

use crate::controller::Series;

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
    Bars { title: &'static str, x: &'static str, y: &'static str, values: Vec<u64>, warn: Vec<bool> },
    /// Lines over the last samples (per 100 ms of simulated time).
    Lines { title: &'static str, y: &'static str, series: Vec<Series> },
}

impl ChartData {
    /// The data as CSV (header row, then one row per item or sample).
    pub fn to_csv(&self) -> String {
        match self {
            ChartData::Bars { x, y, values, .. } => {
                let mut out = format!("{x},{y}\n");
                values.iter().enumerate().for_each(|(i, v)| out.push_str(&format!("{i},{v}\n")));
                out
            }
            ChartData::Lines { series, .. } => {
                let names: Vec<&str> = series.iter().map(|s| s.name).collect();
                let mut out = format!("sample,{}\n", names.join(","));
                let n = series.iter().map(|s| s.values.len()).max().unwrap_or(0);
                for i in 0..n {
                    let row: Vec<String> = series.iter().map(|s| s.values.get(i).map_or(String::new(), |v| format!("{v:.0}"))).collect();
                    out.push_str(&format!("{i},{}\n", row.join(",")));
                }
                out
            }
        }
    }
}

/// Resizes the canvas backing store to its CSS size times devicePixelRatio; returns the ratio.
pub fn fit_to_device_pixels(canvas: &HtmlCanvasElement) -> f64 {
    let ratio = web_sys::window().map(|w| w.device_pixel_ratio()).unwrap_or(1.0).max(1.0);
    let css_w = f64::from(canvas.client_width().max(1));
    let css_h = f64::from(canvas.client_height().max(1));
    let (w, h) = ((css_w * ratio).round() as u32, (css_h * ratio).round() as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    ratio
}

/// Draws `data` on `canvas`.
pub fn draw(canvas: HtmlCanvasElement, data: &ChartData) -> Result<(), String> {
    let scale = fit_to_device_pixels(&canvas);
    let font = |px: f64| ("sans-serif", px * scale);
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("canvas has no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let px = |v: f64| (v * scale) as u32;
    match data {
        ChartData::Bars { title, x, y, values, warn } => {
            // Bars on the same f64 × f64 axes as the lines: one instantiation of plotters'
            // chart code for both kinds keeps the page bundle smaller.
            let n = values.len().max(1) as f64;
            let top = values.iter().copied().max().unwrap_or(0).max(1) as f64;
            let mut chart = ChartBuilder::on(&root)
                .caption(*title, font(14.0))
                .margin(px(8.0))
                .x_label_area_size(px(28.0))
                .y_label_area_size(px(60.0))
                .build_cartesian_2d(-0.5f64..n - 0.5, 0f64..top * 1.1)
                .map_err(|e| e.to_string())?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .max_light_lines(1)
                .x_desc(*x)
                .y_desc(*y)
                .x_label_formatter(&|v| format!("{v:.0}"))
                .y_label_formatter(&|v| format!("{v:.0}"))
                .label_style(font(11.0))
                .axis_desc_style(font(12.0))
                .draw()
                .map_err(|e| e.to_string())?;
            chart
                .draw_series(values.iter().enumerate().map(|(i, &v)| {
                    let color = if warn.get(i).copied().unwrap_or(false) { PALETTE[5] } else { PALETTE[i % 4] };
                    let x = i as f64;
                    Rectangle::new([(x - 0.45, 0.0), (x + 0.45, v as f64)], color.filled())
                }))
                .map_err(|e| e.to_string())?;
        }
        ChartData::Lines { title, y, series } => {
            let n = series.iter().map(|s| s.values.len()).max().unwrap_or(0).max(2);
            let top = series.iter().flat_map(|s| s.values.iter().copied()).fold(1.0f64, f64::max);
            let mut chart = ChartBuilder::on(&root)
                .caption(*title, font(14.0))
                .margin(px(8.0))
                .x_label_area_size(px(28.0))
                .y_label_area_size(px(60.0))
                .build_cartesian_2d(0f64..(n - 1) as f64 / 10.0, 0f64..top * 1.1)
                .map_err(|e| e.to_string())?;
            chart
                .configure_mesh()
                .max_light_lines(1)
                .x_desc("simulated seconds (last 12 s)")
                .y_desc(*y)
                .label_style(font(11.0))
                .axis_desc_style(font(12.0))
                .draw()
                .map_err(|e| e.to_string())?;
            for (k, s) in series.iter().enumerate() {
                let color = if s.name == "remote" { PALETTE[5] } else { PALETTE[k % 5] };
                chart
                    .draw_series(LineSeries::new(s.values.iter().enumerate().map(|(i, &v)| (i as f64 / 10.0, v)), color.stroke_width(px(2.0))))
                    .map_err(|e| e.to_string())?
                    .label(s.name)
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(3)));
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .label_font(font(11.0))
                .draw()
                .map_err(|e| e.to_string())?;
        }
    }
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}
