//! `tc` (iproute2 tc(8), tc-flower(8)): the ingress qdisc, flower filters with `skip_sw` /
//! `skip_hw`, and `tc -s filter show` in iproute2's layout (tc/f_flower.c `flower_print_opt`,
//! tc/m_gact.c `print_gact`). Plus steerlab's own `tc counting legacy|usesw` (which kernel's
//! block counters decide the software bypass, seed 001).

use std::net::IpAddr;

use steerlab_engine::tc::{Action, Counting, FilterSpec, Match};
use steerlab_engine::{Proto, Sim};

use crate::{parse_named, DEVICE};

const USAGE: &str = "usage: tc qdisc add|del dev DEV ingress|clsact\n       tc filter add dev DEV ingress [protocol ip|ipv6] [prio P] flower [skip_sw|skip_hw] [src_ip A] [dst_ip A] [ip_proto tcp|udp] [src_port P] [dst_port P] action drop|pass\n       tc filter del dev DEV ingress [prio P [handle H flower]]\n       tc [-s] filter show dev DEV ingress\n       tc counting legacy|usesw   (steerlab: 6.10-6.13 or 6.14+/6.12.13+ bypass counters)";

/// Runs `tc ARGS`.
pub(crate) fn run(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let (stats, args) = match args.first() {
        Some(&"-s") | Some(&"-stats") => (true, &args[1..]),
        _ => (false, args),
    };
    match args {
        ["qdisc", verb @ ("add" | "del" | "delete"), rest @ ..] => qdisc(sim, verb, rest),
        ["filter", "add", rest @ ..] => add(sim, rest),
        ["filter", "del" | "delete", rest @ ..] => del(sim, rest),
        ["filter", "show" | "list" | "ls", rest @ ..] => show(sim, rest, stats),
        ["counting", name] => {
            let c = parse_named::<Counting>("tc counting", name)?;
            sim.set_tc_counting(c);
            Ok(format!("tc counting {c}: {}\n", c.covers()))
        }
        [] => Err(format!("Usage: tc [ OPTIONS ] OBJECT {{ COMMAND | help }}\n{USAGE}")),
        [obj, ..] if !matches!(*obj, "qdisc" | "filter") => {
            Err(format!("Object \"{obj}\" is unknown, try \"tc help\".\n{USAGE}"))
        }
        _ => Err(format!("Command line is not complete. Try option \"help\"\n{USAGE}")),
    }
}

/// `dev DEV` then the ingress parent (`ingress`, `parent ffff:`), returning the rest.
fn dev_ingress<'a>(args: &'a [&'a str]) -> Result<&'a [&'a str], String> {
    let rest = match args {
        ["dev", d, rest @ ..] if *d == DEVICE => rest,
        ["dev", d, ..] => return Err(format!("Cannot find device \"{d}\"")),
        _ => return Err(format!("tc: expected \"dev {DEVICE}\"\n{USAGE}")),
    };
    match rest {
        ["ingress", rest @ ..] | ["parent", "ffff:", rest @ ..] => Ok(rest),
        _ => Err(format!(
            "tc: only the ingress block is modelled (ingress or parent ffff:)\n{USAGE}"
        )),
    }
}

fn qdisc(sim: &mut Sim, verb: &str, args: &[&str]) -> Result<String, String> {
    let kind = match args {
        ["dev", d, kind] if *d == DEVICE => *kind,
        ["dev", d, ..] => return Err(format!("Cannot find device \"{d}\"")),
        _ => return Err(format!("tc: bad qdisc arguments\n{USAGE}")),
    };
    if !matches!(kind, "ingress" | "clsact") {
        return Err(format!(
            "tc: qdisc \"{kind}\" is not modelled in steerlab (supported: ingress, clsact)"
        ));
    }
    let r = if verb == "add" {
        sim.tc_add_qdisc()
    } else {
        sim.tc_del_qdisc()
    };
    r.map(|()| String::new()).map_err(|e| format!("Error: {e}"))
}

fn number<T: std::str::FromStr>(what: &str, text: &str, accepted: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("Illegal \"{what}\": {text:?} (accepted: {accepted})"))
}

fn add<'a>(sim: &mut Sim, args: &'a [&'a str]) -> Result<String, String> {
    let mut rest = dev_ingress(args)?;
    let mut prio = None;
    loop {
        match rest {
            ["protocol", p, r @ ..] => {
                if !matches!(*p, "ip" | "ipv6" | "all") {
                    return Err(format!("Illegal \"protocol\": {p:?} (accepted: ip, ipv6, all)"));
                }
                rest = r;
            }
            ["prio" | "pref" | "priority", p, r @ ..] => {
                prio = Some(number::<u16>("priority", p, "1..=65535")?);
                rest = r;
            }
            ["flower", r @ ..] => {
                rest = r;
                break;
            }
            [w, ..] => {
                return Err(format!(
                    "Unknown filter \"{w}\", hence option \"{w}\" is unparsable (steerlab models flower)"
                ))
            }
            [] => return Err(format!("tc: missing \"flower\"\n{USAGE}")),
        }
    }
    let mut m = Match::default();
    let (mut skip_sw, mut skip_hw, mut action) = (false, false, None);
    while let Some((&w, r)) = rest.split_first() {
        let value = |r: &[&'a str]| -> Result<&'a str, String> {
            r.first().copied().ok_or_else(|| format!("tc: \"{w}\" needs a value"))
        };
        rest = match w {
            "skip_sw" => {
                skip_sw = true;
                r
            }
            "skip_hw" => {
                skip_hw = true;
                r
            }
            "src_ip" | "dst_ip" => {
                let v = value(r)?;
                let ip: IpAddr = v.parse().map_err(|_| format!("Illegal \"{w}\": {v:?} is not an IPv4 or IPv6 address"))?;
                if w == "src_ip" { m.src_ip = Some(ip) } else { m.dst_ip = Some(ip) }
                &r[1..]
            }
            "src_port" | "dst_port" => {
                let p = number::<u16>(w, value(r)?, "0..=65535")?;
                if w == "src_port" { m.src_port = Some(p) } else { m.dst_port = Some(p) }
                &r[1..]
            }
            "ip_proto" => {
                m.ip_proto = Some(match value(r)? {
                    "tcp" => Proto::Tcp,
                    "udp" => Proto::Udp,
                    v => return Err(format!("Illegal \"ip_proto\": {v:?} (accepted: tcp, udp)")),
                });
                &r[1..]
            }
            "action" => {
                action = Some(match value(r)? {
                    "drop" | "shot" => Action::Drop,
                    "pass" | "ok" => Action::Pass,
                    v => return Err(format!("Bad action type {v} (steerlab models gact drop and pass)")),
                });
                &r[1..]
            }
            other => return Err(format!("flower: unknown option \"{other}\" (supported: skip_sw skip_hw src_ip dst_ip ip_proto src_port dst_port action)")),
        };
    }
    let action = action.ok_or_else(|| format!("tc: a flower filter needs \"action drop|pass\"\n{USAGE}"))?;
    let spec = FilterSpec {
        prio,
        matches: m,
        action,
        skip_sw,
        skip_hw,
    };
    sim.tc_add(spec)
        .map(|_| String::new())
        .map_err(|e| format!("Error: {e}"))
}

fn del(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let rest = dev_ingress(args)?;
    let r = match rest {
        [] => sim.tc_del(None).map(drop),
        ["prio" | "pref", p] => sim.tc_del(Some(number("priority", p, "1..=65535")?)).map(drop),
        ["prio" | "pref", p, "handle", h, "flower"] | ["prio" | "pref", p, "handle", h] => {
            let h = h.trim_start_matches("0x");
            let handle = u32::from_str_radix(h, 16).map_err(|_| format!("Illegal \"handle\": {h:?} (a hex number)"))?;
            sim.tc_del_filter(number("priority", p, "1..=65535")?, handle)
        }
        _ => return Err(format!("tc: bad filter del arguments\n{USAGE}")),
    };
    r.map(|()| String::new()).map_err(|e| format!("Error: {e}"))
}

fn show(sim: &Sim, args: &[&str], stats: bool) -> Result<String, String> {
    dev_ingress(args)?;
    let Some(block) = sim.tc_block() else {
        return Ok(String::new());
    };
    let mut out = String::new();
    let mut last_prio = None;
    for (i, f) in block.filters().iter().enumerate() {
        let proto = match f.matches.src_ip.or(f.matches.dst_ip) {
            Some(IpAddr::V6(_)) => "ipv6",
            _ => "ip",
        };
        if last_prio != Some(f.prio) {
            out.push_str(&format!("filter protocol {proto} pref {} flower chain 0 \n", f.prio));
            last_prio = Some(f.prio);
        }
        out.push_str(&format!(
            "filter protocol {proto} pref {} flower chain 0 handle 0x{:x} \n",
            f.prio, f.handle
        ));
        out.push_str(&format!(
            "  eth_type {}\n",
            if proto == "ipv6" { "ipv6" } else { "ipv4" }
        ));
        for part in f.matches.to_string().split(' ').collect::<Vec<_>>().chunks(2) {
            out.push_str(&format!("  {}\n", part.join(" ")));
        }
        if f.skip_sw {
            out.push_str("  skip_sw\n");
        }
        if f.skip_hw {
            out.push_str("  skip_hw\n");
        }
        out.push_str(if f.in_hw {
            "  in_hw in_hw_count 1\n"
        } else {
            "  not_in_hw\n"
        });
        let verdict = if f.action == Action::Drop { "drop" } else { "pass" };
        out.push_str(&format!(
            "\taction order 1: gact action {verdict}\n\t random type none pass val 0\n\t index {} ref 1 bind 1\n",
            i + 1
        ));
        if stats {
            let pkts = f.hits_hw + f.hits_sw;
            let dropped = if f.action == Action::Drop { pkts } else { 0 };
            out.push_str(&format!("\tAction statistics:\n\tSent 0 bytes {pkts} pkt (dropped {dropped}, overlimits 0 requeues 0) \n\tSent software 0 bytes {} pkt\n\tSent hardware 0 bytes {} pkt\n\tbacklog 0b 0p requeues 0\n", f.hits_sw, f.hits_hw));
        }
        out.push('\n');
    }
    Ok(out.trim_end().to_string())
}
