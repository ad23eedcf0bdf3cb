//! `ethtool -x` and `-X`: the indirection table and the RSS key (ethtool.c `print_indir_table`,
//! `do_srxfh`; common.c `print_rss_hkey`).

use core::fmt::Write;

use steerlab_engine::Sim;

use super::bad_args;
use crate::{hinted, parse_c_u64, DEVICE};

/// `ethtool -x DEV`: the table in rows of 8 (`%5u:` then `" %5u"` per entry), then the key.
pub(super) fn show_rxfh(sim: &Sim) -> String {
    let mut out = String::new();
    let reta = sim.reta();
    let _ = writeln!(
        out,
        "RX flow hash indirection table for {DEVICE} with {} RX ring(s):",
        sim.config().rx_queues
    );
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

/// `ethtool -X DEV equal N | weight W... | default [start S] [hkey KEY] [hfunc toeplitz]`.
pub(super) fn set_rxfh(sim: &mut Sim, args: &[&str], form: &str) -> Result<String, String> {
    let rings = u32::from(sim.config().rx_queues);
    let (mut start, mut equal, mut weights, mut default, mut hkey) = (None, None, None::<Vec<u32>>, false, None);
    let value = |i: usize| {
        args.get(i + 1)
            .and_then(|t| parse_c_u64(t))
            .filter(|&v| v <= u64::from(u32::MAX))
            .map(|v| v as u32)
    };
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            "equal" => equal = Some(value(i).ok_or_else(|| bad_args(None, form))?),
            "start" => start = Some(value(i).ok_or_else(|| bad_args(None, form))?),
            "hkey" => {
                hkey = Some(parse_hkey(
                    args.get(i + 1).ok_or_else(|| bad_args(None, form))?,
                    sim.rss_key().len(),
                )?)
            }
            "hfunc" => match args.get(i + 1) {
                Some(&"toeplitz") => {}
                Some(f) => {
                    return Err(hinted(
                        format!("Cannot set RX flow hash configuration: Operation not supported (hash function {f:?})"),
                        "the NIC hashes with toeplitz only",
                    ))
                }
                None => return Err(bad_args(None, form)),
            },
            "default" => {
                default = true;
                i += 1;
                continue;
            }
            "weight" => {
                // As do_srxfh: the words that start with a digit, each then read by get_u32.
                let n = args[i + 1..]
                    .iter()
                    .take_while(|w| w.starts_with(|c: char| c.is_ascii_digit()))
                    .count();
                let w = args[i + 1..i + 1 + n]
                    .iter()
                    .map(|t| parse_c_u64(t).filter(|&v| v <= u64::from(u32::MAX)).map(|v| v as u32))
                    .collect::<Option<Vec<u32>>>()
                    .filter(|w| !w.is_empty())
                    .ok_or_else(|| bad_args(None, form))?;
                i += 1 + n;
                weights = Some(w);
                continue;
            }
            o @ ("context" | "xfrm" | "delete") => {
                return Err(hinted(format!("ethtool: -X {o} is not modelled in steerlab"), form))
            }
            _ => return Err(bad_args(None, form)),
        }
        i += 2;
    }
    let modes = usize::from(equal.is_some()) + usize::from(weights.is_some()) + usize::from(default);
    if modes > 1 {
        return Err(hinted("Equal, weight and default options are mutually exclusive", form));
    }
    if default && start.is_some() {
        return Err(hinted("Start and default options are mutually exclusive", form));
    }
    if modes == 0 && start.is_some() {
        return Err(hinted("Start must be used with equal or weight options", form));
    }
    if modes == 0 && hkey.is_none() {
        return Err(bad_args(None, form));
    }
    let invalid = |e: &dyn core::fmt::Display| {
        hinted(
            "Cannot set RX flow hash configuration: Invalid argument",
            &format!("{e}"),
        )
    };
    let current = sim.reta().clone();
    let start = start.unwrap_or(0);
    // Everything is computed and checked before anything is set.
    let table = match (equal, weights) {
        (Some(n), _) => Some(current.equal(n, start, rings).map_err(|e| invalid(&e))?),
        (_, Some(w)) => Some(current.weight(&w, start, rings).map_err(|e| invalid(&e))?),
        _ if default => Some(current.reset(rings)),
        _ => None,
    };
    if let Some(key) = &hkey {
        sim.set_rss_key(key).map_err(|e| invalid(&e))?;
    }
    if let Some(t) = table {
        sim.set_reta(t).map_err(|e| invalid(&e))?;
    }
    Ok(String::new())
}

/// `hkey xx:yy:...`, exactly the device's key size.
fn parse_hkey(text: &str, size: usize) -> Result<Vec<u8>, String> {
    let form = format!("hkey takes {size} hex bytes separated by colons, e.g. 6d:5a:56:...");
    let key = steerlab_engine::rss::parse_key(text).ok_or_else(|| hinted("Invalid RSS hash key format", &form))?;
    if key.len() != size {
        return Err(hinted(
            format!(
                "Key size mismatch: {} bytes given, the device's key is {size} bytes",
                key.len()
            ),
            &form,
        ));
    }
    Ok(key)
}
