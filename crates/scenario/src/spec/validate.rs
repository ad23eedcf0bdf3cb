//! What typing cannot check: the schema version, ranges, group sizes, addresses, the names a
//! lesson gives page elements.

use std::net::IpAddr;

use steerlab_engine::config::{MAX_FLOWS, MAX_THREADS};
use steerlab_engine::{CpuSet, HostConfig};

use super::{err, Scenario};
use crate::{ScenarioError, SCHEMA};

/// Most readers of one socket (the epoll pattern of seed 002 uses a handful).
const MAX_READERS_PER_FLOW: u32 = 64;

/// A day, in ms: the longest time a scenario names (a run, a command's time, a check's window,
/// a migration period).
const DAY_MS: u64 = 86_400_000;

/// Whether `name` has the shape of the page's `data-testid` names (1 to 64 of `a-z`, `0-9`,
/// `-`): what a guided step may point at, and what the page may put in a style rule.
pub fn is_testid(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

impl Scenario {
    /// Checks everything that typing cannot: schema, ranges, group sizes, addresses.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.schema == 0 || self.schema > SCHEMA {
            return Err(err(
                "schema",
                format!("{} is not a known version (accepted: 1..={SCHEMA})", self.schema),
            ));
        }
        if self.id.is_empty() || self.id.len() > 64 {
            return Err(err("id", "1 to 64 characters"));
        }
        let cfg = self.host_config()?;
        cfg.validate().map_err(|e| ScenarioError(e.to_string()))?;
        if !(1..=DAY_MS).contains(&self.sim.duration_ms) {
            return Err(err("sim.duration_ms", format!("out of range (accepted: 1..={DAY_MS})")));
        }
        self.xdp_program()?;
        self.rss_key()?;
        self.indir()?;
        if self.tc.insert_threads > 4096 || self.tc.insert_rules > 10_000_000 {
            return Err(err("tc", "insert_threads 0..=4096, insert_rules 0..=10000000"));
        }
        let threads: u64 = self.threads.iter().map(|t| u64::from(t.count)).sum();
        if threads > u64::from(MAX_THREADS) {
            return Err(err("threads", format!("{threads} threads; at most {MAX_THREADS}")));
        }
        for (i, c) in self.timeline.iter().enumerate() {
            if c.at_ms > DAY_MS {
                return Err(err(
                    &format!("timeline[{i}].at_ms"),
                    format!("{} is out of range (accepted: 0..={DAY_MS})", c.at_ms),
                ));
            }
        }
        self.validate_lesson(&cfg, threads as u32)?;
        self.validate_threads(&cfg)?;
        self.validate_flows(threads)
    }

    /// The lesson's page names (highlights, the chart), its steps' matrix cells, its teaching
    /// parts and its checks.
    fn validate_lesson(&self, cfg: &HostConfig, threads: u32) -> Result<(), ScenarioError> {
        self.validate_lesson_sizes()?;
        for (i, h) in self.lesson.highlight.iter().enumerate() {
            // A step may point at nothing (""); a name is a page's data-testid.
            if !h.is_empty() && !is_testid(h) {
                return Err(err(
                    &format!("lesson.highlight[{i}]"),
                    format!("{h:?} is not a data-testid name (accepted: up to 64 of a-z, 0-9, -)"),
                ));
            }
        }
        for (i, step) in self.lesson.steps.iter().enumerate() {
            if !step.outcome.is_empty() && step.commands.is_empty() {
                return Err(err(
                    &format!("lesson.steps[{i}].outcome"),
                    "an outcome follows the step's commands: this step has none (put the words in its text)",
                ));
            }
            if let Some([q, c]) = step.cell {
                if q >= cfg.rx_queues || c >= cfg.cpus {
                    return Err(err(
                        &format!("lesson.steps[{i}].cell"),
                        format!(
                            "[{q}, {c}] is not a cell of this host (RX queues 0..{}, CPUs 0..{})",
                            cfg.rx_queues, cfg.cpus
                        ),
                    ));
                }
            }
        }
        if !self.lesson.chart.is_empty() && !is_testid(&self.lesson.chart) {
            return Err(err(
                "lesson.chart",
                format!(
                    "{:?} is not a data-testid name (accepted: up to 64 of a-z, 0-9, -)",
                    self.lesson.chart
                ),
            ));
        }
        crate::teach::validate(&self.lesson)?;
        self.validate_figures(cfg, threads)
    }

    /// A lesson file is untrusted input (`?lesson-url=`, an embed's `steerlab:load`): its lists
    /// and texts are bounded, so that no file can make the page or a check do unbounded work.
    fn validate_lesson_sizes(&self) -> Result<(), ScenarioError> {
        let l = &self.lesson;
        let most = |at: &str, n: usize, max: usize| {
            if n > max {
                Err(err(at, format!("{n} items; at most {max}")))
            } else {
                Ok(())
            }
        };
        most("lesson.steps", l.steps.len(), 64)?;
        most("lesson.predict", l.predict.len(), 16)?;
        most("lesson.check", l.check.len(), 32)?;
        most("lesson.not_solutions", l.not_solutions.len(), 64)?;
        most("lesson.evidence", l.evidence.len(), 12)?;
        most("lesson.table", l.table.len(), 64)?;
        if let Some(c) = &l.challenge {
            most("lesson.challenge.hints", c.hints.len(), 16)?;
            most("lesson.challenge.check", c.check.len(), 32)?;
            most("lesson.challenge.solution", c.solution.len(), 256)?;
        }
        for (i, s) in l.steps.iter().enumerate() {
            most(&format!("lesson.steps[{i}].commands"), s.commands.len(), 256)?;
        }
        for (i, n) in l.not_solutions.iter().enumerate() {
            most(&format!("lesson.not_solutions[{i}].commands"), n.commands.len(), 256)?;
        }
        // A goal's parts nest: at most 8 deep and 256 in all.
        fn size(c: &crate::Check, depth: usize) -> Option<usize> {
            match &c.part {
                crate::Part::All(parts) | crate::Part::Any(parts) if depth < 8 => {
                    parts.iter().try_fold(1, |n, p| Some(n + size(p, depth + 1)?))
                }
                crate::Part::All(_) | crate::Part::Any(_) => None,
                _ => Some(1),
            }
        }
        let goals = l.check.iter().chain(l.challenge.iter().flat_map(|c| c.check.iter()));
        let parts = goals.map(|c| size(c, 0)).try_fold(0, |n, s| Some(n + s?));
        if parts.is_none_or(|n| n > 256) {
            return Err(err("lesson.check", "parts nest at most 8 deep, 256 in all"));
        }
        Ok(())
    }

    /// Every figure the lesson reads (its goal's, its questions', its evidence's) is one the
    /// report of this host has, and every setting its goal names is a part of the host: a
    /// typo would leave a goal that is silently never met.
    fn validate_figures(&self, cfg: &HostConfig, threads: u32) -> Result<(), ScenarioError> {
        let l = &self.lesson;
        let known = |m: &str| crate::is_figure(m, cfg);
        let challenge = l.challenge.iter().flat_map(|c| c.check.iter().enumerate());
        let checks = l
            .check
            .iter()
            .enumerate()
            .map(|(i, c)| (format!("lesson.check[{i}]"), c))
            .chain(challenge.map(|(i, c)| (format!("lesson.challenge.check[{i}]"), c)));
        for (at, c) in checks {
            c.validate(&at, &known, cfg, threads).map_err(ScenarioError)?;
        }
        let unknown = |at: String, m: &str| {
            Err(err(
                &at,
                format!("{m:?} is not a figure of this host's report (`steerlab run FILE --json` lists them)"),
            ))
        };
        for (i, e) in l.evidence.iter().enumerate() {
            if !known(&e.metric) {
                return unknown(format!("lesson.evidence[{i}].metric"), &e.metric);
            }
        }
        for (i, p) in l.predict.iter().enumerate() {
            for (j, c) in p.choices.iter().enumerate() {
                for (k, o) in c.when.iter().enumerate() {
                    if !known(&o.metric) {
                        return unknown(format!("lesson.predict[{i}].choices[{j}].when[{k}].metric"), &o.metric);
                    }
                }
            }
        }
        Ok(())
    }

    /// Each thread group's start CPUs and cpuset, on this host.
    fn validate_threads(&self, cfg: &HostConfig) -> Result<(), ScenarioError> {
        for (i, t) in self.threads.iter().enumerate() {
            if t.migrate_every_ms > DAY_MS {
                return Err(err(
                    &format!("threads[{i}].migrate_every_ms"),
                    format!("out of range (accepted: 0..={DAY_MS})"),
                ));
            }
            let p = format!("threads[{i}]");
            let cpus = CpuSet::parse_list(&t.cpus).map_err(|e| err(&format!("{p}.cpus"), e))?;
            if cpus.end() > cfg.cpus {
                return Err(err(&format!("{p}.cpus"), "names CPUs this host does not have"));
            }
            if !t.cpuset.is_empty() {
                let set = CpuSet::parse_list(&t.cpuset).map_err(|e| err(&format!("{p}.cpuset"), e))?;
                if set.end() > cfg.cpus || cpus.iter().any(|c| !set.contains(c)) {
                    return Err(err(
                        &format!("{p}.cpuset"),
                        "must hold the group's start CPUs and only this host's CPUs",
                    ));
                }
            }
        }
        Ok(())
    }

    /// The flow count, and each flow group's protocol, addresses and readers among `threads`.
    fn validate_flows(&self, threads: u64) -> Result<(), ScenarioError> {
        let flows: u64 = self.flows.iter().map(|f| u64::from(f.count)).sum();
        if flows > u64::from(MAX_FLOWS) {
            return Err(err("flows", format!("{flows} flows; at most {MAX_FLOWS}")));
        }
        for (i, f) in self.flows.iter().enumerate() {
            let p = format!("flows[{i}]");
            if f.proto != "tcp" && f.proto != "udp" {
                return Err(err(
                    &format!("{p}.proto"),
                    format!("{:?} is not one of tcp | udp", f.proto),
                ));
            }
            let src: IpAddr = f
                .src
                .parse()
                .map_err(|_| err(&format!("{p}.src"), "not an IPv4 or IPv6 address"))?;
            let dst: IpAddr = f
                .dst
                .parse()
                .map_err(|_| err(&format!("{p}.dst"), "not an IPv4 or IPv6 address"))?;
            if src.is_ipv4() != dst.is_ipv4() {
                return Err(err(&format!("{p}.dst"), "must be of the same family as src"));
            }
            if f.readers_per_flow > 0 && threads == 0 {
                return Err(err(&format!("{p}.readers_per_flow"), "needs threads"));
            }
            if f.tx.is_some() && f.readers_per_flow == 0 {
                return Err(err(
                    &format!("{p}.tx"),
                    "a sending socket needs readers_per_flow >= 1 (its first reader sends)",
                ));
            }
            if f.readers_per_flow > MAX_READERS_PER_FLOW {
                return Err(err(
                    &format!("{p}.readers_per_flow"),
                    format!(
                        "{} is out of range (accepted: 0..={MAX_READERS_PER_FLOW})",
                        f.readers_per_flow
                    ),
                ));
            }
            if f.reader_base.is_some_and(|b| u64::from(b) >= threads) {
                return Err(err(
                    &format!("{p}.reader_base"),
                    format!("must name a thread (0..{threads})"),
                ));
            }
            if u64::from(f.readers_per_flow) > threads.max(1) {
                return Err(err(
                    &format!("{p}.readers_per_flow"),
                    format!("at most the number of threads ({threads})"),
                ));
            }
        }
        Ok(())
    }
}
