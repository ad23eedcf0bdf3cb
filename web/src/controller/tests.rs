//! The controller's tests: lessons followed as written, commands, links and restores.

use super::*;
use steerlab_scenario::permalink;

fn run(c: &mut Controller, ms: u64) {
    c.run_for(Nanos::from_ms(ms));
}

#[test]
fn default_lesson_runs_and_counts_every_packet() {
    let mut c = Controller::new_default();
    assert_eq!(c.view().flow_count, 13);
    run(&mut c, 1000);
    let v = c.view();
    assert_eq!(v.sim_time, "1.000s");
    // 12 flows at 2,000 pps and one elephant at 40,000 pps for one second.
    assert_eq!(v.queues.iter().map(|q| q.packets).sum::<u64>(), 64_000);
    assert_eq!(v.queues.iter().map(|q| q.flows).sum::<u32>(), 13);
    assert_eq!(v.locality_series[0].values.len(), 10, "one rate sample per 100 ms");
}

/// Latency is charted where a lesson shows it (irq-affinity's evidence), p50 under p99, in µs,
/// one point per sample; a lesson without it carries no series to the page.
#[test]
fn latency_is_charted_where_the_lesson_shows_it() {
    let mut c = Controller::for_lesson("irq-affinity").unwrap();
    run(&mut c, 1000);
    let v = c.view();
    let [p50, p99] = &v.latency_series[..] else {
        panic!("two series: {:?}", v.latency_series)
    };
    assert_eq!((p50.name.as_str(), p99.name.as_str()), ("p50", "p99"));
    assert_eq!(p99.values.len(), 10);
    let last = p99.values.len() - 1;
    assert!(
        p99.values[last] > 1.0 && p50.values[last] <= p99.values[last],
        "{p50:?} {p99:?}"
    );
    let mut plain = Controller::for_lesson("rss-basics").unwrap();
    run(&mut plain, 300);
    assert!(plain.view().latency_series.is_empty());
}

/// A closed flow leaves the picture (wire routes, queue counts, the trace picker) while the
/// others keep their ids, and the embedding page hears of it.
#[test]
fn a_closed_flow_leaves_the_views_and_the_others_keep_their_ids() {
    let mut c = Controller::new_default();
    run(&mut c, 100);
    c.command("flow close 3").unwrap();
    assert_eq!(c.take_done().last().map(|d| d.kind), Some("flow-closed"));
    run(&mut c, 100);
    let v = c.view();
    assert_eq!(v.flow_count, 12);
    assert_eq!(v.queues.iter().map(|q| q.flows).sum::<u32>(), 12);
    let wire = v.wire.as_ref().expect("a small host draws the wire view");
    let ids: Vec<u32> = wire.flows.iter().map(|f| f.index).collect();
    assert_eq!(ids, [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert!(wire.flows.iter().all(|f| Some(f.view) == c.sim().flow_view(f.index)));
    assert!(v.flow_labels.iter().all(|(f, _)| *f != 3));
}

/// The trace picker's labels are formatted once and kept while the flows stay; a flow added,
/// a flow closed, or going back to before either changes them.
#[test]
fn the_flow_labels_follow_the_flows_and_are_kept_between_frames() {
    let mut c = Controller::new_default();
    run(&mut c, 100);
    let first = c.view().flow_labels;
    run(&mut c, 100);
    assert!(
        std::rc::Rc::ptr_eq(&first, &c.view().flow_labels),
        "unchanged flows: the same labels"
    );
    c.command("flow add tcp 10.9.9.9:5555 192.168.0.1:80").unwrap();
    let added = c.view().flow_labels;
    assert_eq!(added.len(), first.len() + 1);
    assert!(added.last().is_some_and(|(_, l)| l.contains("10.9.9.9")));
    c.command("flow close 0").unwrap();
    let closed = c.view().flow_labels;
    assert!(closed.iter().all(|(f, _)| *f != 0) && closed.len() == first.len());
    c.seek(Nanos::from_ms(100));
    assert_eq!(*c.view().flow_labels, *first, "back before both: the first labels");
}

#[test]
fn the_flow_form_names_every_bad_field() {
    let form = FlowForm {
        src: "abc".into(),
        dst: "10.0.0.2".into(),
        sport: "".into(),
        dport: "99999".into(),
        proto: "tcp".into(),
    };
    let errors = form.field_errors();
    let ids: Vec<&str> = errors.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, ["flow-src", "flow-sport", "flow-dport"]);
    assert!(
        errors[0].1.contains("\"abc\" is not an IPv4 or IPv6 address"),
        "{errors:?}"
    );
    assert!(errors[1].1.contains("empty: type a port number"), "{errors:?}");
    assert!(
        errors[2].1.contains("\"99999\" is not a port number, 0 to 65535"),
        "{errors:?}"
    );
    let ok = FlowForm {
        src: "10.0.0.1".into(),
        dst: "10.0.0.2".into(),
        sport: "1".into(),
        dport: "80".into(),
        proto: "tcp".into(),
    };
    assert!(ok.field_errors().is_empty());
}

#[test]
fn bad_form_names_the_field_and_changes_nothing() {
    let mut c = Controller::new_default();
    let form = FlowForm {
        src: "10.0.0.1".into(),
        dst: "nope".into(),
        sport: "1".into(),
        dport: "2".into(),
        proto: "tcp".into(),
    };
    let err = c.add_flow(&form).unwrap_err();
    assert!(err.starts_with("destination:"), "{err}");
    assert_eq!(c.view().flow_count, 13);
    let form = FlowForm {
        dst: "::1".into(),
        ..form
    };
    assert!(c.add_flow(&form).unwrap_err().contains("both be IPv4"));
}

/// Every lesson: the goal is not met at the start, and the guided steps reach it in at
/// most three learner actions (the brief's bar).
#[test]
fn every_lesson_reaches_its_goal_in_three_actions() {
    // Each lesson's own shortest way: its challenge's solution.
    let plans: Vec<(&str, Vec<String>)> = steerlab_scenario::lesson_ids()
        .map(|id| {
            let c = Controller::for_lesson(id).unwrap();
            (id, c.scenario().lesson.challenge.clone().unwrap().solution)
        })
        .collect();
    for (id, actions) in &plans {
        assert!(actions.len() <= 3, "{id}: {actions:?}");
        let mut c = Controller::for_lesson(id).unwrap();
        run(&mut c, 3000);
        assert_eq!(c.goal_met(), Some(false), "{id}: the first screen shows the problem");
        for a in actions {
            c.command(a).unwrap_or_else(|e| panic!("{id}: {a}: {e}"));
        }
        assert_eq!(
            c.goal_met(),
            None,
            "{id}: assessed only on what happens after the change"
        );
        run(&mut c, 2500);
        assert_eq!(c.goal_met(), Some(true), "{id}: goal after {actions:?}");
    }
}

/// Every lesson, followed as its own text says and as a learner clicks: each step's question
/// answered, its commands typed in order, then "Next step"; a step whose commands ran stays
/// current until Next (so Next never skips one), shows its outcome then and not before; the
/// goal is met after one of the steps; and a later step that undoes it is named on the page.
#[test]
fn every_lesson_followed_as_written_meets_its_goal() {
    for id in steerlab_scenario::lesson_ids() {
        let mut c = Controller::for_lesson(id).unwrap();
        run(&mut c, 2000);
        let lesson = c.scenario().lesson.clone();
        let (mut met_after, mut undone_at) = (None, None);
        for (k, step) in lesson.steps.iter().enumerate() {
            assert_eq!(c.view().lesson.step, k, "{id}: Next led to step {}", k + 1);
            if lesson.predict.iter().any(|p| p.step == k) {
                c.predict(0);
            }
            assert!(
                c.view().lesson.steps[k].outcome.is_empty(),
                "{id}: no outcome before the commands"
            );
            for line in &step.commands {
                c.learner_command(line)
                    .unwrap_or_else(|e| panic!("{id} step {}: {line}: {e}", k + 1));
            }
            if !step.commands.is_empty() {
                assert_eq!(c.view().lesson.step, k, "{id}: step {} stays current once done", k + 1);
                assert!(c.view().lesson.steps[k].done, "{id}: step {} is marked done", k + 1);
                assert_eq!(
                    c.view().lesson.steps[k].outcome.is_empty(),
                    step.outcome.is_empty(),
                    "{id}: step {}'s outcome shows once its commands ran",
                    k + 1
                );
            }
            run(&mut c, 2500);
            let v = c.view().lesson;
            c.next_step();
            if v.goal_met == Some(true) {
                met_after.get_or_insert(k);
                undone_at = None;
            } else if met_after.is_some() {
                // The step whose commands undid it is blamed, and stays blamed while later
                // steps' commands run (they did not undo it).
                let k0 = *undone_at.get_or_insert(k);
                assert_eq!(
                    v.goal_undone_by.as_deref(),
                    lesson.steps[k0].commands.last().map(String::as_str),
                    "{id}: the page names the change that undid the goal"
                );
                assert!(v.complete.is_some(), "{id}: the lesson stays complete");
            }
            assert_eq!(v.evidence.len(), lesson.evidence.len());
            assert!(
                v.evidence.iter().all(|e| e.now != "—"),
                "{id} step {}: every evidence figure has a value: {:?}",
                k + 1,
                v.evidence
            );
        }
        assert!(met_after.is_some(), "{id}: following the steps meets the goal");
        if id == "arfs-collision" {
            // The one-line form for 144 queues really wrote every queue.
            assert_eq!(
                c.command("cat /sys/class/net/eth0/queues/rx-143/rps_flow_cnt").unwrap(),
                "2048\n"
            );
        }
    }
}

/// Every lesson's question, asked before its key step: answered before the commands run,
/// then the engine picks the answer that happened (the one the lesson's text teaches),
/// with the kernel's explanation; a question whose commands ran is still shown while the
/// next step is current.
#[test]
fn every_lesson_asks_a_question_the_engine_answers() {
    for id in steerlab_scenario::lesson_ids() {
        let l = &Controller::for_lesson(id).unwrap().scenario().lesson.clone();
        let answer = l.predict[0]
            .answer
            .unwrap_or_else(|| panic!("{id}: the lesson says its answer"));
        let mut c = Controller::for_lesson(id).unwrap();
        run(&mut c, 2000);
        let lesson = c.scenario().lesson.clone();
        let p = &lesson.predict[0];
        while c.view().lesson.step < p.step {
            c.next_step();
        }
        let v = c.view().lesson.predict.clone().expect("the step asks its question");
        assert_eq!((v.chosen, v.engine, v.measuring), (None, None, false), "{id}: open");
        c.predict(answer);
        for line in &lesson.steps[p.step].commands {
            c.command(line).unwrap_or_else(|e| panic!("{id}: {line}: {e}"));
        }
        c.predict((answer + 1) % p.choices.len());
        assert_eq!(
            c.view().lesson.predict.clone().unwrap().chosen,
            Some(answer),
            "{id}: no change of mind once run"
        );
        run(&mut c, 1000);
        assert!(c.view().lesson.predict.clone().unwrap().measuring, "{id}: measuring");
        // Paused, the answer waits for Play, and the panel says so.
        let playing = c.playing();
        c.set_playing(false);
        assert!(c.view().lesson.predict.clone().unwrap().paused, "{id}: paused");
        c.set_playing(true);
        assert!(!c.view().lesson.predict.clone().unwrap().paused, "{id}: playing");
        c.set_playing(playing);
        run(&mut c, 1500);
        let v = c.view().lesson.predict.clone().expect("still shown after the step");
        assert_eq!(v.engine, Some(Some(answer)), "{id}: the engine's answer");
        assert!(
            !v.explain.is_empty() && v.why.len() == p.choices.len(),
            "{id}: explained"
        );
    }
}

/// The challenge form: the goal without the steps, hints on request, the evidence from the
/// learner's first change; a met goal ends the lesson, and the ending stays when a later
/// change undoes it. "Next step" after the last step leads to the end, not to step 1.
#[test]
fn a_challenge_is_solved_without_the_steps_and_the_lesson_ends() {
    let mut c = Controller::new_default();
    c.set_challenge(true);
    run(&mut c, 2000);
    let v = c.view().lesson;
    let ch = v.challenge.clone().expect("the challenge form");
    assert!(ch.goal.contains("RX queue 3") && ch.hints.is_empty() && ch.hints_total == 3);
    c.hint();
    c.hint();
    assert_eq!(c.view().lesson.challenge.clone().unwrap().hints.len(), 2);
    assert!(v.complete.is_none());
    c.command("ethtool -x eth0").unwrap();
    run(&mut c, 500);
    c.command("ethtool -X eth0 weight 1 1 1 0").unwrap();
    run(&mut c, 2500);
    let v = c.view().lesson;
    assert_eq!(v.goal_met, Some(true), "{:?}", v.evidence);
    let done = v.complete.clone().expect("the ending");
    assert_eq!(done.next.map(|(id, _)| id).as_deref(), Some("irq-affinity"));
    assert!(done.learned.lines().count() == 2, "two lines: {}", done.learned);
    // "before" is the learner's first change: rx-3 carried the elephant then.
    assert_eq!(
        (v.evidence[0].before.as_str(), v.evidence[0].now.as_str()),
        ("40.0k/s", "0/s")
    );
    c.command("ethtool -X eth0 default").unwrap();
    run(&mut c, 1500);
    let v = c.view().lesson;
    assert_eq!(v.goal_undone_by.as_deref(), Some("ethtool -X eth0 default"));
    assert!(v.complete.is_some(), "the ending stays");
    let n = v.steps.len();
    for _ in 0..n + 2 {
        c.next_step();
    }
    assert_eq!(c.view().lesson.step, n, "the end, not step 1");
}

/// The evidence strip: before the change and after it, moving the way the lesson says.
#[test]
fn the_evidence_strip_shows_the_change_and_its_direction() {
    let mut c = Controller::for_lesson("arfs-collision").unwrap();
    run(&mut c, 2000);
    assert!(
        c.view()
            .lesson
            .evidence
            .iter()
            .all(|e| e.before == "—" && e.trend == Trend::Unknown),
        "no change yet"
    );
    c.command("nic driver ice").unwrap();
    run(&mut c, 2000);
    let ev = c.view().lesson.evidence.clone();
    let updates = &ev[0];
    assert_eq!(updates.label, "aRFS updates");
    assert!(updates.before.ends_with("/s") && updates.before != "0/s", "{updates:?}");
    assert_eq!(
        (updates.trend, updates.better),
        (Trend::Down, steerlab_scenario::Better::Down),
        "{updates:?}"
    );
}

#[test]
fn a_permalink_round_trips_the_exact_state_and_bad_links_are_refused() {
    let mut c = Controller::new_default();
    run(&mut c, 700);
    c.command("ethtool -X eth0 weight 1 1 2").unwrap();
    c.command("thread migrate 0 3").unwrap();
    assert!(c.command("ethtool -X eth0 equal 99").is_err());
    run(&mut c, 1300);
    let link = c.permalink();
    let d = Controller::from_permalink(&link).unwrap();
    assert_eq!(d.view().digest, c.view().digest);
    assert_eq!(d.view().sim_time, "2.000s");
    for bad in ["", "1.zz", &link[..link.len() / 2], "7.abc"] {
        assert!(Controller::from_permalink(bad).is_err(), "{bad:?}");
    }
}

/// The worker restores a link a slice at a time: slices of any size give the same state as
/// replaying it at once, the learner's commands wait, and it stops paused at the link's time.
#[test]
fn a_permalink_restores_in_slices_to_the_same_state() {
    let mut c = Controller::for_lesson("rfs-thread-churn").unwrap();
    run(&mut c, 300);
    c.command("rfs record cpuset").unwrap();
    run(&mut c, 250);
    let link = c.permalink();
    assert_eq!(
        Controller::from_permalink(&link).unwrap().view().digest,
        c.view().digest,
        "at once"
    );
    let mut d = Controller::restoring(&link).unwrap();
    assert_eq!(d.view().restoring, Some(0));
    let mut frames = 0;
    while d.view().restoring.is_some() {
        // A pump: slices until one reports no progress (the worker's pump does the same).
        for _ in 0..3 {
            if !d.step_part(97) && !d.sim().in_tick() {
                break;
            }
        }
        if frames == 5 {
            assert!(d.command("nic driver ice").is_err(), "commands wait for the restore");
            d.set_playing(false);
            d.step(); // ignored: the restore's own frames advance time
        }
        frames += 1;
    }
    assert!(frames > 10, "restored over many frames ({frames})");
    let (restored, original) = (d.view(), c.view());
    assert_eq!(
        (restored.digest, restored.sim_time),
        (original.digest, original.sim_time)
    );
    // The matrix's last second: each flow's count at its start is worked out from the flow.
    assert!(original
        .matrix
        .as_ref()
        .is_some_and(|m| m.window_ms > 0 && !m.cells.is_empty()));
    assert_eq!(restored.matrix, original.matrix);
    assert_eq!(d.footprint().matrix, c.footprint().matrix);
    assert!(!d.playing(), "opens paused at the link's time");
    assert_eq!(d.permalink(), link, "the same link again");
    assert_eq!(d.take_link_error(), None);
}

#[test]
fn a_link_whose_command_fails_stops_there_and_says_why() {
    let state = permalink::State {
        source: Source::Lesson("rss-basics".into()),
        commands: vec![
            Applied {
                at_ns: 2_000_000,
                command: "ethtool -X eth0 equal 2".into(),
            },
            Applied {
                at_ns: 5_000_000,
                command: "thread migrate 99 1".into(),
            },
        ],
        t_ns: 9_000_000,
        view: "sandbox".into(),
    };
    let link = permalink::encode(&state);
    let e = Controller::from_permalink(&link).err().unwrap();
    assert!(e.contains("thread migrate 99 1"), "{e}");
}

#[test]
fn stepping_back_replays_to_the_same_state() {
    let mut c = Controller::new_default();
    run(&mut c, 1500);
    c.command("ethtool -X eth0 equal 2").unwrap();
    run(&mut c, 1500);
    let at3 = c.view().digest;
    run(&mut c, 1000);
    c.seek(Nanos::from_ms(3000));
    assert_eq!(c.view().digest, at3, "back to 3 s through a snapshot and replay");
    c.seek(Nanos::from_ms(1200));
    assert_eq!(c.view().sim_time, "1.200s");
    assert!(c.permalink().len() > 2);
    c.seek(Nanos::from_ms(3000));
    assert_ne!(
        c.view().digest,
        at3,
        "the command after 1.2 s was forgotten by stepping back before it"
    );
    c.step_back();
    assert_eq!(c.view().sim_time, "2.999s", "one tick (1 ms) back");
}

/// Ticks that do not divide the 100 ms sample period still advance, sample and snapshot.
#[test]
fn odd_tick_lengths_advance_and_sample() {
    for tick in ["sim.tick_ns=300000", "sim.tick_ns=200000000"] {
        let text = steerlab_scenario::lesson("rss-basics").unwrap();
        let sc = steerlab_scenario::parse(text, &[tick.to_string()]).unwrap();
        let mut c = Controller::for_scenario(sc, Source::Lesson("rss-basics".into())).unwrap();
        run(&mut c, 2000);
        let now = c.sim.now().0;
        assert!(now > 1_800_000_000 && now <= 2_000_000_000, "{tick}: {now}");
        assert!(
            c.history.samples().len() >= 10,
            "{tick}: {} samples",
            c.history.samples().len()
        );
        c.step();
        assert!(c.sim.now().0 > now, "{tick}: step advances");
        c.seek(Nanos::from_ms(1000));
        assert!(
            c.sim.now().0 <= 1_000_000_000 && c.sim.now().0 > 700_000_000,
            "{tick}: seek"
        );
    }
}

/// The aRFS table's window: colliding flow_ids first, then by flow_id and filter id, and a row
/// is marked colliding exactly when another live filter has its flow_id (seed 000's host,
/// where the hash-only driver collides).
#[test]
fn the_filter_window_lists_collisions_first_in_order() {
    let mut c = Controller::for_lesson("arfs-collision").unwrap();
    c.run_for(Nanos::from_ms(2000));
    let all = c.sim().arfs_filters();
    let mut per_id = std::collections::HashMap::new();
    for f in &all {
        *per_id.entry(f.flow_id).or_insert(0) += 1;
    }
    let shared = |flow_id: u32| per_id[&flow_id] > 1;
    let mut seen = 0;
    for first in [0, 40, all.len() as u32 / 2, all.len() as u32 - 10] {
        c.show_filters_from(first);
        let v = c.view();
        assert_eq!(v.filters_total, all.len());
        let keys: Vec<_> = v.filters.iter().map(|f| (!f.collision, f.flow_id, f.id)).collect();
        // The whole table in order, and the window is its rows from `first` on.
        let mut every: Vec<_> = all.iter().map(|f| (!shared(f.flow_id), f.flow_id, f.id)).collect();
        every.sort_unstable();
        let want = &every[first as usize..(first as usize + FILTER_WINDOW as usize).min(every.len())];
        assert_eq!(keys, want, "the window from row {first}");
        assert_eq!(v.filters_first, first);
        for f in &v.filters {
            assert_eq!(f.collision, shared(f.flow_id), "filter {}", f.id);
        }
        seen += v.filters.iter().filter(|f| f.collision).count();
    }
    assert!(seen > 0, "the hash-only driver's table has collisions");
}

/// A step's command typed before its question is answered waits for the answer and says so;
/// the answer runs it. Typed twice, it runs without a prediction.
#[test]
fn a_command_typed_before_its_question_waits_for_the_answer() {
    let mut c = Controller::for_lesson("tc-bypass").unwrap();
    run(&mut c, 1000);
    c.learner_command("tc counting usesw").unwrap();
    let v = c.view().lesson;
    assert_eq!(v.step, 2, "the question's step is current");
    assert_eq!(v.held.as_deref(), Some("tc counting usesw"));
    assert!(
        v.predict.as_ref().is_some_and(|p| p.chosen.is_none()),
        "the question is open"
    );
    assert!(
        !v.steps[2].done && c.sim().config().tc_counting.name() == "legacy",
        "nothing ran"
    );
    let note = c
        .view()
        .console
        .lines
        .last()
        .and_then(|l| l.note.clone())
        .unwrap_or_default();
    assert!(note.contains("waits for your prediction"), "{note}");
    c.predict(0);
    let v = c.view().lesson;
    assert!(v.held.is_none() && v.steps[2].done, "the answer ran it");
    assert_eq!(c.sim().config().tc_counting.name(), "usesw");
    // Typed twice: it runs, without a prediction.
    let mut c = Controller::for_lesson("tc-bypass").unwrap();
    run(&mut c, 1000);
    c.learner_command("tc counting usesw").unwrap();
    c.learner_command("tc counting usesw").unwrap();
    assert_eq!(c.sim().config().tc_counting.name(), "usesw");
    assert!(c
        .view()
        .lesson
        .predict
        .as_ref()
        .is_some_and(|p| p.chosen.is_none() && p.measuring));
}

/// A wrong way is named on the page in the lesson's words, counts in the score once it
/// stood (tried is tried, even when time goes back over it), and the lesson's own way then
/// ends the lesson with that score.
#[test]
fn a_wrong_way_is_named_and_scored_and_the_right_way_ends_the_lesson() {
    let mut c = Controller::for_lesson("tc-bypass").unwrap();
    run(&mut c, 3000);
    c.learner_command("tc qdisc del dev eth0 ingress").unwrap();
    run(&mut c, 4000);
    let v = c.view().lesson;
    assert_eq!(v.goal_met, Some(false));
    let why = v.wrong_way.clone().expect("the page says why it does not count");
    assert!(why.starts_with("Without the ingress block"), "{why}");
    assert!(
        v.goal_parts.iter().any(|p| p.holds == Some(false)),
        "{:?}",
        v.goal_parts
    );
    c.seek(Nanos::from_ms(2900));
    assert!(c.view().lesson.wrong_way.is_none(), "gone with the change it named");
    c.learner_command("tc counting usesw").unwrap(); // held: the question first
    c.predict(0);
    run(&mut c, 2500);
    let v = c.view().lesson;
    assert_eq!(v.goal_met, Some(true), "{:?}", v.goal_parts);
    let score = v.complete.clone().expect("the ending").score;
    assert_eq!((score.predicted, score.right, score.questions), (1, 1, 1));
    assert_eq!(score.shortcuts, 1, "tried, even if time went back over it: {score:?}");
    assert_eq!(score.points(), 90);
    assert!(score.sim_ms > 2900);
}

/// packet-drops has the learner find where packets drop: no place's count shows (panel,
/// evidence, queue bars, the wire's stops) until a command that prints it ran; each command
/// shows its own places only; the goal met shows them all.
#[test]
fn packet_drops_keeps_each_place_hidden_until_its_counter_is_read() {
    let text = steerlab_scenario::lesson("packet-drops").unwrap();
    // Variant 1 (seed 3): drops at the NIC's ring.
    let ring = steerlab_scenario::with_overrides(text, &["sim.seed=3".to_string()]).unwrap();
    for (text, place) in [
        (text.to_string(), "packets.dropped.socket"),
        (ring, "packets.dropped.ring_full"),
    ] {
        let mut c = Controller::for_text(&text).unwrap();
        run(&mut c, 2000);
        let unread = |c: &Controller| -> Vec<String> {
            let v = c.view();
            v.figures
                .drops
                .iter()
                .filter(|d| d.hidden.is_some())
                .map(|d| d.metric.clone())
                .collect()
        };
        let v = c.view();
        let dropping = v.figures.drops.iter().find(|d| d.metric == place).unwrap();
        assert!(dropping.total > 0, "{place} drops: {dropping:?}");
        assert_eq!(unread(&c).len(), v.figures.drops.len(), "every place unread at first");
        assert!(
            v.lesson.evidence.iter().all(|e| e.now == "?" && e.hidden.is_some()),
            "{:?}",
            v.lesson.evidence
        );
        assert!(v.queues.iter().all(|q| q.drops_hidden));
        if place == "packets.dropped.ring_full" {
            assert!(v.queues.iter().any(|q| q.drops > 0), "the ring drops, unseen");
        }
        assert!(
            v.wire.as_ref().unwrap().flows.iter().all(|f| f.view.dropped.is_none()),
            "no dot stops unread"
        );
        assert!(
            v.wire.as_ref().unwrap().ring_drops.iter().all(|&d| d == 0),
            "no dot stops at an unread ring"
        );
        let drop_parts: Vec<_> = v.lesson.goal_parts.iter().filter(|p| p.unread.is_some()).collect();
        assert_eq!(
            drop_parts.len(),
            3,
            "the three places' parts keep their verdicts: {:?}",
            v.lesson.goal_parts
        );
        assert!(drop_parts.iter().all(|p| p.holds.is_none()));
        c.learner_command("nstat -az Udp*").unwrap();
        let v = c.view();
        assert!(!unread(&c).contains(&"packets.dropped.socket".to_string()));
        assert!(
            unread(&c).contains(&"packets.dropped.ring_full".to_string()),
            "nstat does not show the ring"
        );
        assert!(v.queues.iter().all(|q| q.drops_hidden));
        c.learner_command("ethtool -S eth0").unwrap();
        c.learner_command("cat /proc/net/softnet_stat").unwrap();
        run(&mut c, 2000);
        let v = c.view();
        assert_eq!(
            unread(&c),
            ["tc.hw_drop", "packets.dropped.tc"],
            "only tc's stay unread"
        );
        assert!(
            v.lesson.evidence.iter().all(|e| e.hidden.is_none() && e.now != "?"),
            "{:?}",
            v.lesson.evidence
        );
        assert!(v.queues.iter().all(|q| !q.drops_hidden));
        assert!(v.lesson.goal_parts.iter().all(|p| p.unread.is_none()));
        let ring_read = v.wire.as_ref().unwrap().ring_drops.iter().any(|&d| d > 0);
        assert_eq!(
            ring_read,
            place == "packets.dropped.ring_full",
            "read, the ring's dots stop where it drops"
        );
    }
    // Its later steps (the fourth names the place) show once reached.
    let mut c = Controller::for_lesson("packet-drops").unwrap();
    let v = c.view();
    assert!(
        v.lesson.steps[3].text.starts_with("Shows once you reach it"),
        "{:?}",
        v.lesson.steps[3]
    );
    assert!(v.lesson.steps[3].commands.is_empty());
    c.next_step();
    c.next_step();
    c.next_step();
    assert!(c.view().lesson.steps[3].text.starts_with("Why is the reader slow?"));
    // A lesson that does not ask to find the place hides nothing.
    let mut c = Controller::for_lesson("irq-affinity").unwrap();
    run(&mut c, 1500);
    assert!(c.view().figures.drops.iter().all(|d| d.hidden.is_none()));
}

/// A command that only reads (`cat`, `ethtool -S`, `mpstat`) is not a change: the strip keeps
/// its figures and the goal its verdicts; a write measures both anew.
#[test]
fn a_read_is_not_a_change() {
    let mut c = Controller::for_lesson("irq-affinity").unwrap();
    run(&mut c, 3000);
    let parts = |c: &Controller| c.view().lesson.goal_parts.iter().map(|p| p.holds).collect::<Vec<_>>();
    let (strip, judged) = (c.view().lesson.evidence.clone(), parts(&c));
    assert!(strip.iter().all(|e| e.now != "measuring…"), "{strip:?}");
    for line in ["cat /proc/interrupts", "ethtool -S eth0 | grep out_of", "mpstat -P ALL"] {
        c.learner_command(line).unwrap();
        assert_eq!(c.view().lesson.evidence, strip, "{line}");
        assert_eq!(parts(&c), judged, "{line}");
    }
    assert!(c.view().marks.is_empty(), "no change marked on the charts");
    // (Step 4's own move waits for its question: step 5's runs at once.)
    c.learner_command("echo 2 > /proc/irq/132/smp_affinity_list").unwrap();
    let now: Vec<String> = c.view().lesson.evidence.iter().map(|e| e.now.clone()).collect();
    assert!(now.iter().all(|n| n == "measuring…" || n == "paused"), "{now:?}");
    assert_eq!(c.view().marks.len(), 1);
}
