//! `ethtool`: the options that steer received packets, with ethtool 6.x's output.
//!
//! Formats followed, by option (ethtool sources unless marked kernel):
//! * `-l` netlink/channels.c `channels_reply_cb`: `show_u32` prints `n/a` for a count the driver
//!   does not report, which is how a combined-channels-only NIC (mlx5, the sandbox's) looks.
//! * `-L` kernel net/ethtool/channels.c `ethnl_set_channels` (its checks and extack texts),
//!   printed as netlink/nlsock.c does: `netlink error: MSG (offset N)`, then the errno text.
//! * `-x`/`-X` ethtool.c `print_indir_table` (`%5u: ` then `" %5u"`, rows of 8) and `do_srxfh`
//!   (its option checks), common.c `print_rss_hkey`; tables computed as `fill_indir_table`.
//! * `-n`/`-N` ethtool.c `do_grxclass`, `do_srxclass`, `dump_rxfhash`; rxclass.c
//!   `rxclass_print_nfc_rule` (masks are printed inverted: 0 bits are compared),
//!   `rxclass_parse_ruleopts` (its messages, `strtoull(.., 0)` numbers), `rmgr_find_empty_slot`
//!   (highest free location) and `rxclass_rule_ins` ("Added rule with ID N" only when ethtool
//!   chose the location). A rule written to a used location replaces it, as ice and mlx5 do.
//! * `-K` only `ntuple` (`NETIF_F_NTUPLE`, netlink name `rx-ntuple-filter`).
//! * `-S` ethtool.c `do_gnicstats` (`NIC statistics:` then `"     %s: %llu"`), with names of
//!   the driver model: ice_ethtool.c (`rx_queue_%u_packets`) for every model but mlx5, whose
//!   names are en_stats.c's (`rx%d_packets`, `rx_arfs_add`, ...).
//!
//! A wrong device name gets the netlink path's answer (the device header is the request's
//! attribute at offset 24); other options of the real tool say they are not modelled.

use core::fmt::Write;
use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use steerlab_engine::ntuple;
use steerlab_engine::rss::HashFields;
use steerlab_engine::{Driver, FlowType, NamedEnum, NtupleRule, Sim, SimError};

use crate::{hinted, parse_c_u64, DEVICE};

/// The accepted forms, one per line.
pub(crate) const FORMS: &str = "ethtool -i DEV\n\
ethtool -k DEV\n\
ethtool -l DEV\n\
ethtool -L DEV combined N\n\
ethtool -x DEV\n\
ethtool -X DEV equal N | weight W0 W1 ... | default [start S] [hkey XX:XX:...]\n\
ethtool -n DEV [rule L | rx-flow-hash tcp4|udp4|tcp6|udp6]\n\
ethtool -N DEV flow-type tcp4|udp4|tcp6|udp6 [src-ip A [m MASK]] [dst-ip A [m MASK]] [src-port P [m MASK]] [dst-port P [m MASK]] action Q [loc L]\n\
ethtool -N DEV delete L\n\
ethtool -N DEV rx-flow-hash tcp4|udp4|tcp6|udp6 sd|sdfn\n\
ethtool -K DEV ntuple on|off\n\
ethtool -c DEV\n\
ethtool -C DEV [adaptive-rx on|off] [rx-usecs N]\n\
ethtool -S DEV";

const SUPPORTED: &str = "-i -k -l -L -x -X -n -N -K -c -C -S";
const HELP: &str = "help ethtool lists the forms steerlab supports";

/// The forms of option `-o`.
fn forms_of(opt: char) -> String {
    let prefix = format!("ethtool -{opt} ");
    FORMS
        .lines()
        .filter(|l| l.starts_with(&prefix))
        .collect::<Vec<_>>()
        .join("\n")
}

/// ethtool's reply to a malformed command line (`exit_bad_args`), after `why` if any.
fn bad_args(why: Option<&str>, form: &str) -> String {
    let head = why.map_or(String::new(), |w| format!("{w}\n"));
    hinted(
        format!("{head}ethtool: bad command line argument(s)\nFor more information run ethtool -h"),
        form,
    )
}

/// The two lines ethtool prints for a netlink error: the kernel's extack message (with the
/// offending attribute's offset when the kernel names one), then the errno text.
fn netlink_error(msg: &str, offset: Option<usize>, errno: &str, form: &str) -> String {
    let at = offset.map_or(String::new(), |o| format!(" (offset {o})"));
    hinted(format!("netlink error: {msg}{at}\nnetlink error: {errno}"), form)
}

/// Runs `ethtool ARGS`.
pub(crate) fn run(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let Some((&opt, rest)) = args.split_first() else {
        return Err(bad_args(None, HELP));
    };
    let o = match opt {
        "-i" | "--driver" => 'i',
        "-k" | "--show-features" | "--show-offload" => 'k',
        "-l" | "--show-channels" => 'l',
        "-L" | "--set-channels" => 'L',
        "-x" | "--show-rxfh-indir" | "--show-rxfh" => 'x',
        "-X" | "--set-rxfh-indir" | "--rxfh" => 'X',
        "-n" | "-u" | "--show-nfc" | "--show-ntuple" => 'n',
        "-N" | "-U" | "--config-nfc" | "--config-ntuple" => 'N',
        "-K" | "--features" | "--offload" => 'K',
        "-S" | "--statistics" => 'S',
        "-c" | "--show-coalesce" => 'c',
        "-C" | "--coalesce" => 'C',
        "-h" | "--help" => return Ok(format!("{FORMS}\n")),
        o if o.starts_with('-') => {
            return Err(hinted(
                format!("ethtool: option {o} is not supported in steerlab (supported: {SUPPORTED})"),
                HELP,
            ))
        }
        _ => {
            return Err(hinted(
                format!(
                    "ethtool: the link settings (ethtool DEV) are not supported in steerlab (supported: {SUPPORTED})"
                ),
                HELP,
            ))
        }
    };
    // The hint names the form the line was heading for.
    let form = match (o, rest.get(1)) {
        ('N', Some(&w @ ("flow-type" | "delete" | "rx-flow-hash"))) => forms_of(o)
            .lines()
            .find(|l| l.contains(w))
            .unwrap_or_default()
            .to_string(),
        _ => forms_of(o),
    };
    let Some((&dev, rest)) = rest.split_first() else {
        return Err(bad_args(None, &form));
    };
    if dev != DEVICE {
        return Err(netlink_error(
            "no device matches name",
            Some(24),
            "No such device",
            &format!("the sandbox's NIC is {DEVICE}"),
        ));
    }
    match (o, rest) {
        ('i', []) => Ok(driver_info(sim)),
        ('k', []) => Ok(show_features(sim)),
        ('l', []) => Ok(show_channels(sim)),
        ('L', _) => set_channels(sim, rest, &form),
        ('x', []) => Ok(show_rxfh(sim)),
        ('x', ["context", ..]) => Err(hinted("ethtool: RSS contexts are not modelled in steerlab", &form)),
        ('X', _) => set_rxfh(sim, rest, &form),
        ('n', _) => show_nfc(sim, rest, &form),
        ('N', _) => config_nfc(sim, rest, &form),
        ('K', _) => features(sim, rest, &form),
        ('S', []) => Ok(stats(sim)),
        ('c', []) => Ok(show_coalesce(sim)),
        ('C', _) => set_coalesce(sim, rest, &form),
        _ => Err(bad_args(None, &form)),
    }
}

// ------------------------------------------------------------------------------ driver, features

/// `ethtool -i DEV`, ethtool.c `dump_drvinfo`'s lines. In-tree drivers report the kernel's
/// release as their version; the firmware is not modelled.
fn driver_info(sim: &Sim) -> String {
    let version = sim.config().kernel.as_name();
    format!(
        "driver: {}\nversion: {version}.0\nfirmware-version: n/a\nexpansion-rom-version: \nbus-info: {}\nsupports-statistics: yes\nsupports-test: no\nsupports-eeprom-access: no\nsupports-register-dump: no\nsupports-priv-flags: no\n",
        sim.config().driver.module(),
        crate::procfs::PCI
    )
}

/// `ethtool -k DEV`: the features steerlab models, in ethtool's `name: on|off [fixed]` lines
/// (a real NIC lists some sixty more).
fn show_features(sim: &Sim) -> String {
    let on = |b: bool| if b { "on" } else { "off" };
    let c = sim.config();
    let tc = if c.driver.tc_offload() { "on" } else { "off [fixed]" };
    format!(
        "Features for {DEVICE}:\nreceive-hashing: on\nntuple-filters: {}\nhw-tc-offload: {tc}\n",
        on(c.ntuple)
    )
}

// ------------------------------------------------------------------------------ channels

/// `ethtool -l DEV`. A host whose RX and TX queue counts differ (a scenario can make one)
/// shows the queues beyond the combined ones as RX-only or TX-only channels.
fn show_channels(sim: &Sim) -> String {
    let c = sim.config();
    let max = sim.max_channels();
    let na = "RX:\t\tn/a\nTX:\t\tn/a\nOther:\t\tn/a\n";
    let combined = c.rx_queues.min(c.tx_queues);
    let now = if c.rx_queues == c.tx_queues {
        na.to_string()
    } else {
        format!(
            "RX:\t\t{}\nTX:\t\t{}\nOther:\t\tn/a\n",
            c.rx_queues - combined,
            c.tx_queues - combined
        )
    };
    format!("Channel parameters for {DEVICE}:\nPre-set maximums:\n{na}Combined:\t{max}\nCurrent hardware settings:\n{now}Combined:\t{combined}\n")
}

/// `ethtool -L DEV combined N` (and `rx|tx|other 0`, which change nothing on this NIC).
fn set_channels(sim: &mut Sim, args: &[&str], form: &str) -> Result<String, String> {
    if args.is_empty() || args.len() % 2 != 0 {
        return Err(bad_args(None, form));
    }
    // The request: the header nest (holding "eth0") at 20..36, then one 8-byte u32 attribute
    // per pair, in order.
    let offset = |pair: usize| 36 + 8 * pair;
    let mut combined = None;
    for (i, pair) in args.chunks(2).enumerate() {
        let v = parse_c_u64(pair[1])
            .filter(|&v| v <= u64::from(u32::MAX))
            .ok_or_else(|| bad_args(None, form))?;
        match pair[0] {
            "combined" => combined = Some((v, i)),
            "rx" | "tx" | "other" if v == 0 => {}
            "rx" | "tx" | "other" => {
                let hint = format!("{form}   (this NIC has combined channels only)");
                return Err(netlink_error(
                    "requested channel count exceeds maximum",
                    Some(offset(i)),
                    "Invalid argument",
                    &hint,
                ));
            }
            _ => return Err(bad_args(None, form)),
        }
    }
    let Some((n, at)) = combined else {
        return Ok(String::new());
    };
    if n == u64::from(sim.config().rx_queues) && n == u64::from(sim.config().tx_queues) {
        return Ok(String::new()); // nothing modified: ethnl_set_channels returns before the driver
    }
    // The kernel's checks are the engine's; past u16 a count is past any maximum.
    let einval = |msg: &str, offset: Option<usize>, hint: &str| netlink_error(msg, offset, "Invalid argument", hint);
    match sim.set_channels(u16::try_from(n).unwrap_or(u16::MAX)) {
        Ok(()) => Ok(String::new()),
        Err(SimError::TooManyChannels { max }) => Err(einval(
            "requested channel count exceeds maximum",
            Some(offset(at)),
            &format!("{form}   (N is 1..={max}, see ethtool -l {DEVICE})"),
        )),
        Err(SimError::NoChannels) => Err(einval(
            "requested channel counts would result in no RX or TX channel being configured",
            Some(offset(at)),
            form,
        )),
        Err(SimError::RetaUsesQueue(q)) => Err(einval(
            &format!("requested channel counts are too low for existing indirection table ({q})"),
            None,
            &format!("reset the table first: ethtool -X {DEVICE} default"),
        )),
        Err(SimError::RuleUsesQueue { .. }) => Err(einval(
            "requested channel counts are too low for existing ntuple filter settings",
            None,
            &format!("delete the rules that use those queues: ethtool -n {DEVICE}"),
        )),
        Err(e) => Err(einval(&e.to_string(), None, form)),
    }
}

// ------------------------------------------------------------------------------ RSS

/// `ethtool -x DEV`: the table in rows of 8 (`%5u:` then `" %5u"` per entry), then the key.
pub(crate) fn show_rxfh(sim: &Sim) -> String {
    let mut out = String::new();
    let reta = sim.reta();
    let _ = writeln!(
        out,
        "RX flow hash indirection table for {DEVICE} with {} RX ring(s):",
        sim.config().rx_queues
    );
    for (i, q) in reta.entries().iter().enumerate() {
        if i % 8 == 0 {
            let _ = write!(out, "{i:5}: ");
        }
        let _ = write!(out, " {q:5}");
        if i % 8 == 7 || i + 1 == reta.entries().len() {
            out.push('\n');
        }
    }
    out.push_str("RSS hash key:\n");
    let key: Vec<String> = sim.rss_key().iter().map(|b| format!("{b:02x}")).collect();
    out.push_str(&key.join(":"));
    out.push_str("\nRSS hash function:\n    toeplitz: on\n    xor: off\n    crc32: off\n");
    out.push_str("RSS input transformation:\n    symmetric-xor: off\n    symmetric-or-xor: off\n");
    out
}

/// `ethtool -X DEV equal N | weight W... | default [start S] [hkey KEY] [hfunc toeplitz]`.
fn set_rxfh(sim: &mut Sim, args: &[&str], form: &str) -> Result<String, String> {
    let rings = u32::from(sim.config().rx_queues);
    let (mut start, mut equal, mut weights, mut default, mut hkey) = (None, None, None::<Vec<u32>>, false, None);
    let value = |i: usize| {
        args.get(i + 1)
            .and_then(|t| parse_c_u64(t))
            .filter(|&v| v <= u64::from(u32::MAX))
            .map(|v| v as u32)
    };
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            "equal" => equal = Some(value(i).ok_or_else(|| bad_args(None, form))?),
            "start" => start = Some(value(i).ok_or_else(|| bad_args(None, form))?),
            "hkey" => {
                hkey = Some(parse_hkey(
                    args.get(i + 1).ok_or_else(|| bad_args(None, form))?,
                    sim.rss_key().len(),
                )?)
            }
            "hfunc" => match args.get(i + 1) {
                Some(&"toeplitz") => {}
                Some(f) => {
                    return Err(hinted(
                        format!("Cannot set RX flow hash configuration: Operation not supported (hash function {f:?})"),
                        "the NIC hashes with toeplitz only",
                    ))
                }
                None => return Err(bad_args(None, form)),
            },
            "default" => {
                default = true;
                i += 1;
                continue;
            }
            "weight" => {
                // As do_srxfh: the words that start with a digit, each then read by get_u32.
                let n = args[i + 1..]
                    .iter()
                    .take_while(|w| w.starts_with(|c: char| c.is_ascii_digit()))
                    .count();
                let w = args[i + 1..i + 1 + n]
                    .iter()
                    .map(|t| parse_c_u64(t).filter(|&v| v <= u64::from(u32::MAX)).map(|v| v as u32))
                    .collect::<Option<Vec<u32>>>()
                    .filter(|w| !w.is_empty())
                    .ok_or_else(|| bad_args(None, form))?;
                i += 1 + n;
                weights = Some(w);
                continue;
            }
            o @ ("context" | "xfrm" | "delete") => {
                return Err(hinted(format!("ethtool: -X {o} is not modelled in steerlab"), form))
            }
            _ => return Err(bad_args(None, form)),
        }
        i += 2;
    }
    let modes = usize::from(equal.is_some()) + usize::from(weights.is_some()) + usize::from(default);
    if modes > 1 {
        return Err(hinted("Equal, weight and default options are mutually exclusive", form));
    }
    if default && start.is_some() {
        return Err(hinted("Start and default options are mutually exclusive", form));
    }
    if modes == 0 && start.is_some() {
        return Err(hinted("Start must be used with equal or weight options", form));
    }
    if modes == 0 && hkey.is_none() {
        return Err(bad_args(None, form));
    }
    let invalid = |e: &dyn core::fmt::Display| {
        hinted(
            "Cannot set RX flow hash configuration: Invalid argument",
            &format!("{e}"),
        )
    };
    let current = sim.reta().clone();
    let start = start.unwrap_or(0);
    // Everything is computed and checked before anything is set.
    let table = match (equal, weights) {
        (Some(n), _) => Some(current.equal(n, start, rings).map_err(|e| invalid(&e))?),
        (_, Some(w)) => Some(current.weight(&w, start, rings).map_err(|e| invalid(&e))?),
        _ if default => Some(current.reset(rings)),
        _ => None,
    };
    if let Some(key) = &hkey {
        sim.set_rss_key(key).map_err(|e| invalid(&e))?;
    }
    if let Some(t) = table {
        sim.set_reta(t).map_err(|e| invalid(&e))?;
    }
    Ok(String::new())
}

/// `hkey xx:yy:...`, exactly the device's key size.
fn parse_hkey(text: &str, size: usize) -> Result<Vec<u8>, String> {
    let form = format!("hkey takes {size} hex bytes separated by colons, e.g. 6d:5a:56:...");
    let key = text
        .split(':')
        .map(|b| {
            if b.len() == 2 {
                u8::from_str_radix(b, 16).ok()
            } else {
                None
            }
        })
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(|| hinted("Invalid RSS hash key format", &form))?;
    if key.len() != size {
        return Err(hinted(
            format!(
                "Key size mismatch: {} bytes given, the device's key is {size} bytes",
                key.len()
            ),
            &form,
        ));
    }
    Ok(key)
}

// ------------------------------------------------------------------------------ ntuple

/// `ethtool -n DEV [rule L | rx-flow-hash TYPE]`.
fn show_nfc(sim: &Sim, args: &[&str], form: &str) -> Result<String, String> {
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
fn config_nfc(sim: &mut Sim, args: &[&str], form: &str) -> Result<String, String> {
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
        Err(SimError::NtupleLocation(_)) => Err(cannot(
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

/// `ethtool -K DEV ntuple on|off`.
fn features(sim: &mut Sim, args: &[&str], form: &str) -> Result<String, String> {
    if args.is_empty() || args.len() % 2 != 0 {
        return Err(bad_args(None, form));
    }
    let mut ntuple = None;
    for pair in args.chunks(2) {
        let on = match pair[1] {
            "on" => true,
            "off" => false,
            _ => return Err(bad_args(None, form)),
        };
        match pair[0] {
            "ntuple" | "rx-ntuple-filter" => ntuple = Some(on),
            f => {
                return Err(hinted(
                    format!("ethtool: feature {f:?} is not modelled in steerlab (ntuple is)"),
                    form,
                ))
            }
        }
    }
    // A feature already in the wanted state is not sent to the driver (no reset, no flush).
    if let Some(on) = ntuple.filter(|&on| on != sim.config().ntuple) {
        sim.set_ntuple(on);
    }
    Ok(String::new())
}

// ------------------------------------------------------------------------------ coalescing

/// `ethtool -c DEV` as netlink/coalesce.c `coalesce_reply_cb` prints it, with the parameters
/// the sandbox models (the rest `n/a`). While the driver's adaptive moderation is on, the
/// sandbox uses the interval it starts from (`Driver::default_rx_usecs`).
fn show_coalesce(sim: &Sim) -> String {
    let c = sim.config();
    let adaptive = if c.rx_usecs.is_none() && c.driver != Driver::Generic {
        "on"
    } else {
        "off"
    };
    let na = "n/a";
    format!(
        "Coalesce parameters for {DEVICE}:\nAdaptive RX: {adaptive}  TX: n/a\n\
stats-block-usecs:\t{na}\nsample-interval:\t{na}\npkt-rate-low:\t\t{na}\npkt-rate-high:\t\t{na}\n\n\
rx-usecs:\t{}\nrx-frames:\t{na}\nrx-usecs-irq:\t{na}\nrx-frames-irq:\t{na}\n\n\
tx-usecs:\t{na}\ntx-frames:\t{na}\ntx-usecs-irq:\t{na}\ntx-frames-irq:\t{na}\n",
        c.rx_usecs()
    )
}

/// `ethtool -C DEV [adaptive-rx on|off] [rx-usecs N]`: a fixed interval, or the driver's
/// adaptive moderation back (`adaptive-rx on`). Like ice (`ice_set_rc_coalesce`), a fixed
/// `rx-usecs` with `adaptive-rx on` on the same line is refused.
fn set_coalesce(sim: &mut Sim, args: &[&str], form: &str) -> Result<String, String> {
    if args.is_empty() || args.len() % 2 != 0 {
        return Err(bad_args(None, form));
    }
    let (mut usecs, mut adaptive) = (None, None);
    for pair in args.chunks(2) {
        match (pair[0], pair[1]) {
            ("adaptive-rx", "on") => adaptive = Some(true),
            ("adaptive-rx", "off") => adaptive = Some(false),
            ("rx-usecs", v) => {
                usecs = Some(
                    parse_c_u64(v)
                        .and_then(|v| u32::try_from(v).ok())
                        .ok_or_else(|| bad_args(None, form))?,
                )
            }
            (p, _) if p.starts_with("rx-") || p.starts_with("tx-") || p.contains("adaptive") => {
                return Err(hinted(
                    format!(
                    "ethtool: coalescing parameter {p:?} is not modelled in steerlab (rx-usecs and adaptive-rx are)"
                ),
                    form,
                ))
            }
            _ => return Err(bad_args(None, form)),
        }
    }
    let c = sim.config();
    let want =
        match (adaptive, usecs) {
            (Some(true), Some(_)) => return Err(hinted(
                "netlink error: fixed rx-usecs cannot be set while adaptive-rx is on\nnetlink error: Invalid argument",
                form,
            )),
            (Some(true), None) => None,
            (_, Some(u)) => Some(u),
            // adaptive-rx off alone: the interval in use stays, fixed.
            (_, None) => Some(c.rx_usecs()),
        };
    sim.set_rx_usecs(want)
        .map_err(|e| hinted(format!("netlink error: {e}\nnetlink error: Invalid argument"), form))?;
    Ok(String::new())
}

// ------------------------------------------------------------------------------ statistics

/// `ethtool -S DEV` in the driver model's names. Per-queue bytes and mlx5's per-ring aRFS
/// counters are not kept by the engine, so only packet counters are listed. mlx5 counts a
/// re-steer as `arfs_request_in` on the new ring and `arfs_request_out` on the old one, so both
/// totals are the engine's re-steers (`update`); `rx_arfs_err` is its refused adds (`full`);
/// ring-full drops are `rx_out_of_buffer` (mlx5) and `rx_dropped` (ice).
fn stats(sim: &Sim) -> String {
    let snap = sim.snapshot();
    let (c, a) = (&snap.counters, &snap.arfs);
    let rx: u64 = snap.queues.iter().map(|q| q.packets).sum();
    let drops: u64 = snap.queues.iter().map(|q| q.drops).sum();
    let tx: u64 = snap.txq.iter().sum();
    let mut rows: Vec<(String, u64)> = Vec::new();
    let mut row = |name: &str, v: u64| rows.push((name.to_string(), v));
    if sim.config().driver == Driver::Mlx5 {
        row("rx_packets", rx);
        row("tx_packets", tx);
        row("rx_xdp_drop", c.xdp_drop);
        row("rx_xdp_redirect", c.xdp_redirect);
        row("rx_xdp_tx_xmit", c.xdp_tx);
        row("rx_arfs_add", a.add);
        row("rx_arfs_request_in", a.update);
        row("rx_arfs_request_out", a.update);
        row("rx_arfs_expired", a.expire);
        row("rx_arfs_err", a.full);
        row("rx_out_of_buffer", drops);
        snap.queues
            .iter()
            .enumerate()
            .for_each(|(q, s)| row(&format!("rx{q}_packets"), s.packets));
        snap.txq
            .iter()
            .enumerate()
            .for_each(|(q, &n)| row(&format!("tx{q}_packets"), n));
    } else {
        row("rx_unicast", rx);
        row("tx_unicast", tx);
        row("rx_dropped", drops);
        snap.txq
            .iter()
            .enumerate()
            .for_each(|(q, &n)| row(&format!("tx_queue_{q}_packets"), n));
        snap.queues
            .iter()
            .enumerate()
            .for_each(|(q, s)| row(&format!("rx_queue_{q}_packets"), s.packets));
    }
    let mut out = String::from("NIC statistics:\n");
    for (name, v) in rows {
        let _ = writeln!(out, "     {name}: {v}");
    }
    out
}
