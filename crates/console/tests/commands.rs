//! Every command form, table-driven: lines that succeed (with what they change or print) and
//! lines that fail (with the real tool's words), each failure leaving the host unchanged.

mod common;

use common::{err, fingerprint, host, ok};
use steerlab_console::{complete, execute};
use steerlab_engine::rss::HashFields;
use steerlab_engine::xdp::Strategy;
use steerlab_engine::{Driver, FlowType, HostConfig, Kernel, RecordPolicy, Sim};

type Check = fn(&Sim, &str);

const KEY: &str = "01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f:10:11:12:13:14:15:16:17:18:19:1a:1b:1c:1d:1e:1f:20:21:22:23:24:25:26:27:28";

/// `(setup lines, line, check)`: the line succeeds after the setup, then `check` holds.
const OK: &[(&[&str], &str, Check)] = &[
    // ethtool -l / -L
    (&[], "ethtool -l eth0", |_, out| assert!(out.contains("Combined:\t4\n"))),
    (&[], "ethtool -L eth0 combined 2", |s, _| assert_eq!((s.config().rx_queues, s.config().tx_queues), (2, 2))),
    (&[], "ethtool --set-channels eth0 combined 8", |s, _| assert_eq!(s.config().rx_queues, 8)),
    (&[], "ethtool -L eth0 rx 0 tx 0 combined 0x3", |s, _| assert_eq!(s.config().rx_queues, 3)),
    (&["ethtool -X eth0 equal 2"], "ethtool -L eth0 combined 2", |s, _| assert_eq!(s.config().rx_queues, 2)),
    // ethtool -x / -X
    (&[], "ethtool -x eth0", |_, out| assert!(out.starts_with("RX flow hash indirection table for eth0 with 4 RX ring(s):\n"))),
    (&[], "ethtool --show-rxfh eth0", |_, out| assert!(out.contains("RSS hash key:\n6d:5a:56:da:"))),
    (&[], "ethtool -X eth0 equal 2", |s, _| assert!(s.reta().entries().iter().all(|&q| q < 2))),
    (&[], "ethtool -X eth0 equal 2 start 2", |s, _| assert_eq!(&s.reta().entries()[..4], &[2, 3, 2, 3])),
    (&[], "ethtool -X eth0 weight 1 0 0 1", |s, _| assert_eq!(s.reta().entries(), &[0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3, 3, 3])),
    (&["ethtool -X eth0 equal 1"], "ethtool -X eth0 default", |s, _| assert!(!s.reta().user_configured())),
    (&[], "ethtool -X eth0 hkey 01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f:10:11:12:13:14:15:16:17:18:19:1a:1b:1c:1d:1e:1f:20:21:22:23:24:25:26:27:28", |s, _| assert_eq!(s.rss_key()[..3], [1, 2, 3])),
    (&[], "ethtool --rxfh eth0 hfunc toeplitz equal 3", |s, _| assert_eq!(s.reta().max_queue(), 2)),
    // ethtool -i, -k, nproc
    (&["nic driver mlx5"], "ethtool -i eth0", |_, out| assert!(out.starts_with("driver: mlx5_core\nversion: 6.18.0\n"), "{out}")),
    (&["ethtool -K eth0 ntuple on"], "ethtool -k eth0", |_, out| assert!(out.starts_with("Features for eth0:\n") && out.contains("\nntuple-filters: on\n"), "{out}")),
    (&[], "nproc --all", |s, out| assert_eq!(out, format!("{}\n", s.config().cpus))),
    (&[], "lscpu", |s, out| assert!(out.starts_with(&format!("CPU(s):{:31}{}\n", "", s.config().cpus)) && out.contains("NUMA node0 CPU(s):"), "{out}")),
    // ethtool -K
    (&[], "ethtool -K eth0 ntuple on", |s, _| assert!(s.config().ntuple)),
    (&["ethtool -K eth0 ntuple on"], "ethtool --features eth0 rx-ntuple-filter off", |s, _| assert!(!s.config().ntuple)),
    // ethtool -c / -C: interrupt moderation (the generic NIC has none; ice starts at 50 us)
    (&[], "ethtool -c eth0", |_, out| assert!(out.starts_with("Coalesce parameters for eth0:\nAdaptive RX: off  TX: n/a\n") && out.contains("\nrx-usecs:\t0\n"), "{out}")),
    (&["nic driver ice"], "ethtool --show-coalesce eth0", |_, out| assert!(out.contains("Adaptive RX: on ") && out.contains("\nrx-usecs:\t50\n"), "{out}")),
    (&["nic driver mlx5"], "ethtool -C eth0 adaptive-rx off rx-usecs 64", |s, _| assert_eq!(s.config().rx_usecs, Some(64))),
    (&["nic driver ice"], "ethtool -C eth0 adaptive-rx off", |s, _| assert_eq!(s.config().rx_usecs, Some(50), "the interval in use, fixed")),
    (&["ethtool -C eth0 rx-usecs 8"], "ethtool -C eth0 adaptive-rx on", |s, _| assert_eq!(s.config().rx_usecs, None)),
    // rx-frames where the driver counts them: mlx5 starts at 32, a line may set it alone
    (&["nic driver mlx5"], "ethtool -c eth0", |_, out| assert!(out.contains("\nrx-frames:\t32\n"), "{out}")),
    (&["nic driver ixgbe"], "ethtool -c eth0", |_, out| assert!(out.contains("\nrx-frames:\tn/a\n"), "{out}")),
    (&["nic driver mlx5"], "ethtool -C eth0 rx-frames 8", |s, _| assert_eq!((s.config().rx_frames(), s.config().rx_usecs), (8, None), "adaptive untouched")),
    (&[], "ethtool -C eth0 rx-usecs 100 rx-frames 16", |s, _| assert_eq!((s.config().rx_frames(), s.config().rx_usecs()), (16, 100))),
    // ethtool -g / -G: the RX rings, rounded as each driver rounds them
    (&["nic driver ixgbe"], "ethtool -g eth0", |_, out| assert!(out.contains("Pre-set maximums:\nRX:\t\t\t4096\n") && out.contains("Current hardware settings:\nRX:\t\t\t512\n"), "{out}")),
    (&["nic driver ixgbe"], "ethtool -G eth0 rx 1001", |s, _| assert_eq!(s.config().ring_size(), 1008, "aligned up to 8")),
    (&["nic driver ice"], "ethtool --set-ring eth0 rx 4001", |s, _| assert_eq!(s.config().ring_size(), 4032, "up to a multiple of 32")),
    (&["nic driver mlx5"], "ethtool -G eth0 rx 3000", |s, _| assert_eq!(s.config().ring_size(), 4096, "a power of two")),
    (&[], "ethtool -G eth0 rx 1024", |s, _| assert_eq!(s.config().ring_size(), 1024)),
    (&["ethtool -G eth0 rx 512", "nic driver ice"], "ethtool -g eth0", |_, out| assert!(out.contains("settings:\nRX:\t\t\t2048\n"), "another NIC, its default ring: {out}")),
    // The NIC's NUMA files (pci-sysfs.c): node 0, its CPUs
    (&[], "cat /sys/class/net/eth0/device/numa_node", |_, out| assert_eq!(out, "0\n")),
    (&[], "cat /sys/class/net/eth0/device/local_cpulist", |_, out| assert_eq!(out, "0-7\n")),
    (&[], "cat /sys/class/net/eth0/device/local_cpus", |_, out| assert_eq!(out, "ff\n")),
    // ethtool -n / -N
    (&[], "ethtool -n eth0", |_, out| assert!(out.ends_with("Total 0 rules\n\n"))),
    (&[], "ethtool -u eth0 rx-flow-hash udp6", |_, out| assert!(out.starts_with("UDP over IPV6 flows"))),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 dst-ip 10.0.0.2 dst-port 80 action 1", |s, out| {
        assert_eq!(out, "Added rule with ID 1023\n");
        let r = &s.ntuple_rules()[0];
        assert_eq!((r.loc, r.queue, r.dport, r.sport, r.src), (1023, 1, Some(80), None, None));
    }),
    (&["ethtool -K eth0 ntuple on", "ethtool -N eth0 flow-type tcp4 action 1"], "ethtool -N eth0 flow-type udp4 src-port 53 action 2", |_, out| assert_eq!(out, "Added rule with ID 1022\n")),
    (&["ethtool -K eth0 ntuple on"], "ethtool -U eth0 flow-type tcp6 dst-ip 2001:db8::1 queue 2 loc 7", |s, out| {
        assert_eq!(out, "", "no message when the location is given");
        let r = &s.ntuple_rules()[0];
        assert_eq!((r.loc, r.queue, r.flow_type, r.dst), (7, 2, FlowType::Tcp6, Some("2001:db8::1".parse().unwrap())));
    }),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 dst-port 0x50 action 1 loc 010", |s, _| {
        let r = &s.ntuple_rules()[0];
        assert_eq!((r.loc, r.dport), (8, Some(80)), "strtoull base 0: hex and octal");
    }),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 src-ip 1.2.3.4 m 255.255.255.255 dst-ip 5.6.7.8 m 0.0.0.0 src-port 9 src-port-mask 0xffff action 3", |s, _| {
        let r = &s.ntuple_rules()[0];
        assert_eq!((r.src, r.dst, r.sport), (None, Some("5.6.7.8".parse().unwrap()), None), "all-ones masks ignore, zero masks match");
    }),
    (&["ethtool -K eth0 ntuple on", "ethtool -N eth0 flow-type tcp4 src-ip 192.0.2.0 m 0.0.0.255 dst-port 0x1000 m 0xfff action 2 loc 4"], "ethtool -n eth0 rule 4", |s, out| {
        let r = &s.ntuple_rules()[0];
        assert_eq!((r.masks.src, r.masks.dport), (0xff, 0xfff), "partial masks keep their ignored bits");
        assert!(out.contains("\tSrc IP addr: 192.0.2.0 mask: 0.0.0.255\n"), "{out}");
        assert!(out.contains("\tDest port: 4096 mask: 0xfff\n"), "{out}");
    }),
    (&["ethtool -K eth0 ntuple on", "ethtool -N eth0 flow-type tcp4 action 1 loc 3"], "ethtool -N eth0 flow-type udp4 action 2 loc 3", |s, _| {
        let r = s.ntuple_rules();
        assert_eq!((r.len(), r[0].queue, r[0].flow_type), (1, 2, FlowType::Udp4), "a used location is replaced");
    }),
    (&["ethtool -K eth0 ntuple on", "ethtool -N eth0 flow-type tcp4 action 1"], "ethtool -N eth0 delete 1023", |s, _| assert!(s.ntuple_rules().is_empty())),
    (&["ethtool -K eth0 ntuple on", "ethtool -N eth0 flow-type tcp4 action 1 loc 5"], "ethtool -n eth0 rule 5", |_, out| assert!(out.starts_with("Filter: 5\n"))),
    (&[], "ethtool -N eth0 rx-flow-hash udp4 sd", |s, _| assert_eq!(s.hash_fields(FlowType::Udp4), HashFields::TWO_TUPLE)),
    (&["ethtool -N eth0 rx-flow-hash tcp6 sd"], "ethtool --config-nfc eth0 rx-flow-hash tcp6 sdfn", |s, _| assert_eq!(s.hash_fields(FlowType::Tcp6), HashFields::FOUR_TUPLE)),
    // ethtool -S, -h
    (&[], "ethtool -S eth0", |_, out| assert!(out.starts_with("NIC statistics:\n     rx_unicast: "))),
    (&["nic driver mlx5"], "ethtool --statistics eth0", |_, out| assert!(out.contains("     rx_arfs_add: 0\n"))),
    (&[], "ethtool -h", |_, out| assert!(out.contains("ethtool -K DEV ntuple on|off"))),
    // sysctl
    (&[], "sysctl net.core.rps_sock_flow_entries", |_, out| assert_eq!(out, "net.core.rps_sock_flow_entries = 0\n")),
    (&[], "sysctl -w net.core.rps_sock_flow_entries=32768", |s, out| {
        assert_eq!(out, "net.core.rps_sock_flow_entries = 32768\n");
        assert_eq!(s.sock_flow_entries(), 32768);
    }),
    (&[], "sysctl net.core.rps_sock_flow_entries=100", |s, _| assert_eq!(s.sock_flow_entries(), 128)),
    (&[], "sysctl -n net.core.netdev_max_backlog", |_, out| assert_eq!(out, "1000\n")),
    (&[], "sysctl -a", |_, out| assert_eq!(out.lines().count(), 9)),
    (&[], "sysctl -w net.core.netdev_max_backlog=10", |s, _| assert_eq!(s.config().netdev_max_backlog, 10)),
    (&[], "sysctl -w net.core.netdev_budget=30", |s, out| {
        assert_eq!(out, "net.core.netdev_budget = 30\n");
        assert_eq!(s.config().netdev_budget, 30);
    }),
    (&[], "sysctl -n net.core.netdev_budget_usecs", |_, out| assert_eq!(out, "8000\n")),
    (&[], "echo 128 > /proc/sys/net/core/dev_weight", |s, _| assert_eq!(s.config().dev_weight, 128)),
    (&[], "sysctl -w net.core.rmem_max=4194304", |s, _| assert_eq!(s.config().rmem_max, 4_194_304)),
    (&[], "sysctl net.core.rmem_default", |_, out| assert_eq!(out, "net.core.rmem_default = 212992\n")),
    // nstat and netstat: the UDP counters, in nstat's columns (a real 6.18 run's layout).
    (&[], "nstat -az UdpRcvbufErrors", |_, out| {
        assert_eq!(out, "#kernel\nUdpRcvbufErrors                 0                  0.0\n")
    }),
    (&[], "nstat", |_, out| assert_eq!(out, "#kernel\n")),
    (&[], "systemctl start irqbalance", |s, _| assert!(s.irqbalance().is_some())),
    (&["systemctl start irqbalance"], "systemctl stop irqbalance.service", |s, _| assert!(s.irqbalance().is_none())),
    (&["systemctl start irqbalance"], "systemctl status irqbalance", |_, out| assert!(out.contains("Active: active (running)"))),
    // The banned CPUs from the manager's environment, read when irqbalance (re)starts.
    (&[], "systemctl set-environment IRQBALANCE_BANNED_CPULIST=0-1", |s, _| assert_eq!(s.irqbalance_env().map(|b| b.to_list()), Some("0-1".into()))),
    (&["systemctl set-environment IRQBALANCE_BANNED_CPULIST=0"], "systemctl show-environment", |_, out| assert_eq!(out, "IRQBALANCE_BANNED_CPULIST=0\n")),
    (&["systemctl start irqbalance", "systemctl set-environment IRQBALANCE_BANNED_CPULIST=0"], "systemctl status irqbalance", |s, _| assert_eq!(s.irqbalance().map(|b| b.to_list()), Some(String::new()), "the running daemon keeps what it started with")),
    (&["systemctl start irqbalance", "systemctl set-environment IRQBALANCE_BANNED_CPULIST=0"], "systemctl restart irqbalance", |s, _| assert_eq!(s.irqbalance().map(|b| b.to_list()), Some("0".into()))),
    (&["systemctl set-environment IRQBALANCE_BANNED_CPULIST=0"], "systemctl unset-environment IRQBALANCE_BANNED_CPULIST", |s, _| assert_eq!(s.irqbalance_env(), None)),
    (&[], "mpstat -P ALL", |_, out| {
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[2], "00:00:00     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle");
        assert!(lines[3].starts_with("00:00:00     all "), "{out}");
        assert!(lines[4].starts_with("00:00:00       0 "), "{out}");
        assert_eq!(lines.len(), 4 + 8, "all, then each CPU");
    }),
    (&[], "netstat -su", |_, out| assert!(out.starts_with("Udp:\n    0 packets received\n"))),
    (&["flow add udp 10.0.0.9:5000 192.168.0.1:53 readers 0"], "flow setsockopt 4 SO_RCVBUF 65536", |s, out| {
        assert_eq!(out, "flow 4: SO_RCVBUF 65536: sk_rcvbuf 131072\n");
        assert_eq!(s.socket_view(4).unwrap().rcvbuf, 131_072);
    }),
    (&["flow add udp 10.0.0.9:5000 192.168.0.1:53 readers 0"], "flow work 4 5000", |s, _| {
        assert_eq!(s.socket_view(4).unwrap().app_ns, 5000)
    }),
    (&[], "sysctl -w net.core.flow_limit_cpu_bitmap=3", |s, out| {
        assert_eq!(out, "net.core.flow_limit_cpu_bitmap = 3\n");
        assert_eq!(s.flow_limit_cpus().to_list(), "0-1");
    }),
    (&["echo c > /proc/sys/net/core/flow_limit_cpu_bitmap"], "sysctl -n net.core.flow_limit_cpu_bitmap", |_, out| assert_eq!(out, "0c\n")),
    (&[], "sysctl -w net.core.flow_limit_table_len=8192", |s, _| assert_eq!(s.config().flow_limit_table_len, 8192)),
    (&[], "cat /proc/sys/net/core/flow_limit_table_len", |_, out| assert_eq!(out, "4096\n")),
    // echo > sysfs / procfs, and plain echo
    (&[], "echo f0 > /sys/class/net/eth0/queues/rx-1/rps_cpus", |s, _| assert_eq!(s.rps_cpus(1).to_list(), "4-7")),
    (&[], "echo 300 > /sys/class/net/eth0/queues/rx-0/rps_flow_cnt", |s, _| assert_eq!(s.flow_cnt(0), 512)),
    (&[], "echo 0x40 > /sys/class/net/eth0/queues/rx-3/rps_flow_cnt", |s, _| assert_eq!(s.flow_cnt(3), 64)),
    (&[], "echo 0c > /sys/class/net/eth0/queues/tx-2/xps_cpus", |s, _| assert_eq!(s.xps_cpus(2).unwrap().to_list(), "2-3")),
    (&[], "echo 9 >/sys/class/net/eth0/queues/tx-0/xps_rxqs", |s, _| assert_eq!(s.xps_rxqs(0).unwrap().to_list(), "0,3")),
    (&[], "echo '4096' > /proc/sys/net/core/rps_sock_flow_entries", |s, _| assert_eq!(s.sock_flow_entries(), 4096)),
    (&[], "echo hello world", |_, out| assert_eq!(out, "hello world\n")),
    // cat
    (&["echo 3 > /sys/class/net/eth0/queues/rx-0/rps_cpus"], "cat /sys/class/net/eth0/queues/rx-0/rps_cpus", |_, out| assert_eq!(out, "03\n")),
    (&[], "cat /sys/class/net/eth0/queues/rx-2/rps_flow_cnt", |_, out| assert_eq!(out, "0\n")),
    (&[], "cat /sys/class/net/eth0/queues/tx-1/xps_cpus /sys/class/net/eth0/queues/tx-1/xps_rxqs", |_, out| assert_eq!(out, "02\n0\n")),
    (&[], "cat /proc/sys/net/core/netdev_max_backlog", |_, out| assert_eq!(out, "1000\n")),
    (&[], "cat /proc/net/softnet_stat", |_, out| assert_eq!(out.lines().count(), 8)),
    (&[], "cat /proc/interrupts", |_, out| assert_eq!(out.lines().count(), 5)),
    // ip link
    (&[], "ip link show", |_, out| assert!(out.contains("1: lo:") && out.contains("2: eth0:"))),
    (&[], "ip l", |_, out| assert!(out.contains("2: eth0:"))),
    (&[], "ip link show dev eth0", |_, out| assert!(out.starts_with("2: eth0:"))),
    (&[], "ip link set dev eth0 xdp obj xdp_meta_drop", |s, _| assert_eq!(s.xdp().map(|p| (p.name.as_str(), p.strategy)), Some(("xdp_meta_drop", Strategy::Call)))),
    (&[], "ip link set eth0 xdpdrv obj xdp_pass.o sec xdp", |s, _| assert_eq!(s.xdp().unwrap().name, "xdp_pass")),
    (&["ip link set dev eth0 xdp obj xdp_drop"], "ip -force link set dev eth0 xdp obj xdp_tx", |s, _| assert_eq!(s.xdp().unwrap().name, "xdp_tx")),
    (&["ip link set dev eth0 xdp obj xdp_drop"], "ip link set dev eth0 xdp off", |s, _| assert!(s.xdp().is_none())),
    (&[], "ip link set dev eth0 xdp none", |s, _| assert!(s.xdp().is_none())),
    // steerlab's xdp
    (&["ip link set dev eth0 xdp obj xdp_meta_drop"], "xdp strategy query", |s, _| assert_eq!(s.xdp().unwrap().strategy, Strategy::Query)),
    (&["ip link set dev eth0 xdp obj xdp_hints_pass"], "xdp strategy inline", |s, _| {
        let p = s.xdp().unwrap();
        assert_eq!((p.name.as_str(), p.strategy, p.kfuncs.len()), ("xdp_hints_pass", Strategy::Inline, 7));
    }),
    (&[], "xdp programs", |_, out| assert_eq!(out.lines().count(), 5)),
    // taskset
    (&[], "taskset -pc 2-3 0", |s, out| {
        assert_eq!(s.thread(0).unwrap().1.to_list(), "2-3");
        assert!(out.ends_with("pid 0's new affinity list: 2-3\n"));
    }),
    (&[], "taskset -cp 1", |_, out| assert_eq!(out, "pid 1's current affinity list: 0-7\n")),
    (&[], "taskset -p 30 2", |s, _| assert_eq!(s.thread(2).unwrap(), (5, "4-5".parse_cpus()))),
    (&[], "taskset -c -p 6 1", |s, _| assert_eq!(s.thread(1).unwrap().0, 6, "a thread outside its new set moves")),
    // flows
    (&[], "flow add tcp 10.0.0.9:1234 10.0.0.2:80 rate 500 readers 0,1", |s, out| {
        assert!(out.starts_with("flow 4: tcp 10.0.0.9:1234 -> 10.0.0.2:80 rx-"), "{out}");
        assert_eq!(s.flow_count(), 5);
    }),
    (&[], "flow add udp [2001:db8::1]:53 [2001:db8::2]:5353 bytes 512", |s, _| assert_eq!(s.flow_key(4).unwrap().flow_type(), FlowType::Udp6)),
    (&[], "flow add 10.1.1.1 10.1.1.2", |s, _| assert_eq!(s.flow_key(4).unwrap().dport(), 0)),
    (&[], "flow list", |_, out| assert_eq!(out.lines().count(), 4)),
    (&[], "flow close 1", |s, out| {
        assert_eq!(out, "flow 1: closed\n");
        assert!(s.flow_closed(1));
    }),
    (&[], "flow close 1 active", |s, _| assert!(s.flow_closed(1))),
    (&["flow close 2"], "flow list", |s, out| {
        assert_eq!(out.lines().nth(2).unwrap(), format!("flow 2: {} closed", s.flow_key(2).unwrap()), "{out}");
        assert_eq!((s.snapshot().flows, s.flow_count()), (3, 4), "the snapshot counts open flows, ids stay");
    }),

    (&[], "flow random 1000 rate 200", |s, out| {
        assert_eq!((out, s.flow_count()), ("flows 4-1003 added\n", 1004));
        let k = s.flow_key(500).unwrap();
        assert_eq!((k.dport(), k.dst(), k.proto()), (80, s.flow_key(0).unwrap().dst(), steerlab_engine::Proto::Tcp));
        // Replayed on the same host, the same command adds the same flows.
        let mut again = common::host();
        execute(&mut again, "flow random 1000 rate 200").unwrap();
        assert!((4..1004).all(|f| again.flow_key(f) == s.flow_key(f)));
    }),
    // threads
    (&[], "thread add 3", |s, out| {
        assert_eq!(out, "thread 3: cpu 3\n");
        assert_eq!(s.thread_count(), 4);
    }),
    (&[], "thread add 4 cpuset 4-7 migrate 10", |s, _| assert_eq!(s.thread(3).unwrap().1.to_list(), "4-7")),
    (&[], "thread migrate 0 6", |s, _| assert_eq!(s.thread(0).unwrap().0, 6)),
    (&[], "thread list", |_, out| assert_eq!(out, "thread 0: cpu 1 cpuset 0-7\nthread 1: cpu 2 cpuset 0-7\nthread 2: cpu 5 cpuset 0-7\n")),
    // the models
    (&[], "nic driver ice", |s, _| assert_eq!(s.config().driver, Driver::Ice)),
    // A relabelled generation keeps its old name as an alias (issue 31).
    (&[], "kernel 6.14", |s, out| assert!(s.config().kernel == Kernel::V6_10 && out.starts_with("kernel 6.10: mainline 6.10 to 6.14"), "{out}")),
    (&[], "kernel 6.10", |s, _| assert_eq!(s.config().kernel, Kernel::V6_10)),
    // The choice says which real kernels it stands for.
    (&[], "kernel 6.16", |_, out| assert!(out.contains("6.16 to 6.17.7") && out.contains("clears"), "{out}")),
    (&[], "kernel", |_, out| assert!(out.starts_with("kernel 6.18: mainline 6.18 and stable 6.17.8+") && out.contains("6.10 to 6.14"), "{out}")),
    (&["tc qdisc add dev eth0 ingress"], "tc counting legacy", |_, out| assert!(out.contains("6.12.y before 6.12.13") && out.contains("6.13.1"), "{out}")),
    (&[], "rfs record cpuset", |s, _| assert_eq!(s.config().record, RecordPolicy::Cpuset)),
    // tc reaches its module
    (&[], "tc qdisc add dev eth0 ingress", |s, _| assert!(s.tc_block().is_some())),
    // A new NIC under the block: its filters are played back to it (fl_reoffload).
    (&["nic driver ice", "tc qdisc add dev eth0 ingress", "tc filter add dev eth0 ingress prio 1 flower skip_sw dst_port 80 ip_proto tcp action drop"], "nic driver generic", |s, _| {
        let rows = s.tc_block().unwrap().filters();
        assert!(!rows[0].in_hw, "no tc offload on the generic NIC: not_in_hw");
        assert_eq!(s.tc_block().unwrap().offloadcnt(), 0);
    }),
    (&["nic driver generic", "tc qdisc add dev eth0 ingress", "tc filter add dev eth0 ingress prio 1 flower dst_port 80 ip_proto tcp action drop"], "nic driver mlx5", |s, _| {
        assert!(s.tc_block().unwrap().filters()[0].in_hw, "mlx5 takes the ordinary filter into hardware");
    }),
    // help, comments, blank lines
    (&[], "help", |_, out| assert!(out.contains("  ethtool  ethtool -i DEV\n"))),
    (&[], "help taskset", |_, out| assert!(out.starts_with("taskset -pc"))),
    (&[], "# a comment", |_, out| assert_eq!(out, "")),
    (&[], "   ", |_, out| assert_eq!(out, "")),
];

trait ParseCpus {
    fn parse_cpus(&self) -> steerlab_engine::CpuSet;
}

impl ParseCpus for str {
    fn parse_cpus(&self) -> steerlab_engine::CpuSet {
        steerlab_engine::CpuSet::parse_list(self).unwrap()
    }
}

#[test]
fn every_form_succeeds_and_does_what_it_says() {
    for (setup, line, check) in OK {
        let mut s = host();
        for l in *setup {
            ok(&mut s, l);
        }
        let out = ok(&mut s, line);
        check(&s, &out);
    }
}

/// `(setup lines, line, words of the error)`: the line fails, says so in the real tool's
/// words, adds a hint, and changes nothing.
const ERR: &[(&[&str], &str, &str)] = &[
    // ethtool: options and devices
    (&[], "ethtool", "ethtool: bad command line argument(s)\nFor more information run ethtool -h"),
    (&[], "ethtool -T eth0", "ethtool: option -T is not supported in steerlab (supported: -i -k -l -L -x -X -n -N -K -c -C -g -G -S)"),
    (&[], "ethtool eth0", "not supported in steerlab"),
    (&[], "ethtool -l", "bad command line argument(s)"),
    (&[], "ethtool -l eth1", "netlink error: no device matches name (offset 24)\nnetlink error: No such device"),
    (&[], "ethtool -X eth1 equal 2", "no device matches name"),
    (&[], "ethtool -l eth0 extra", "bad command line argument(s)"),
    // -L
    (&[], "ethtool -L eth0 combined 9", "netlink error: requested channel count exceeds maximum (offset 36)\nnetlink error: Invalid argument"),
    (&[], "ethtool -L eth0 combined 0", "requested channel counts would result in no RX or TX channel being configured (offset 36)"),
    (&[], "ethtool -L eth0 tx 0 rx 2", "requested channel count exceeds maximum (offset 44)"),
    (&[], "ethtool -L eth0 combined x", "bad command line argument(s)"),
    (&[], "ethtool -L eth0 combined", "bad command line argument(s)"),
    (&[], "ethtool -L eth0 queues 2", "bad command line argument(s)"),
    (&["ethtool -X eth0 equal 4"], "ethtool -L eth0 combined 2", "netlink error: requested channel counts are too low for existing indirection table (3)\nnetlink error: Invalid argument"),
    (&["ethtool -K eth0 ntuple on", "ethtool -N eth0 flow-type tcp4 action 3"], "ethtool -L eth0 combined 3", "requested channel counts are too low for existing ntuple filter settings"),
    // -x / -X
    (&[], "ethtool -x eth0 context 1", "RSS contexts are not modelled"),
    (&[], "ethtool -X eth0 equal 8", "Cannot set RX flow hash configuration: Invalid argument"),
    (&[], "ethtool -X eth0 equal 0", "Cannot set RX flow hash configuration: Invalid argument"),
    (&[], "ethtool -X eth0 weight 1 1 1 1 1", "Cannot set RX flow hash configuration: Invalid argument"),
    (&[], "ethtool -X eth0 weight 0 0", "Cannot set RX flow hash configuration: Invalid argument"),
    (&[], "ethtool -X eth0 weight", "bad command line argument(s)"),
    (&[], "ethtool -X eth0 equal 2 weight 1", "Equal, weight and default options are mutually exclusive"),
    (&[], "ethtool -X eth0 start 1", "Start must be used with equal or weight options"),
    (&[], "ethtool -X eth0 default start 1", "Start and default options are mutually exclusive"),
    (&[], "ethtool -X eth0 equal 2 hkey 6d:5a", "Key size mismatch"),
    (&[], "ethtool -X eth0 hkey zz", "Invalid RSS hash key format"),
    (&[], "ethtool -X eth0 hfunc xor", "Operation not supported"),
    (&[], "ethtool -X eth0 frob", "bad command line argument(s)"),
    (&[], "ethtool -X eth0", "bad command line argument(s)"),
    (&[], "ethtool -X eth0 context 1 equal 2", "not modelled in steerlab"),
    // -N / -n
    (&[], "ethtool -N eth0 flow-type tcp4 dst-port 80 action 1", "rmgr: Cannot insert RX class rule: Operation not supported\nCannot insert classification rule"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 action 4", "rmgr: Cannot insert RX class rule: Invalid argument"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 action -1", "action -1 (drop) is not modelled"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 action 1 loc 1024", "rmgr: Cannot insert RX class rule: Invalid argument"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 src-ip 2001:db8::1", "Invalid src-ip value[2001:db8::1]\nethtool: bad command line argument(s)"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp6 dst-ip 10.0.0.1", "Invalid dst-ip value[10.0.0.1]"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type sctp4 action 1", "flow-type sctp4 is not modelled"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type bogus action 1", "Add rule, invalid syntax"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type", "Add rule, invalid syntax"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 tos 4 action 1", "tos is not modelled"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 frob 1", "Add rule, unrecognized option[frob]"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 dst-port", "Add rule, invalid syntax"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 dst-port 1 dst-port 2", "Invalid dst-port value[2]"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 dst-port 70000", "Invalid dst-port value[70000]"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 action 1 queue 1", "action and queue are not compatible"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 action 1 m 0", "Invalid action mask[0]"),
    (&["ethtool -K eth0 ntuple on"], "ethtool -N eth0 flow-type tcp4 src-ip 1.2.3.4 m", "Add rule, invalid syntax"),
    (&[], "ethtool -N eth0 delete 5", "rmgr: Cannot delete RX class rule: No such file or directory\nCannot delete classification rule"),
    (&[], "ethtool -N eth0 delete x", "bad command line argument(s)"),
    (&[], "ethtool -N eth0 rx-flow-hash tcp4 s", "Cannot change RX network flow hashing options: Invalid argument"),
    (&[], "ethtool -N eth0 rx-flow-hash tcp4 sdf", "Cannot change RX network flow hashing options: Invalid argument"),
    (&[], "ethtool -N eth0 rx-flow-hash tcp4 sdfnv", "Cannot change RX network flow hashing options: Operation not supported"),
    (&[], "ethtool -N eth0 rx-flow-hash tcp4 sdq", "bad command line argument(s)"),
    (&[], "ethtool -N eth0 rx-flow-hash esp4 sd", "flow type esp4 is not modelled"),
    (&[], "ethtool -N eth0 frob", "bad command line argument(s)"),
    (&[], "ethtool -n eth0 rule 9", "rxclass: Cannot get RX class rule: Invalid argument\nCannot get RX classification rule"),
    (&[], "ethtool -n eth0 rx-flow-hash foo4", "bad command line argument(s)"),
    // -K, -S
    (&[], "ethtool -K eth0 gro off", "feature \"gro\" is not modelled in steerlab"),
    (&[], "ethtool -C eth0 rx-usecs 20000", "rx-usecs: out of range"),
    (&[], "ethtool -C eth0 rx-frames-irq 32", "\"rx-frames-irq\" is not modelled in steerlab"),
    (&["nic driver ixgbe"], "ethtool -C eth0 rx-frames 32", "netlink error: cannot modify an unsupported parameter (offset 36)"),
    (&["nic driver mlx5"], "ethtool -C eth0 rx-frames 70000", "rx-frames: out of range"),
    (&["nic driver mlx5"], "ethtool -C eth0 adaptive-rx on rx-usecs 8 rx-frames 4", "cannot be set while adaptive-rx is on"),
    (&[], "ethtool -C eth0 adaptive-rx on rx-usecs 8", "cannot be set while adaptive-rx is on"),
    (&[], "ethtool -C eth0 rx-usecs", "bad command line argument"),
    (&[], "echo 1 > /sys/class/net/eth0/device/numa_node", "Permission denied"),
    (&[], "ethtool -G eth0 rx 2048", "netlink error: requested ring size exceeds maximum (offset 36)"),
    (&[], "ethtool -G eth0 rx 300", "virtio_net takes a power of two"),
    (&["nic driver mlx5"], "ethtool -G eth0 rx 32", "netlink error: Invalid argument"),
    (&[], "ethtool -G eth0 tx 512", "\"tx\" is not modelled in steerlab"),
    (&[], "ethtool -G eth0 rx", "bad command line argument"),
    (&[], "ethtool -G eth0 rx 99999999999", "bad command line argument"),
    (&[], "ethtool -K eth0 ntuple maybe", "bad command line argument(s)"),
    (&[], "ethtool -K eth0", "bad command line argument(s)"),
    (&[], "ethtool -S eth0 --all-groups", "bad command line argument(s)"),
    // sysctl
    (&[], "sysctl", "sysctl: no variables specified"),
    (&[], "sysctl net.core.somaxconn", "sysctl: cannot stat /proc/sys/net/core/somaxconn: No such file or directory"),
    (&[], "sysctl -w net.core.rps_sock_flow_entries=abc", "sysctl: setting key \"net.core.rps_sock_flow_entries\": Invalid argument"),
    (&[], "sysctl -w net.core.rps_sock_flow_entries=-1", "Invalid argument"),
    (&[], "sysctl -w net.core.rps_sock_flow_entries=5000000", "Invalid argument"),
    (&[], "sysctl -w net.core.netdev_max_backlog=0", "setting key \"net.core.netdev_max_backlog\": Invalid argument"),
    (&[], "sysctl -w net.core.dev_weight=0", "setting key \"net.core.dev_weight\": Invalid argument"),
    (&[], "sysctl -w net.core.rmem_default=2303", "setting key \"net.core.rmem_default\": Invalid argument"),
    (&[], "sysctl -w net.core.netdev_budget_usecs=-1", "Invalid argument"),
    (&[], "flow setsockopt 99 SO_RCVBUF 1000", "no flow 99"),
    (&[], "flow work 0 100", "a UDP flow"),
    (&[], "nstat -x", "nstat: option -x is not supported"),
    (&[], "mpstat -P ALL 1", "cannot wait for an interval"),
    (&[], "systemctl start nginx", "Unit nginx.service not found."),
    (&[], "systemctl enable irqbalance", "Unknown command verb 'enable'."),
    (&[], "systemctl set-environment IRQBALANCE_BANNED_CPULIST=99", "CPUs of this host"),
    (&[], "systemctl set-environment IRQBALANCE_BANNED_CPULIST=x", "systemctl: IRQBALANCE_BANNED_CPULIST:"),
    (&[], "systemctl set-environment LANG=C", "holds IRQBALANCE_BANNED_CPULIST only"),
    (&[], "systemctl set-environment IRQBALANCE_BANNED_CPULIST", "Invalid environment assignment"),
    (&["systemctl set-environment IRQBALANCE_BANNED_CPULIST=0-7"], "systemctl restart irqbalance", "leaves the NIC's NUMA node a CPU"),
    (&[], "mpstat -P 99", "not a list of this host's CPUs"),
    (&[], "netstat -tn", "netstat: steerlab prints the statistics only"),
    // flow_limit_cpu_sysctl's cpumask_parse: a CPU beyond the host is bitmap_parse's EOVERFLOW.
    (&[], "sysctl -w net.core.flow_limit_cpu_bitmap=100", "setting key \"net.core.flow_limit_cpu_bitmap\": Value too large for defined data type"),
    (&[], "sysctl -w net.core.flow_limit_table_len=0", "Invalid argument"),
    // flow_limit_table_len_sysctl: not a power of two, EINVAL (issue 31).
    (&[], "sysctl -w net.core.flow_limit_table_len=3000", "Invalid argument"),
    (&[], "sysctl -z net.core.rps_sock_flow_entries", "option -z is not supported"),
    (&[], "sysctl -w net.core.rps_sock_flow_entries=1 net.core.rps_sock_flow_entries=2", "one key per command"),
    // echo
    (&[], "echo f > /sys/class/net/eth1/queues/rx-0/rps_cpus", "bash: /sys/class/net/eth1/queues/rx-0/rps_cpus: No such file or directory"),
    (&[], "echo f > /sys/class/net/eth0/queues/rx-4/rps_cpus", "No such file or directory"),
    (&[], "echo f > /sys/class/net/eth0/queues/rx-01/rps_cpus", "No such file or directory"),
    (&[], "echo f > /sys/class/net/eth0/queues/tx-0/tx_maxrate", "No such file or directory"),
    (&[], "echo zz > /sys/class/net/eth0/queues/rx-0/rps_cpus", "bash: echo: write error: Invalid argument"),
    (&[], "echo 100 > /sys/class/net/eth0/queues/rx-0/rps_cpus", "bash: echo: write error: Value too large for defined data type"),
    (&[], "echo x > /sys/class/net/eth0/queues/rx-0/rps_flow_cnt", "bash: echo: write error: Invalid argument"),
    (&[], "echo 2000000 > /sys/class/net/eth0/queues/rx-0/rps_flow_cnt", "bash: echo: write error: Invalid argument"),
    (&[], "echo 10 > /sys/class/net/eth0/queues/tx-0/xps_rxqs", "bash: echo: write error: Value too large for defined data type"),
    (&[], "echo 1ff > /sys/class/net/eth0/queues/tx-0/xps_cpus", "bash: echo: write error: Value too large for defined data type"),
    (&[], "echo 5000000 > /proc/sys/net/core/rps_sock_flow_entries", "bash: echo: write error: Invalid argument"),
    (&[], "echo 0 > /proc/sys/net/core/netdev_max_backlog", "bash: echo: write error: Invalid argument"),
    (&[], "echo f >", "bash: syntax error near unexpected token `newline'"),
    (&[], "echo \"f > /sys/class/net/eth0/queues/rx-0/rps_cpus", "unexpected EOF while looking for matching `\"'"),
    // cat
    (&[], "cat", "cat: missing file operand"),
    (&[], "cat /etc/passwd", "cat: /etc/passwd: No such file or directory"),
    (&[], "cat /sys/class/net/eth0/queues/tx-4/xps_cpus", "No such file or directory"),
    // ip
    (&[], "ip", "Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }"),
    (&[], "ip addr", "object \"addr\" is not supported in steerlab"),
    (&[], "ip foo", "Object \"foo\" is unknown, try \"ip help\"."),
    (&[], "ip -x link", "option \"-x\" is not supported"),
    (&[], "ip link frob", "Command \"frob\" is unknown, try \"ip link help\"."),
    (&[], "ip link show dev eth1", "Device \"eth1\" does not exist."),
    (&[], "ip link set dev eth1 xdp off", "Cannot find device \"eth1\""),
    (&[], "ip link set", "Not enough information: \"dev\" argument is required."),
    (&[], "ip link set dev eth0 xdp obj nope", "libbpf: elf: failed to open nope: No such file or directory\nERROR: opening BPF object file failed"),
    (&[], "ip link set dev eth0 xdpgeneric obj xdp_drop", "xdpgeneric is not modelled"),
    (&["ip link set dev eth0 xdp obj xdp_drop"], "ip link set dev eth0 xdp obj xdp_pass", "Error: XDP program already attached."),
    (&[], "ip link set dev eth0 mtu 9000", "mtu is not modelled"),
    (&[], "ip link set dev eth0 xdp", "needs obj PROGRAM or off"),
    (&[], "ip link set dev eth0 xdp obj xdp_drop frob", "unexpected argument \"frob\""),
    (&[], "ip link set dev eth0 xdp pinned /sys/fs/bpf/x", "xdp pinned is not modelled"),
    // xdp
    (&[], "xdp strategy query", "xdp: no XDP program is attached"),
    (&["ip link set dev eth0 xdp obj xdp_drop"], "xdp strategy fast", "is not one of call | query | inline"),
    (&[], "xdp", "xdp: bad arguments"),
    // taskset
    (&[], "taskset -pc 0-3 99", "taskset: failed to get pid 99's affinity: No such process"),
    (&[], "taskset -pc x 0", "taskset: failed to parse CPU list: x"),
    (&[], "taskset -p zz 0", "taskset: failed to parse CPU mask: zz"),
    (&[], "taskset -pc 9 0", "pid 0's current affinity list: 0-7\ntaskset: failed to set pid 0's affinity: Invalid argument"),
    (&[], "taskset -pc 0 abc", "taskset: invalid PID argument: 'abc'"),
    (&[], "taskset 1 ls", "starting a command is not supported"),
    (&[], "taskset -x 1", "option -x is not supported"),
    (&[], "taskset -p", "bad usage"),
    // flows
    (&[], "flow add tcp 10.0.0.1:1 [2001:db8::1]:2", "both be IPv4 or both be IPv6"),
    (&[], "flow add tcp 10.0.0.1:99999 10.0.0.2:80", "is not ADDR[:PORT]"),
    (&[], "flow add tcp 10.0.0.1:40000 10.0.0.2:80", "already exists"),
    (&[], "flow add tcp 1.1.1.1 2.2.2.2 rate 0", "flow.rate_pps"),
    (&[], "flow add tcp 1.1.1.1 2.2.2.2 readers 9", "no thread 9"),
    (&[], "flow add tcp 1.1.1.1 2.2.2.2 readers 0,x", "is not a list of thread ids"),
    (&[], "flow random 0", "is not a count in 1..=100000"),
    (&[], "flow random many", "is not a count in 1..=100000"),
    (&[], "flow random 10 rate 0", "flow.rate_pps"),
    (&[], "flow random 10 bytes 9", "only `rate PPS` may follow the count"),
    (&[], "flow add tcp 1.1.1.1 2.2.2.2 rate", "needs a value"),
    (&[], "flow add tcp 1.1.1.1 2.2.2.2 color red", "unknown option \"color\""),
    (&[], "flow add tcp 1.1.1.1", "needs a source and a destination"),
    (&[], "flow", "flow: bad arguments"),
    (&[], "flow close 9", "flow close: no flow 9"),
    (&[], "flow close one", "is not a flow id (flow list shows them)"),
    (&[], "flow close 1 passive", "after the id only `active`"),
    (&["flow close 1"], "flow close 1", "flow close: flow 1 is already closed"),
    (&["flow close 0"], "flow add tcp 10.0.0.1:40000 10.0.0.2:80", "was closed: its tuple is in TIME_WAIT (take another source port)"),
    // threads
    (&[], "thread add 8", "thread"),
    (&[], "thread add 1 cpuset 2-3", "a CPU of the thread's cpuset"),
    (&[], "thread add 1 cpuset x", "is not a CPU list"),
    (&[], "thread add 1 migrate x", "is not a number of ms"),
    (&[], "thread migrate 0 99", "is not in thread 0's cpuset"),
    (&[], "thread migrate 7 1", "no thread 7"),
    (&[], "thread migrate x 1", "is not a number"),
    (&[], "thread", "thread: bad arguments"),
    // the models, help, unknown commands
    (&[], "nic driver e1000", "generic | ice-hash-match | ice | mlx5 | ixgbe"),
    (&[], "nic", "nic: bad arguments"),
    (&[], "kernel 5.10", "is not one of 6.10 | 6.15 | 6.16 | 6.18"),
    (&[], "rfs record sometimes", "is not one of always | cpuset"),
    (&[], "help frob", "help: no help topics match `frob'"),
    (&[], "frob", "frob: command not found"),
];

#[test]
fn every_error_is_the_real_tools_and_changes_nothing() {
    for (setup, line, words) in ERR {
        let mut s = host();
        for l in *setup {
            ok(&mut s, l);
        }
        let before = fingerprint(&s);
        let e = err(&mut s, line);
        assert!(e.contains(words), "{line:?}: expected {words:?} in\n{e}");
        assert!(
            e.lines().last().unwrap_or("").starts_with("hint: ") || e.lines().any(|l| l.starts_with("hint: ")),
            "{line:?}: no hint in\n{e}"
        );
        assert_eq!(fingerprint(&s), before, "{line:?} changed the host");
    }
}

/// Errors other than `command not found` end with one hint block; its first line says `hint:`.
#[test]
fn hints_name_the_accepted_form() {
    let mut s = host();
    let e = err(&mut s, "ethtool -N eth0 flow-type tcp4 frob 1");
    assert!(e.ends_with("hint: ethtool -N DEV flow-type tcp4|udp4|tcp6|udp6 [src-ip A [m MASK]] [dst-ip A [m MASK]] [src-port P [m MASK]] [dst-port P [m MASK]] action Q [loc L]"), "{e}");
    let e = err(&mut s, "ethtool -L eth0 combined 99");
    assert!(
        e.ends_with("hint: ethtool -L DEV combined N   (N is 1..=8, see ethtool -l eth0)"),
        "{e}"
    );
    let e = err(&mut s, "ethtool -N eth0 rx-flow-hash tcp4 sdq");
    assert!(
        e.ends_with("hint: ethtool -N DEV rx-flow-hash tcp4|udp4|tcp6|udp6 sd|sdfn"),
        "{e}"
    );
}

/// A failing `-X` with a good table and a bad key sets neither (checked before setting).
#[test]
fn rxfh_is_all_or_nothing() {
    let mut s = host();
    let before = s.reta().clone();
    err(&mut s, "ethtool -X eth0 equal 2 hkey 6d:5a:56");
    assert_eq!(s.reta(), &before);
    ok(&mut s, &format!("ethtool -X eth0 equal 2 hkey {KEY}"));
    assert_eq!((s.reta().max_queue(), s.rss_key()[0]), (1, 1));
}

/// `ethtool -N` without `loc` fills locations downward from 1023 and refuses a full table
/// (`rmgr_find_empty_slot`, in ethtool before its insert call).
#[test]
fn rule_table_fills_down_and_refuses_when_full() {
    let mut s = host();
    ok(&mut s, "ethtool -K eth0 ntuple on");
    for loc in 0..1024 {
        ok(
            &mut s,
            &format!("ethtool -N eth0 flow-type tcp4 dst-port {loc} action 1 loc {loc}"),
        );
    }
    let before = fingerprint(&s);
    let e = err(&mut s, "ethtool -N eth0 flow-type tcp4 action 2");
    assert!(
        e.starts_with("rmgr: Cannot find appropriate slot to insert rule\n"),
        "{e}"
    );
    assert_eq!(fingerprint(&s), before);
    ok(&mut s, "ethtool -N eth0 delete 17");
    assert_eq!(
        ok(&mut s, "ethtool -N eth0 flow-type tcp4 action 2"),
        "Added rule with ID 17\n"
    );
}

/// ice: rules share the Flow Director with aRFS. A full one refuses a new rule with the
/// driver's errno (`-ENOSPC`), a rule written to a used location replaces it in place, and a
/// refused replacement leaves the old rule (one engine call, not a delete then an add).
#[test]
fn ice_refusals_keep_their_errno_and_a_refused_replace_keeps_the_rule() {
    let mut s = common::host_with(HostConfig {
        cpus: 8,
        rx_queues: 4,
        tx_queues: 4,
        reta_size: 16,
        driver: Driver::Ice,
        max_hw_filters: 2,
        ..HostConfig::default()
    });
    ok(&mut s, "ethtool -K eth0 ntuple on");
    let exact = "flow-type tcp4 src-ip 10.0.0.1 dst-ip 10.0.0.2 src-port 40000 dst-port 80";
    ok(&mut s, &format!("ethtool -N eth0 {exact} action 1 loc 1"));
    ok(&mut s, &format!("ethtool -N eth0 {exact} action 2 loc 2"));
    let before = fingerprint(&s);
    let e = err(&mut s, &format!("ethtool -N eth0 {exact} action 3 loc 3"));
    assert!(
        e.starts_with(
            "rmgr: Cannot insert RX class rule: No space left on device\nCannot insert classification rule\n"
        ),
        "{e}"
    );
    assert_eq!(fingerprint(&s), before);
    ok(&mut s, &format!("ethtool -N eth0 {exact} action 3 loc 2"));
    assert_eq!(s.ntuple_rules()[1].queue, 3, "replaced in place");
}

/// A rule steers the flows it matches; `-K ntuple off` removes every rule.
#[test]
fn rules_steer_and_ntuple_off_clears() {
    let mut s = host();
    ok(&mut s, "ethtool -K eth0 ntuple on");
    ok(&mut s, "ethtool -N eth0 flow-type tcp4 src-port 40000 action 0");
    assert_eq!(s.flow_queue_now(0), Some(0));
    ok(&mut s, "ethtool -K eth0 ntuple off");
    assert!(s.ntuple_rules().is_empty());
    assert_ne!(s.flow_queue_now(0), Some(0));
}

#[test]
fn completion_of_commands_options_devices_programs_and_paths() {
    let c = |line: &str| complete(line);
    assert_eq!(c("tas"), ["taskset "]);
    assert!(c("").contains(&"ip ".to_string()) && c("").contains(&"flow ".to_string()));
    assert_eq!(
        c("ethtool -"),
        [
            "ethtool -l ",
            "ethtool -L ",
            "ethtool -x ",
            "ethtool -X ",
            "ethtool -n ",
            "ethtool -N ",
            "ethtool -K ",
            "ethtool -c ",
            "ethtool -C ",
            "ethtool -S "
        ]
    );
    assert_eq!(c("ethtool -S e"), ["ethtool -S eth0 "]);
    assert_eq!(c("ip link set dev "), ["ip link set dev eth0 "]);
    assert_eq!(
        c("ip link set dev eth0 xdp "),
        ["ip link set dev eth0 xdp obj ", "ip link set dev eth0 xdp off "]
    );
    assert_eq!(
        c("ip link set dev eth0 xdp obj xdp_m"),
        ["ip link set dev eth0 xdp obj xdp_meta_drop "]
    );
    assert_eq!(c("xdp s"), ["xdp strategy "]);
    assert_eq!(c("xdp strategy q"), ["xdp strategy query "]);
    assert_eq!(c("cat /proc/in"), ["cat /proc/interrupts"]);
    assert_eq!(
        c("cat /proc/i"),
        [
            "cat /proc/interrupts",
            "cat /proc/irq/130/smp_affinity_list",
            "cat /proc/irq/*/smp_affinity_list"
        ]
    );
    assert_eq!(
        c("echo 40 > /sys/class/net/eth0/queues/tx-0/xps_r"),
        ["echo 40 > /sys/class/net/eth0/queues/tx-0/xps_rxqs"]
    );
    assert_eq!(c("cat /proc/sys/"), ["cat /proc/sys/net/core/rps_sock_flow_entries"]);
    assert_eq!(c("help eth"), ["help ethtool "]);
    assert!(c("frob ").is_empty());
    // Every completion is a line the console accepts or that needs only a value.
    for line in [
        "ethtool -x eth0",
        "cat /proc/interrupts",
        "ip link set dev eth0 xdp obj xdp_drop",
    ] {
        let done = c(&line[..line.len() - 2]);
        assert!(done.iter().any(|d| d.trim_end() == line), "{line}: {done:?}");
        assert!(execute(&mut host(), line).is_ok(), "{line}");
    }
}

/// Settings already in force are not re-applied: the kernel returns before the driver, so
/// nothing is reset (per-queue counters, aRFS filters, the trace digest).
#[test]
fn unchanged_settings_touch_nothing() {
    let mut s = host();
    let before = fingerprint(&s);
    for line in [
        "ethtool -L eth0 combined 4",
        "ethtool -K eth0 ntuple off",
        "ip link set dev eth0 xdp off",
        "ethtool -L eth0 rx 0",
    ] {
        ok(&mut s, line);
        assert_eq!(fingerprint(&s), before, "{line}");
    }
}

/// steerlab's per-thread policy: pin, cpuset, auto-migrate; bad forms change nothing.
#[test]
fn thread_policy_pins_confines_and_migrates() {
    let mut sim = steerlab_engine::Sim::new(steerlab_engine::HostConfig {
        cpus: 8,
        rx_queues: 4,
        ..Default::default()
    })
    .unwrap();
    let t = sim
        .add_thread(steerlab_engine::ThreadSpec {
            cpu: 2,
            allowed: steerlab_engine::CpuSet::EMPTY,
            migrate_every: steerlab_engine::Nanos::ZERO,
        })
        .unwrap();
    steerlab_console::execute(&mut sim, "thread policy 0 pin").unwrap();
    assert_eq!(sim.thread(t).unwrap().1.to_list(), "2");
    steerlab_console::execute(&mut sim, "thread policy 0 cpuset 4-7").unwrap();
    assert_eq!(
        sim.thread(t).unwrap(),
        (4, steerlab_engine::CpuSet::parse_list("4-7").unwrap())
    );
    steerlab_console::execute(&mut sim, "thread policy 0 migrate 5").unwrap();
    assert_eq!(sim.thread_migration(t), Some(steerlab_engine::Nanos::from_ms(5)));
    sim.advance_to(steerlab_engine::Nanos::from_ms(100));
    assert!(sim.snapshot().counters.migrations > 1);
    let before = sim.snapshot();
    for bad in [
        "thread policy 0 migrate 0",
        "thread policy 0 cpuset 9",
        "thread policy 7 pin",
        "thread policy 0 fly",
    ] {
        assert!(steerlab_console::execute(&mut sim, bad).is_err(), "{bad}");
        assert_eq!(sim.snapshot(), before, "{bad}");
    }
}

/// `/proc/irq/N/smp_affinity_list` moves a queue's vector (and `effective_affinity_list` and
/// `/proc/interrupts` follow); `grep . FILES` reads many files as `FILE:line`, the way the
/// capture script reads them.
#[test]
fn irq_affinity_files_and_grep() {
    let mut sim = Sim::new(HostConfig {
        cpus: 8,
        ..HostConfig::default()
    })
    .unwrap();
    execute(&mut sim, "echo 5-6 > /proc/irq/131/smp_affinity_list").unwrap();
    assert_eq!(sim.irq_cpu(1), Some(5));
    assert_eq!(execute(&mut sim, "cat /proc/irq/131/smp_affinity").unwrap(), "60\n");
    execute(&mut sim, "echo 4 > /proc/irq/130/smp_affinity").unwrap();
    let out = execute(&mut sim, "grep . /proc/irq/*/effective_affinity_list").unwrap();
    assert_eq!(out, "/proc/irq/130/effective_affinity_list:2\n/proc/irq/131/effective_affinity_list:5\n/proc/irq/132/effective_affinity_list:2\n/proc/irq/133/effective_affinity_list:3\n");
    assert_eq!(
        execute(&mut sim, "grep . /proc/irq/131/smp_affinity_list").unwrap(),
        "5-6\n",
        "one file: no name"
    );
    let before = sim.snapshot();
    for bad in [
        "echo 9 > /proc/irq/131/smp_affinity_list",
        "echo 1 > /proc/irq/134/smp_affinity_list",
        "echo 1 > /proc/irq/131/effective_affinity_list",
        "grep x /proc/irq/131/smp_affinity_list",
        "grep .",
    ] {
        let e = execute(&mut sim, bad).unwrap_err();
        assert!(e.contains("hint:"), "{bad}: {e}");
    }
    assert_eq!((sim.snapshot(), sim.irq_cpu(1)), (before, Some(5)));
}

/// The embedding page's event kind comes from the console's own parse (issue 33): a taskset
/// query is a command, a new set a migration, whatever the spelling.
#[test]
fn each_command_says_what_it_did() {
    use steerlab_console::{run, Kind};
    let mut sim = host();
    for (line, kind) in [
        ("taskset -p 1", Kind::Command),
        ("taskset -pc 1", Kind::Command),
        ("taskset -p 2 1", Kind::ThreadMigrated),
        ("sudo taskset -c -p 0-1 1", Kind::ThreadMigrated),
        ("thread migrate 1 0", Kind::ThreadMigrated),
        ("thread policy 1 pin", Kind::Command),
        ("flow add tcp 10.0.0.1:1000 10.0.0.2:80", Kind::FlowAdded),
        ("flow close 0", Kind::FlowClosed),
        ("flow random 2", Kind::Command),
        ("echo 2 > /sys/class/net/eth0/queues/rx-0/rps_cpus", Kind::Command),
        (
            "for q in 0 1; do echo 0 > /sys/class/net/eth0/queues/rx-$q/rps_cpus; done",
            Kind::Command,
        ),
        ("ethtool -x eth0", Kind::Command),
    ] {
        assert_eq!(run(&mut sim, line).map(|(_, k)| k), Ok(kind), "{line}");
    }
}

/// A name from a lesson's text typed as a command: the hint says which command it belongs to.
#[test]
fn a_name_typed_as_read_points_at_its_command() {
    let mut sim = host();
    for (line, hint) in [
        ("ice-hash-match", "nic driver ice-hash-match"),
        ("6.18", "kernel 6.18"),
        ("usesw", "tc counting usesw"),
        ("cpuset", "rfs record cpuset"),
        ("arfs_lock", "a stage of the CPU time"),
        ("frob", "help lists the commands"),
    ] {
        let e = steerlab_console::execute(&mut sim, line).unwrap_err();
        assert!(
            e.starts_with(&format!("{line}: command not found\nhint: ")) && e.contains(hint),
            "{line}: {e}"
        );
    }
}

/// `COMMAND | grep PATTERN`: a tool's output or a file's lines, kept as GNU grep keeps them;
/// a refused pattern runs nothing (not even the command before it).
#[test]
fn a_pipe_through_grep_keeps_the_matching_lines() {
    let mut sim = common::host();
    let stats = execute(&mut sim, "ethtool -S eth0").unwrap();
    let want: String = stats
        .lines()
        .filter(|l| l.contains("drop"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(!want.is_empty());
    assert_eq!(execute(&mut sim, "ethtool -S eth0 | grep drop").unwrap(), want);
    assert_eq!(
        execute(&mut sim, "sudo ethtool -S eth0 | grep -c packets").unwrap(),
        format!("{}\n", stats.matches("packets").count())
    );
    let irqs = execute(&mut sim, "cat /proc/interrupts | grep -E 'CPU|^ *131:'").unwrap();
    assert_eq!(irqs.lines().count(), 2, "{irqs}");
    assert!(irqs.starts_with("           CPU0"));
    let udp = execute(&mut sim, "nstat -az | grep -i udprcvbuf").unwrap();
    assert!(udp.starts_with("UdpRcvbufErrors"), "{udp}");
    assert_eq!(
        execute(&mut sim, "ethtool -S eth0 | grep -v packets | grep -c _").unwrap(),
        "3\n",
        "rx_unicast, tx_unicast, rx_dropped"
    );
    assert_eq!(
        execute(&mut sim, "ethtool -S eth0 | grep nothing-like-this").unwrap(),
        ""
    );
    // A write through a pipe is still the write; the refused pattern stops the line first.
    let before = sim.snapshot();
    let e = execute(&mut sim, "ethtool -X eth0 equal 2 | grep -P x").unwrap_err();
    assert!(e.contains("hint:"), "{e}");
    assert_eq!(sim.snapshot(), before);
    assert!(execute(&mut sim, "ethtool -S eth0 | grep")
        .unwrap_err()
        .contains("no pattern"));
    assert!(
        execute(&mut sim, "ethtool -S eth0 | sort").is_err(),
        "only grep filters"
    );
}

/// `steerlab_console::settings` tells a read from a change: what only prints leaves it as it
/// was, each kind of write moves it (the page measures anew only after a change).
#[test]
fn settings_tell_a_read_from_a_change() {
    let mut sim = common::host();
    let reads = [
        "cat /proc/interrupts",
        "ethtool -S eth0 | grep drop",
        "ethtool -g eth0",
        "ethtool -c eth0",
        "nstat -az Udp*",
        "mpstat -P ALL",
        "sysctl net.core.netdev_budget",
        "cat /proc/net/softnet_stat",
        "taskset -p 0",
        "cat /proc/irq/131/smp_affinity_list",
        "systemctl show-environment",
        "help",
    ];
    let writes = [
        "ethtool -G eth0 rx 1024",
        "ethtool -C eth0 rx-usecs 50",
        "sysctl -w net.core.netdev_budget=600",
        "echo 3 > /proc/irq/131/smp_affinity_list",
        "taskset -pc 4 0",
        "systemctl start irqbalance",
        "echo f > /sys/class/net/eth0/queues/rx-0/rps_cpus",
        "flow add udp 10.9.9.9:1 10.0.0.2:53 rate 100 readers 0",
        "flow setsockopt 4 SO_RCVBUF 4096",
        "thread policy 0 migrate 5",
        "flow close 4",
    ];
    let lines = reads.iter().map(|l| (l, false)).chain(writes.iter().map(|l| (l, true)));
    for (line, changes) in lines {
        let before = steerlab_console::settings(&sim);
        execute(&mut sim, line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(
            (steerlab_console::settings(&sim) != before) == changes,
            "{line}: changes the host: {changes}"
        );
    }
}
