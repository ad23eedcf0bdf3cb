//! `nstat` and `netstat -s`: the UDP counters of `/proc/net/snmp` the sandbox keeps
//! (`UDP_MIB_INDATAGRAMS`, `UDP_MIB_INERRORS`, `UDP_MIB_RCVBUFERRORS`; net/ipv4/udp.c counts
//! the first in `udp_recvmsg` and the others in `__udp_enqueue_schedule_skb` when a full
//! receive buffer drops a datagram).
//!
//! `nstat` prints as iproute2's misc/nstat.c does (checked against 6.18's: `%-32s%-16llu%6.1f`
//! per counter under `#kernel`). Without `-a` real nstat prints what changed since its last
//! run (its history file); the sandbox keeps no history, so it prints what a first run does,
//! the totals since boot. Its rate column is 0.0 as without a running `nstat -d`. Counters the
//! sandbox does not keep (`NoPorts`, `OutDatagrams`, …) are not printed rather than printed
//! as 0. `netstat -s` prints net-tools' Udp section lines for the same counters.

use core::fmt::Write;

use steerlab_engine::Sim;

use crate::hinted;

/// The accepted forms of `nstat`.
pub(crate) const NSTAT_FORMS: &str = "nstat [-a] [-z] [-s] [PATTERN...]   (the UDP counters the sandbox keeps)";
/// The accepted forms of `netstat`.
pub(crate) const NETSTAT_FORMS: &str = "netstat -s [-u]   (the Udp section)";

/// The counters, as nstat names them, with their values.
fn counters(sim: &Sim) -> [(&'static str, u64); 3] {
    let c = sim.snapshot().counters;
    [
        ("UdpInDatagrams", c.udp_in_datagrams),
        ("UdpInErrors", c.socket_drop),
        ("UdpRcvbufErrors", c.socket_drop),
    ]
}

/// `nstat [-a] [-z] [-s] [PATTERN...]`: `-z` prints zero counters too; a pattern keeps the
/// counters whose name it matches (nstat's shell-style patterns: `*` only, here).
pub(crate) fn nstat(sim: &Sim, args: &[&str]) -> Result<String, String> {
    let (mut zeros, mut patterns) = (false, Vec::new());
    for &a in args {
        match a {
            "-a" | "--ignore" | "-s" | "--noupdate" | "-n" | "--nooutput" => {}
            "-z" | "--zeros" => zeros = true,
            "-az" | "-za" | "-asz" | "-azs" => zeros = true,
            o if o.starts_with('-') => {
                return Err(hinted(
                    format!("nstat: option {o} is not supported in steerlab"),
                    NSTAT_FORMS,
                ))
            }
            p => patterns.push(p),
        }
    }
    let mut out = String::from("#kernel\n");
    for (name, v) in counters(sim) {
        if (v == 0 && !zeros) || !(patterns.is_empty() || patterns.iter().any(|p| matches(p, name))) {
            continue;
        }
        let _ = writeln!(out, "{name:<32}{v:<16}{:>6.1}", 0.0);
    }
    Ok(out)
}

/// nstat's pattern match (`fnmatch`), for `*` and plain names.
fn matches(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.starts_with(head) && name.len() >= head.len() + tail.len() && matches_rest(tail, &name[head.len()..])
        }
    }
}

fn matches_rest(pattern: &str, name: &str) -> bool {
    if !pattern.contains('*') {
        return name.ends_with(pattern);
    }
    (0..=name.len()).any(|i| name.is_char_boundary(i) && matches(pattern, &name[i..]))
}

/// `netstat -s [-u]`: the Udp section (net-tools statistics.c's wording).
pub(crate) fn netstat(sim: &Sim, args: &[&str]) -> Result<String, String> {
    let known = |a: &&str| matches!(*a, "-s" | "--statistics" | "-u" | "--udp" | "-su" | "-us");
    let stats = |a: &&str| matches!(*a, "-s" | "--statistics" | "-su" | "-us");
    let ok = args.iter().all(known) && args.iter().any(stats);
    if !ok {
        return Err(hinted("netstat: steerlab prints the statistics only", NETSTAT_FORMS));
    }
    let [(_, in_dgrams), (_, errors), (_, rcvbuf)] = counters(sim);
    Ok(format!(
        "Udp:\n    {in_dgrams} packets received\n    {errors} packet receive errors\n    {rcvbuf} receive buffer errors\n"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_as_fnmatch_does_for_stars() {
        assert!(matches("Udp*", "UdpRcvbufErrors"));
        assert!(matches("*Errors", "UdpInErrors"));
        assert!(matches("Udp*Errors", "UdpRcvbufErrors"));
        assert!(!matches("Tcp*", "UdpInErrors"));
        assert!(matches("UdpInErrors", "UdpInErrors"));
    }
}
