//! Captures as people paste them (issue 30's classes): prompts of every shell, pipes, outputs
//! in part, a spread vector, two ports, the drivers' defaults; each choice said with its line.

mod common;

use common::said;
use steerlab_scenario::capture::import;
use steerlab_scenario::predict::{self, parse_flow};

const ROOT_PROMPT: &str = "[root@dut ~]# ethtool -x eth1
RX flow hash indirection table for eth1 with 4 RX ring(s):
    0:      0     1     2     3     0     1     2     3
    8:      0     1     2     3     0     1     2     3
RSS hash key:
6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa
RSS hash function:
    toeplitz: on
    xor: off
    crc32: off
RSS input transformation:
    symmetric-xor: off
[root@dut ~]# cat /proc/irq/55/smp_affinity_list
4-7
[root@dut ~]# cat /proc/interrupts | grep eth1
  55:       0       0       0       0      10     500       3       0   IR-PCI-MSI 1048576-edge      eth1-TxRx-0
  56:       0       0       0       0       0       0       0       9   IR-PCI-MSI 1048577-edge      eth1-TxRx-1
[root@dut ~]# lscpu -p
# The following is the parsable format, which can be fed to other
# CPU,Core,Socket,Node,,L1d,L1i,L2,L3
0,0,0,0,,0,0,0,0
1,1,0,0,,1,1,1,0
2,2,0,0,,2,2,2,0
3,3,0,0,,3,3,3,0
4,4,0,1,,4,4,4,1
5,5,0,1,,5,5,5,1
6,6,0,1,,6,6,6,1
7,7,0,1,,7,7,7,1
[root@dut ~]# ethtool -n eth1 rule 1023
Filter: 1023
\tRule Type: TCP over IPv4
\tSrc IP addr: 0.0.0.0 mask: 255.255.255.255
\tDest IP addr: 10.0.0.2 mask: 0.0.0.0
\tTOS: 0x0 mask: 0xff
\tSrc port: 0 mask: 0xffff
\tDest port: 443 mask: 0x0
\tAction: Direct to queue 2
";

#[test]
fn a_root_prompt_paste_is_read_whole_and_its_choices_said() {
    let imported = import(ROOT_PROMPT).unwrap();
    let sim = predict::host(ROOT_PROMPT).unwrap().0;
    let c = sim.config();
    assert_eq!(
        (c.cpus, c.numa_nodes, c.rx_queues),
        (8, 2, 4),
        "lscpu -p's CPUs and nodes, the rings"
    );
    // IRQ 55 is allowed on 4-7 and fired on 4, 5 and 6: taken on 5, and said.
    assert_eq!((sim.irq_cpu(0), sim.irq_cpu(1)), (Some(5), Some(7)));
    let all = said(&imported);
    assert!(
        all.contains("line 16: IRQ 55 (rx-0) fired on CPUs 4,5,6: taken on CPU 5"),
        "{all}"
    );
    assert!(all.contains("line 29: one rule listed"), "{all}");
    let p = predict::predict(&sim, &parse_flow("tcp 1.2.3.4:5 10.0.0.2:443").unwrap());
    assert_eq!((p.queue, p.decided_by.as_str(), p.irq_cpu), (2, "ntuple:1023", 2));
}

#[test]
fn partial_outputs_and_tool_errors_are_said_not_blamed() {
    // The key alone, through grep -A1; an error line where the rules would be.
    let text = "me@vm:~$ sudo ethtool -x ens5 | grep -A 1 \"RSS hash key\"
RSS hash key:
07:59:95:5a:3f:e0:cf:f0:b5:2f:cd:66:9f:3d:e5:11:8b:a6:c4:54:08:d3:48:49:73:cb:e2:56:43:fa:4c:ad:f1:6e:9d:d2:df:6d:d1:5e
--
me@vm:~$ ethtool -n ens5
rxclass: Cannot get RX class rule count: Operation not supported
me@vm:~$ uname -r
6.1.0-18-cloud-amd64
";
    let imported = import(text).unwrap();
    assert!(
        imported.scenario.nic.rss_key.starts_with("07:59:95:5a"),
        "the key is read"
    );
    assert_eq!(
        imported.scenario.kernel.0,
        steerlab_engine::Kernel::V6_10,
        "uname -r's 6.1"
    );
    let all = said(&imported);
    assert!(
        all.contains("line 1: `sudo ethtool -x ens5 | grep -A 1 \"RSS hash key\"`: read for what"),
        "{all}"
    );
    assert!(
        all.contains("line 6: no ntuple rules listed (ntuple off, or not supported)"),
        "{all}"
    );
    assert!(all.contains("no ntuple rules (no ethtool -n)"), "{all}");
}

#[test]
fn two_ports_vectors_say_which_is_taken_and_bus_info_decides() {
    let rows = "           CPU0       CPU1
 40:          5          0   PCI-MSI 1-edge      mlx5_comp0@pci:0000:3b:00.0
 41:          0          7   PCI-MSI 2-edge      mlx5_comp1@pci:0000:3b:00.0
 42:          0          9   PCI-MSI 3-edge      mlx5_comp0@pci:0000:3b:00.1
 43:          8          0   PCI-MSI 4-edge      mlx5_comp1@pci:0000:3b:00.1
";
    let alone = import(rows).unwrap();
    let all = said(&alone);
    assert!(
        all.contains("line 2: vectors of 0000:3b:00.0 and 0000:3b:00.1: 0000:3b:00.0's are taken"),
        "{all}"
    );
    assert!(all.contains("the driver is mlx5_core"), "{all}");
    let second = format!("$ ethtool -i ens1f1np1\ndriver: mlx5_core\nversion: 6.8.0-45-generic\nbus-info: 0000:3b:00.1\n\n$ cat /proc/interrupts\n{rows}");
    let sim = predict::host(&second).unwrap().0;
    assert_eq!(
        (sim.irq_cpu(0), sim.irq_cpu(1)),
        (Some(1), Some(0)),
        "the second port's vectors"
    );
    assert!(
        !said(&import(&second).unwrap()).contains("are taken"),
        "bus-info says which"
    );
}

#[test]
fn a_drivers_defaults_are_taken_and_said() {
    // ixgbe hashes UDP on the addresses only until set; its table has 128 entries.
    let ixgbe = "# ethtool -i eth0\ndriver: ixgbe\nversion: 5.1.0-k\n";
    let imported = import(ixgbe).unwrap();
    let sim = predict::host(ixgbe).unwrap().0;
    let p = predict::predict(&sim, &parse_flow("udp 192.0.2.1:5000 10.0.0.2:53").unwrap());
    assert_eq!((p.fields.as_str(), sim.reta().size()), ("sd", 128));
    let all = said(&imported);
    assert!(
        all.contains("udp4, udp6 hash the addresses only, sd: ixgbe's default"),
        "{all}"
    );
    assert!(
        all.contains("line 3: version: 5.1.0-k is the driver's own version"),
        "{all}"
    );
    // ENA, key unread: the key its devices hardwire, and the hash said not to be exact.
    let ena = "[ec2-user ~]$ ethtool -i eth0\ndriver: ena\nversion: 1.5.0g\n";
    let imported = import(ena).unwrap();
    assert!(imported.scenario.nic.rss_key.starts_with("be:ac:01:fa"));
    let all = said(&imported);
    assert!(
        all.contains("predictions for ENA are not exact") && all.contains("1.5.0g is the driver's own version"),
        "{all}"
    );
}

#[test]
fn only_what_says_it_is_cut_or_cannot_be_modelled_is_refused() {
    for (text, want) in [
        ("$ ethtool -x eth0\nRX flow hash indirection table for eth0 with 2 RX ring(s):\n    0:      0     1\n[...snip...]\n", "line 4: the output is cut here"),
        ("$ ethtool -x eth0\nRSS hash function:\n    toeplitz: off\n    xor: on\n", "line 4: the NIC hashes with xor"),
        ("           CPU0       CPU1\n 40:          5   PCI-MSI 1-edge      eth0-TxRx-0\n", "line 2: 1 counts, fewer than the header's 2 CPUs"),
    ] {
        let err = import(text).unwrap_err();
        assert!(err.0.starts_with(want) && err.0.contains("(the line:"), "{err}");
    }
}
