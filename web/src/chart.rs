//! Charts drawn with plotters on a canvas, sized by devicePixelRatio so they stay crisp.

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

/// Okabe-Ito colour-blind-safe palette (Okabe & Ito, "Color Universal Design", 2008).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(230, 159, 0),   // orange
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(240, 228, 66),  // yellow
    RGBColor(0, 0, 0),       // black
];

/// Resizes the canvas backing store to its CSS size times devicePixelRatio.
pub fn fit_to_device_pixels(canvas: &HtmlCanvasElement) {
    let ratio = web_sys::window().map(|w| w.device_pixel_ratio()).unwrap_or(1.0).max(1.0);
    let css_w = f64::from(canvas.client_width().max(1));
    let css_h = f64::from(canvas.client_height().max(1));
    let (w, h) = ((css_w * ratio).round() as u32, (css_h * ratio).round() as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
}

/// A bar chart of packets per RX queue.
pub fn draw_rx_queues(canvas: HtmlCanvasElement, packets: &[u64]) -> Result<(), String> {
    fit_to_device_pixels(&canvas);
    let scale = web_sys::window().map(|w| w.device_pixel_ratio()).unwrap_or(1.0).max(1.0);
    let font = |px: f64| ("sans-serif", px * scale);
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("canvas has no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let n = packets.len().max(1) as u32;
    let top = packets.iter().copied().max().unwrap_or(0).max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption("packets per RX queue", font(14.0))
        .margin((8.0 * scale) as u32)
        .x_label_area_size((28.0 * scale) as u32)
        .y_label_area_size((52.0 * scale) as u32)
        .build_cartesian_2d((0u32..n - 1).into_segmented(), 0u64..top + top / 10 + 1)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .max_light_lines(1)
        .x_desc("RX queue")
        .y_desc("packets")
        .label_style(font(11.0))
        .axis_desc_style(font(12.0))
        .draw()
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(packets.iter().enumerate().map(|(i, &p)| {
            let i = i as u32;
            let color = PALETTE[i as usize % 4];
            Rectangle::new([(SegmentValue::Exact(i), 0), (SegmentValue::Exact(i + 1), p)], color.filled())
        }))
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}
