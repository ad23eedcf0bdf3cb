//! Golden text of every output format, checked against the real tools' layouts: each test
//! names the source file (tool or kernel) whose printf calls the text follows.

mod common;

use common::{host, host_with, ok};
use steerlab_engine::HostConfig;

/// ethtool netlink/channels.c `channels_reply_cb`: `show_u32` labels, `n/a` for absent counts.
#[test]
fn ethtool_l_channels() {
    let mut s = host();
    let want = "Channel parameters for eth0:\nPre-set maximums:\nRX:\t\tn/a\nTX:\t\tn/a\nOther:\t\tn/a\nCombined:\t8\n\
Current hardware settings:\nRX:\t\tn/a\nTX:\t\tn/a\nOther:\t\tn/a\nCombined:\t4\n";
    assert_eq!(ok(&mut s, "ethtool -l eth0"), want);
    assert_eq!(ok(&mut s, "ethtool --show-channels eth0"), want);
}

/// ethtool.c `print_indir_table` (`%5u: ` + `" %5u"`, 8 per row), common.c `print_rss_hkey`,
/// netlink/rss.c hash function and input transformation lines.
#[test]
fn ethtool_x_indirection_table_and_key() {
    let mut s = host();
    ok(&mut s, "ethtool -X eth0 weight 1 3");
    let want = "RX flow hash indirection table for eth0 with 4 RX ring(s):\n\
\x20   0:      0     0     0     0     1     1     1     1\n\
\x20   8:      1     1     1     1     1     1     1     1\n\
RSS hash key:\n\
6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa\n\
RSS hash function:\n    toeplitz: on\n    xor: off\n    crc32: off\n\
RSS input transformation:\n    symmetric-xor: off\n    symmetric-or-xor: off\n";
    assert_eq!(ok(&mut s, "ethtool -x eth0"), want);
}

/// A table whose size is not a multiple of 8 ends its last row early (`i == indir_size - 1`).
#[test]
fn ethtool_x_rows_are_eight_wide() {
    let mut s = host_with(HostConfig {
        cpus: 8,
        rx_queues: 3,
        tx_queues: 3,
        reta_size: 32,
        ..HostConfig::default()
    });
    let out = ok(&mut s, "ethtool -x eth0");
    let rows: Vec<&str> = out.lines().skip(1).take(4).collect();
    assert_eq!(rows[0], "    0:      0     1     2     0     1     2     0     1");
    assert_eq!(rows[3], "   24:      0     1     2     0     1     2     0     1");
}

/// ethtool.c `do_grxclass` + rxclass.c `rxclass_rule_getall` / `rxclass_print_nfc_rule`:
/// rules by location, unset fields as 0 with an all-ones (inverted) mask.
#[test]
fn ethtool_n_rules() {
    let mut s = host();
    ok(&mut s, "ethtool -K eth0 ntuple on");
    assert_eq!(
        ok(
            &mut s,
            "ethtool -N eth0 flow-type tcp4 src-ip 192.168.1.7 dst-port 443 action 3"
        ),
        "Added rule with ID 1023\n"
    );
    assert_eq!(
        ok(
            &mut s,
            "ethtool -N eth0 flow-type udp6 dst-ip 2001:db8::2 src-port 53 action 1 loc 4"
        ),
        ""
    );
    let want = "4 RX rings available\nTotal 2 rules\n\n\
Filter: 4\n\tRule Type: UDP over IPv6\n\
\tSrc IP addr: :: mask: ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff\n\
\tDest IP addr: 2001:db8::2 mask: ::\n\
\tTraffic Class: 0x0 mask: 0xff\n\
\tSrc port: 53 mask: 0x0\n\tDest port: 0 mask: 0xffff\n\
\tAction: Direct to queue 1\n\n\
Filter: 1023\n\tRule Type: TCP over IPv4\n\
\tSrc IP addr: 192.168.1.7 mask: 0.0.0.0\n\
\tDest IP addr: 0.0.0.0 mask: 255.255.255.255\n\
\tTOS: 0x0 mask: 0xff\n\
\tSrc port: 0 mask: 0xffff\n\tDest port: 443 mask: 0x0\n\
\tAction: Direct to queue 3\n\n";
    assert_eq!(ok(&mut s, "ethtool -n eth0"), want);
    // `rule L` prints the one block, without the header (rxclass_rule_get).
    assert!(ok(&mut s, "ethtool -n eth0 rule 4").starts_with("Filter: 4\n\tRule Type: UDP over IPv6\n"));
    assert_eq!(
        ok(&mut s, "ethtool -n eth0 rule 1023"),
        want.split("\n\n").nth(2).map(|b| format!("{b}\n\n")).unwrap()
    );
}

/// An empty table: the header and `Total 0 rules` and a blank line.
#[test]
fn ethtool_n_no_rules() {
    assert_eq!(
        ok(&mut host(), "ethtool -n eth0"),
        "4 RX rings available\nTotal 0 rules\n\n"
    );
}

/// ethtool.c `dump_rxfhash` / `unparse_rxfhashopts` (note "IPV4" in capitals there).
#[test]
fn ethtool_n_rx_flow_hash() {
    let mut s = host();
    let four = "TCP over IPV4 flows use these fields for computing Hash flow key:\nIP SA\nIP DA\n\
L4 bytes 0 & 1 [TCP/UDP src port]\nL4 bytes 2 & 3 [TCP/UDP dst port]\n\n";
    assert_eq!(ok(&mut s, "ethtool -n eth0 rx-flow-hash tcp4"), four);
    ok(&mut s, "ethtool -N eth0 rx-flow-hash udp6 sd");
    assert_eq!(
        ok(&mut s, "ethtool -n eth0 rx-flow-hash udp6"),
        "UDP over IPV6 flows use these fields for computing Hash flow key:\nIP SA\nIP DA\n\n"
    );
}

/// ethtool.c `do_gnicstats`: "NIC statistics:" then five spaces, name, ": ", value.
/// ice_ethtool.c names (tx queues, then rx queues) for every model but mlx5.
#[test]
fn ethtool_s_ice_names() {
    let mut s = host();
    ok(&mut s, "nic driver ice");
    let want = "NIC statistics:\n     rx_unicast: 8000\n     tx_unicast: 0\n     rx_dropped: 0\n\
\x20    tx_queue_0_packets: 0\n     tx_queue_1_packets: 0\n     tx_queue_2_packets: 0\n     tx_queue_3_packets: 0\n\
\x20    rx_queue_0_packets: 0\n     rx_queue_1_packets: 0\n     rx_queue_2_packets: 4000\n     rx_queue_3_packets: 4000\n";
    assert_eq!(ok(&mut s, "ethtool -S eth0"), want);
}

/// mlx5 en_stats.c names: software totals with `rx_arfs_*`, `rx_out_of_buffer`, the channels'
/// `chN_aff_change`, then `rxN_` and `txN_` per ring.
#[test]
fn ethtool_s_mlx5_names() {
    let mut s = host();
    ok(&mut s, "nic driver mlx5");
    let want = "NIC statistics:\n     rx_packets: 8000\n     tx_packets: 0\n\
\x20    rx_xdp_drop: 0\n     rx_xdp_redirect: 0\n     rx_xdp_tx_xmit: 0\n\
\x20    rx_arfs_add: 0\n     rx_arfs_request_in: 0\n     rx_arfs_request_out: 0\n     rx_arfs_expired: 0\n     rx_arfs_err: 0\n\
\x20    rx_out_of_buffer: 0\n\
\x20    ch0_aff_change: 0\n     ch1_aff_change: 0\n     ch2_aff_change: 0\n     ch3_aff_change: 0\n\
\x20    rx0_packets: 0\n     rx1_packets: 0\n     rx2_packets: 4000\n     rx3_packets: 4000\n\
\x20    tx0_packets: 0\n     tx1_packets: 0\n     tx2_packets: 0\n     tx3_packets: 0\n";
    assert_eq!(ok(&mut s, "ethtool -S eth0"), want);
}

/// net/core/net-procfs.c `softnet_seq_show` (v6.12..v6.18): 15 `%08x` columns per CPU;
/// column 1 processed, 10 received_rps, 13 the CPU index.
#[test]
fn proc_net_softnet_stat() {
    let mut s = host();
    let zero = "00000000";
    let row = |processed: &str, cpu: u32| {
        let mut cols = vec![processed.to_string()];
        cols.extend(std::iter::repeat_n(zero.to_string(), 11));
        cols.push(format!("{cpu:08x}"));
        cols.extend([zero.to_string(), zero.to_string()]);
        cols.join(" ") + "\n"
    };
    let want: String = (0..8)
        .map(|c| row(if c == 2 || c == 3 { "00000fa0" } else { zero }, c))
        .collect();
    assert_eq!(ok(&mut s, "cat /proc/net/softnet_stat"), want);
}

/// kernel/irq/proc.c `show_interrupts`: header `CPU%-8d` after prec + 8 spaces, rows
/// `%*d:`, `" %10u"` per CPU, `"  %8s"` chip, `" %*lu"` hwirq, `-%-8s` handler, `"  %s"` name.
#[test]
fn proc_interrupts() {
    let mut s = host_with(HostConfig {
        cpus: 4,
        rx_queues: 4,
        tx_queues: 4,
        reta_size: 16,
        ..HostConfig::default()
    });
    ok(&mut s, "nic driver ice");
    let want = "           CPU0       CPU1       CPU2       CPU3       \n\
130:          0          0          0          0  IR-PCI-MSIX-0000:3b:00.0   1-edge      ice-eth0-TxRx-0\n\
131:          0          0          0          0  IR-PCI-MSIX-0000:3b:00.0   2-edge      ice-eth0-TxRx-1\n\
132:          0          0       3388          0  IR-PCI-MSIX-0000:3b:00.0   3-edge      ice-eth0-TxRx-2\n\
133:          0          0          0       3288  IR-PCI-MSIX-0000:3b:00.0   4-edge      ice-eth0-TxRx-3\n";
    // 4000 packets a queue came under the generic NIC's "every packet interrupts" (rx-usecs
    // 0): each found NAPI idle but while the polls of the ones before ran, CPU 2's and 3's
    // softirq time (15.3 % and 17.8 % of it, their remote penalties differing: sim/napi.rs).
    assert_eq!(ok(&mut s, "cat /proc/interrupts"), want);
    // Each CPU counts its own (`kstat_irqs`): a moved vector's old count stays in its old
    // column, the new ones come in the new column.
    ok(&mut s, "echo 1 > /proc/irq/132/smp_affinity_list");
    s.run_ticks(20);
    let row = ok(&mut s, "cat /proc/interrupts").lines().nth(3).unwrap().to_string();
    let columns: Vec<&str> = row.split_whitespace().skip(1).take(4).collect();
    assert_eq!(columns[0], "0", "{row}");
    assert!(columns[1] != "0" && columns[2] == "3388", "{row}");
    ok(&mut s, "nic driver mlx5");
    assert!(ok(&mut s, "cat /proc/interrupts").contains("   1-edge      mlx5_comp0@pci:0000:3b:00.0\n"));
    ok(&mut s, "nic driver ixgbe");
    assert!(ok(&mut s, "cat /proc/interrupts").ends_with("   4-edge      eth0-TxRx-3\n"));
}

/// net/core/net-sysfs.c `xps_cpus_show` / `xps_rxqs_show` / `show_rps_map`: `%*pb`, 32-bit
/// groups separated by commas, as wide as the CPU count (queues for xps_rxqs).
#[test]
fn sysfs_masks() {
    let mut s = host_with(HostConfig {
        cpus: 40,
        rx_queues: 4,
        tx_queues: 4,
        reta_size: 16,
        ..HostConfig::default()
    });
    let tx1 = "/sys/class/net/eth0/queues/tx-1/xps_cpus";
    ok(&mut s, &format!("echo 00000080,0000f00f > {tx1}"));
    assert_eq!(ok(&mut s, &format!("cat {tx1}")), "80,0000f00f\n");
    ok(&mut s, &format!("echo 3 > {tx1}"));
    assert_eq!(ok(&mut s, &format!("cat {tx1}")), "00,00000003\n");
    ok(&mut s, "echo a > /sys/class/net/eth0/queues/tx-1/xps_rxqs");
    assert_eq!(ok(&mut s, "cat /sys/class/net/eth0/queues/tx-1/xps_rxqs"), "a\n");
    ok(&mut s, "echo ff00 > /sys/class/net/eth0/queues/rx-2/rps_cpus");
    assert_eq!(
        ok(&mut s, "cat /sys/class/net/eth0/queues/rx-2/rps_cpus"),
        "00,0000ff00\n"
    );
    let mut small = host();
    assert_eq!(
        ok(&mut small, "cat /sys/class/net/eth0/queues/tx-3/xps_cpus"),
        "08\n",
        "XPS from IRQ affinity: tx-3 on CPU 3"
    );
}

/// iproute2 ipaddress.c `print_linkinfo` + iplink_xdp.c `xdp_dump` + `bpf_dump_prog_info`.
#[test]
fn ip_link_show() {
    let mut s = host();
    let line2 = "    link/ether 02:00:00:00:00:01 brd ff:ff:ff:ff:ff:ff\n";
    assert_eq!(
        ok(&mut s, "ip link show dev eth0"),
        format!("2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT group default qlen 1000\n{line2}")
    );
    ok(&mut s, "ip link set dev eth0 xdp obj xdp_drop");
    let out = ok(&mut s, "ip link show eth0");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 xdp qdisc mq state UP mode DEFAULT group default qlen 1000");
    assert!(
        lines[2].starts_with("    prog/xdp id 1 name xdp_drop tag ") && lines[2].ends_with(" jited "),
        "{}",
        lines[2]
    );
    assert_eq!(
        lines[2].len(),
        "    prog/xdp id 1 name xdp_drop tag 0123456789abcdef jited ".len()
    );
    let all = ok(&mut s, "ip link");
    assert!(all.starts_with("1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\n    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n2: eth0:"));
}

/// util-linux taskset.c `print_affinity`: current, then new; lists or masks.
#[test]
fn taskset_affinity() {
    let mut s = host();
    assert_eq!(ok(&mut s, "taskset -pc 1"), "pid 1's current affinity list: 0-7\n");
    assert_eq!(
        ok(&mut s, "taskset -pc 0-2,6 1"),
        "pid 1's current affinity list: 0-7\npid 1's new affinity list: 0-2,6\n"
    );
    assert_eq!(ok(&mut s, "taskset -p 1"), "pid 1's current affinity mask: 47\n");
    assert_eq!(
        ok(&mut s, "taskset -p f0 1"),
        "pid 1's current affinity mask: 47\npid 1's new affinity mask: f0\n"
    );
    assert_eq!(ok(&mut s, "taskset -c -p 1"), "pid 1's current affinity list: 4-7\n");
}

/// procps sysctl.c: `name = value` (the written text on -w; reading shows the kernel's rounded
/// size, net/core/sysctl_net_core.c `rps_sock_flow_sysctl`), `-n` the value alone.
#[test]
fn sysctl_lines() {
    let mut s = host();
    assert_eq!(
        ok(&mut s, "sysctl net.core.rps_sock_flow_entries"),
        "net.core.rps_sock_flow_entries = 0\n"
    );
    assert_eq!(
        ok(&mut s, "sysctl -w net.core.rps_sock_flow_entries=1000"),
        "net.core.rps_sock_flow_entries = 1000\n"
    );
    assert_eq!(
        ok(&mut s, "sysctl net.core.rps_sock_flow_entries"),
        "net.core.rps_sock_flow_entries = 1024\n"
    );
    assert_eq!(ok(&mut s, "sysctl -n net.core.rps_sock_flow_entries"), "1024\n");
    assert_eq!(
        ok(&mut s, "sysctl net/core/netdev_max_backlog"),
        "net.core.netdev_max_backlog = 1000\n"
    );
    assert_eq!(ok(&mut s, "cat /proc/sys/net/core/rps_sock_flow_entries"), "1024\n");
    assert_eq!(ok(&mut s, "sysctl -q -w net.core.rps_sock_flow_entries=64"), "");
}

/// ixgbe_ethtool.c `ixgbe_gstrings_stats` names: `rx_packets`, `tx_packets`, the missed
/// packet count `rx_missed_errors` (where a full ring ends), `tx_queue_N_packets` and
/// `rx_queue_N_packets` (ixgbe_get_strings' per-queue loop).
#[test]
fn ethtool_s_ixgbe_names() {
    let mut s = host();
    ok(&mut s, "nic driver ixgbe");
    let want = "NIC statistics:\n     rx_packets: 8000\n     tx_packets: 0\n     rx_missed_errors: 0\n\
\x20    tx_queue_0_packets: 0\n     tx_queue_1_packets: 0\n     tx_queue_2_packets: 0\n     tx_queue_3_packets: 0\n\
\x20    rx_queue_0_packets: 0\n     rx_queue_1_packets: 0\n     rx_queue_2_packets: 4000\n     rx_queue_3_packets: 4000\n";
    assert_eq!(ok(&mut s, "ethtool -S eth0"), want);
}

/// iproute2 misc/nstat.c `dump_kern_db`: `#kernel`, then `%-32s%-16llu%6.1f` per counter (a
/// real 6.18 `nstat -az` on this testbed printed `UdpRcvbufErrors                 17321              0.0`);
/// net-tools statistics.c's Udp section for `netstat -su` (the same testbed's output).
#[test]
fn nstat_and_netstat_udp() {
    let mut s = host();
    assert_eq!(
        ok(&mut s, "nstat -az"),
        "#kernel\nUdpInDatagrams                  0                  0.0\n\
UdpInErrors                     0                  0.0\nUdpRcvbufErrors                 0                  0.0\n"
    );
    assert_eq!(
        ok(&mut s, "nstat -az *Rcvbuf*"),
        "#kernel\nUdpRcvbufErrors                 0                  0.0\n"
    );
    assert_eq!(
        ok(&mut s, "netstat -su"),
        "Udp:\n    0 packets received\n    0 packet receive errors\n    0 receive buffer errors\n"
    );
}

/// sysstat mpstat.c `write_plain_cpu_stats` with LC_ALL=C: the banner, a blank line, then
/// `%-11s` time, `%4s`-wide CPU and ` %7.2f` per column (a real mpstat's header:
/// `09:16:10 PM  CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle`).
#[test]
fn mpstat_all() {
    let mut s = host();
    let out = ok(&mut s, "mpstat -P ALL");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "Linux 6.18.0 (steerlab) \t01/01/2026 \t_x86_64_\t(8 CPU)");
    assert_eq!(lines[1], "");
    assert_eq!(
        lines[2],
        "00:00:00     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle"
    );
    // CPU 2 and 3 polled and processed 4000 packets each in the host's 20 ms: a softirq share.
    let cpu2: Vec<&str> = lines[6].split_whitespace().collect();
    assert_eq!(cpu2[1], "2");
    let soft: f64 = cpu2[7].parse().unwrap();
    let idle: f64 = cpu2[11].parse().unwrap();
    assert!(
        soft > 5.0
            && (soft + idle + cpu2[2].parse::<f64>().unwrap() + cpu2[4].parse::<f64>().unwrap() - 100.0).abs() < 0.05,
        "{}",
        lines[6]
    );
}

/// systemd's `systemctl status UNIT`: the unit's line (● active, ○ inactive), `Loaded:` and
/// `Active:`.
#[test]
fn systemctl_status_irqbalance() {
    let mut s = host();
    assert!(ok(&mut s, "systemctl status irqbalance").starts_with("○ irqbalance.service - irqbalance daemon\n"));
    ok(&mut s, "systemctl start irqbalance");
    assert_eq!(
        ok(&mut s, "systemctl status irqbalance"),
        "● irqbalance.service - irqbalance daemon\n     Loaded: loaded (/usr/lib/systemd/system/irqbalance.service; enabled; preset: enabled)\n     Active: active (running)\n"
    );
}

/// The sysctls of the softirq and the socket buffers (net/core/sysctl_net_core.c), with the
/// kernel's defaults on this testbed's 6.18 (HZ 250: netdev_budget_usecs 8000).
#[test]
fn sysctl_budget_and_buffers() {
    let mut s = host();
    assert_eq!(
        ok(&mut s, "sysctl net.core.netdev_budget net.core.netdev_budget_usecs net.core.dev_weight net.core.rmem_default net.core.rmem_max"),
        "net.core.netdev_budget = 300\nnet.core.netdev_budget_usecs = 8000\nnet.core.dev_weight = 64\n\
net.core.rmem_default = 212992\nnet.core.rmem_max = 212992\n"
    );
}

/// ethtool netlink/rings.c `rings_reply_cb` (ethtool 6.x: `show_u32` labels padded to three
/// tabs, `n/a` for what the driver does not report, TX and RX push off), ixgbe's defaults
/// (`IXGBE_DEFAULT_RXD` 512, `IXGBE_MAX_RXD` 4096).
#[test]
fn ethtool_g_rings() {
    let mut s = host();
    ok(&mut s, "nic driver ixgbe");
    let want = "Ring parameters for eth0:\nPre-set maximums:\nRX:\t\t\t4096\nRX Mini:\t\tn/a\nRX Jumbo:\t\tn/a\n\
TX:\t\t\t4096\nTX push buff len:\tn/a\nCurrent hardware settings:\nRX:\t\t\t2048\nRX Mini:\t\tn/a\n\
RX Jumbo:\t\tn/a\nTX:\t\t\t512\nRX Buf Len:\t\tn/a\nCQE Size:\t\tn/a\nTX Push:\t\toff\nRX Push:\t\toff\n\
TX push buff len:\tn/a\nTCP data split:\t\tn/a\n";
    ok(&mut s, "ethtool -G eth0 rx 2048");
    assert_eq!(ok(&mut s, "ethtool -g eth0"), want);
    assert_eq!(ok(&mut s, "ethtool --show-ring eth0"), want);
}

/// drivers/pci/pci-sysfs.c `numa_node_show` (`%d`), `local_cpulist_show` (`%*pbl`) and
/// `local_cpus_show` (`%*pb`, as wide as the CPU count): a two-node host's NIC on node 0.
#[test]
fn pci_device_numa_files() {
    let mut s = host_with(HostConfig {
        cpus: 8,
        numa_nodes: 2,
        rx_queues: 4,
        tx_queues: 4,
        reta_size: 16,
        ..HostConfig::default()
    });
    assert_eq!(ok(&mut s, "cat /sys/class/net/eth0/device/numa_node"), "0\n");
    assert_eq!(ok(&mut s, "cat /sys/class/net/eth0/device/local_cpulist"), "0-3\n");
    assert_eq!(ok(&mut s, "cat /sys/class/net/eth0/device/local_cpus"), "0f\n");
}
