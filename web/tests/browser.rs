//! Tests that run in headless Chromium (wasm-bindgen-test): the engine gives the same results in
//! wasm as natively, and the page renders a session's view into a real DOM and turns its
//! controls into actions.
#![cfg(target_arch = "wasm32")]

use std::rc::Rc;
use steerlab_engine::rss::{hash_input, HashFields};
use steerlab_engine::toeplitz::{toeplitz_bitwise, ToeplitzTable, MS_VERIFICATION_KEY, VERIFICATION_VECTORS};
use steerlab_engine::{FlowKey, Proto};

use steerlab_web::components::app::Page;
use steerlab_web::controller::{Action, Event, Session, ToPage};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{HtmlElement, HtmlInputElement};
use yew::prelude::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn toeplitz_verification_vectors_in_wasm() {
    let table = ToeplitzTable::new(&MS_VERIFICATION_KEY);
    for v in VERIFICATION_VECTORS {
        let key = FlowKey::new(
            v.src.parse().unwrap(),
            v.dst.parse().unwrap(),
            v.sport,
            v.dport,
            Proto::Tcp,
        )
        .unwrap();
        let (two, n2) = hash_input(&key, HashFields::parse("sd").unwrap());
        let (four, n4) = hash_input(&key, HashFields::parse("sdfn").unwrap());
        let (two, four) = (&two[..n2], &four[..n4]);
        assert_eq!(
            toeplitz_bitwise(&MS_VERIFICATION_KEY, two),
            v.hash_2tuple,
            "{} 2-tuple",
            v.src
        );
        assert_eq!(table.hash(two), v.hash_2tuple, "{} 2-tuple (table)", v.src);
        assert_eq!(table.hash(four), v.hash_4tuple, "{} 4-tuple (table)", v.src);
    }
}

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

fn by_testid(root: &web_sys::Element, id: &str) -> web_sys::Element {
    root.query_selector(&format!("[data-testid=\"{id}\"]"))
        .unwrap()
        .unwrap_or_else(|| panic!("no [data-testid={id}]"))
}

/// Lets Yew run its scheduled renders and effects.
async fn settle() {
    gloo::timers::future::TimeoutFuture::new(30).await;
}

/// The page without its worker: the session runs in the test, and every action the page's
/// controls send is applied to it, as the worker does (the e2e tests drive the real worker).
#[function_component]
fn LocalPage() -> Html {
    let session = use_mut_ref(Session::default);
    let view = use_state(|| Rc::new(session.borrow_mut().view()));
    let error = use_state(|| None::<String>);
    let dispatch = {
        let (session, view, error) = (session.clone(), view.clone(), error.clone());
        Callback::from(move |a: Action| {
            let mut s = session.borrow_mut();
            s.apply(a);
            for msg in s.take() {
                if let ToPage::Event(Event::Banner(b)) = msg {
                    error.set(b);
                }
            }
            view.set(Rc::new(s.view()));
        })
    };
    html! { <Page view={(*view).clone()} error={(*error).clone()} {dispatch} embed={false} /> }
}

#[wasm_bindgen_test]
async fn page_renders_queues_chart_and_form_and_its_controls_act() {
    let host = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&host).unwrap();
    let handle = yew::Renderer::<LocalPage>::with_root(host.clone()).render();
    settle().await;
    for id in [
        "play",
        "pause",
        "step",
        "sim-time",
        "flow-count",
        "rxq-0",
        "rxq-3",
        "chart-rxq",
        "chart-cost",
        "add-flow",
    ] {
        by_testid(&host, id);
    }
    assert_eq!(by_testid(&host, "flow-count").text_content().unwrap(), "13");
    // The small default host is drawn flow by flow (the wire view), on a canvas.
    let wire = by_testid(&host, "wire");
    assert_eq!(wire.tag_name(), "CANVAS");
    let label = wire.get_attribute("aria-label").unwrap();
    assert!(label.contains("13 flows, 13 through the indirection table"), "{label}");

    let set = |id: &str, value: &str| {
        by_testid(&host, id)
            .dyn_into::<HtmlInputElement>()
            .unwrap()
            .set_value(value)
    };
    set("flow-src", "192.0.2.10");
    set("flow-dst", "198.51.100.7");
    set("flow-sport", "12345");
    set("flow-dport", "443");
    by_testid(&host, "flow-submit")
        .dyn_into::<HtmlElement>()
        .unwrap()
        .click();
    settle().await;
    assert_eq!(by_testid(&host, "flow-count").text_content().unwrap(), "14");
    assert!(host.query_selector("[data-testid=\"error-banner\"]").unwrap().is_none());

    // A bad field is named beside it, and nothing is sent.
    set("flow-dport", "70000");
    by_testid(&host, "flow-submit")
        .dyn_into::<HtmlElement>()
        .unwrap()
        .click();
    settle().await;
    let error = by_testid(&host, "flow-dport-error").text_content().unwrap();
    assert!(error.contains("destination port"), "{error}");
    assert_eq!(by_testid(&host, "flow-count").text_content().unwrap(), "14");
    // Good fields the host refuses together (IPv4 to IPv6): the banner says why.
    set("flow-dport", "443");
    set("flow-dst", "2001:db8::7");
    by_testid(&host, "flow-submit")
        .dyn_into::<HtmlElement>()
        .unwrap()
        .click();
    settle().await;
    let banner = by_testid(&host, "error-banner").text_content().unwrap();
    assert!(banner.contains("IPv4"), "{banner}");
    assert_eq!(by_testid(&host, "flow-count").text_content().unwrap(), "14");
    handle.destroy();
}

/// Same scenario and seed, same bytes: the wasm build's digests equal the native ones, which
/// `tests/it/golden.rs` checks against the same file.
#[wasm_bindgen_test]
fn lesson_digests_in_wasm_equal_the_native_golden_file() {
    for line in include_str!("../../tests/golden/digests.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let mut it = line.split_whitespace();
        let (id, ms, want) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
        let scenario = steerlab_scenario::load(id, &[format!("sim.duration_ms={ms}")]).unwrap();
        let sim = scenario.run().unwrap();
        assert_eq!(sim.snapshot().digest.hex(), want, "{id} {ms} ms in wasm");
    }
}

/// The wasm benchmark: engine time per simulated second, printed (never asserted: speed targets
/// live in benchmarks, not in tests).
#[wasm_bindgen_test]
fn wasm_benchmark_prints_engine_time() {
    let perf = web_sys::window().unwrap().performance().unwrap();
    for id in ["rss-basics", "rfs-thread-churn"] {
        let scenario = steerlab_scenario::load(id, &["sim.duration_ms=1000".into()]).unwrap();
        let t0 = perf.now();
        let sim = scenario.run().unwrap();
        let ms = perf.now() - t0;
        let pkts = sim.snapshot().counters.offered;
        console_log!(
            "wasm bench {id}: {ms:.1} ms per simulated second, {:.1} ns per packet",
            ms * 1e6 / pkts.max(1) as f64
        );
    }
}
