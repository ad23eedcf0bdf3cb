//! `ethtool -n` and `-N`: ntuple rules as rxclass.c parses and prints them, their locations, and
//! the fields hashed per flow type (`rx-flow-hash`).

use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use steerlab_engine::ntuple;
use steerlab_engine::rss::HashFields;
use steerlab_engine::{FlowType, NtupleRule, Sim, SimError};

use super::bad_args;
use crate::{hinted, parse_c_u64, DEVICE};

/// `ethtool -n DEV [rule L | rx-flow-hash TYPE]`.
pub(super) fn show_nfc(sim: &Sim, args: &[&str], form: &str) -> Result<String, String> {
    let rules = sim.ntuple_rules();
    match args {
        [] => {
            let mut out = format!(
                "{} RX rings available\nTotal {} rules\n\n",
                sim.config().rx_queues,
                rules.len()
            );
            rules.iter().for_each(|r| out.push_str(&rule_text(r)));
            Ok(out)
        }
        ["rule", l] => {
            let loc = parse_c_u64(l)
                .filter(|&v| v <= i32::MAX as u64)
                .ok_or_else(|| bad_args(None, form))?;
            let rule = rules.iter().find(|r| u64::from(r.loc) == loc);
            let missing = "rxclass: Cannot get RX class rule: Invalid argument\nCannot get RX classification rule";
            rule.map(rule_text)
                .ok_or_else(|| hinted(missing, &format!("ethtool -n {DEVICE} lists the rules")))
        }
        ["rx-flow-hash", ty] => {
            let ty = flow_type(ty, form)?;
            Ok(dump_rxfhash(ty, sim.hash_fields(ty)))
        }
        _ => Err(bad_args(None, form)),
    }
}

/// A flow type of `rx-flow-hash` (ethtool.c `rxflow_str_to_type`); the sandbox has TCP and UDP.
fn flow_type(name: &str, form: &str) -> Result<FlowType, String> {
    match (FlowType::parse(name), name) {
        (Some(t), _) => Ok(t),
        (None, "sctp4" | "ah4" | "esp4" | "sctp6" | "ah6" | "esp6" | "ether" | "ip4" | "ip6") => Err(hinted(
            format!("ethtool: flow type {name} is not modelled in steerlab (tcp4 udp4 tcp6 udp6 are)"),
            form,
        )),
        _ => Err(bad_args(None, form)),
    }
}

/// ethtool.c `dump_rxfhash`: the type, then one line per hashed field, then an empty line.
fn dump_rxfhash(ty: FlowType, f: HashFields) -> String {
    let name = match ty {
        FlowType::Tcp4 => "TCP over IPV4",
        FlowType::Udp4 => "UDP over IPV4",
        FlowType::Tcp6 => "TCP over IPV6",
        FlowType::Udp6 => "UDP over IPV6",
    };
    let mut out = format!("{name} flows use these fields for computing Hash flow key:\n");
    let lines = [
        (f.src_ip, "IP SA"),
        (f.dst_ip, "IP DA"),
        (f.src_port, "L4 bytes 0 & 1 [TCP/UDP src port]"),
        (f.dst_port, "L4 bytes 2 & 3 [TCP/UDP dst port]"),
    ];
    let picked: Vec<&str> = lines.iter().filter(|(on, _)| *on).map(|(_, l)| *l).collect();
    if picked.is_empty() {
        out.push_str("None");
    }
    picked.iter().for_each(|l| {
        out.push_str(l);
        out.push('\n');
    });
    out.push('\n');
    out
}

/// rxclass.c `rxclass_print_nfc_rule` for TCP/UDP rules: a field not matched prints as 0 with
/// an all-ones mask (the mask is shown inverted: its set bits are ignored), a matched one with
/// its mask (zero when exact).
fn rule_text(r: &NtupleRule) -> String {
    let v6 = r.flow_type.is_ipv6();
    let ty = match r.flow_type {
        FlowType::Tcp4 => "TCP over IPv4",
        FlowType::Udp4 => "UDP over IPv4",
        FlowType::Tcp6 => "TCP over IPv6",
        FlowType::Udp6 => "UDP over IPv6",
    };
    let addr = |bits: u128| -> IpAddr {
        if v6 {
            Ipv6Addr::from(bits).into()
        } else {
            Ipv4Addr::from(bits as u32).into()
        }
    };
    let all = if v6 { u128::MAX } else { u128::from(u32::MAX) };
    let ip = |a: Option<IpAddr>, m: u128| a.map_or((addr(0), addr(all)), |a| (a, addr(m)));
    let port = |p: Option<u16>, m: u16| p.map_or((0, 0xffff), |p| (p, m));
    let m = &r.masks;
    let ((sa, sm), (da, dm), (sp, spm), (dp, dpm)) = (
        ip(r.src, m.src),
        ip(r.dst, m.dst),
        port(r.sport, m.sport),
        port(r.dport, m.dport),
    );
    let tos = if v6 { "Traffic Class" } else { "TOS" };
    format!(
        "Filter: {}\n\tRule Type: {ty}\n\tSrc IP addr: {sa} mask: {sm}\n\tDest IP addr: {da} mask: {dm}\n\t{tos}: 0x0 mask: 0xff\n\tSrc port: {sp} mask: 0x{spm:x}\n\tDest port: {dp} mask: 0x{dpm:x}\n\tAction: Direct to queue {}\n\n",
        r.loc, r.queue
    )
}

/// `ethtool -N DEV flow-type ... | delete L | rx-flow-hash TYPE FIELDS`.
pub(super) fn config_nfc(sim: &mut Sim, args: &[&str], form: &str) -> Result<String, String> {
    match args {
        ["delete", l] => {
            let loc = parse_c_u64(l)
                .filter(|&v| v <= i32::MAX as u64)
                .ok_or_else(|| bad_args(None, form))? as u32;
            let cannot = |errno: &str, hint: &str| {
                hinted(
                    format!("rmgr: Cannot delete RX class rule: {errno}\nCannot delete classification rule"),
                    hint,
                )
            };
            match sim.delete_ntuple(loc) {
                Ok(()) => Ok(String::new()),
                Err(SimError::NoRule(_)) => Err(cannot(
                    "No such file or directory",
                    &format!("ethtool -n {DEVICE} lists the rules and their locations"),
                )),
                Err(e) => Err(cannot("Invalid argument", &e.to_string())),
            }
        }
        ["rx-flow-hash", ty, letters] => {
            let ty = flow_type(ty, form)?;
            if letters.is_empty() || !letters.chars().all(|c| "mvtsdfnr".contains(c)) {
                return Err(bad_args(None, form));
            }
            let cannot =
                |errno: &str, why: &str| hinted(format!("Cannot change RX network flow hashing options: {errno}"), why);
            let Some(fields) = HashFields::parse(letters) else {
                return Err(cannot(
                    "Operation not supported",
                    "the sandbox's NIC hashes s, d, f and n only",
                ));
            };
            // The NIC's one refusal: fields other than addresses, or addresses and ports.
            sim.set_hash_fields(ty, fields).map_err(|_| {
                cannot(
                    "Invalid argument",
                    "the NIC accepts sd (addresses) or sdfn (addresses and ports)",
                )
            })?;
            Ok(String::new())
        }
        ["flow-type", rest @ ..] => add_rule(sim, rest, form),
        _ => Err(bad_args(None, form)),
    }
}

/// A rule's matches as parsed (`None` = any), its ring cookie and location.
struct Parsed {
    rule: NtupleRule,
    action: Option<u64>,
    queue: Option<u64>,
    loc: Option<u32>,
}

/// `rxclass_parse_ruleopts` for the fields the sandbox's NIC matches on.
fn parse_rule(args: &[&str], form: &str) -> Result<Parsed, String> {
    let bad = |why: String| bad_args(Some(&why), form);
    let syntax = || bad("Add rule, invalid syntax".into());
    let Some((&ty, opts)) = args.split_first() else {
        return Err(syntax());
    };
    let flow_type = match (FlowType::parse(ty), ty) {
        (Some(t), _) => t,
        (None, "sctp4" | "ah4" | "esp4" | "ip4" | "sctp6" | "ah6" | "esp6" | "ip6" | "ether") => {
            return Err(hinted(
                format!("ethtool: flow-type {ty} is not modelled in steerlab (tcp4 udp4 tcp6 udp6 are)"),
                form,
            ))
        }
        _ => return Err(syntax()),
    };
    let v6 = flow_type.is_ipv6();
    let rule = NtupleRule {
        loc: ntuple::ANY_LOCATION,
        flow_type,
        src: None,
        dst: None,
        sport: None,
        dport: None,
        queue: 0,
        masks: ntuple::Masks::default(),
    };
    let mut p = Parsed {
        rule,
        action: None,
        queue: None,
        loc: None,
    };
    let mut seen: Vec<&str> = Vec::new();
    let ip = |t: &str| -> Option<IpAddr> {
        if v6 {
            t.parse::<Ipv6Addr>().ok().map(IpAddr::V6)
        } else {
            t.parse::<Ipv4Addr>().ok().map(IpAddr::V4)
        }
    };
    let mut i = 0;
    while i < opts.len() {
        let name = opts[i];
        match name {
            "src-ip" | "dst-ip" | "src-port" | "dst-port" | "action" | "queue" | "loc" => {}
            "tos" | "tclass" | "vlan-etype" | "vlan" | "user-def" | "dst-mac" | "vf" | "context" => {
                let why = "the sandbox's rules match src-ip, dst-ip, src-port and dst-port and direct to a queue";
                return Err(hinted(format!("ethtool: {name} is not modelled in steerlab"), why));
            }
            _ => return Err(bad(format!("Add rule, unrecognized option[{name}]"))),
        }
        let Some(&val) = opts.get(i + 1) else {
            return Err(syntax());
        };
        let invalid = || bad(format!("Invalid {name} value[{val}]"));
        if seen.contains(&name) {
            return Err(invalid());
        }
        seen.push(name);
        let num = |max: u64| parse_c_u64(val).filter(|&v| v <= max);
        match name {
            "src-ip" => p.rule.src = Some(ip(val).ok_or_else(invalid)?),
            "dst-ip" => p.rule.dst = Some(ip(val).ok_or_else(invalid)?),
            "src-port" => p.rule.sport = Some(num(0xffff).ok_or_else(invalid)? as u16),
            "dst-port" => p.rule.dport = Some(num(0xffff).ok_or_else(invalid)? as u16),
            "action" => p.action = Some(num(u64::MAX).ok_or_else(invalid)?),
            "queue" => p.queue = Some(num(u64::from(u32::MAX)).ok_or_else(invalid)?),
            _ => p.loc = Some(num(u64::from(u32::MAX)).ok_or_else(invalid)? as u32),
        }
        i += 2;
        let mask_name = format!("{name}-mask");
        if !opts.get(i).is_some_and(|&m| m == "m" || m == mask_name) {
            continue;
        }
        let Some(&mv) = opts.get(i + 1) else {
            return Err(syntax());
        };
        let bad_mask = || bad(format!("Invalid {name} mask[{mv}]"));
        // ethtool's mask: bits set are ignored (all set = any field, all clear = exact).
        let full = if v6 { u128::MAX } else { u128::from(u32::MAX) };
        let (ignored, all) = match name {
            "src-ip" | "dst-ip" => {
                let m = ntuple::ip_bits(ip(mv).ok_or_else(bad_mask)?);
                (m, m == full)
            }
            "src-port" | "dst-port" => {
                let m = parse_c_u64(mv).filter(|&v| v <= 0xffff).ok_or_else(bad_mask)?;
                (u128::from(m), m == 0xffff)
            }
            _ => return Err(bad_mask()),
        };
        let masks = &mut p.rule.masks;
        match (name, all) {
            ("src-ip", true) => p.rule.src = None,
            ("dst-ip", true) => p.rule.dst = None,
            ("src-port", true) => p.rule.sport = None,
            ("dst-port", true) => p.rule.dport = None,
            ("src-ip", false) => masks.src = ignored,
            ("dst-ip", false) => masks.dst = ignored,
            ("src-port", false) => masks.sport = ignored as u16,
            _ => masks.dport = ignored as u16,
        }
        i += 2;
    }
    if p.action.is_some() && p.queue.is_some() {
        return Err(bad("action and queue are not compatible".into()));
    }
    Ok(p)
}

/// `ethtool -N DEV flow-type ...`: parse, then insert as `rxclass_rule_ins` does.
fn add_rule(sim: &mut Sim, args: &[&str], form: &str) -> Result<String, String> {
    let mut p = parse_rule(args, form)?;
    let cookie = p.action.or(p.queue).unwrap_or(0);
    if cookie == u64::MAX || cookie == u64::MAX - 1 {
        let what = if cookie == u64::MAX {
            "-1 (drop)"
        } else {
            "-2 (wake-on-LAN)"
        };
        return Err(hinted(
            format!("ethtool: action {what} is not modelled in steerlab"),
            "rules direct to a queue: action Q",
        ));
    }
    // rxclass_rule_ins: ethtool picks the location (RX_CLS_LOC_ANY) unless one was given.
    p.rule.loc = p.loc.unwrap_or(ntuple::ANY_LOCATION);
    // Past u16 a ring cookie is past any queue: the engine refuses it as such.
    p.rule.queue = u16::try_from(cookie).unwrap_or(u16::MAX);
    let auto = p.rule.loc == ntuple::ANY_LOCATION;
    let cannot = |errno: &str, why: &str| {
        hinted(
            format!("rmgr: Cannot insert RX class rule: {errno}\nCannot insert classification rule"),
            why,
        )
    };
    match sim.add_ntuple(p.rule) {
        Ok(loc) if auto => Ok(format!("Added rule with ID {loc}\n")),
        Ok(_) => Ok(String::new()),
        Err(SimError::NtupleTableFull) => Err(hinted(
            "rmgr: Cannot find appropriate slot to insert rule\nCannot insert classification rule",
            &format!("the table is full: ethtool -N {DEVICE} delete L"),
        )),
        Err(SimError::NtupleOff) => Err(cannot(
            "Operation not supported",
            &format!("ntuple filters are off: ethtool -K {DEVICE} ntuple on"),
        )),
        Err(SimError::NtupleLocation { .. }) => Err(cannot(
            "Invalid argument",
            &format!("loc is 0..={}", ntuple::RULE_SLOTS - 1),
        )),
        Err(SimError::NtupleQueue { rx_queues, .. }) => Err(cannot(
            "Invalid argument",
            &format!("action is an RX queue, 0..={}", rx_queues - 1),
        )),
        Err(SimError::FdirFull) => Err(cannot(
            "No space left on device",
            "ice: the Flow Director filters shared with aRFS are all in use",
        )),
        Err(SimError::ArfsUsesFlowType(t)) => Err(cannot(
            "Invalid argument",
            &format!(
                "ice: aRFS using perfect flow type {}, cannot change input set",
                t.name()
            ),
        )),
        Err(e) => Err(cannot("Invalid argument", &e.to_string())),
    }
}
