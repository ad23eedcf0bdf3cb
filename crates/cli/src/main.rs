//! `steerlab`: the engine on the command line (product brief §4, "CLI").
//!
//! Exit status: 0 success, 1 a command of a script failed, 2 bad arguments or invalid input
//! (one line on stderr, never a panic).

use std::net::IpAddr;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use steerlab_engine::rss::{hash_input, HashFields};
use steerlab_engine::toeplitz::{ToeplitzTable, MS_VERIFICATION_KEY};
use steerlab_engine::{FlowKey, Proto};

#[derive(Parser)]
#[command(name = "steerlab", version, about = "A laboratory for Linux packet steering")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the Toeplitz RSS hash of a tuple as 0x%08x.
    Hash(HashArgs),
}

#[derive(clap::Args)]
struct HashArgs {
    /// The RSS key in hex, bytes optionally separated by ':' (default: the 40-byte Microsoft
    /// verification key).
    #[arg(long)]
    key: Option<String>,
    /// Source address of the received packet (IPv4 or IPv6).
    #[arg(long)]
    src: IpAddr,
    /// Destination address.
    #[arg(long)]
    dst: IpAddr,
    /// Source port: with --dport, hash the 4-tuple.
    #[arg(long, requires = "dport")]
    sport: Option<u16>,
    /// Destination port.
    #[arg(long, requires = "sport")]
    dport: Option<u16>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let msg = e.to_string();
            let first = msg.lines().next().unwrap_or("invalid arguments");
            eprintln!("steerlab: {}", first.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Hash(args) => hash(&args),
    };
    match result {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("steerlab: {msg}");
            ExitCode::from(2)
        }
    }
}

/// Parses a key given as hex digits, with or without ':' between bytes.
fn parse_key(text: &str) -> Result<Vec<u8>, String> {
    let digits: String = text.chars().filter(|&c| c != ':').collect();
    if digits.is_empty() || digits.len() % 2 != 0 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("--key {text:?} is not an even number of hex digits (e.g. 6d5a56da... or 6d:5a:56:da:...)"));
    }
    Ok((0..digits.len()).step_by(2).map(|i| u8::from_str_radix(&digits[i..i + 2], 16).unwrap_or(0)).collect())
}

fn hash(args: &HashArgs) -> Result<String, String> {
    let key = match &args.key {
        Some(text) => parse_key(text)?,
        None => MS_VERIFICATION_KEY.to_vec(),
    };
    let (sport, dport, fields) = match (args.sport, args.dport) {
        (Some(s), Some(d)) => (s, d, HashFields::FOUR_TUPLE),
        _ => (0, 0, HashFields::TWO_TUPLE),
    };
    let flow = FlowKey::new(args.src, args.dst, sport, dport, Proto::Tcp).map_err(|e| e.to_string())?;
    let (buf, len) = hash_input(&flow, fields);
    if key.len() < len + 4 {
        return Err(format!("--key has {} bytes; a {len}-byte input needs at least {}", key.len(), len + 4));
    }
    Ok(format!("0x{:08x}\n", ToeplitzTable::new(&key).hash(&buf[..len])))
}
