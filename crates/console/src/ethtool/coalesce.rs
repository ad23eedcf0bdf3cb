//! `ethtool -c` and `-C`: interrupt moderation (netlink/coalesce.c).

use steerlab_engine::{Driver, Sim};

use super::bad_args;
use crate::{hinted, parse_c_u64, DEVICE};

/// `ethtool -c DEV` as netlink/coalesce.c `coalesce_reply_cb` prints it, with the parameters
/// the sandbox models (the rest `n/a`). While the driver's adaptive moderation is on, the
/// sandbox uses the interval it starts from (`Driver::default_rx_usecs`).
pub(super) fn show_coalesce(sim: &Sim) -> String {
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
pub(super) fn set_coalesce(sim: &mut Sim, args: &[&str], form: &str) -> Result<String, String> {
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
