//! `ip link`: attaching a sandbox XDP program and the device's link line, as iproute2 does.
//!
//! Sources: ip/iplink.c (`set` arguments, `Cannot find device "X"`), ip/iplink_xdp.c
//! (`xdp_parse`: `xdp|xdpdrv|xdpgeneric|xdpoffload` then `obj FILE [sec NAME] [program NAME]`
//! or `off`; `xdp_dump`: the mode word after the MTU), ip/ipaddress.c `print_linkinfo` (the
//! first two lines), lib/bpf_glue.c `bpf_dump_prog_info` (`prog/xdp id N name NAME tag TAG
//! jited `). The kernel refuses to replace an attached program unless asked to
//! (net/core/dev.c `dev_xdp_attach`: extack "XDP program already attached", which iproute2
//! prints as `Error: ....`); `ip -force` is that request.
//!
//! A "file" is a sandbox program of `steerlab_engine::xdp::PROGRAMS` (`NAME` or `NAME.o`). The
//! sandbox has native XDP only. Program ids and tags are stand-ins: the id is the program's
//! place in the list, the tag (really the first 8 bytes of the SHA-1 of the instructions) a
//! 64-bit FNV-1a of its name, calls, verdict and call strategy, so reloading with another
//! strategy shows another tag, as a re-verified program would.

use steerlab_engine::xdp::{Strategy, XdpProgram, PROGRAMS};
use steerlab_engine::Sim;

use crate::{hinted, DEVICE};

/// The accepted forms.
pub(crate) const FORMS: &str = "ip link show [dev DEV]\n\
ip [-force] link set dev DEV xdp obj PROGRAM [sec NAME]\n\
ip link set dev DEV xdp off\n\
(PROGRAM is a sandbox program: xdp programs lists them)";

const MAC: &str = "02:00:00:00:00:01";

/// Runs `ip ARGS`.
pub(crate) fn run(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let mut args = args;
    let mut force = false;
    while let Some((&opt, rest)) = args.split_first() {
        match opt {
            "-force" => force = true,
            "-d" | "-details" | "-s" | "-stats" => {}
            o if o.starts_with('-') => {
                return Err(hinted(
                    format!("ip: option \"{o}\" is not supported in steerlab"),
                    FORMS,
                ))
            }
            _ => break,
        }
        args = rest;
    }
    match args {
        [] => Err(hinted("Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }", FORMS)),
        ["link" | "l" | "li" | "lin", rest @ ..] => link(sim, rest, force),
        [obj @ ("address" | "addr" | "a" | "route" | "r" | "neigh" | "n" | "rule" | "netns" | "maddress" | "tunnel"
        | "monitor"), ..] => Err(hinted(
            format!("ip: object \"{obj}\" is not supported in steerlab"),
            FORMS,
        )),
        [obj, ..] => Err(hinted(format!("Object \"{obj}\" is unknown, try \"ip help\"."), FORMS)),
    }
}

fn link(sim: &mut Sim, args: &[&str], force: bool) -> Result<String, String> {
    match args {
        [] | ["show" | "list" | "ls" | "lst"] => Ok(format!("{}{}", loopback(), show(sim))),
        ["show" | "list" | "ls" | "lst", "dev", dev] | ["show" | "list" | "ls" | "lst", dev] => {
            if *dev == DEVICE {
                Ok(show(sim))
            } else if *dev == "lo" {
                Ok(loopback())
            } else {
                Err(hinted(
                    format!("Device \"{dev}\" does not exist."),
                    &format!("the sandbox's NIC is {DEVICE}"),
                ))
            }
        }
        ["set", rest @ ..] => set(sim, rest, force),
        [cmd @ ("add" | "delete" | "del" | "change" | "property" | "xstats" | "afstats"), ..] => {
            Err(hinted(format!("ip: link {cmd} is not supported in steerlab"), FORMS))
        }
        [cmd, ..] => Err(hinted(
            format!("Command \"{cmd}\" is unknown, try \"ip link help\"."),
            FORMS,
        )),
    }
}

/// `ip link set [dev] DEV xdp ...`.
fn set(sim: &mut Sim, args: &[&str], force: bool) -> Result<String, String> {
    let (dev, rest) = match args {
        ["dev", dev, rest @ ..] => (*dev, rest),
        [dev, rest @ ..] if *dev != "dev" => (*dev, rest),
        _ => return Err(hinted("Not enough information: \"dev\" argument is required.", FORMS)),
    };
    if dev != DEVICE {
        return Err(hinted(
            format!("Cannot find device \"{dev}\""),
            &format!("the sandbox's NIC is {DEVICE}"),
        ));
    }
    let (mode, rest) = match rest {
        [] => return Ok(String::new()),
        [mode @ ("xdp" | "xdpdrv"), rest @ ..] => (*mode, rest),
        [mode @ ("xdpgeneric" | "xdpoffload"), ..] => {
            return Err(hinted(
                format!("ip: {mode} is not modelled in steerlab (native XDP only)"),
                FORMS,
            ))
        }
        [what, ..] => {
            return Err(hinted(
                format!("ip: link set ... {what} is not modelled in steerlab (xdp is)"),
                FORMS,
            ))
        }
    };
    match rest {
        ["off" | "none"] => {
            // Detaching when nothing is attached is a no-op for the kernel too.
            if sim.xdp().is_some() {
                sim.set_xdp(None);
            }
            Ok(String::new())
        }
        ["obj", file, opts @ ..] => {
            let mut i = 0;
            while i < opts.len() {
                match (opts[i], opts.get(i + 1)) {
                    ("sec" | "section" | "program", Some(_)) => i += 2,
                    ("verbose", _) => i += 1,
                    (o, _) => return Err(hinted(format!("ip: {mode} obj: unexpected argument \"{o}\""), FORMS)),
                }
            }
            let name = file.strip_suffix(".o").unwrap_or(file);
            // The sandbox's one refusal here: no program of that name (no such object file).
            let program = XdpProgram::named(name, Strategy::Call).map_err(|_| {
                let names: Vec<&str> = PROGRAMS.iter().map(|p| p.0).collect();
                let msg = format!("libbpf: elf: failed to open {file}: No such file or directory\nERROR: opening BPF object file failed");
                hinted(msg, &format!("the sandbox's programs: {}", names.join(", ")))
            })?;
            if sim.xdp().is_some() && !force {
                let why = format!("unload it first (ip link set dev {DEVICE} xdp off) or replace it: ip -force link set dev {DEVICE} xdp obj {name}");
                return Err(hinted("Error: XDP program already attached.", &why));
            }
            sim.set_xdp(Some(program));
            Ok(String::new())
        }
        [kind @ ("pinned" | "fd"), ..] => Err(hinted(format!("ip: xdp {kind} is not modelled in steerlab"), FORMS)),
        _ => Err(hinted(format!("ip: {mode} needs obj PROGRAM or off"), FORMS)),
    }
}

fn loopback() -> String {
    "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\n    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n".to_string()
}

/// `ip link show dev eth0`.
fn show(sim: &Sim) -> String {
    let xdp = sim.xdp();
    let mode = if xdp.is_some() { "xdp " } else { "" };
    let qdisc = if sim.config().tx_queues > 1 { "mq" } else { "fq_codel" };
    let mut out = format!(
        "2: {DEVICE}: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 {mode}qdisc {qdisc} state UP mode DEFAULT group default qlen 1000\n    link/ether {MAC} brd ff:ff:ff:ff:ff:ff\n"
    );
    if let Some(p) = xdp {
        let id = PROGRAMS
            .iter()
            .position(|q| q.0 == p.name)
            .map_or(PROGRAMS.len() + 1, |i| i + 1);
        // BPF object names are at most 15 characters (BPF_OBJ_NAME_LEN).
        let name: String = p.name.chars().take(15).collect();
        out.push_str(&format!(
            "    prog/xdp id {id} name {name} tag {:016x} jited \n",
            tag(p)
        ));
    }
    out
}

/// The stand-in program tag: FNV-1a 64 over what defines the program.
fn tag(p: &XdpProgram) -> u64 {
    let text = format!("{}/{}/{}/{}", p.name, p.kfuncs.len(), p.action, p.strategy);
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
