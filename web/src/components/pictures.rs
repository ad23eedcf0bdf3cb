//! Pictures of a lesson's mechanism, drawn as SVG from the view (teaching.md: "a cost bar
//! growing by one kfunc call is a mechanism"): the XDP packet's cost bar, part by part; the tc
//! ingress block with where each kind of flow ends; the transmit path from the sending CPU
//! through XPS or `skb_tx_hash` to a TX queue. Each is one SVG string (a picture redrawn whole
//! each view: as text it costs the bundle a fraction of the virtual DOM's code), labelled for
//! screen readers with the same facts in words.

use std::fmt::Write;

use yew::prelude::*;

use crate::protocol::{TcEnd, TcPicture, TxPicture, XdpView};

/// Text made safe inside SVG markup.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// ns with two decimals.
fn ns(v: f64) -> String {
    format!("{v:.2} ns")
}

/// An SVG picture `w` × `h` (user units) with its description.
fn svg(w: f64, h: f64, label: &str, body: &str) -> Html {
    Html::from_html_unchecked(AttrValue::from(format!(
        r#"<svg class="picture" viewBox="0 0 {w} {h}" role="img" aria-label="{}" font-family="system-ui, sans-serif" font-size="12">{body}</svg>"#,
        esc(label)
    )))
}

/// `<text>` at (x, y).
fn text(out: &mut String, x: f64, y: f64, attrs: &str, s: &str) {
    let _ = write!(out, r#"<text x="{x:.1}" y="{y:.1}" {attrs}>{}</text>"#, esc(s));
}

/// `<rect>` with a tooltip.
fn rect(out: &mut String, (x, y, w, h): (f64, f64, f64, f64), attrs: &str, title: &str) {
    let _ = write!(
        out,
        r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{h:.1}" {attrs}><title>{}</title></rect>"#,
        w.max(0.0),
        esc(title)
    );
}

/// Colours of the XDP parts after the base (Okabe-Ito).
const PART_COLOURS: [&str; 6] = ["#e69f00", "#cc79a7", "#56b4e9", "#d55e00", "#009e73", "#f0e442"];

/// Properties of [`XdpCost`].
#[derive(Properties, PartialEq)]
pub struct XdpCostProps {
    /// The program's parts (`None`: no program loaded).
    pub view: Option<XdpView>,
    /// The lesson's budget, ns (a dashed line).
    #[prop_or(40.0)]
    pub goal_ns: f64,
    /// A question about these costs is open: the bar shows the packet's total and names the
    /// calls, not what each costs (teaching.md: the observation comes after the commitment).
    #[prop_or(false)]
    pub conceal: bool,
}

/// One XDP packet's cost, stacked: the driver's poll with a trivial program, then each kfunc
/// call or fallback of the program. The bar's total is the strip's ns per packet.
#[component]
pub fn XdpCost(p: &XdpCostProps) -> Html {
    let Some(v) = &p.view else {
        return html! {
            <div class="xdp-cost" data-testid="xdp-cost">
                <h2>{ "XDP: what one packet costs" }</h2>
                <p class="muted">{ "No XDP program is loaded: packets go up the stack (ip link set dev eth0 xdp obj PROGRAM)." }</p>
            </div>
        };
    };
    let total = v.base_ns + v.parts.iter().map(|(_, n)| n).sum::<f64>();
    if p.conceal {
        return concealed(v, total);
    }
    let top = (p.goal_ns * 1.25).max(total * 1.08);
    let x = |ns: f64| 10.0 + 580.0 * ns / top;
    let mut body = String::new();
    rect(
        &mut body,
        (10.0, 30.0, x(v.base_ns) - 10.0, 34.0),
        r##"fill="#0072b2""##,
        &format!("NAPI poll with a trivial program: {}", ns(v.base_ns)),
    );
    text(
        &mut body,
        (10.0 + x(v.base_ns)) / 2.0,
        52.0,
        r##"text-anchor="middle" fill="#fff" font-size="13""##,
        &format!("driver poll + program {}", ns(v.base_ns)),
    );
    let mut at = v.base_ns;
    for (i, (name, n)) in v.parts.iter().enumerate() {
        let colour = PART_COLOURS[i % PART_COLOURS.len()];
        rect(
            &mut body,
            (x(at), 30.0, x(at + n) - x(at), 34.0),
            &format!(r##"fill="{colour}" stroke="#fff""##),
            &format!("{name}: {}", ns(*n)),
        );
        at += n;
    }
    let goal = x(p.goal_ns);
    let _ = write!(
        body,
        r##"<line x1="{goal:.1}" x2="{goal:.1}" y1="18" y2="76" stroke="#1b1f24" stroke-dasharray="4 3"/>"##
    );
    text(
        &mut body,
        goal,
        14.0,
        r#"text-anchor="middle""#,
        &format!("goal {} ns", p.goal_ns),
    );
    text(
        &mut body,
        x(total).max(200.0),
        90.0,
        r#"text-anchor="end" font-size="13" font-weight="700""#,
        &format!("= {} per packet", ns(total)),
    );
    let label = format!(
        "{}: {} per packet = {} (driver poll and program){}",
        v.program,
        ns(total),
        ns(v.base_ns),
        v.parts
            .iter()
            .map(|(n, c)| format!(" + {} ({n})", ns(*c)))
            .collect::<String>()
    );
    html! {
        <div class="xdp-cost" data-testid="xdp-cost" data-total={format!("{total:.2}")}>
            <h2>{ "XDP: what one packet costs" }</h2>
            { svg(600.0, 96.0, &label, &body) }
            <ul class="xdp-parts">
                <li><span class="chip" style="background:#0072b2"></span>{ format!("driver poll + trivial program: {}", ns(v.base_ns)) }</li>
                { for v.parts.iter().enumerate().map(|(i, (name, n))| html! {
                    <li><span class="chip" style={format!("background:{}", PART_COLOURS[i % PART_COLOURS.len()])}></span><code>{ name }</code>{ format!(": {}", ns(*n)) }</li>
                }) }
                if v.parts.is_empty() {
                    <li class="muted">{ format!("no kfunc call per packet ({} strategy)", v.strategy) }</li>
                }
            </ul>
        </div>
    }
}

/// The cost bar while a question about it is open: the packet's total, and the calls it
/// makes, named without their costs.
fn concealed(v: &XdpView, total: f64) -> Html {
    let label = format!(
        "{}: {} per packet, the driver's poll, the program and {} kfunc calls (their costs show once you answer the question)",
        v.program,
        ns(total),
        v.parts.len()
    );
    let mut body = String::new();
    rect(&mut body, (10.0, 30.0, 560.0, 34.0), r##"fill="#8a94a3""##, &label);
    text(
        &mut body,
        290.0,
        52.0,
        r##"text-anchor="middle" fill="#fff" font-size="13""##,
        &format!("{} per packet: where it goes shows once you answer", ns(total)),
    );
    html! {
        <div class="xdp-cost" data-testid="xdp-cost" data-total={format!("{total:.2}")} data-concealed="true">
            <h2>{ "XDP: what one packet costs" }</h2>
            { svg(600.0, 96.0, &label, &body) }
            <ul class="xdp-parts">
                <li class="muted">{ "driver poll + trivial program" }</li>
                { for v.parts.iter().map(|(name, _)| html! { <li class="muted"><code>{ name }</code></li> }) }
            </ul>
        </div>
    }
}

/// Properties of [`TcBlockPicture`].
#[derive(Properties, PartialEq)]
pub struct TcBlockProps {
    /// The block (`None`: no ingress qdisc).
    pub view: Option<TcPicture>,
}

/// Where a kind of flow ends, in words.
fn verdict(end: TcEnd) -> &'static str {
    match end {
        TcEnd::NicDrop => "dropped in the NIC",
        TcEnd::SwDrop => "dropped by a software filter",
        TcEnd::Missed => "reaches its socket: its software filter never ran (bypass)",
        TcEnd::Socket => "reaches its socket",
    }
}

/// The ingress block: each kind of flow enters the NIC, where `skip_sw` filters act; what
/// passes meets `tc_run`, which classifies in software or skips the whole block; the rest
/// reaches its socket. Each kind's line ends where its packets end.
#[component]
pub fn TcBlockPicture(p: &TcBlockProps) -> Html {
    let Some(v) = &p.view else {
        return html! {
            <p class="muted" data-testid="tc-block">{ "No ingress qdisc: tc qdisc add dev eth0 ingress, then tc filter add …" }</p>
        };
    };
    let h = 56.0 + 36.0 * v.kinds.len().max(1) as f64;
    let (nic, sw, sock) = (200.0, 360.0, 560.0);
    let mut b = String::new();
    rect(
        &mut b,
        (nic - 40.0, 36.0, 100.0, h - 42.0),
        r##"rx="6" fill="#eef5fb" stroke="#0072b2""##,
        "the NIC: filters in hardware (in_hw)",
    );
    let (fill, stroke, dash) = if v.bypass {
        ("#f3f5f7", "#8a94a3", r#" stroke-dasharray="5 3""#)
    } else {
        ("#eaf6f1", "#009e73", "")
    };
    rect(
        &mut b,
        (sw - 30.0, 36.0, 140.0, h - 42.0),
        &format!(r#"rx="6" fill="{fill}" stroke="{stroke}"{dash}"#),
        "tc_run: software classification",
    );
    text(
        &mut b,
        nic + 10.0,
        28.0,
        r#"text-anchor="middle" font-weight="700""#,
        "NIC (in_hw filters)",
    );
    text(
        &mut b,
        sw + 40.0,
        28.0,
        r#"text-anchor="middle" font-weight="700""#,
        if v.bypass {
            "tc_run: software skipped"
        } else {
            "tc_run: classifies"
        },
    );
    text(&mut b, sock, 28.0, r#"text-anchor="end" font-weight="700""#, "sockets");
    for (i, k) in v.kinds.iter().enumerate() {
        let y = 58.0 + 36.0 * i as f64;
        let (end, colour, style) = match k.end {
            TcEnd::NicDrop => (nic + 30.0, "#1b1f24", ""),
            TcEnd::SwDrop => (sw + 60.0, "#1b1f24", ""),
            TcEnd::Missed => (sock - 6.0, "#d55e00", r#" stroke-dasharray="7 4""#),
            TcEnd::Socket => (sock - 6.0, "#009e73", ""),
        };
        text(&mut b, 4.0, y, "", &k.label);
        text(
            &mut b,
            4.0,
            y + 13.0,
            r##"font-size="10" fill="#5b6470""##,
            &format!("{} flows · {}/s", k.flows, k.pps),
        );
        let _ = write!(
            b,
            r#"<path d="M130 {y} H{end}" fill="none" stroke="{colour}" stroke-width="3"{style}><title>{}: {}</title></path>"#,
            esc(&k.label),
            verdict(k.end)
        );
        if matches!(k.end, TcEnd::NicDrop | TcEnd::SwDrop) {
            text(&mut b, end + 3.0, y + 5.0, r#"font-size="16" font-weight="700""#, "✕");
        } else {
            let _ = write!(b, r#"<circle cx="{end}" cy="{y}" r="5" fill="{colour}"/>"#);
        }
        if k.end == TcEnd::Missed {
            text(
                &mut b,
                sw + 40.0,
                y - 6.0,
                r##"text-anchor="middle" font-size="10" fill="#a63f00""##,
                "not classified",
            );
        }
    }
    let label = format!(
        "tc ingress block, {}: software classification {}. {}",
        v.why,
        if v.bypass { "skipped for every packet" } else { "runs" },
        v.kinds
            .iter()
            .map(|k| format!("{} ({}/s): {}. ", k.label, k.pps, verdict(k.end)))
            .collect::<String>()
    );
    html! {
        <div class="tc-block" data-testid="tc-block">
            { svg(600.0, h, &label, &b) }
            <p class="tc-why"><strong>{ if v.bypass { "Bypass: " } else { "No bypass: " } }</strong>{ &v.why }
                { format!(" · per second: {} dropped in the NIC, {} classified in software, {} bypassed", v.rates[0], v.rates[1], v.rates[2]) }</p>
            <ul class="tc-filters">
                { for v.filters.iter().map(|f| html! {
                    <li><span class="chip" style={if f.in_nic { "background:#0072b2" } else { "background:#009e73" }}></span>
                        { if f.in_nic { "in the NIC: " } else if f.in_sw { "in software: " } else { "nowhere: " } }<code>{ &f.text }</code></li>
                }) }
            </ul>
        </div>
    }
}

/// Properties of [`TxPath`].
#[derive(Properties, PartialEq)]
pub struct TxPathProps {
    /// The senders (`None`: nothing sends).
    pub view: Option<TxPicture>,
}

/// The transmit path: each sending socket's CPU, its XPS map (or none), what one message costs
/// with its pick (`skb_tx_hash` vermillion, as wide as its cost), and the TX queue it lands on.
#[component]
pub fn TxPath(p: &TxPathProps) -> Html {
    let Some(v) = &p.view else {
        return html! { <p class="muted" data-testid="tx-path">{ "No socket sends on this host." }</p> };
    };
    let h = 32.0 + 40.0 * v.senders.len() as f64;
    let per_ns = 120.0 / (v.send_ns + v.hash_ns).max(1) as f64;
    let mut b = String::new();
    for (x, s) in [
        (4.0, "sender (its CPU)"),
        (150.0, "the CPU's XPS map"),
        (300.0, "one message: send + pick"),
    ] {
        text(&mut b, x, 16.0, r##"fill="#5b6470" font-size="11""##, s);
    }
    text(
        &mut b,
        596.0,
        16.0,
        r##"text-anchor="end" fill="#5b6470" font-size="11""##,
        "TX queue",
    );
    for (i, s) in v.senders.iter().enumerate() {
        let y = 26.0 + 40.0 * i as f64;
        rect(
            &mut b,
            (4.0, y, 140.0, 32.0),
            r##"rx="4" fill="#fff" stroke="#0072b2""##,
            &s.label,
        );
        text(&mut b, 10.0, y + 14.0, "", &format!("CPU {} · {}", s.cpu, s.label));
        text(
            &mut b,
            10.0,
            y + 27.0,
            r##"font-size="10" fill="#5b6470""##,
            &format!("{} msgs/s", s.msgs),
        );
        let map = if s.map.is_empty() {
            "none".to_string()
        } else {
            format!(
                "tx-{}",
                s.map.iter().map(u16::to_string).collect::<Vec<_>>().join(", tx-")
            )
        };
        let good = !s.map.is_empty();
        text(
            &mut b,
            150.0,
            y + 20.0,
            if good {
                r##"fill="#00563f""##
            } else {
                r##"fill="#a63f00" font-weight="700""##
            },
            &map,
        );
        let (pick_ns, name, colour) = match s.pick.as_str() {
            "hash" => (v.hash_ns, format!("skb_tx_hash +{} ns", v.hash_ns), "#d55e00"),
            "xps" => (v.map_ns, format!("XPS lookup +{} ns", v.map_ns), "#009e73"),
            "cached" => (0, "cached queue".to_string(), "#009e73"),
            _ => (0, "not sent yet".to_string(), "#8a94a3"),
        };
        let send_w = v.send_ns as f64 * per_ns;
        let pick_w = if pick_ns > 0 {
            (pick_ns as f64 * per_ns).max(2.0)
        } else {
            0.0
        };
        rect(
            &mut b,
            (300.0, y + 8.0, send_w, 16.0),
            r##"fill="#c3cad3""##,
            &format!("sendmsg to the driver: {} ns", v.send_ns),
        );
        rect(
            &mut b,
            (300.0 + send_w, y + 8.0, pick_w, 16.0),
            &format!(r#"fill="{colour}""#),
            &name,
        );
        text(
            &mut b,
            304.0 + send_w + pick_w,
            y + 20.0,
            &format!(r#"font-size="11" fill="{colour}""#),
            &name,
        );
        rect(
            &mut b,
            (540.0, y + 3.0, 56.0, 26.0),
            r##"rx="4" fill="#eef5fb" stroke="#0072b2""##,
            "TX queue",
        );
        text(
            &mut b,
            568.0,
            y + 20.0,
            r#"text-anchor="middle""#,
            &s.queue.map_or("—".to_string(), |q| format!("tx-{q}")),
        );
    }
    let label = v
        .senders
        .iter()
        .map(|s| {
            format!(
                "CPU {} {}: {} msgs/s, {}, to {} by {}. ",
                s.cpu,
                s.label,
                s.msgs,
                if s.map.is_empty() { "no XPS map" } else { "an XPS map" },
                s.queue.map_or("nothing yet".to_string(), |q| format!("tx-{q}")),
                s.pick
            )
        })
        .collect::<String>();
    html! {
        <div class="tx-path" data-testid="tx-path">
            <h2>{ "Transmit path: sending CPU → netdev_pick_tx → TX queue" }</h2>
            { svg(600.0, h, &label, &b) }
        </div>
    }
}
