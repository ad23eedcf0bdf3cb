//! `ethtool -g` and `-G`: the RX rings' depth, as netlink/rings.c (ethtool 6.x) prints it
//! and net/ethtool/rings.c `ethnl_set_rings` and the drivers refuse it.

use steerlab_engine::Sim;

use super::{bad_args, netlink_error};
use crate::{hinted, parse_c_u64, DEVICE};

/// `ethtool -g DEV` as `rings_reply_cb` prints it: the attributes a driver does not report
/// read `n/a`, TX and RX push are off. TX rings are not modelled: they show the driver's
/// default, which is the RX ring's at load (see `Driver::rx_ring`).
pub(super) fn show_rings(sim: &Sim) -> String {
    let c = sim.config();
    let (default, max) = c.driver.rx_ring();
    let rx = c.ring_size();
    format!(
        "Ring parameters for {DEVICE}:\nPre-set maximums:\n\
RX:\t\t\t{max}\nRX Mini:\t\tn/a\nRX Jumbo:\t\tn/a\nTX:\t\t\t{max}\nTX push buff len:\tn/a\n\
Current hardware settings:\n\
RX:\t\t\t{rx}\nRX Mini:\t\tn/a\nRX Jumbo:\t\tn/a\nTX:\t\t\t{default}\n\
RX Buf Len:\t\tn/a\nCQE Size:\t\tn/a\nTX Push:\t\toff\nRX Push:\t\toff\n\
TX push buff len:\tn/a\nTCP data split:\t\tn/a\n"
    )
}

/// `ethtool -G DEV rx N`: the RX rings' descriptors, rounded as the driver rounds them
/// (`Driver::set_rx_ring`). More than the maximum is the ethtool core's extack error, at the
/// attribute's offset (the header nest at 20..36, then one 8-byte u32 per pair); a size the
/// driver refuses is its bare `-EINVAL`.
pub(super) fn set_rings(sim: &mut Sim, args: &[&str], form: &str) -> Result<String, String> {
    if args.is_empty() || args.len() % 2 != 0 {
        return Err(bad_args(None, form));
    }
    let mut rx = None;
    for (i, pair) in args.chunks(2).enumerate() {
        let v = parse_c_u64(pair[1])
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| bad_args(None, form))?;
        match pair[0] {
            "rx" => rx = Some((v, 36 + 8 * i)),
            p @ ("tx" | "rx-mini" | "rx-jumbo" | "rx-buf-len" | "cqe-size" | "tx-push" | "rx-push") => {
                return Err(hinted(
                    format!("ethtool: ring parameter {p:?} is not modelled in steerlab (rx is)"),
                    form,
                ))
            }
            _ => return Err(bad_args(None, form)),
        }
    }
    let Some((n, offset)) = rx else {
        return Ok(String::new());
    };
    let max = sim.config().driver.rx_ring().1;
    match sim.config().driver.set_rx_ring(n) {
        Err(msg) if n > max => Err(netlink_error(
            msg,
            Some(offset),
            "Invalid argument",
            &format!("{form}   (rx is at most {max} on this NIC, see ethtool -g {DEVICE})"),
        )),
        Err(_) => Err(hinted(
            "netlink error: Invalid argument".to_string(),
            &format!("{form}   ({})", accepted(sim)),
        )),
        Ok(_) => {
            sim.set_rx_ring(Some(n))
                .map_err(|e| netlink_error(&e.to_string(), None, "Invalid argument", form))?;
            Ok(String::new())
        }
    }
}

/// What this driver takes for `rx`, in words.
fn accepted(sim: &Sim) -> String {
    use steerlab_engine::Driver;
    let d = sim.config().driver;
    let max = d.rx_ring().1;
    match d {
        Driver::Generic => format!("virtio_net takes a power of two, 64 to {max}"),
        Driver::Mlx5 => format!("mlx5 takes 64 to {max}, rounded up to a power of two"),
        Driver::Ice | Driver::IceHashMatch => format!("ice takes 64 to {max}, rounded up to a multiple of 32"),
        Driver::Ixgbe => format!("ixgbe takes up to {max}, rounded up to a multiple of 8"),
    }
}
