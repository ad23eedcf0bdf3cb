//! `ethtool -l` and `-L`: the combined channels, as netlink/channels.c prints them and
//! net/ethtool/channels.c `ethnl_set_channels` refuses them.

use steerlab_engine::{Sim, SimError};

use super::{bad_args, netlink_error};
use crate::{parse_c_u64, DEVICE};

/// `ethtool -l DEV`. A host whose RX and TX queue counts differ (a scenario can make one)
/// shows the queues beyond the combined ones as RX-only or TX-only channels.
pub(super) fn show_channels(sim: &Sim) -> String {
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
pub(super) fn set_channels(sim: &mut Sim, args: &[&str], form: &str) -> Result<String, String> {
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
