//! The outputs of `ethtool`: `-i` (driver, release), `-l` (channels), `-x` (indirection table,
//! key, hash function), `-n` (rules with their masks; ethtool.c `rxclass_print_nfc_rule`) and
//! `-n IF rx-flow-hash` (`dump_rxfhash`), line by line into the capture's facts.

use std::net::IpAddr;

use steerlab_engine::ntuple::ip_bits;
use steerlab_engine::FlowType;

use super::{fail, Block, Facts, RuleText};
use crate::ScenarioError;

/// `ethtool -i`: the driver's `version:` (the kernel release for in-tree drivers) and its
/// `bus-info:` (the bus device, which names mlx5's, hns3's and gve's vectors).
pub(super) fn info_line(f: &mut Facts, t: &str, n: usize) {
    if let Some(v) = t.strip_prefix("version:") {
        f.version = Some((v.trim().to_string(), n));
    } else if let Some(bus) = t.strip_prefix("bus-info:").map(str::trim).filter(|b| !b.is_empty()) {
        f.device.get_or_insert_with(|| bus.to_string());
    }
}

/// `ethtool -l`: `Pre-set maximums:` then `Current hardware settings:`, each with `RX:`, `TX:`,
/// `Other:`, `Combined:` (`n/a` for a count the driver does not report).
pub(super) fn channels_line(
    f: &mut Facts,
    t: &str,
    n: usize,
    current: bool,
    block: &mut Block,
) -> Result<(), ScenarioError> {
    match t {
        "Pre-set maximums:" => *block = Block::Channels { current: false },
        "Current hardware settings:" => *block = Block::Channels { current: true },
        _ => {
            let (k, v) = t
                .split_once(':')
                .ok_or_else(|| fail(n, t, "ethtool -l lines are 'NAME: COUNT'"))?;
            let v = v.trim();
            let count = if v == "n/a" {
                0
            } else {
                v.parse()
                    .map_err(|_| fail(n, t, "a channel count is a number or n/a"))?
            };
            let key = match k {
                "RX" => "rx",
                "TX" => "tx",
                "Other" => "other",
                "Combined" => "combined",
                // ethtool 6.x adds lines such as "TCP data split:" after the counts.
                _ => return Ok(()),
            };
            if current {
                f.channels.insert(key, count);
                f.channels_line = n;
            }
        }
    }
    Ok(())
}

/// `ethtool -x`: rows `%5u: ` + `" %5u"` per entry, then `RSS hash key:` and the key, then the
/// hash function and input transformation.
pub(super) fn indir_line(f: &mut Facts, t: &str, n: usize, block: &mut Block) -> Result<(), ScenarioError> {
    match t {
        "RSS hash key:" => *block = Block::Key,
        "RSS hash function:" | "RSS input transformation:" => *block = Block::HashFunction,
        _ => {
            let (index, entries) = t
                .split_once(':')
                .ok_or_else(|| fail(n, t, "an indirection table row is 'INDEX: Q Q Q …'"))?;
            let index: usize = index
                .trim()
                .parse()
                .map_err(|_| fail(n, t, "a row starts with its first index"))?;
            if index != f.indir.len() {
                return Err(fail(
                    n,
                    t,
                    &format!("row {index} after {} entries (truncated?)", f.indir.len()),
                ));
            }
            if f.indir.is_empty() && f.indir_line == 0 {
                f.indir_line = n; // rows pasted without their header
            }
            for e in entries.split_whitespace() {
                let q = e
                    .parse::<u16>()
                    .map_err(|_| fail(n, t, &format!("{e:?} is not a queue number")))?;
                if f.indir.len() >= 1 << 16 {
                    return Err(fail(n, t, "more than 65536 table entries"));
                }
                f.indir.push(q);
            }
        }
    }
    Ok(())
}

/// The hash function and input transformation: steerlab hashes with Toeplitz, untransformed.
pub(super) fn hash_function_line(t: &str, n: usize) -> Result<(), ScenarioError> {
    let Some((name, state)) = t.split_once(':') else {
        return Err(fail(n, t, "expected 'NAME: on|off'"));
    };
    let on = state.trim() == "on";
    match name.trim() {
        "toeplitz" => Ok(()),
        other if on => Err(fail(
            n,
            t,
            &format!("the NIC hashes with {other}; steerlab models Toeplitz only"),
        )),
        _ => Ok(()),
    }
}

pub(super) use steerlab_engine::rss::parse_key;

/// `ethtool -n`: `Total N rules`, then per rule `Filter: L` and tab-indented fields.
pub(super) fn rule_line<'a>(
    f: &mut Facts,
    rule: &mut Option<RuleText>,
    t: &'a str,
    n: usize,
) -> Result<(), ScenarioError> {
    if let Some(total) = t.strip_prefix("Total ").and_then(|r| r.strip_suffix(" rules")) {
        f.rules_total = Some((total.parse().map_err(|_| fail(n, t, "expected 'Total N rules'"))?, n));
        f.rules_line = n;
        return Ok(());
    }
    if let Some(loc) = t.strip_prefix("Filter: ") {
        finish_rule(f, rule);
        // Locations past the sandbox's table (i40e numbers its filters up to 8191) are moved
        // when the host is built, in order, and said.
        let loc = loc
            .trim()
            .parse::<u32>()
            .map_err(|_| fail(n, t, "a rule location is a number"))?;
        *rule = Some(RuleText {
            line: n,
            loc,
            ..RuleText::default()
        });
        return Ok(());
    }
    let r = rule
        .as_mut()
        .ok_or_else(|| fail(n, t, "a rule's field before its 'Filter: L' line"))?;
    let (k, v) = t
        .split_once(": ")
        .ok_or_else(|| fail(n, t, "a rule's lines are 'NAME: VALUE'"))?;
    let v6 = r.flow_type.is_some_and(FlowType::is_ipv6);
    // "VALUE mask: MASK", the mask shown as ethtool shows it (its set bits ignored).
    fn split_mask(v: &str) -> Option<(&str, &str)> {
        v.split_once(" mask: ")
    }
    let masked = |v: &'a str| split_mask(v).ok_or_else(|| fail(n, t, "expected 'VALUE mask: MASK'"));
    let port = |v: &'a str| -> Result<(u16, u16), ScenarioError> {
        let (p, m) = masked(v)?;
        let p = p.parse::<u16>().map_err(|_| fail(n, t, "a port is 0..=65535"))?;
        let m = m
            .strip_prefix("0x")
            .and_then(|m| u16::from_str_radix(m, 16).ok())
            .ok_or_else(|| fail(n, t, "a port mask is 0x0..=0xffff"))?;
        Ok((p, m))
    };
    let ip = |v: &'a str| -> Result<(IpAddr, u128), ScenarioError> {
        let (a, m) = masked(v)?;
        let a: IpAddr = a.parse().map_err(|_| fail(n, t, "not an IP address"))?;
        let m: IpAddr = m.parse().map_err(|_| fail(n, t, "not an IP mask"))?;
        if a.is_ipv6() != v6 || m.is_ipv6() != v6 {
            return Err(fail(n, t, "the address family differs from the rule type"));
        }
        Ok((a, ip_bits(m)))
    };
    let all_ones = |v: &str| {
        v.rsplit_once("mask: ").is_some_and(|(_, m)| {
            m.trim_start_matches("0x").chars().all(|c| c == 'f') && !m.trim_start_matches("0x").is_empty()
        })
    };
    match k {
        "Rule Type" | "Flow Type" => {
            r.flow_type = match v {
                "TCP over IPv4" => Some(FlowType::Tcp4),
                "UDP over IPv4" => Some(FlowType::Udp4),
                "TCP over IPv6" => Some(FlowType::Tcp6),
                "UDP over IPv6" => Some(FlowType::Udp6),
                other => {
                    r.unsupported.get_or_insert(format!("its type is {other}"));
                    None
                }
            };
        }
        _ if r.flow_type.is_none() => {} // the fields of a rule type steerlab skips
        "Src IP addr" => r.src = Some(ip(v)?),
        "Dest IP addr" => r.dst = Some(ip(v)?),
        "Src port" => r.sport = Some(port(v)?),
        "Dest port" => r.dport = Some(port(v)?),
        "Action" => match v.strip_prefix("Direct to queue ") {
            Some(q) => r.queue = Some(q.parse().map_err(|_| fail(n, t, "a queue number"))?),
            None => {
                r.unsupported.get_or_insert(format!("its action is {v}"));
                r.queue = Some(0);
            }
        },
        "RSS Context ID" => {
            r.unsupported.get_or_insert(format!("it spreads over RSS context {v}"));
        }
        // Fields that only matter when compared (mask not all ones).
        _ if all_ones(v) => {}
        other => {
            r.unsupported.get_or_insert(format!("it matches on {other}"));
        }
    }
    Ok(())
}

pub(super) fn finish_rule(f: &mut Facts, rule: &mut Option<RuleText>) {
    if let Some(r) = rule.take() {
        f.rules.push(r);
    }
}

/// One line of `dump_rxfhash`, added to the dump whose header came last.
pub(super) fn field_line(f: &mut Facts, t: &str, n: usize) -> Result<(), ScenarioError> {
    let Some((_, (_, fields))) = f.fields.range_mut(..=n).next_back() else {
        return Err(fail(n, t, "a hashed field before its header"));
    };
    match t {
        "IP SA" => fields.src_ip = true,
        "IP DA" => fields.dst_ip = true,
        "L4 bytes 0 & 1 [TCP/UDP src port]" => fields.src_port = true,
        "L4 bytes 2 & 3 [TCP/UDP dst port]" => fields.dst_port = true,
        "None" => {}
        "L2DA" | "VLAN tag" | "L3 proto" | "IPv6 Flow Label" | "GTP TEID" => {
            return Err(fail(n, t, "the NIC hashes a field steerlab does not model"));
        }
        _ => return Err(fail(n, t, "not a hashed field of ethtool -n rx-flow-hash")),
    }
    Ok(())
}
