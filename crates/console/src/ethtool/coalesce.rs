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
rx-usecs:\t{}\nrx-frames:\t{}\nrx-usecs-irq:\t{na}\nrx-frames-irq:\t{na}\n\n\
tx-usecs:\t{na}\ntx-frames:\t{na}\ntx-usecs-irq:\t{na}\ntx-frames-irq:\t{na}\n",
        c.rx_usecs(),
        match c.driver.default_rx_frames() {
            Some(_) => c.rx_frames().to_string(),
            None => na.to_string(),
        }
    )
}

/// `ethtool -C DEV [adaptive-rx on|off] [rx-usecs N] [rx-frames N]`: a fixed interval, or the
/// driver's adaptive moderation back (`adaptive-rx on`), and the frame count on the drivers
/// that take one. Like ice (`ice_set_rc_coalesce`), a fixed `rx-usecs` with `adaptive-rx on`
/// on the same line is refused; `rx-frames` on a driver without it is the ethtool core's
/// extack (`ethnl_set_coalesce_validate`), at the attribute's offset.
pub(super) fn set_coalesce(sim: &mut Sim, args: &[&str], form: &str) -> Result<String, String> {
    if args.is_empty() || args.len() % 2 != 0 {
        return Err(bad_args(None, form));
    }
    let (mut usecs, mut adaptive, mut frames) = (None, None, None);
    for (i, pair) in args.chunks(2).enumerate() {
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
            ("rx-frames", v) => {
                let n = parse_c_u64(v)
                    .and_then(|v| u32::try_from(v).ok())
                    .ok_or_else(|| bad_args(None, form))?;
                if sim.config().driver.default_rx_frames().is_none() {
                    // The header nest at 20..36, then one 8-byte u32 attribute per pair.
                    return Err(super::netlink_error(
                        "cannot modify an unsupported parameter",
                        Some(36 + 8 * i),
                        "Invalid argument",
                        &format!("{form}   (this driver counts no frames: rx-usecs only)"),
                    ));
                }
                frames = Some(n);
            }
            (p, _) if p.starts_with("rx-") || p.starts_with("tx-") || p.contains("adaptive") => {
                return Err(hinted(
                    format!(
                    "ethtool: coalescing parameter {p:?} is not modelled in steerlab (rx-usecs, rx-frames and adaptive-rx are)"
                ),
                    form,
                ))
            }
            _ => return Err(bad_args(None, form)),
        }
    }
    let netlink =
        |e: steerlab_engine::SimError| hinted(format!("netlink error: {e}\nnetlink error: Invalid argument"), form);
    // Every part checked before any is made: a refused line changes nothing.
    if frames.is_some_and(|n| n > steerlab_engine::config::MAX_RX_FRAMES) {
        return Err(hinted(
            "netlink error: rx-frames: out of range\nnetlink error: Invalid argument",
            form,
        ));
    }
    let c = sim.config();
    let want =
        match (adaptive, usecs) {
            (Some(true), Some(_)) => return Err(hinted(
                "netlink error: fixed rx-usecs cannot be set while adaptive-rx is on\nnetlink error: Invalid argument",
                form,
            )),
            (None, None) => None,
            (Some(true), None) => Some(None),
            (_, Some(u)) => Some(Some(u)),
            // adaptive-rx off alone: the interval in use stays, fixed.
            (Some(false), None) => Some(Some(c.rx_usecs())),
        };
    if let Some(w) = want {
        sim.set_rx_usecs(w).map_err(netlink)?;
    }
    if let Some(n) = frames {
        sim.set_rx_frames(Some(n)).map_err(netlink)?;
    }
    Ok(String::new())
}
