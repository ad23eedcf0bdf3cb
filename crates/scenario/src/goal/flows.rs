//! A goal's part that names flows: a pattern that selects them by tuple (or one by id), and a
//! property each holds now or not, read from the engine's view of the flow (where its next
//! packet goes, what steers it, where its last packet ended). "Every DNS flow is dropped by
//! tc" is `{"flows": "udp *:* *:53", "where": "dropped=tc"}`; "the SSH flow arrives on rx-7"
//! is `{"flows": "tcp *:* 10.0.0.2:22", "where": "queue=7"}`.

use std::fmt;
use std::net::IpAddr;

use steerlab_engine::{DropPoint, FlowKey, FlowView, Proto, QueueRule, Sim};

/// Which flows a part names: every flow, one by id (`#12`, as the page numbers them), or
/// those whose tuple (as the NIC receives it) matches `PROTO SRC:SPORT DST:DPORT`, where the
/// protocol, an address, a port or a whole endpoint may be `*`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowPattern {
    text: String,
    sel: Select,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Select {
    All,
    Id(u32),
    Tuple {
        proto: Option<Proto>,
        src: Endpoint,
        dst: Endpoint,
    },
}

/// An address and a port, each `None` for `*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Endpoint {
    addr: Option<IpAddr>,
    port: Option<u16>,
}

impl FlowPattern {
    /// The accepted forms, for errors.
    pub const FORMS: &'static str = "all, #ID, or PROTO SRC:SPORT DST:DPORT with * for any part (tcp *:* 10.0.0.2:22, udp *:* *:53, * 10.0.1.1:* *)";

    /// Parses a pattern.
    pub fn parse(text: &str) -> Result<FlowPattern, String> {
        let bad = |why: &str| Err(format!("flows {text:?}: {why} (accepted: {})", FlowPattern::FORMS));
        let words: Vec<&str> = text.split_whitespace().collect();
        let sel = match words.as_slice() {
            ["all"] => Select::All,
            [id] if id.starts_with('#') => match id[1..].parse() {
                Ok(n) => Select::Id(n),
                Err(_) => return bad("a flow id is # and a number"),
            },
            [proto, src, dst] => {
                let proto = match *proto {
                    "*" => None,
                    "tcp" => Some(Proto::Tcp),
                    "udp" => Some(Proto::Udp),
                    _ => return bad("the protocol is tcp, udp or *"),
                };
                let (Some(src), Some(dst)) = (Endpoint::parse(src), Endpoint::parse(dst)) else {
                    return bad("an endpoint is ADDR:PORT ([ADDR]:PORT for IPv6), either part *, or *");
                };
                Select::Tuple { proto, src, dst }
            }
            _ => return bad("not a pattern"),
        };
        Ok(FlowPattern {
            text: words.join(" "),
            sel,
        })
    }

    /// Whether flow `id`, of tuple `key`, is one of them.
    pub fn matches(&self, id: u32, key: &FlowKey) -> bool {
        match &self.sel {
            Select::All => true,
            Select::Id(n) => *n == id,
            Select::Tuple { proto, src, dst } => {
                proto.is_none_or(|p| p == key.proto())
                    && src.matches(key.src(), key.sport())
                    && dst.matches(key.dst(), key.dport())
            }
        }
    }
}

impl fmt::Display for FlowPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Endpoint {
    fn parse(word: &str) -> Option<Endpoint> {
        if word == "*" {
            return Some(Endpoint { addr: None, port: None });
        }
        let (addr, port) = match word.strip_prefix('[') {
            Some(rest) => {
                let (a, p) = rest.split_once("]:")?;
                (a, p)
            }
            None => word.rsplit_once(':')?,
        };
        let addr = match addr {
            "*" => None,
            a => Some(a.parse().ok()?),
        };
        let port = match port {
            "*" => None,
            p => Some(p.parse().ok()?),
        };
        Some(Endpoint { addr, port })
    }

    fn matches(&self, addr: IpAddr, port: u16) -> bool {
        self.addr.is_none_or(|a| a == addr) && self.port.is_none_or(|p| p == port)
    }
}

/// What must hold of a flow now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowProperty {
    /// `open`: not closed.
    Open,
    /// `delivered`: open, and its last packet reached the socket (or the stack).
    Delivered,
    /// `dropped` (anywhere) or `dropped=nic|ring|xdp|backlog|tc`: where its last packet ended.
    Dropped(Option<DropPoint>),
    /// `queue=N`: the NIC sends its packets to RX queue N now.
    Queue(u16),
    /// `cpu=N`: its last packet was processed on CPU N.
    Cpu(u16),
    /// `local`: its last packet was processed on its reader's CPU.
    Local,
    /// `steered=rss|ntuple|arfs|atr|arfs-own|arfs-other`: what picks its RX queue now.
    /// `arfs-own` is an aRFS filter that sends it to its reader's queue; `arfs-other`, one
    /// that sends it elsewhere (re-pointed by another flow, ice before the fix, or not yet
    /// moved after its reader).
    Steered(Steer),
}

/// What steers a flow, for [`FlowProperty::Steered`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Steer {
    /// The indirection table.
    Rss,
    /// An `ethtool -N` rule.
    Ntuple,
    /// An aRFS filter, wherever it sends the flow.
    Arfs,
    /// An aRFS filter that sends it to its reader's queue.
    ArfsOwn,
    /// An aRFS filter that sends it to a queue that is not its reader's.
    ArfsOther,
    /// An ixgbe ATR filter.
    Atr,
}

const DROPS: [(&str, DropPoint); 5] = [
    ("nic", DropPoint::Nic),
    ("ring", DropPoint::Ring),
    ("xdp", DropPoint::Xdp),
    ("backlog", DropPoint::Backlog),
    ("tc", DropPoint::Tc),
];

const STEERS: [(&str, Steer); 6] = [
    ("rss", Steer::Rss),
    ("ntuple", Steer::Ntuple),
    ("arfs", Steer::Arfs),
    ("arfs-own", Steer::ArfsOwn),
    ("arfs-other", Steer::ArfsOther),
    ("atr", Steer::Atr),
];

impl FlowProperty {
    /// The accepted forms, for errors.
    pub const FORMS: &'static str = "open, delivered, dropped, dropped=nic|ring|xdp|backlog|tc, queue=N, cpu=N, local, steered=rss|ntuple|arfs|arfs-own|arfs-other|atr";

    /// Parses a property.
    pub fn parse(text: &str) -> Result<FlowProperty, String> {
        let bad = || {
            format!(
                "where {text:?}: not a property of a flow (accepted: {})",
                FlowProperty::FORMS
            )
        };
        Ok(match text.trim().split_once('=') {
            None => match text.trim() {
                "open" => FlowProperty::Open,
                "delivered" => FlowProperty::Delivered,
                "dropped" => FlowProperty::Dropped(None),
                "local" => FlowProperty::Local,
                _ => return Err(bad()),
            },
            Some(("dropped", v)) => FlowProperty::Dropped(Some(named(&DROPS, v).ok_or_else(bad)?)),
            Some(("steered", v)) => FlowProperty::Steered(named(&STEERS, v).ok_or_else(bad)?),
            Some(("queue", v)) => FlowProperty::Queue(v.parse().map_err(|_| bad())?),
            Some(("cpu", v)) => FlowProperty::Cpu(v.parse().map_err(|_| bad())?),
            Some(_) => return Err(bad()),
        })
    }

    /// Whether it holds of a flow whose view is `view` (`None`: closed).
    pub fn holds(self, view: Option<&FlowView>) -> bool {
        let Some(v) = view else {
            return false;
        };
        match self {
            FlowProperty::Open => true,
            FlowProperty::Delivered => v.packets > 0 && v.dropped.is_none(),
            FlowProperty::Dropped(at) => v.dropped.is_some() && (at.is_none() || v.dropped == at),
            FlowProperty::Queue(q) => v.rule_queue == q,
            FlowProperty::Cpu(c) => v.packets > 0 && v.dropped.is_none() && v.cpu == c,
            FlowProperty::Local => v.packets > 0 && v.dropped.is_none() && !v.away_from_reader(),
            FlowProperty::Steered(s) => match s {
                Steer::Rss => v.rule == QueueRule::Rss,
                Steer::Ntuple => v.rule == QueueRule::Ntuple,
                Steer::Arfs => v.rule == QueueRule::Arfs,
                Steer::ArfsOwn => v.rule == QueueRule::Arfs && !v.by_wrong_filter(),
                Steer::ArfsOther => v.by_wrong_filter(),
                Steer::Atr => v.rule == QueueRule::Atr,
            },
        }
    }
}

impl fmt::Display for FlowProperty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FlowProperty::Open => f.write_str("open"),
            FlowProperty::Delivered => f.write_str("delivered"),
            FlowProperty::Dropped(None) => f.write_str("dropped"),
            FlowProperty::Dropped(Some(at)) => write!(f, "dropped={}", name(&DROPS, at)),
            FlowProperty::Queue(q) => write!(f, "queue={q}"),
            FlowProperty::Cpu(c) => write!(f, "cpu={c}"),
            FlowProperty::Local => f.write_str("local"),
            FlowProperty::Steered(s) => write!(f, "steered={}", name(&STEERS, s)),
        }
    }
}

/// The value named `name` in `list`.
fn named<T: Copy>(list: &[(&str, T)], name: &str) -> Option<T> {
    list.iter().find(|(n, _)| *n == name).map(|&(_, x)| x)
}

/// The name of `x` in `list`.
fn name<T: PartialEq>(list: &[(&'static str, T)], x: T) -> &'static str {
    list.iter().find(|(_, v)| *v == x).map_or("?", |(n, _)| *n)
}

/// The share of the flows `pattern` selects (closed ones included: a closed flow holds no
/// property) for which `property` holds now; `None` when it selects none.
pub(super) fn share(sim: &Sim, pattern: &FlowPattern, property: &FlowProperty) -> Option<f64> {
    let (mut selected, mut holding) = (0u32, 0u32);
    for f in 0..sim.flow_count() {
        let Some(key) = sim.flow_key(f) else { continue };
        if !pattern.matches(f, &key) {
            continue;
        }
        selected += 1;
        holding += u32::from(property.holds(sim.flow_view(f).as_ref()));
    }
    (selected > 0).then(|| f64::from(holding) / f64::from(selected))
}

/// How many flows of `sim` `pattern` selects (what `steerlab lesson check` asks of a
/// pattern: a pattern that selects none is a typo).
pub fn selected(sim: &Sim, pattern: &FlowPattern) -> u32 {
    (0..sim.flow_count())
        .filter(|&f| sim.flow_key(f).is_some_and(|k| pattern.matches(f, &k)))
        .count() as u32
}
