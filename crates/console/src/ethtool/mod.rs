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

//!
//! | file | options |
//! |---|---|
//! | `mod.rs` | the option and device dispatch, `-i`, `-k`, `-K`, ethtool's own errors |
//! | `channels.rs` | `-l`, `-L` |
//! | `rxfh.rs` | `-x`, `-X` |
//! | `nfc.rs` | `-n`, `-N` (rules, their locations, `rx-flow-hash`) |
//! | `coalesce.rs` | `-c`, `-C` |
//! | `stats.rs` | `-S` |

mod channels;
mod coalesce;
mod nfc;
mod rings;
mod rxfh;
mod stats;

use steerlab_engine::{NamedEnum, Sim};

use crate::{hinted, DEVICE};

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
ethtool -C DEV [adaptive-rx on|off] [rx-usecs N] [rx-frames N]\n\
ethtool -g DEV\n\
ethtool -G DEV rx N\n\
ethtool -S DEV";

const SUPPORTED: &str = "-i -k -l -L -x -X -n -N -K -c -C -g -G -S";
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
        "-g" | "--show-ring" => 'g',
        "-G" | "--set-ring" => 'G',
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
        ('l', []) => Ok(channels::show_channels(sim)),
        ('L', _) => channels::set_channels(sim, rest, &form),
        ('x', []) => Ok(rxfh::show_rxfh(sim)),
        ('x', ["context", ..]) => Err(hinted("ethtool: RSS contexts are not modelled in steerlab", &form)),
        ('X', _) => rxfh::set_rxfh(sim, rest, &form),
        ('n', _) => nfc::show_nfc(sim, rest, &form),
        ('N', _) => nfc::config_nfc(sim, rest, &form),
        ('K', _) => features(sim, rest, &form),
        ('S', []) => Ok(stats::stats(sim)),
        ('c', []) => Ok(coalesce::show_coalesce(sim)),
        ('C', _) => coalesce::set_coalesce(sim, rest, &form),
        ('g', []) => Ok(rings::show_rings(sim)),
        ('G', _) => rings::set_rings(sim, rest, &form),
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
    if let Some(on) = ntuple {
        sim.set_ntuple(on);
    }
    Ok(String::new())
}
