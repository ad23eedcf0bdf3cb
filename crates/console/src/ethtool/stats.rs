//! `ethtool -S`: the NIC's counters in the driver model's names.

use core::fmt::Write;

use steerlab_engine::{Driver, Sim};

/// `ethtool -S DEV` in the driver model's names. Per-queue bytes and mlx5's per-ring aRFS
/// counters are not kept by the engine, so only packet counters are listed. mlx5 counts a
/// re-steer as `arfs_request_in` on the new ring and `arfs_request_out` on the old one, so both
/// totals are the engine's re-steers (`update`); `rx_arfs_err` is its refused adds (`full`);
/// ring-full drops are `rx_out_of_buffer` (mlx5), `rx_missed_errors` (ixgbe) and
/// `rx_dropped` (ice and the generic NIC). mlx5's per-channel `chN_aff_change` counts the
/// polls that completed because their vector moved to another CPU (en_stats.c).
pub(super) fn stats(sim: &Sim) -> String {
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
        row(Driver::Mlx5.ring_drop_counter(), drops);
        (0..snap.queues.len()).for_each(|q| row(&format!("ch{q}_aff_change"), sim.irq_aff_changes(q as u16)));
        snap.queues
            .iter()
            .enumerate()
            .for_each(|(q, s)| row(&format!("rx{q}_packets"), s.packets));
        snap.txq
            .iter()
            .enumerate()
            .for_each(|(q, &n)| row(&format!("tx{q}_packets"), n));
    } else {
        let driver = sim.config().driver;
        let (rx_name, tx_name) = match driver {
            Driver::Ixgbe => ("rx_packets", "tx_packets"),
            _ => ("rx_unicast", "tx_unicast"),
        };
        row(rx_name, rx);
        row(tx_name, tx);
        row(driver.ring_drop_counter(), drops);
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
