//! Every built-in lesson's goal holds only by the lesson's mechanism (issue 48), judged as the
//! page judges it (`lesson_run`): its steps followed in order meet the goal, and its
//! challenge's solution meets the challenge's; each of its `not_solutions` (known shortcuts:
//! the feature switched off, the filters deleted, the flows closed, the sender moved) leaves
//! the goal unmet in both forms, and so do the shortcuts tried from outside below, which no
//! lesson file lists. No question is answered by what the page shows with it.

use steerlab_scenario::lesson_run::{play, play_after};
use steerlab_scenario::{lesson_ids, load, teach, Scenario};

fn lesson(id: &str) -> Scenario {
    load(id, &[]).unwrap_or_else(|e| panic!("{id}: {e}"))
}

/// Every lesson's every host: the lesson as written, and each of its other variants as the
/// seed that picks it makes it (`lesson.variants`), named `id (variant k)`.
fn hosts() -> Vec<(String, Scenario)> {
    let mut out = Vec::new();
    for id in lesson_ids() {
        let s = lesson(id);
        for (k, v) in s.other_variants(|seed| load(id, &[seed])) {
            let v = v.unwrap_or_else(|e| panic!("{id} variant {k}: {e}"));
            assert_eq!(v.variant(), Some(k));
            out.push((format!("{id} (variant {k})"), v));
        }
        out.push((id.to_string(), s));
    }
    out
}

/// The guided steps' commands, a group per step that has any.
fn steps(s: &Scenario) -> Vec<Vec<String>> {
    s.lesson
        .steps
        .iter()
        .filter(|st| !st.commands.is_empty())
        .map(|st| st.commands.clone())
        .collect()
}

fn lines(l: &[&str]) -> Vec<Vec<String>> {
    vec![l.iter().map(|s| s.to_string()).collect()]
}

#[test]
fn every_lessons_solution_meets_its_goal_in_both_forms() {
    for (id, s) in hosts() {
        let id = id.as_str();
        let guided = play(&s, false, &steps(&s));
        assert_eq!(guided.error, None, "{id}: its steps run");
        assert!(
            guided.met.is_some(),
            "{id}: following its steps meets the goal: {:?}",
            guided.last
        );
        let c = s.lesson.challenge.as_ref().expect("every lesson has a challenge");
        assert!(!c.solution.is_empty(), "{id}: the challenge names a solution");
        let challenge = play(&s, true, std::slice::from_ref(&c.solution));
        assert!(
            challenge.met.is_some(),
            "{id}: the challenge's solution meets it: {:?}",
            challenge.last
        );
    }
}

#[test]
fn no_listed_shortcut_meets_a_goal_in_either_form() {
    for (id, s) in hosts() {
        let id = id.as_str();
        assert!(
            s.lesson.not_solutions.len() >= 3,
            "{id}: lists its wrong ways ({})",
            s.lesson.not_solutions.len()
        );
        for n in &s.lesson.not_solutions {
            assert!(!n.why.is_empty(), "{id}: {:?} says why it does not count", n.commands);
            for challenge in [false, true] {
                let p = play(&s, challenge, std::slice::from_ref(&n.commands));
                assert_eq!(p.error, None, "{id}: {:?} runs", n.commands);
                assert_eq!(
                    p.met, None,
                    "{id} (challenge {challenge}): {:?} met the goal",
                    n.commands
                );
                // The wrong way is named by a part of the goal, not only by a figure
                // still moving: some part the learner can read fails, with its words.
                let named = p
                    .checks
                    .iter()
                    .zip(&p.last.parts)
                    .any(|(c, v)| *v == Some(false) && !c.fails.is_empty());
                let symptom = p
                    .checks
                    .iter()
                    .zip(&p.last.parts)
                    .any(|(c, v)| *v != Some(true) && c.fails.is_empty());
                assert!(named || symptom, "{id}: {:?}: no part says why it fails", n.commands);
            }
        }
    }
}

/// Shortcuts no lesson file lists, tried as a learner who wants the badge would.
#[test]
fn shortcuts_from_outside_the_lesson_files_do_not_meet_a_goal() {
    let tries: &[(&str, &[&str])] = &[
        ("rss-basics", &["ethtool -X eth0 equal 3", "flow close 12"]),
        (
            "rss-basics",
            &[
                "ethtool -K eth0 ntuple on",
                "ethtool -N eth0 flow-type tcp4 dst-port 5201 action 1",
            ],
        ),
        ("rss-basics", &["ethtool -L eth0 combined 2"]),
        ("rss-basics", &["ip link set dev eth0 xdp obj xdp_drop"]),
        ("arfs-collision", &["nic driver ice", "ethtool -K eth0 ntuple off"]),
        ("arfs-collision", &["nic driver ixgbe"]),
        (
            "arfs-collision",
            &["echo 1 | tee /sys/class/net/eth0/queues/rx-*/rps_flow_cnt"],
        ),
        (
            "tc-bypass",
            &["tc counting usesw", "tc filter del dev eth0 ingress prio 1"],
        ),
        (
            "tc-bypass",
            &[
                "tc filter del dev eth0 ingress prio 1",
                "tc filter add dev eth0 ingress protocol ip prio 1 flower skip_sw ip_proto tcp dst_port 80 action drop",
            ],
        ),
        (
            "tc-bypass",
            &[
                "tc filter del dev eth0 ingress prio 1",
                "tc filter add dev eth0 ingress protocol ip prio 2 flower skip_hw ip_proto udp dst_port 53 action drop",
            ],
        ),
        (
            "tc-bypass",
            &[
                "flow close 8",
                "flow close 9",
                "flow close 10",
                "flow close 11",
                "tc filter del dev eth0 ingress prio 1",
            ],
        ),
        (
            "rfs-thread-churn",
            &["rfs record cpuset", "sysctl -w net.core.rps_sock_flow_entries=0"],
        ),
        (
            "rfs-thread-churn",
            &["echo 0 > /sys/class/net/eth0/queues/rx-0/rps_flow_cnt"],
        ),
        ("rfs-thread-churn", &["ip link set dev eth0 xdp obj xdp_drop"]),
        ("xps-pick-tx", &["thread migrate 0 1"]),
        (
            "xps-pick-tx",
            &["echo 44 > /sys/class/net/eth0/queues/tx-2/xps_cpus", "flow close 0"],
        ),
        (
            "xps-pick-tx",
            &[
                "ethtool -L eth0 combined 1",
                "echo 1 > /sys/class/net/eth0/queues/tx-0/xps_cpus",
            ],
        ),
        (
            "xdp-kfunc-cost",
            &["ip link set dev eth0 xdp off", "ip link set dev eth0 xdp obj xdp_pass"],
        ),
        ("xdp-kfunc-cost", &["ip -force link set dev eth0 xdp obj xdp_tx"]),
        (
            "xdp-kfunc-cost",
            &[
                "ip -force link set dev eth0 xdp obj xdp_hints_pass",
                "xdp strategy inline",
            ],
        ),
    ];
    for (id, l) in tries {
        let s = lesson(id);
        for challenge in [false, true] {
            let p = play(&s, challenge, &lines(l));
            if let Some(e) = &p.error {
                // A line the host refuses changed nothing: no shortcut either.
                assert!(p.met.is_none(), "{id}: {l:?}: {e}");
                continue;
            }
            assert_eq!(
                p.met, None,
                "{id} (challenge {challenge}): {l:?} met the goal: {:?}",
                p.last
            );
        }
    }
}

#[test]
fn no_question_is_answered_by_what_the_page_shows_with_it() {
    for (id, s) in hosts() {
        let id = id.as_str();
        assert!(!s.lesson.predict.is_empty(), "{id} asks a question");
        for q in &s.lesson.predict {
            assert!(q.choices.len() >= 3, "{id}: at least three answers");
            assert!(
                q.choices.iter().all(|c| !c.tells.is_empty()),
                "{id}: every answer names the words that would tell it"
            );
            // A step whose commands answer the question keeps its outcome for later.
            let step = &s.lesson.steps[q.step];
            assert!(!step.outcome.is_empty(), "{id}: the question's step has an outcome");
        }
        assert_eq!(
            teach::giveaways(&s.lesson),
            vec![],
            "{id}: words that tell an answer are shown with it"
        );
    }
}

/// A learner who types a question's step at once, in the lesson's first simulated second, gets
/// the answer the lesson teaches, as one who reads first does: the "before" is what the host
/// did until then (found by the SCORM and embed e2e tests, whose learners type fast).
#[test]
fn a_question_answered_in_the_first_second_gets_the_lessons_answer() {
    for (id, s) in hosts() {
        let id = id.as_str();
        let groups = steps(&s);
        let Some(first) = groups.first() else { continue };
        for (k, q) in s.lesson.predict.iter().enumerate() {
            if s.lesson.steps[q.step].commands != *first {
                continue;
            }
            for read_ns in [150_000_000, 400_000_000, 800_000_000] {
                let p = play_after(&s, false, std::slice::from_ref(first), read_ns);
                assert_eq!(p.error, None, "{id}");
                assert_eq!(
                    p.answers[k],
                    Some(q.answer),
                    "{id}: question {k} with its step typed after {} ms",
                    read_ns / 1_000_000
                );
            }
        }
    }
}

/// A lesson with variants puts its answer in a different place on each: no variant's
/// challenge solution meets another's goal (so the challenge cannot be learned by heart),
/// and the lesson as written is the first variant, picked by its own seed.
#[test]
fn a_variants_solution_does_not_meet_another_variants_goal() {
    let all = hosts();
    for id in lesson_ids() {
        let variants: Vec<&Scenario> = all
            .iter()
            .filter(|(name, _)| name == id || name.starts_with(&format!("{id} (variant")))
            .map(|(_, s)| s)
            .collect();
        if variants.len() < 2 {
            continue;
        }
        assert_eq!(
            lesson(id).variant(),
            Some(0),
            "{id}: its own seed picks the lesson as written"
        );
        for a in &variants {
            for b in &variants {
                if a.variant() == b.variant() {
                    continue;
                }
                let solution = &a.lesson.challenge.as_ref().expect("a challenge").solution;
                let p = play(b, true, std::slice::from_ref(solution));
                assert_eq!(
                    p.met,
                    None,
                    "{id}: variant {:?}'s solution {solution:?} met variant {:?}'s goal",
                    a.variant(),
                    b.variant()
                );
            }
        }
    }
}
