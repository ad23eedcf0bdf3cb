//! `steerlab predict` and `steerlab solve`: where flows land on a host (a capture or a
//! scenario), one [`Predicted`] per flow *as the NIC receives it*, and flows found to land
//! where asked. The page's "Your host" uses the same functions.
//!
//! Flows are written `PROTO SRC:SPORT DST:DPORT` (IPv6 in brackets), or given as the output of
//! `ss -tn` / `ss -un` taken on the host: there the local address is the receiver, so the peer
//! is the source of the packets received (the trap of scripts that hash the tuple the wrong
//! way round).

use std::fmt::Write as _;
use std::net::IpAddr;

use serde::{Deserialize, Serialize};
use steerlab_engine::{FlowKey, History, Proto, RpsPrediction, Sim};

use crate::capture::Assumption;
use crate::ScenarioError;

/// Most flows one request predicts (a 100,000-line `ss` output is well inside).
pub const MAX_FLOWS: usize = 1_000_000;

/// One flow's prediction, with the contract's JSON keys.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Predicted {
    /// `PROTO SRC:SPORT DST:DPORT` as received.
    pub flow: String,
    /// The NIC's Toeplitz hash, `0x%08x`.
    pub hash: String,
    /// The fields hashed (`sdfn` or `sd`, ethtool's letters).
    pub fields: String,
    /// `hash & (table size - 1)`.
    pub indir_index: u32,
    /// The RX queue.
    pub queue: u16,
    /// `ntuple:LOC` for a rule, else `rss`.
    pub decided_by: String,
    /// The CPU of the queue's IRQ.
    pub irq_cpu: u16,
    /// The CPU RPS sends the packets to; `null` where there is no RPS map or the hash that
    /// picks it is not predictable (see `rps`).
    pub rps_cpu: Option<u16>,
    /// What decides the RPS step: `off`, `rps`, `software-hash`, `rfs-only`.
    pub rps: String,
    /// A decision that depends on history, named: `arfs`, `rfs`, `atr`, or `null`.
    pub history: Option<String>,
    /// In words, what the history would change.
    pub note: String,
}

/// Parses `PROTO SRC:SPORT DST:DPORT` (`tcp 203.0.113.7:40000 10.0.0.2:443`,
/// `udp [2001:db8::7]:5353 [2001:db8::2]:53`).
pub fn parse_flow(text: &str) -> Result<FlowKey, String> {
    let form = "expected PROTO SRC:SPORT DST:DPORT, e.g. tcp 203.0.113.7:40000 10.0.0.2:443 (IPv6 in brackets)";
    let words: Vec<&str> = text.split_whitespace().collect();
    let [proto, src, dst] = words.as_slice() else {
        return Err(format!("{text:?}: {form}"));
    };
    let proto = parse_proto(proto).ok_or_else(|| format!("{proto:?} is not tcp or udp; {form}"))?;
    let (s, sp) = endpoint(src).ok_or_else(|| format!("{src:?} is not ADDRESS:PORT; {form}"))?;
    let (d, dp) = endpoint(dst).ok_or_else(|| format!("{dst:?} is not ADDRESS:PORT; {form}"))?;
    FlowKey::new(s, d, sp, dp, proto).map_err(|e| format!("{text:?}: {e}"))
}

fn parse_proto(p: &str) -> Option<Proto> {
    match p.to_ascii_lowercase().as_str() {
        "tcp" | "tcp4" | "tcp6" => Some(Proto::Tcp),
        "udp" | "udp4" | "udp6" => Some(Proto::Udp),
        _ => None,
    }
}

/// `A.B.C.D:PORT`, `[V6]:PORT`, or ss's unbracketed `V6:PORT`; a `%iface` scope is dropped and
/// an IPv4-mapped IPv6 address is the IPv4 address it carries (the packets are IPv4).
fn endpoint(text: &str) -> Option<(IpAddr, u16)> {
    let (addr, port) = match text.strip_prefix('[') {
        Some(rest) => {
            let (a, p) = rest.split_once("]:")?;
            (a, p)
        }
        None => text.rsplit_once(':')?,
    };
    let addr = addr.split('%').next()?;
    let ip: IpAddr = addr.parse().ok()?;
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    Some((ip, port.parse().ok()?))
}

/// The flows of a file: one `PROTO SRC:SPORT DST:DPORT` per line (`#` comments, blank lines),
/// and `ss -tn` / `ss -un` / `ss -tun` output (recognised by its `Local Address:Port` header;
/// the protocol from its `Netid` column, else from a `$ ss -u…` line before it, else TCP),
/// in any mix.
/// Sockets without a peer (`*:*`, listening) are skipped. An error names the line.
pub fn parse_flows(text: &str) -> Result<Vec<FlowKey>, String> {
    let mut flows = Vec::new();
    // In an ss table: the protocol of rows without a Netid column, whether there is one, and
    // the column of the local address (ss leaves out State when it lists one state only).
    let mut ss: Option<(Proto, bool, usize)> = None;
    let mut ss_proto = Proto::Tcp;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if let Some(cmd) = t.strip_prefix("$ ") {
            let flags: String = cmd
                .split_whitespace()
                .filter(|w| w.starts_with('-') && !w.starts_with("--"))
                .collect();
            ss_proto = if flags.contains('u') && !flags.contains('t') {
                Proto::Udp
            } else {
                Proto::Tcp
            };
            ss = None;
            continue;
        }
        if let Some(before) = t
            .split_once("Local Address:Port")
            .map(|(b, _)| b.split_whitespace().count())
        {
            ss = Some((ss_proto, t.starts_with("Netid"), before));
            continue;
        }
        if flows.len() >= MAX_FLOWS {
            return Err(format!("line {n}: more than {MAX_FLOWS} flows"));
        }
        // A flow written out (three words, a protocol first) is one wherever it stands; an ss
        // row with a Netid column has six or more.
        let written = t.split_whitespace().count() == 3 && t.split_whitespace().next().and_then(parse_proto).is_some();
        match ss {
            Some((proto, netid, local)) if !written => {
                if let Some(key) = ss_row(t, proto, netid, local).map_err(|e| format!("line {n}: {e}"))? {
                    flows.push(key);
                }
            }
            _ => flows.push(parse_flow(t).map_err(|e| format!("line {n}: {e}"))?),
        }
    }
    Ok(flows)
}

/// A row of `ss -n`: `[Netid] [State] Recv-Q Send-Q LOCAL PEER [Process]`, LOCAL in column
/// `local`; the packets received go from PEER to LOCAL. `None` for a socket with no peer.
fn ss_row(t: &str, proto: Proto, netid: bool, local: usize) -> Result<Option<FlowKey>, String> {
    let w: Vec<&str> = t.split_whitespace().collect();
    let (Some(local), Some(peer)) = (w.get(local), w.get(local + 1)) else {
        return Err(format!(
            "{t:?}: an ss row is [Netid] [State] Recv-Q Send-Q Local:Port Peer:Port, as its header says"
        ));
    };
    let proto = if netid {
        parse_proto(w[0]).ok_or_else(|| format!("Netid {:?} is not tcp or udp", w[0]))?
    } else {
        proto
    };
    if peer.ends_with(":*") || local.ends_with(":*") {
        return Ok(None);
    }
    let (l, lp) = endpoint(local).ok_or_else(|| format!("{local:?} is not ADDRESS:PORT"))?;
    let (p, pp) = endpoint(peer).ok_or_else(|| format!("{peer:?} is not ADDRESS:PORT"))?;
    FlowKey::new(p, l, pp, lp, proto).map(Some).map_err(|e| e.to_string())
}

/// `PROTO SRC:SPORT DST:DPORT`.
pub fn flow_text(key: &FlowKey) -> String {
    let ep = |ip: IpAddr, port: u16| match ip {
        IpAddr::V4(a) => format!("{a}:{port}"),
        IpAddr::V6(a) => format!("[{a}]:{port}"),
    };
    format!(
        "{} {} {}",
        key.proto().name(),
        ep(key.src(), key.sport()),
        ep(key.dst(), key.dport())
    )
}

/// The prediction for `key` on `sim` (the host at time 0, timeline applied).
pub fn predict(sim: &Sim, key: &FlowKey) -> Predicted {
    let p = sim.predict(key);
    let (rps_cpu, rps) = match p.rps {
        RpsPrediction::Off => (None, "off"),
        RpsPrediction::Cpu(c) => (Some(c), "rps"),
        RpsPrediction::SoftwareHash => (None, "software-hash"),
        RpsPrediction::RfsOnly => (None, "rfs-only"),
    };
    let mut note = String::new();
    if p.rps == RpsPrediction::SoftwareHash {
        note += "no ports hashed: the stack's software hash (boot-random key) picks the RPS CPU; ";
    }
    let history = match (p.history, p.rfs) {
        (Some(History::Arfs), _) => {
            note += "aRFS: once the socket is read, the driver steers the flow to the queue of the reader's CPU, and RFS sends it to that CPU";
            Some("arfs")
        }
        (Some(History::Atr), _) => {
            note += "ixgbe ATR: once the socket sends, a sampled packet steers the flow to the sending CPU's queue";
            Some("atr")
        }
        (None, true) => {
            note += "RFS: once the socket is read, packets go to the reader's CPU";
            Some("rfs")
        }
        (None, false) => None,
    };
    Predicted {
        flow: flow_text(key),
        hash: format!("{:#010x}", p.hash),
        fields: p.fields.to_string(),
        indir_index: p.indir_index,
        queue: p.queue,
        decided_by: p.rule.map_or_else(|| "rss".to_string(), |l| format!("ntuple:{l}")),
        irq_cpu: p.irq_cpu,
        rps_cpu,
        rps: rps.to_string(),
        history: history.map(str::to_string),
        note: note.trim_end_matches("; ").to_string(),
    }
}

/// A template with one `*`: a port, the last octet of an IPv4 address, or the last group of
/// an IPv6 one (`tcp 203.0.113.7:* 10.0.0.2:443`, `udp 198.51.100.*:53 10.0.0.2:53`).
#[derive(Clone, Debug)]
pub struct Template {
    text: String,
    /// Where the star is: which word (1 = source, 2 = destination) and whether in the port.
    word: usize,
    port: bool,
}

impl Template {
    /// Parses a template; exactly one `*`.
    pub fn parse(text: &str) -> Result<Template, String> {
        let form = "a template is PROTO SRC:SPORT DST:DPORT with one * for a port or an address's last part, e.g. tcp 203.0.113.7:* 10.0.0.2:443";
        let words: Vec<&str> = text.split_whitespace().collect();
        if words.len() != 3 || text.matches('*').count() != 1 {
            return Err(format!("{text:?}: {form}"));
        }
        let word = if words[1].contains('*') {
            1
        } else if words[2].contains('*') {
            2
        } else {
            return Err(format!("{text:?}: {form}"));
        };
        let w = words[word];
        let port = w.ends_with(":*");
        let t = Template {
            text: words.join(" "),
            word,
            port,
        };
        // The first candidate must parse: the rest differ only in the starred part.
        t.candidate(0).ok_or_else(|| format!("{text:?}: {form}"))?;
        Ok(t)
    }

    /// How many values the star takes.
    fn span(&self, key: &FlowKey) -> u32 {
        match (self.port, key.src().is_ipv4()) {
            (true, _) | (false, false) => 1 << 16,
            (false, true) => 256,
        }
    }

    /// The flow with the star's `i`-th value: ports from 1024 up, then below (so the first
    /// answers are usable source ports); address parts from 1 (0 is a network address).
    fn candidate(&self, i: u32) -> Option<FlowKey> {
        let v = if self.port { (1024 + i) % 65536 } else { i + 1 };
        let words: Vec<&str> = self.text.split_whitespace().collect();
        let w = words[self.word];
        let filled = if self.port {
            w.replacen('*', &v.to_string(), 1)
        } else if w.contains('[') || w.matches(':').count() > 1 {
            w.replacen('*', &format!("{:x}", v % 65536), 1)
        } else {
            if v > 255 {
                return None;
            }
            w.replacen('*', &v.to_string(), 1)
        };
        let mut words: Vec<String> = words.iter().map(|s| s.to_string()).collect();
        words[self.word] = filled;
        parse_flow(&words.join(" ")).ok()
    }
}

/// The first `count` flows of `template`, in candidate order, that `keep` takes.
fn search(
    sim: &Sim,
    template: &Template,
    count: usize,
    mut keep: impl FnMut(&Predicted) -> bool,
) -> Result<Vec<Predicted>, String> {
    let first = template.candidate(0).ok_or("the template has no flow")?;
    let mut out = Vec::new();
    for i in 0..template.span(&first) {
        if out.len() == count {
            break;
        }
        let Some(key) = template.candidate(i) else { break };
        let p = predict(sim, &key);
        if keep(&p) {
            out.push(p);
        }
    }
    Ok(out)
}

/// `count` distinct flows of `template` whose packets land on RX queue `queue`, in candidate
/// order; an error says how many there are when the template has fewer.
pub fn solve_queue(sim: &Sim, template: &Template, queue: u16, count: usize) -> Result<Vec<Predicted>, String> {
    if queue >= sim.config().rx_queues {
        return Err(format!(
            "queue {queue}: the host has RX queues 0..={}",
            sim.config().rx_queues - 1
        ));
    }
    let out = search(sim, template, count, |p| p.queue == queue)?;
    if out.len() < count {
        return Err(format!(
            "only {} flows of {:?} land on queue {queue} (asked for {count})",
            out.len(),
            template.text
        ));
    }
    Ok(out)
}

/// `count` flows of `template` spread over the queues the indirection table names, as evenly
/// as they can be: every queue gets `count / queues` or one more.
pub fn solve_spread(sim: &Sim, template: &Template, count: usize) -> Result<Vec<Predicted>, String> {
    let mut queues: Vec<u16> = sim.reta().entries().to_vec();
    queues.sort_unstable();
    queues.dedup();
    let (base, extra) = (count / queues.len(), count % queues.len());
    let mut quota = vec![0usize; usize::from(sim.config().rx_queues)];
    for (i, &q) in queues.iter().enumerate() {
        quota[usize::from(q)] = base + usize::from(i < extra);
    }
    let out = search(sim, template, count, |p| {
        let left = &mut quota[usize::from(p.queue)];
        let take = *left > 0;
        *left -= usize::from(take);
        take
    })?;
    if out.len() < count {
        let short: Vec<String> = queues
            .iter()
            .filter(|&&q| quota[usize::from(q)] > 0)
            .map(|q| format!("rx-{q}"))
            .collect();
        return Err(format!(
            "only {} of {count} flows found: no more flows of {:?} land on {}",
            out.len(),
            template.text,
            short.join(", ")
        ));
    }
    Ok(out)
}

/// The predictions as a table, one row per flow, then the notes once each.
pub fn table(rows: &[Predicted]) -> String {
    let mut out = String::from("FLOW                                              HASH        FIELDS INDEX QUEUE DECIDED_BY   IRQ_CPU RPS_CPU\n");
    for r in rows {
        let rps = r.rps_cpu.map_or_else(
            || if r.rps == "off" { "-".to_string() } else { r.rps.clone() },
            |c| c.to_string(),
        );
        let _ = writeln!(
            out,
            "{:<49} {} {:<6} {:>5} {:>5} {:<12} {:>7} {:>7}",
            r.flow, r.hash, r.fields, r.indir_index, r.queue, r.decided_by, r.irq_cpu, rps
        );
    }
    let mut notes: Vec<&str> = rows.iter().map(|r| r.note.as_str()).filter(|n| !n.is_empty()).collect();
    notes.sort_unstable();
    notes.dedup();
    for n in notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

/// Loads what `predict` and `solve` take: a lesson id, a scenario's JSON, or a capture; the
/// host at time 0 with its timeline's first commands applied, and the capture's assumptions.
pub fn host(text: &str) -> Result<(Sim, Vec<Assumption>), ScenarioError> {
    host_with(text, &[])
}

/// [`host`] with `overrides` (`--set FIELD=VALUE`) applied: the corrections of a capture's
/// assumptions, or any scenario field.
pub fn host_with(text: &str, overrides: &[String]) -> Result<(Sim, Vec<Assumption>), ScenarioError> {
    let (scenario, assumed) = if crate::lesson(text.trim()).is_some() || text.trim_start().starts_with('{') {
        (crate::load(text.trim(), overrides)?, Vec::new())
    } else {
        let imported = crate::capture::import_with(text, overrides)?;
        (imported.scenario, imported.assumptions)
    };
    let mut sim = scenario.build()?;
    scenario.apply_due(&mut sim)?;
    Ok((sim, assumed))
}

/// Most flows the page's "Your host" takes (its table draws the rows in view only).
pub const MAX_PAGE_FLOWS: usize = 10_000;

/// A captured host with flows to play: the scenario (each flow a group of one at the default
/// rate, no reader), the predictions at time 0, and the capture's assumptions.
#[derive(Clone, Debug, PartialEq)]
pub struct YourHost {
    /// The host and its flows.
    pub scenario: crate::Scenario,
    /// The same as JSON text (what a permalink and the download carry).
    pub text: String,
    /// One prediction per flow, in the order given.
    pub rows: Vec<Predicted>,
    /// What the capture did not say, and the choices made.
    pub assumptions: Vec<Assumption>,
    /// What the capture's counters show (drops, softirq load).
    pub observed: Vec<crate::capture::Observation>,
}

/// The page's "Your host": `capture` imported with the learner's corrections `sets`
/// (`FIELD=VALUE`, as `--set`), `flows` (lines or `ss` output, may be empty) predicted on it
/// and added to play, at most [`MAX_PAGE_FLOWS`].
pub fn your_host(capture: &str, flows: &str, sets: &[String]) -> Result<YourHost, String> {
    let imported = crate::capture::import_with(capture, sets).map_err(|e| format!("capture: {e}"))?;
    let keys = parse_flows(flows).map_err(|e| format!("flows: {e}"))?;
    if keys.len() > MAX_PAGE_FLOWS {
        return Err(format!(
            "flows: {} flows; the page takes at most {MAX_PAGE_FLOWS} (steerlab predict takes more)",
            keys.len()
        ));
    }
    let mut sim = imported.scenario.build().map_err(|e| e.to_string())?;
    imported.scenario.apply_due(&mut sim).map_err(|e| e.to_string())?;
    let rows = keys.iter().map(|k| predict(&sim, k)).collect();
    let mut seen = std::collections::BTreeSet::new();
    let mut json = imported.json;
    // The same connection twice (ss lists each socket once, a hand-written list may not) is
    // one flow.
    json["flows"] = keys
        .iter()
        .filter(|k| seen.insert(**k))
        .map(|k| {
            serde_json::json!({
                "proto": k.proto().name(), "src": k.src().to_string(), "dst": k.dst().to_string(),
                "sport": k.sport(), "dport": k.dport(),
            })
        })
        .collect();
    let text = json.to_string();
    let scenario = crate::parse(&text, &[]).map_err(|e| e.to_string())?;
    Ok(YourHost {
        scenario,
        text,
        rows,
        assumptions: imported.assumptions,
        observed: imported.observed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flows_parse_in_both_families_and_from_ss() {
        let k = parse_flow("tcp 203.0.113.7:40000 10.0.0.2:443").unwrap();
        assert_eq!(flow_text(&k), "tcp 203.0.113.7:40000 10.0.0.2:443");
        let k = parse_flow("udp [2001:db8::7]:5353 [2001:db8::2]:53").unwrap();
        assert_eq!(flow_text(&k), "udp [2001:db8::7]:5353 [2001:db8::2]:53");
        let ss = "State  Recv-Q Send-Q Local Address:Port  Peer Address:Port Process\n\
                  ESTAB  0      0      10.0.0.2:443        203.0.113.7:40000\n\
                  ESTAB  0      0      [::ffff:10.0.0.2]:443 [::ffff:203.0.113.8]:40001\n\
                  ESTAB  0      0      [2001:db8::2]:22    [2001:db8::7]:51000\n";
        let flows: Vec<String> = parse_flows(ss).unwrap().iter().map(flow_text).collect();
        assert_eq!(
            flows,
            [
                "tcp 203.0.113.7:40000 10.0.0.2:443",
                "tcp 203.0.113.8:40001 10.0.0.2:443",
                "tcp [2001:db8::7]:51000 [2001:db8::2]:22"
            ]
        );
        // ss leaves out State when it lists one state; -u makes the rows UDP.
        let udp =
            "$ ss -un\nRecv-Q Send-Q Local Address:Port Peer Address:Port Process\n0 0 10.0.0.2:53 198.51.100.1:5353\n";
        assert_eq!(
            parse_flows(udp).unwrap().iter().map(flow_text).collect::<Vec<_>>(),
            ["udp 198.51.100.1:5353 10.0.0.2:53"]
        );
        let tun = "Netid State Recv-Q Send-Q Local Address:Port Peer Address:Port\nudp ESTAB 0 0 10.0.0.2:53 198.51.100.1:5353\ntcp LISTEN 0 128 0.0.0.0:22 0.0.0.0:*\n";
        assert_eq!(
            parse_flows(tun).unwrap().iter().map(flow_text).collect::<Vec<_>>(),
            ["udp 198.51.100.1:5353 10.0.0.2:53"]
        );
        let e = parse_flows("tcp 1.2.3.4:5 6.7.8.9:10\nbogus\n").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
    }
}
