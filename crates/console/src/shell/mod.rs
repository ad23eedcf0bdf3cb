//! The few shell forms users type to write a file on many queues at once, and no more: a
//! line is one simple command, or an `echo VALUE | tee FILE...` pipe, or a `;` list of
//! those, or one `for` loop over them; and a command's output piped through `grep`
//! (filter.rs), to read a few counters among many. Bash's rules (bash(1), "SHELL GRAMMAR" and
//! "EXPANSION") for the parts it has:
//!
//! * Words split on blanks, with `'…'`, `"…"` and `\` quoting; `;`, `|` and `>` are operators
//!   wherever they stand (`echo f >/sys/…` and `…;do` work).
//! * `$VAR` and `${VAR}` expand outside single quotes; the loop variable is the only variable
//!   set, any other expands to nothing, as an unset variable does. An unquoted expansion that
//!   comes out empty is no word at all; there is no field splitting (a loop's words have no
//!   blanks in them) and no command substitution.
//! * Pathname expansion: an unquoted `*` matches any part of one path component of the host's
//!   queue tree, `/sys/class/net/DEV/queues/rx-*/FILE` (sysfs.rs `list_dir`). The matches are
//!   sorted as bash sorts them with `strcoll` in the C locale, byte by byte: `rx-0 rx-1 rx-10
//!   rx-100 rx-101 … rx-11 …`, not the kernel's numeric order (it changes nothing for writes,
//!   only the order `cat` prints in). A pattern that matches nothing stays as typed (bash
//!   without `nullglob`), so it fails later as a missing file.
//! * `for NAME in WORD...; do COMMAND; ...; done`: one level, at the start of the line, its
//!   words expanded (and globbed) once, the body once per word with `$NAME` set. `;` is needed
//!   before `do` and before `done`, as in bash.
//! * A redirection's word must expand to one file, else `bash: WORD: ambiguous redirect`
//!   (redir.c), the word as typed.
//! * `sudo` in front of a command is dropped: the console is a root shell already, so the
//!   classic `sudo echo V > FILE` pitfall (the redirection is opened by the unprivileged shell)
//!   does not arise.
//!
//! Atomicity (lib.rs): real bash runs a loop's writes one by one and keeps going after a failed
//! one, and real tee writes every file it can open; here a line that fails changes nothing.
//! So a line with more than one command is planned first: every write is checked against the
//! host (sysfs.rs `check_write`), every read is tried, every word expanded, and only then are
//! the steps run in order. A write never changes which files exist or what they accept (that
//! depends on the CPU and queue counts), so checking them all against the host as it is before
//! the first runs is checking each against the host it will meet. A plain command of another
//! tool (ethtool, tc, ...) runs on its own line only, where its module keeps the rule itself.

//!
//! | file | holds |
//! |---|---|
//! | `mod.rs` | the line's parts as types, and running a line: a lone tool command, or a plan |
//! | `syntax.rs` | words and operators with their quoting, then the grammar (a `for`, `;`, `|`) |
//! | `expand.rs` | `$VAR`, globs over the host's queue tree, redirections |
//! | `plan.rs` | each command checked against the host before the first runs (echo, cat, grep, tee) |
//! | `filter.rs` | `COMMAND \| grep PATTERN`: the lines of a command's output a pipe's grep keeps |

mod expand;
mod filter;
mod plan;
mod syntax;

pub(crate) use plan::GREP_FORMS;

use steerlab_engine::Sim;

use crate::{cat, dispatch, hinted, sysfs, Kind};

/// The accepted forms of `tee`.
pub(crate) const TEE_FORMS: &str =
    "echo VALUE | tee FILE... [> /dev/null]   (prints VALUE once, writes it to every FILE)\n\
echo VALUE | sudo tee /sys/class/net/DEV/queues/rx-*/FILE   (a glob: every RX queue; tx-* every TX queue)";

/// The accepted forms of `for`.
pub(crate) const FOR_FORMS: &str = "for q in /sys/class/net/DEV/queues/rx-*; do echo VALUE > $q/FILE; done\n\
for q in 0 1 2; do echo VALUE > /sys/class/net/DEV/queues/rx-${q}/FILE; done\n\
(one loop per line; its body is echo, cat or echo | tee commands separated by ;)";

/// The accepted forms of `sudo`.
pub(crate) const SUDO_FORMS: &str = "sudo COMMAND   (ignored: the console is a root shell)";

/// How a character was typed: bare (globs, expands), inside `"…"` (expands), or literal
/// (inside `'…'` or after `\`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    Bare,
    Double,
    Literal,
}

/// A word as typed: its characters with their quoting, whether any quoting was used, and the
/// raw text (bash names a redirection's word as typed).
struct Word {
    chars: Vec<(char, Quote)>,
    quoted: bool,
    raw: String,
}

impl Word {
    /// The word unquoted, if it was typed bare as `text` (a reserved word such as `do`).
    fn is(&self, text: &str) -> bool {
        !self.quoted && self.chars.iter().map(|c| c.0).eq(text.chars())
    }
}

/// A token of the line: a word, or one of the operators `;`, `|`, `>`.
enum Token {
    Word(Word),
    Op(char),
}

impl Token {
    /// As bash names the token in `syntax error near unexpected token`.
    fn name(&self) -> String {
        match self {
            Token::Word(w) => w.raw.clone(),
            Token::Op(c) => c.to_string(),
        }
    }
}

/// One command of a pipe, as typed: words and `>` followed by a word.
type Simple<'a> = &'a [Token];

/// The line parsed: an optional loop (variable and words), and the commands it runs, each a
/// pipe of simple commands.
struct Script<'a> {
    each: Option<(String, &'a [Token])>,
    body: Vec<Vec<Simple<'a>>>,
}

/// A simple command after expansion: its words (a leading `sudo` dropped) and its `>`
/// redirections.
struct Command {
    words: Vec<String>,
    redirects: Vec<Redirect>,
}

/// `> WORD`: the word as typed, and the paths it expanded to.
struct Redirect {
    raw: String,
    paths: Vec<String>,
}

/// A step of a checked line.
enum Step {
    Print(String),
    Write(steerlab_engine::Setting),
    Cat(Vec<String>),
    /// `grep . FILE...`: the files, and whether each line is prefixed with its file's name.
    Grep(Vec<String>, bool),
}

/// Runs a command line: a lone command of a tool directly, anything else planned and checked
/// whole, then run.
pub(crate) fn run(sim: &mut Sim, line: &str) -> Result<(String, Kind), String> {
    let tokens = syntax::lex(line)?;
    let script = syntax::parse(&tokens)?;
    if let (None, [pipe]) = (&script.each, script.body.as_slice()) {
        if let Some(out) = filtered(sim, pipe)? {
            return Ok(out);
        }
        if let [simple] = pipe.as_slice() {
            let cmd = expand::expand_command(sim, simple, None)?;
            // Not a file command, nor a reserved word out of place (`done`): the tool's own.
            if cmd
                .words
                .first()
                .is_some_and(|w| !matches!(w.as_str(), "echo" | "cat" | "grep" | "tee" | "do" | "done"))
            {
                let words = flatten(&cmd);
                return dispatch(sim, &words).map(|out| (out, Kind::of(&words)));
            }
        }
    }
    let turns = match &script.each {
        None => vec![None],
        Some((name, words)) => expand::expand_words(sim, words, None)?
            .into_iter()
            .map(|w| Some((name.as_str(), w)))
            .collect(),
    };
    let mut plan = Vec::new();
    for turn in &turns {
        let var = turn.as_ref().map(|(n, v)| (*n, v.as_str()));
        for pipe in &script.body {
            let cmds = pipe
                .iter()
                .map(|s| expand::expand_command(sim, s, var))
                .collect::<Result<Vec<_>, _>>()?;
            plan::plan_pipe(sim, &cmds, &mut plan)?;
        }
    }
    // echo, cat, grep and tee: files read and written.
    run_plan(sim, &plan).map(|out| (out, Kind::Command))
}

/// `COMMAND | grep ... [| grep ...]`: the command run as on a line of its own, then each grep
/// keeps its lines (filter.rs). Every grep is checked before the command runs, so a refused
/// pattern changes nothing. `None` when the pipe is not of that form.
fn filtered(sim: &mut Sim, pipe: &[Simple]) -> Result<Option<(String, Kind)>, String> {
    let Some((first, greps)) = pipe.split_first() else {
        return Ok(None);
    };
    if greps.is_empty() {
        return Ok(None);
    }
    let mut filters = Vec::new();
    for g in greps {
        let cmd = expand::expand_command(sim, g, None)?;
        if cmd.words.first().map(String::as_str) != Some("grep") {
            return Ok(None);
        }
        if !cmd.redirects.is_empty() {
            return Err(hinted(
                "bash: steerlab's grep prints to the console",
                filter::FILTER_FORMS,
            ));
        }
        filters.push(filter::Filter::parse(&cmd.words[1..])?);
    }
    let cmd = expand::expand_command(sim, first, None)?;
    let (mut out, kind) = match cmd.words.first().map(String::as_str) {
        Some("echo" | "cat" | "grep") => {
            let mut plan = Vec::new();
            plan::plan_pipe(sim, &[cmd], &mut plan)?;
            (run_plan(sim, &plan)?, Kind::Command)
        }
        Some("tee" | "do" | "done" | "for") | None => return Ok(None),
        Some(_) => {
            let words = flatten(&cmd);
            (dispatch(sim, &words)?, Kind::of(&words))
        }
    };
    for f in &filters {
        out = f.apply(&out);
    }
    Ok(Some((out, kind)))
}

/// A command of another tool gets its words as before, `>` and its target included (it will
/// refuse them).
fn flatten(cmd: &Command) -> Vec<&str> {
    let mut words: Vec<&str> = cmd.words.iter().map(String::as_str).collect();
    for r in &cmd.redirects {
        words.push(">");
        words.extend(r.paths.iter().map(String::as_str));
    }
    words
}

/// Runs checked steps in order.
fn run_plan(sim: &mut Sim, plan: &[Step]) -> Result<String, String> {
    let mut out = String::new();
    for step in plan {
        match step {
            Step::Print(text) => out += text,
            Step::Write(w) => sysfs::apply(sim, w)?,
            Step::Cat(paths) => out += &cat(sim, &paths.iter().map(String::as_str).collect::<Vec<_>>())?,
            Step::Grep(paths, named) => out += &plan::grep(sim, paths, *named)?,
        }
    }
    Ok(out)
}
