//! A line's commands checked against the host before the first runs: echo's and tee's writes
//! (the engine's own checks, sysfs.rs), cat's and grep's reads tried, the steps in order.

use steerlab_engine::Sim;

use super::syntax::syntax_error;
use super::{Command, Redirect, Step, FOR_FORMS, TEE_FORMS};
use crate::sysfs::{self, Writer};
use crate::{cat, hinted, no_such_file, read};

/// Checks one pipe and adds its steps: `echo`, `cat`, or `echo ... | tee ...`.
pub(super) fn plan_pipe(sim: &Sim, cmds: &[Command], plan: &mut Vec<Step>) -> Result<(), String> {
    let first = |c: &Command| c.words.first().cloned().unwrap_or_default();
    match cmds {
        [c] => match first(c).as_str() {
            "echo" => plan_echo(sim, c, plan),
            "cat" => plan_cat(sim, c, plan),
            "grep" => plan_grep(sim, c, plan),
            "tee" => Err(hinted("tee: steerlab's tee writes what echo prints into it", TEE_FORMS)),
            "" => Ok(()), // nothing left after expansion, or only a redirection: bash does nothing
            w @ ("do" | "done") => Err(syntax_error(w)),
            "for" => Err(hinted("bash: steerlab runs one loop per line, at its start", FOR_FORMS)),
            other => Err(hinted(
                format!("bash: steerlab runs echo, cat and tee in a loop or a ; list, not {other}"),
                &format!("run {other} on a line of its own"),
            )),
        },
        [e, t] if first(e) == "echo" && first(t) == "tee" => plan_tee(sim, e, t, plan),
        _ => Err(hinted(
            "bash: steerlab pipes echo into tee, and a command into grep",
            PIPE_FORMS,
        )),
    }
}

/// `echo WORDS` prints them; `echo VALUE > FILE` writes VALUE to FILE (one file; `/dev/null`
/// takes anything).
fn plan_echo(sim: &Sim, cmd: &Command, plan: &mut Vec<Step>) -> Result<(), String> {
    let value = cmd.words[1..].join(" ");
    match cmd.redirects.as_slice() {
        [] => plan.push(Step::Print(format!("{value}\n"))),
        [r] => {
            let path = one_path(r, &value)?;
            if path != "/dev/null" {
                plan.push(Step::Write(sysfs::check_write(sim, path, &value, Writer::Echo)?));
            }
        }
        _ => {
            return Err(hinted(
                "bash: steerlab's echo writes one value to one file",
                sysfs::ECHO_FORMS,
            ))
        }
    }
    Ok(())
}

/// The one file a redirection names. A glob that matches several files is bash's `ambiguous
/// redirect` (redir.c: a redirection's word must expand to exactly one word); the hint gives
/// this line in the two forms that write many files.
fn one_path<'a>(r: &'a Redirect, value: &str) -> Result<&'a str, String> {
    match r.paths.as_slice() {
        [path] => Ok(path),
        _ => {
            let forms = match r.raw.find('*') {
                Some(star) => {
                    let end = r.raw[star..].find('/').map_or(r.raw.len(), |i| star + i);
                    let (dirs, rest) = r.raw.split_at(end);
                    format!(
                        "echo {value} | tee {raw}\nfor q in {dirs}; do echo {value} > $q{rest}; done",
                        raw = r.raw
                    )
                }
                None => format!("{TEE_FORMS}\n{FOR_FORMS}"),
            };
            Err(hinted(format!("bash: {}: ambiguous redirect", r.raw), &forms))
        }
    }
}

/// `cat FILE...`: tried now (a read changes nothing), read again when its turn comes so that
/// it shows the writes before it.
fn plan_cat(sim: &Sim, cmd: &Command, plan: &mut Vec<Step>) -> Result<(), String> {
    if !cmd.redirects.is_empty() {
        return Err(hinted("bash: steerlab's cat prints to the console", "cat FILE..."));
    }
    let paths: Vec<&str> = cmd.words[1..].iter().map(String::as_str).collect();
    cat(sim, &paths)?;
    plan.push(Step::Cat(cmd.words[1..].to_vec()));
    Ok(())
}

pub(crate) const GREP_FORMS: &str =
    "grep [-H|-h] . FILE...   (the non-empty lines, after FILE: when there are several files)\n\
COMMAND | grep [-i] [-v] [-c] [-w] [-E|-F] PATTERN   (lines of COMMAND's output)";

/// What a pipe may be.
const PIPE_FORMS: &str = "echo VALUE | tee FILE... [> /dev/null]   (prints VALUE once, writes it to every FILE)\n\
COMMAND | grep [-i] [-v] [-c] [-w] [-E|-F] PATTERN   (lines of COMMAND's output)";

/// `grep . FILE...`, the usual way to read many small files at once (GNU grep: with more than
/// one file, or `-H`, each line comes after its file's name and a colon; `-h` never).
fn plan_grep(sim: &Sim, cmd: &Command, plan: &mut Vec<Step>) -> Result<(), String> {
    if !cmd.redirects.is_empty() {
        return Err(hinted("bash: steerlab's grep prints to the console", GREP_FORMS));
    }
    let (mut named, mut pattern, mut files) = (None, None, Vec::new());
    for w in &cmd.words[1..] {
        match w.as_str() {
            "-H" | "--with-filename" => named = Some(true),
            "-h" | "--no-filename" => named = Some(false),
            o if o.starts_with('-') && o.len() > 1 => {
                return Err(hinted(
                    format!("grep: option {o} is not supported in steerlab"),
                    GREP_FORMS,
                ))
            }
            p if pattern.is_none() => pattern = Some(p),
            f => files.push(f.to_string()),
        }
    }
    match pattern {
        Some(".") if !files.is_empty() => {}
        Some(".") | None => return Err(hinted("grep: steerlab's grep reads files, not stdin", GREP_FORMS)),
        Some(p) => {
            return Err(hinted(
                format!("grep: steerlab's grep matches the pattern . only, not {p:?}"),
                GREP_FORMS,
            ))
        }
    }
    let named = named.unwrap_or(files.len() > 1);
    grep(sim, &files, named)?;
    plan.push(Step::Grep(files, named));
    Ok(())
}

/// The non-empty lines of `paths`, each after its file's name when `named`. Like GNU grep,
/// a file it cannot read among several is said in its place (`grep: FILE: No such file or
/// directory`, its stderr) and the others are read (a one-TX-queue device lists `xps_cpus`
/// but answers ENOENT); one file alone that cannot be read is the command's error.
pub(super) fn grep(sim: &Sim, paths: &[String], named: bool) -> Result<String, String> {
    let mut out = String::new();
    for path in paths {
        let Some(text) = read(sim, path) else {
            if paths.len() == 1 {
                return Err(no_such_file(sim, "grep", path));
            }
            out.push_str(&format!("grep: {path}: No such file or directory\n"));
            continue;
        };
        for line in text.lines().filter(|l| !l.is_empty()) {
            if named {
                out.push_str(path);
                out.push(':');
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}

/// `echo VALUE | tee [-a] FILE... [> /dev/null]`: GNU tee writes its input to standard output
/// once and to every file (tee.c `tee_files`); on sysfs appending (`-a`) is writing.
fn plan_tee(sim: &Sim, echo: &Command, tee: &Command, plan: &mut Vec<Step>) -> Result<(), String> {
    if !echo.redirects.is_empty() {
        return Err(hinted(
            "bash: steerlab pipes echo into tee, and a command into grep",
            PIPE_FORMS,
        ));
    }
    let value = echo.words[1..].join(" ");
    let mut files = Vec::new();
    for w in &tee.words[1..] {
        match w.as_str() {
            "-a" | "--append" => {}
            long if long.starts_with("--") => {
                return Err(hinted(
                    format!("tee: unrecognized option '{long}'\nTry 'tee --help' for more information."),
                    TEE_FORMS,
                ))
            }
            short if short.starts_with('-') && short.len() > 1 => {
                let c = short.chars().nth(1).unwrap_or('-');
                return Err(hinted(
                    format!("tee: invalid option -- '{c}'\nTry 'tee --help' for more information."),
                    TEE_FORMS,
                ));
            }
            path => files.push(path),
        }
    }
    let print = match tee.redirects.as_slice() {
        [] => true,
        [r] if r.paths == ["/dev/null"] => false,
        _ => {
            return Err(hinted(
                "bash: steerlab's tee prints to the console or to > /dev/null",
                TEE_FORMS,
            ))
        }
    };
    let writes = files
        .iter()
        .filter(|p| **p != "/dev/null")
        .map(|p| sysfs::check_write(sim, p, &value, Writer::Tee))
        .collect::<Result<Vec<_>, _>>()?;
    if print {
        plan.push(Step::Print(format!("{value}\n")));
    }
    plan.extend(writes.into_iter().map(Step::Write));
    Ok(())
}
