//! The session's tests: frame flow control, time, restores, the compare view, and the
//! frame's cost at 144 CPUs (a measurement, run by scripts/bench-frame.sh).

use super::*;
use steerlab_engine::Nanos;

/// A fake wall clock: each read advances it by `step` ms (the time a slice took).
fn clock(t: &mut f64, step: f64) -> impl FnMut() -> f64 + '_ {
    move || {
        *t += step;
        *t
    }
}

fn views(out: &[ToPage]) -> Vec<&SessionView> {
    out.iter()
        .filter_map(|m| if let ToPage::View(v) = m { Some(&**v) } else { None })
        .collect()
}

fn events(out: &[ToPage]) -> Vec<&Event> {
    out.iter()
        .filter_map(|m| if let ToPage::Event(e) = m { Some(e) } else { None })
        .collect()
}

fn host(m: &str) -> serde_json::Value {
    serde_json::from_str(m).unwrap()
}

fn digest(s: &Session) -> String {
    s.host(0).unwrap().sim().snapshot().digest.hex()
}

fn now_ms(s: &Session) -> u64 {
    s.host(0).unwrap().sim().now().0 / 1_000_000
}

/// The worker's loop as the page drives it: pumps of a budget, the wall clock moving on
/// between them by `gap` ms, each slice taking `slice` ms. Stops at `until_ms` of
/// simulated time or after `max_pumps`.
fn drive(s: &mut Session, t: &mut f64, slice: f64, gap: f64, until_ms: u64, max_pumps: u32) {
    for _ in 0..max_pumps {
        if now_ms(s) >= until_ms {
            break;
        }
        let next = s.pump(&mut clock(t, slice), 8.0);
        *t += gap;
        if next == Next::Idle {
            break;
        }
    }
}

/// The page's real loop, with two very different frame timings: time advances by the
/// pacer (1× = one simulated second per real second), and the state reached at the same
/// simulated time is the same, equal to a plain native run.
#[test]
fn frame_timing_never_changes_results_and_1x_is_real_time() {
    let (mut a, mut b) = (Session::default(), Session::default());
    let (mut ta, mut tb) = (0.0, 0.0);
    drive(&mut a, &mut ta, 0.05, 16.0, 2000, 100_000);
    drive(&mut b, &mut tb, 0.02, 41.0, 2000, 100_000);
    for t in [ta, tb] {
        let real = t / 1000.0;
        assert!(
            (real - 2.0).abs() < 0.1,
            "1×: 2 simulated seconds took {real:.3} s of wall time"
        );
    }
    // Forward from where each pump stopped: the pumped run is what is compared.
    for s in [&mut a, &mut b] {
        s.apply(Action::Pause);
        s.apply(Action::Seek(2100));
    }
    let mut reference = Controller::new_default();
    reference.run_for(Nanos::from_ms(2100));
    assert_eq!(now_ms(&a), 2100);
    assert_eq!(digest(&a), digest(&b));
    assert_eq!(digest(&a), reference.sim().snapshot().digest.hex());
}

/// "Your host": the capture and flows become the host (its flows to play), the rows come
/// once, a marked cell reaches the wire view; a broken capture changes nothing.
#[test]
fn a_captured_host_replaces_the_host_and_sends_its_predictions_once() {
    let capture = include_str!("../../../../crates/scenario/tests/fixtures/capture-ice.txt");
    let mut s = Session::default();
    s.take();
    let before = s.hosts[0].c.scenario().id.clone();
    s.apply(Action::ImportHost {
        capture: capture.replace("Total 2 rules", "Total 5 rules"),
        flows: String::new(),
        sets: Vec::new(),
    });
    let out = s.take();
    assert!(
        events(&out)
            .iter()
            .any(|e| matches!(e, Event::HostRefused(m) if m.starts_with("capture: line ") && m.contains("(the line: \"Total 5 rules\")"))),
        "{out:?}"
    );
    assert_eq!(s.hosts[0].c.scenario().id, before, "a refused capture leaves the host");
    let flows =
        "tcp 203.0.113.7:40000 10.0.0.2:443\nudp 198.51.100.9:5353 10.0.0.2:53\ntcp 203.0.113.7:40000 10.0.0.2:443\n";
    s.apply(Action::ImportHost {
        capture: capture.into(),
        flows: flows.into(),
        sets: Vec::new(),
    });
    let out = s.take();
    let rows = events(&out).iter().find_map(|e| match e {
        Event::HostImported { rows, rx_queues, .. } => Some((rows.clone(), *rx_queues)),
        _ => None,
    });
    let (rows, rx_queues) = rows.expect("the predictions come");
    assert_eq!(
        (rows.len(), rx_queues),
        (3, 8),
        "a row per flow given, the host's queue count"
    );
    assert_eq!(
        s.hosts[0].c.sim().flow_count(),
        2,
        "the same connection twice is one flow"
    );
    assert_eq!((rows[0].queue, rows[0].decided_by.as_str()), (6, "ntuple:1023"));
    s.apply(Action::MatrixCell(Some((rows[0].queue, rows[0].irq_cpu))));
    let view = s.hosts[0].c.view();
    assert_eq!(
        view.wire.expect("a small host is drawn flow by flow").cell,
        Some((6, 12))
    );
    // Thousands of flows make a link too long to open again: Share says so instead.
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    let many: String = (0..10_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let b = x.to_be_bytes();
            format!(
                "udp {}.{}.{}.{}:{} 10.0.0.2:53\n",
                b[0],
                b[1],
                b[2],
                b[3],
                u16::from_be_bytes([b[4], b[5]])
            )
        })
        .collect();
    s.apply(Action::ImportHost {
        capture: capture.into(),
        flows: many,
        sets: Vec::new(),
    });
    s.take();
    s.apply(Action::Share);
    let out = s.take();
    assert!(
        !events(&out).iter().any(|e| matches!(e, Event::Permalink(_))),
        "no link too long to open"
    );
    assert!(events(&out)
        .iter()
        .any(|e| matches!(e, Event::Banner(Some(m)) if m.contains("download its scenario"))));
}

#[test]
fn views_come_one_per_frame_the_page_has_drawn() {
    let mut s = Session::default();
    s.apply(Action::OpenLesson("rss-basics".into()));
    let out = s.take();
    assert_eq!(views(&out).len(), 1, "the first view");
    let rare = &views(&out)[0].rare[0];
    assert!(
        rare.scenario_json.is_some() && rare.console.is_some() && rare.lesson.is_some(),
        "the first view carries every rare part: the scenario for the download, the console, the lesson"
    );
    assert!(events(&out).contains(&&Event::Lesson("rss-basics".into())));
    let mut t = 0.0;
    s.apply(Action::Speed(SPEEDS.len() - 1));
    s.pump(&mut clock(&mut t, 1.0), 8.0);
    assert!(views(&s.take()).is_empty(), "no view until the page has drawn the last");
    s.apply(Action::ViewShown);
    let out = s.take();
    assert_eq!(views(&out).len(), 1);
    let rare = &views(&out)[0].rare[0];
    assert!(
        rare.scenario_json.is_none() && rare.console.is_none() && rare.xps.is_none(),
        "sent once: {rare:?}"
    );
    s.apply(Action::ViewShown);
    assert!(views(&s.take()).is_empty(), "nothing changed: no view");
}

/// At full speed a costly view is spaced by its cost (at most `VIEW_SHARE` of the worker's
/// time) and a cheap one comes each frame the page has drawn; at a paced speed, paused, or
/// where Run to end stops, the page gets its view at once.
#[test]
fn views_at_full_speed_take_a_bounded_share_of_the_worker() {
    let mut s = Session::default();
    s.apply(Action::OpenLesson("rss-basics".into()));
    s.take();
    let mut t = 0.0;
    // The page drew the last view; one took the worker `cost` ms.
    let drawn = |s: &mut Session, t: f64, cost: f64| {
        s.apply(Action::ViewShown);
        let out = s.take();
        if !views(&out).is_empty() {
            s.view_took(t, cost);
        }
        views(&out).len()
    };
    s.apply(Action::Speed(SPEEDS.len() - 1));
    s.pump(&mut clock(&mut t, 1.0), 8.0);
    assert_eq!(drawn(&mut s, t, 2.4), 1, "the first view at full speed comes at once");
    // Seed 000's host (2.4 ms a view): spaced by 77 ms, within a pump and a frame.
    let spacing = 2.4 / VIEW_SHARE;
    let (first, mut last, mut gaps) = (t, t, Vec::new());
    while t - first < 10.0 * spacing {
        s.pump(&mut clock(&mut t, 1.0), 8.0);
        t += 16.7; // a frame later
        if drawn(&mut s, t, 2.4) == 1 {
            gaps.push(t - last);
            last = t;
        }
    }
    assert!(gaps.len() >= 6, "views keep coming ({gaps:?})");
    assert!(
        gaps.iter().all(|&g| g >= spacing && g < spacing + 2.0 * 26.0),
        "spaced by {spacing} ms, within a pump and a frame: {gaps:?}"
    );
    // A small host (0.1 ms a view, 3.2 ms apart): a view each frame the page has drawn.
    for _ in 0..8 {
        s.view_took(t, 0.1); // the moving average comes down
    }
    for _ in 0..10 {
        s.pump(&mut clock(&mut t, 1.0), 8.0);
        t += 16.7;
        assert_eq!(drawn(&mut s, t, 0.1), 1, "a cheap view each frame at full speed");
    }
    // A paced speed: a view each frame the page has drawn, whatever it costs.
    s.apply(Action::Speed(SPEEDS.len() - 2));
    s.pump(&mut clock(&mut t, 1.0), 8.0); // the pacer's anchor
    drawn(&mut s, t, 2.4);
    for _ in 0..5 {
        t += 16.7;
        s.pump(&mut clock(&mut t, 1.0), 8.0);
        assert_eq!(drawn(&mut s, t, 2.4), 1, "a view per drawn frame at a paced speed");
    }
    // Run to end: its last view comes as it stops, however soon after the one before.
    s.apply(Action::RunToEnd);
    s.take();
    s.view_took(t, 2.4);
    s.apply(Action::ViewShown);
    assert!(s.pump_until_idle(100_000), "the run ends");
    assert!(!s.playing());
    let out = s.take();
    assert_eq!(views(&out).len(), 1, "the end's view at once");
}

#[test]
fn a_console_command_round_trips_and_refusals_go_where_they_came_from() {
    let mut s = Session::default();
    s.take();
    s.apply(Action::Command {
        host: 0,
        line: "ethtool -X eth0 equal 2".into(),
        from: Origin::Console,
    });
    s.apply(Action::ViewShown);
    let out = s.take();
    let console = views(&out)[0].rare[0]
        .console
        .clone()
        .expect("a changed console is sent");
    let line = console.lines.last().unwrap().clone();
    assert_eq!(
        (line.command.as_str(), line.output.is_ok()),
        ("ethtool -X eth0 equal 2", true)
    );
    assert!(events(&out).iter().any(|e| matches!(e, Event::Host(m) if host(m)["kind"] == "command" && host(m)["detail"]["command"] == "ethtool -X eth0 equal 2")));
    s.apply(Action::Command {
        host: 0,
        line: "ethtool -X eth0 equal 99".into(),
        from: Origin::Embed,
    });
    let out = s.take();
    assert!(events(&out).iter().any(|e| matches!(e, Event::Host(m) if host(m)["kind"] == "error" && host(m)["message"].as_str().unwrap().contains("equal 99"))));
    s.apply(Action::Command {
        host: 0,
        line: "thread migrate 99 1".into(),
        from: Origin::Control,
    });
    assert!(events(&s.take())
        .iter()
        .any(|e| matches!(e, Event::Banner(Some(m)) if m.contains("99"))));
    s.apply(Action::Command {
        host: 7,
        line: "ethtool -x eth0".into(),
        from: Origin::Embed,
    });
    assert!(events(&s.take())
        .iter()
        .any(|e| matches!(e, Event::Host(m) if host(m)["message"].as_str().unwrap().contains("no host 7"))));
    s.apply(Action::OpenLesson("nope".into()));
    assert!(events(&s.take())
        .iter()
        .any(|e| matches!(e, Event::Banner(Some(m)) if m.contains("opened the default lesson"))));
    s.apply(Action::GetState);
    assert!(events(&s.take())
        .iter()
        .any(|e| matches!(e, Event::Host(m) if host(m)["type"] == "steerlab:state")));
}

/// An embedding page's message, as the page hands it over (JSON text), is checked here: its
/// actions run, or an error event says what is wrong and nothing changes.
#[test]
fn an_embedding_pages_message_is_checked_in_the_worker() {
    let mut s = Session::on_lesson("rss-basics", 1).unwrap();
    s.take();
    let answers = |s: &mut Session, text: &str| -> Vec<serde_json::Value> {
        s.apply(Action::FromHostPage(text.into()));
        events(&s.take())
            .into_iter()
            .filter_map(|e| if let Event::Host(m) = e { Some(host(m)) } else { None })
            .collect()
    };
    // A command: the state, and the command's event.
    let out = answers(
        &mut s,
        r#"{"type":"steerlab:command","command":"ethtool -X eth0 equal 2"}"#,
    );
    let mut kinds: Vec<&str> = out.iter().map(|m| m["type"].as_str().unwrap()).collect();
    kinds.sort_unstable();
    assert_eq!(kinds, ["steerlab:event", "steerlab:state"]);
    assert!(out.iter().any(|m| m["detail"]["command"] == "ethtool -X eth0 equal 2"));
    // What is not a message is answered with an error event only, the state untouched.
    let before = digest(&s);
    for (text, says) in [
        ("null", "an object with a \"type\""),
        ("not json", "an object with a \"type\""),
        (r#"{"type":"steerlab:fly"}"#, "unknown message type \"steerlab:fly\""),
        (r#"{"type":"steerlab:command"}"#, "needs a string \"command\""),
    ] {
        let out = answers(&mut s, text);
        assert_eq!(out.len(), 1, "{text}: {out:?}");
        assert_eq!(out[0]["kind"], "error");
        assert!(
            out[0]["message"].as_str().unwrap().contains(says),
            "{text}: {}",
            out[0]["message"]
        );
    }
    let huge = format!(
        r#"{{"type":"steerlab:command","command":"{}"}}"#,
        "x".repeat(embed::MAX_MESSAGE)
    );
    let out = answers(&mut s, &huge);
    assert!(
        out[0]["message"].as_str().unwrap().contains("bytes; at most"),
        "{}",
        out[0]["message"]
    );
    assert_eq!(digest(&s), before);
}

/// Step back, a permalink restored by the pump, and run to the end, through actions.
#[test]
fn step_back_restore_and_run_to_end_through_actions() {
    let mut s = Session::default();
    let mut t = 0.0;
    s.apply(Action::Speed(SPEEDS.len() - 1));
    drive(&mut s, &mut t, 0.01, 0.0, 700, 10_000);
    s.apply(Action::Pause);
    s.apply(Action::Command {
        host: 0,
        line: "thread migrate 0 3".into(),
        from: Origin::Console,
    });
    let at = (now_ms(&s), digest(&s));
    s.apply(Action::Step);
    assert_ne!(digest(&s), at.1);
    s.apply(Action::StepBack);
    assert_eq!(
        (now_ms(&s), digest(&s)),
        at,
        "one step back is the state before the step"
    );
    s.apply(Action::Share);
    let link = events(&s.take())
        .into_iter()
        .find_map(|e| {
            if let Event::Permalink(l) = e {
                Some(l.clone())
            } else {
                None
            }
        })
        .unwrap();
    let mut r = Session::default();
    r.apply(Action::Restore(link));
    r.apply(Action::Command {
        host: 0,
        line: "ethtool -X eth0 equal 2".into(),
        from: Origin::Console,
    });
    drive(&mut r, &mut t, 0.01, 0.0, u64::MAX, 10_000);
    assert_eq!(
        (now_ms(&r), digest(&r)),
        at,
        "restored to the same state, the command refused while restoring"
    );
    assert!(!r.playing(), "opens paused");
    let speed = s.view().speed;
    s.apply(Action::RunToEnd);
    drive(&mut s, &mut t, 0.01, 0.0, u64::MAX, 100_000);
    let out = s.take();
    assert!(events(&out).contains(&&Event::RunEnded), "the quiet note");
    assert!(!s.playing(), "Run to end ends paused");
    assert_eq!(s.view().speed, speed, "back at the learner's speed");
    assert_eq!(now_ms(&s), s.host(0).unwrap().scenario().sim.duration_ms);
    assert_eq!(s.pump(&mut clock(&mut t, 0.01), 8.0), Next::Idle);
    assert!(s.view().run_ended);
    // The length is a suggestion: Play goes on past it, and Run to end has nothing to do.
    s.apply(Action::Play);
    drive(&mut s, &mut t, 0.01, 0.0, 10_500, 100_000);
    assert!(s.playing() && now_ms(&s) >= 10_500, "played on to {} ms", now_ms(&s));
    assert!(s.view().run_ended, "still past the length");
    s.apply(Action::Pause);
    s.apply(Action::RunToEnd);
    assert!(!s.playing());
    s.apply(Action::Seek(9_000));
    assert!(!s.view().run_ended, "before the length again");
    s.apply(Action::RunToEnd);
    drive(&mut s, &mut t, 0.01, 0.0, u64::MAX, 100_000);
    assert_eq!(now_ms(&s), 10_000, "from before the end, Run to end stops at it again");
    // Without the learner's commands, the worker's run is the CLI's run, byte for byte.
    let mut fresh = Session::default();
    fresh.apply(Action::RunToEnd);
    drive(&mut fresh, &mut t, 0.01, 0.0, u64::MAX, 100_000);
    let native = steerlab_scenario::load("rss-basics", &[]).unwrap().run().unwrap();
    assert_eq!(digest(&fresh), native.snapshot().digest.hex());
}

/// A restore replays at engine speed: the page gets a view as it starts, then one as
/// its progress passes each tenth, then the view where it lands, and no other.
#[test]
fn a_restore_builds_a_view_per_tenth_of_its_progress() {
    let mut c = Controller::for_lesson("arfs-collision").unwrap();
    c.run_for(Nanos::from_secs(2));
    let (link, at) = (c.permalink(), c.sim().snapshot().digest.hex());
    let mut s = Session::default();
    let mut t = 0.0;
    s.apply(Action::Restore(link));
    let mut shown: Vec<_> = views(&s.take()).iter().map(|v| v.hosts[0].restoring).collect();
    for _ in 0..10_000 {
        s.apply(Action::ViewShown);
        // About a tick (a twentieth of the link) a pump.
        let next = s.pump(&mut clock(&mut t, 5.0), 8.0);
        shown.extend(views(&s.take()).iter().map(|v| v.hosts[0].restoring));
        if next == Next::Idle {
            break;
        }
    }
    s.apply(Action::ViewShown);
    shown.extend(views(&s.take()).iter().map(|v| v.hosts[0].restoring));
    assert!((3..=12).contains(&shown.len()), "{shown:?}");
    assert_eq!(shown.first(), Some(&Some(0)), "{shown:?}");
    assert_eq!(shown.last(), Some(&None), "the view where it lands: {shown:?}");
    assert_eq!(digest(&s), at);
}

/// Playing never stops by itself: at the fastest speed time passes 4.5 times the
/// suggested length, the page hears once that the length passed, and a command typed
/// while paused is applied and says that time is paused.
#[test]
fn time_never_stops_the_class() {
    let mut s = Session::default();
    let mut t = 0.0;
    s.apply(Action::Speed(SPEEDS.len() - 1));
    s.take();
    drive(&mut s, &mut t, 0.01, 0.0, 45_000, 1_000_000);
    assert!(s.playing() && now_ms(&s) >= 45_000, "played to {} ms", now_ms(&s));
    let ended = events(&s.take())
        .iter()
        .filter(|e| matches!(e, Event::RunEnded))
        .count();
    assert_eq!(ended, 1, "one quiet note when the length passed");
    assert!(s.view().run_ended);
    s.apply(Action::Pause);
    s.apply(Action::Command {
        host: 0,
        line: "ethtool -X eth0 equal 2".into(),
        from: Origin::Console,
    });
    let line = s.host(0).unwrap().view().console.lines.last().cloned().unwrap();
    assert!(line.output.is_ok() && line.note.as_deref().is_some_and(|n| n.starts_with("time is paused")));
    assert!(!s.playing(), "the command does not start time");
    // Back: a second back, paused.
    let at = now_ms(&s);
    s.apply(Action::Play);
    s.apply(Action::Back);
    assert!(!s.playing());
    assert_eq!(now_ms(&s), at - 1000);
    let line = s.host(0).unwrap().view().console.lines.last().cloned().unwrap();
    assert!(line.undone, "the command after the time gone back to is undone");
}

/// The compare view: two hosts in lockstep, a command on one changes only that one.
#[test]
fn compare_hosts_advance_in_lockstep_and_diverge_by_their_own_commands() {
    let mut s = Session::default();
    s.apply(Action::OpenCompare("rss-basics".into()));
    s.apply(Action::Command {
        host: 1,
        line: "ethtool -X eth0 equal 3".into(),
        from: Origin::Console,
    });
    s.apply(Action::Speed(SPEEDS.len() - 1));
    let mut t = 0.0;
    drive(&mut s, &mut t, 0.01, 0.0, 500, 10_000);
    s.apply(Action::Pause);
    let (a, b) = (s.host(0).unwrap(), s.host(1).unwrap());
    assert_eq!(a.sim().now(), b.sim().now(), "one clock");
    let rx3 = |c: &Controller| c.sim().snapshot().queues[3].packets;
    assert!(rx3(a) > 0 && rx3(b) == 0, "equal 3 empties B's rx-3 only");
    s.apply(Action::ViewShown);
    assert_eq!(views(&s.take())[0].hosts.len(), 2);
}

/// The frame's cost at 144 CPUs (issue 33): arfs-collision (seed 000's host) with a dozen
/// commands typed, playing from 3 s at the default speed, page frames 16.7 ms of wall time
/// apart, until 100 views were sent (this host ticks every 100 ms: a view per tick). Prints the bytes each frame carries to the page and the worker time
/// to build and encode it; `scripts/bench-frame.sh` runs it in release. Not timed in CI:
/// it asserts only that frames came.
#[test]
#[ignore = "a measurement: scripts/bench-frame.sh"]
fn frame_bytes_and_worker_time_at_144_cpus() {
    let mut s = Session::default();
    s.apply(Action::OpenLesson("arfs-collision".into()));
    for line in [
        "ethtool -l eth0",
        "ethtool -x eth0",
        "ethtool -n eth0",
        "cat /proc/sys/net/core/rps_sock_flow_entries",
        "cat /sys/class/net/eth0/queues/rx-0/rps_flow_cnt",
        "ethtool -S eth0",
        "taskset -p 1",
        "flow random 16",
        "ethtool -k eth0",
        "cat /proc/net/softnet_stat",
        "nic driver ice",
        "kernel 6.18",
    ] {
        s.apply(Action::Command {
            host: 0,
            line: line.into(),
            from: Origin::Console,
        });
    }
    s.apply(Action::Pause);
    s.apply(Action::Seek(3000));
    assert!(s.pump_until_idle(100_000), "the seek lands");
    s.apply(Action::Play);
    s.take();
    let (mut t, mut frames, mut bytes, mut worker_s) = (0.0, 0u32, 0usize, 0.0f64);
    for _ in 0..1200 {
        if frames == 100 {
            break;
        }
        s.pump(&mut clock(&mut t, 0.5), 8.0);
        t += 16.7;
        s.apply(Action::ViewShown);
        let start = std::time::Instant::now();
        let sent: Vec<Vec<u8>> = s
            .take()
            .iter()
            .filter(|m| matches!(m, ToPage::View(_)))
            .map(crate::controller::encode)
            .collect();
        worker_s += start.elapsed().as_secs_f64();
        frames += sent.len() as u32;
        bytes += sent.iter().map(Vec::len).sum::<usize>();
    }
    assert_eq!(frames, 100, "a view per tick of this host (100 ms)");
    println!(
        "frame at 144 CPUs: {frames} frames to {} ms, {:.1} KB per frame, {:.2} ms of worker time per frame (view and encode)",
        now_ms(&s),
        bytes as f64 / f64::from(frames) / 1024.0,
        worker_s * 1000.0 / f64::from(frames)
    );
}

/// The course page hears every moment a teacher grades, once each: the steps reached, the
/// question's answer and whether it was right, the goal met, lost and met again, and the
/// lesson complete with the learner's score; from each host of the compare view, named.
#[test]
fn the_course_page_hears_every_learning_moment_once() {
    let mut s = Session::on_lesson("tc-bypass", 1).unwrap();
    let mut t = 0.0;
    let mut heard = Vec::new();
    let listen = |s: &mut Session, heard: &mut Vec<serde_json::Value>| {
        for e in events(&s.take()) {
            if let Event::Host(m) = e {
                let v = host(m);
                if v["type"] == "steerlab:event" && v["kind"] != "command" {
                    heard.push(v);
                }
            }
        }
    };
    drive(&mut s, &mut t, 0.01, 1.0, 1000, 100_000);
    listen(&mut s, &mut heard);
    s.apply(Action::NextStep);
    s.apply(Action::NextStep);
    s.apply(Action::Predict(0));
    s.apply(Action::Command {
        host: 0,
        line: "tc counting usesw".into(),
        from: Origin::Console,
    });
    drive(&mut s, &mut t, 0.01, 1.0, 4000, 100_000);
    listen(&mut s, &mut heard);
    s.apply(Action::Command {
        host: 0,
        line: "tc counting legacy".into(),
        from: Origin::Console,
    });
    drive(&mut s, &mut t, 0.01, 1.0, 6000, 100_000);
    listen(&mut s, &mut heard);
    let kinds: Vec<&str> = heard.iter().map(|v| v["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "step",
            "step",
            "step",
            "predict",
            "goal-met",
            "lesson-complete",
            "goal-lost"
        ],
        "{heard:#?}"
    );
    let steps: Vec<u64> = heard
        .iter()
        .filter(|v| v["kind"] == "step")
        .map(|v| v["detail"]["step"].as_u64().unwrap())
        .collect();
    assert_eq!(steps, [1, 2, 3]);
    let predict = heard.iter().find(|v| v["kind"] == "predict").unwrap();
    assert_eq!(
        (
            predict["detail"]["choice"].as_u64(),
            predict["detail"]["right"].as_bool()
        ),
        (Some(1), Some(true))
    );
    let score = &heard.iter().find(|v| v["kind"] == "lesson-complete").unwrap()["detail"]["score"];
    assert_eq!(
        (score["points"].as_u64(), score["form"].as_str()),
        (Some(100), Some("guided"))
    );
    assert!(score["wall_seconds"].as_f64().unwrap() > 0.0);
    let lost = heard.iter().find(|v| v["kind"] == "goal-lost").unwrap();
    assert_eq!(lost["detail"]["undone_by"], "tc counting legacy");
    // The compare view: each host's moments, named.
    let mut s = Session::on_lesson("tc-bypass", 2).unwrap();
    s.apply(Action::Command {
        host: 1,
        line: "tc counting usesw".into(),
        from: Origin::Console,
    });
    let mut heard = Vec::new();
    drive(&mut s, &mut t, 0.01, 1.0, 2000, 100_000);
    listen(&mut s, &mut heard);
    assert!(
        heard
            .iter()
            .any(|v| v["kind"] == "goal-met" && v["detail"]["host"] == "b"),
        "{heard:#?}"
    );
    assert!(!heard
        .iter()
        .any(|v| v["kind"] == "goal-met" && v["detail"]["host"] == "a"));
}
