//! `ethtool` (ethtool 6.15: ethtool.c `do_srxfh`, common.c `print_indir_table`, `print_rss_hkey`).

use core::fmt::Write;

use steerlab_engine::rss::Reta;
use steerlab_engine::Sim;

use crate::{parse_num, DEVICE};

/// ethtool's reply to a malformed command line.
fn bad_args() -> String {
    "ethtool: bad command line argument(s)\nFor more information run ethtool -h".into()
}

fn check_dev(dev: &str) -> Result<(), String> {
    if dev == DEVICE {
        Ok(())
    } else {
        Err(format!("Cannot get device settings: No such device (the sandbox's NIC is {DEVICE})"))
    }
}

pub(crate) fn run(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let [opt, dev, rest @ ..] = args else { return Err(bad_args()) };
    check_dev(dev)?;
    match *opt {
        "-x" | "--show-rxfh-indir" | "--show-rxfh" if rest.is_empty() => Ok(show_rxfh(sim)),
        "-X" | "--set-rxfh-indir" | "--rxfh" => set_rxfh(sim, rest),
        "-K" | "--features" | "--offload" => match rest {
            ["ntuple", v @ ("on" | "off")] => {
                sim.set_ntuple(*v == "on");
                Ok(String::new())
            }
            [feature, _] => Err(format!("ethtool: feature {feature:?} is not modelled by steerlab (supported: ntuple)")),
            _ => Err(bad_args()),
        },
        _ => Err(format!("{}\n(steerlab supports: -x, -X, -K ntuple)", bad_args())),
    }
}

/// `ethtool -x DEV`: the table in rows of 8 (`%5u:` then `" %5u"` per entry), then the key.
pub(crate) fn show_rxfh(sim: &Sim) -> String {
    let mut out = String::new();
    let reta = sim.reta();
    let _ = writeln!(out, "RX flow hash indirection table for {DEVICE} with {} RX ring(s):", sim.config().rx_queues);
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

/// `ethtool -X DEV equal N | weight W... | default [start S] | hkey KEY`.
fn set_rxfh(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let rings = u32::from(sim.config().rx_queues);
    let mut start = 0u32;
    let mut equal = None;
    let mut weights: Option<Vec<u32>> = None;
    let mut default = false;
    let mut hkey = None;
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            "equal" => {
                equal = Some(parse_num::<u32>("equal", args.get(i + 1).ok_or_else(bad_args)?)?);
                i += 2;
            }
            "start" => {
                start = parse_num("start", args.get(i + 1).ok_or_else(bad_args)?)?;
                i += 2;
            }
            "default" => {
                default = true;
                i += 1;
            }
            "hkey" => {
                hkey = Some(parse_hkey(args.get(i + 1).ok_or_else(bad_args)?)?);
                i += 2;
            }
            "weight" => {
                let mut w = Vec::new();
                i += 1;
                while let Some(n) = args.get(i).and_then(|t| t.parse::<u32>().ok()) {
                    w.push(n);
                    i += 1;
                }
                if w.is_empty() {
                    return Err(bad_args());
                }
                weights = Some(w);
            }
            other => return Err(format!("{}\n(unknown or unsupported -X option {other:?})", bad_args())),
        }
    }
    let modes = usize::from(equal.is_some()) + usize::from(weights.is_some()) + usize::from(default);
    if modes > 1 {
        return Err("Equal, weight and default options are mutually exclusive".into());
    }
    if default && start != 0 {
        return Err("Start and default options are mutually exclusive".into());
    }
    if modes == 0 && start != 0 {
        return Err("Start must be used with equal or weight options".into());
    }
    let current = sim.reta().clone();
    let table = if let Some(n) = equal {
        Some(current.equal(n, start, rings))
    } else if let Some(w) = weights {
        Some(current.weight(&w, start, rings))
    } else if default {
        Some(Reta::new_default(current.size(), rings))
    } else {
        None
    };
    // Validate everything before changing anything.
    let table = match table {
        Some(t) => Some(t.map_err(|e| format!("Cannot set RX flow hash configuration: Invalid argument ({e})"))?),
        None => None,
    };
    if let Some(key) = &hkey {
        sim.set_rss_key(key).map_err(|e| format!("Cannot set RX flow hash configuration: Invalid argument ({e})"))?;
    }
    if let Some(t) = table {
        sim.set_reta(t).map_err(|e| format!("Cannot set RX flow hash configuration: Invalid argument ({e})"))?;
    }
    Ok(String::new())
}

fn parse_hkey(text: &str) -> Result<Vec<u8>, String> {
    text.split(':')
        .map(|b| if b.len() == 2 { u8::from_str_radix(b, 16).ok() } else { None })
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(|| format!("Invalid RSS hash key format {text:?} (expected xx:yy:... hex bytes)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execute;
    use steerlab_engine::HostConfig;

    #[test]
    fn show_rxfh_matches_ethtool_layout() {
        let mut s = Sim::new(HostConfig { reta_size: 16, ..HostConfig::default() }).unwrap();
        let out = execute(&mut s, "ethtool -x eth0").unwrap();
        let mut lines = out.lines();
        assert_eq!(lines.next(), Some("RX flow hash indirection table for eth0 with 4 RX ring(s):"));
        assert_eq!(lines.next(), Some("    0:      0     1     2     3     0     1     2     3"));
        assert_eq!(lines.next(), Some("    8:      0     1     2     3     0     1     2     3"));
        assert_eq!(lines.next(), Some("RSS hash key:"));
        assert!(lines.next().unwrap().starts_with("6d:5a:56:da:"));
    }

    #[test]
    fn set_rxfh_equal_weight_and_errors() {
        let mut s = Sim::new(HostConfig { reta_size: 8, ..HostConfig::default() }).unwrap();
        execute(&mut s, "ethtool -X eth0 weight 1 2").unwrap();
        assert_eq!(s.reta().entries(), &[0, 0, 1, 1, 1, 1, 1, 1]);
        execute(&mut s, "ethtool -X eth0 equal 2 start 2").unwrap();
        assert_eq!(s.reta().entries(), &[2, 3, 2, 3, 2, 3, 2, 3]);
        let before = s.reta().clone();
        for bad in ["ethtool -X eth0 equal 8", "ethtool -X eth0 equal 2 weight 1", "ethtool -X eth1 equal 2", "ethtool -X eth0 frob", "ethtool -X eth0 start 1"] {
            assert!(execute(&mut s, bad).is_err(), "{bad}");
            assert_eq!(s.reta(), &before, "{bad}");
        }
        execute(&mut s, "ethtool -X eth0 default").unwrap();
        assert_eq!(s.reta().entries(), &[0, 1, 2, 3, 0, 1, 2, 3]);
    }
}
