//! The few shell forms users type to write a file on many queues at once, and no more: a
//! line is one simple command, or an `echo VALUE | tee FILE...` pipe, or a `;` list of
//! those, or one `for` loop over them. Bash's rules (bash(1), "SHELL GRAMMAR" and
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

use steerlab_engine::Sim;

use crate::sysfs::{self, Writer};
use crate::{cat, dispatch, hinted, no_such_file, read};

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
pub(crate) fn run(sim: &mut Sim, line: &str) -> Result<String, String> {
    let tokens = lex(line)?;
    let script = parse(&tokens)?;
    if let (None, [pipe]) = (&script.each, script.body.as_slice()) {
        if let [simple] = pipe.as_slice() {
            let cmd = expand_command(sim, simple, None)?;
            // Not a file command, nor a reserved word out of place (`done`): the tool's own.
            if cmd
                .words
                .first()
                .is_some_and(|w| !matches!(w.as_str(), "echo" | "cat" | "grep" | "tee" | "do" | "done"))
            {
                return dispatch(sim, &flatten(&cmd));
            }
        }
    }
    let turns = match &script.each {
        None => vec![None],
        Some((name, words)) => expand_words(sim, words, None)?
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
                .map(|s| expand_command(sim, s, var))
                .collect::<Result<Vec<_>, _>>()?;
            plan_pipe(sim, &cmds, &mut plan)?;
        }
    }
    run_plan(sim, &plan)
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

// ------------------------------------------------------------------------------ lexing

/// Splits a line into words and operators, keeping how each character was quoted.
fn lex(line: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut word: Option<(Word, usize)> = None;
    let mut chars = line.char_indices().peekable();
    let mut quote: Option<char> = None;
    let start = |word: &mut Option<(Word, usize)>, at: usize| {
        word.get_or_insert_with(|| {
            (
                Word {
                    chars: Vec::new(),
                    quoted: false,
                    raw: String::new(),
                },
                at,
            )
        });
    };
    let end = |word: &mut Option<(Word, usize)>, out: &mut Vec<Token>, at: usize| {
        if let Some((mut w, from)) = word.take() {
            w.raw = line[from..at].to_string();
            out.push(Token::Word(w));
        }
    };
    while let Some((i, c)) = chars.next() {
        let push = |word: &mut Option<(Word, usize)>, c: char, q: Quote| {
            start(word, i);
            if let Some((w, _)) = word {
                w.chars.push((c, q));
            }
        };
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => push(&mut word, c, Quote::Literal),
            (Some(_), '\\') if matches!(chars.peek(), Some((_, '$' | '"' | '\\' | '`'))) => {
                let (_, next) = chars.next().unwrap_or((i, c));
                push(&mut word, next, Quote::Literal);
            }
            (Some(_), c) => push(&mut word, c, Quote::Double),
            (None, '"' | '\'') => {
                start(&mut word, i);
                if let Some((w, _)) = &mut word {
                    w.quoted = true;
                }
                quote = Some(c);
            }
            (None, '\\') => {
                let next = chars.next().map_or('\\', |(_, n)| n);
                push(&mut word, next, Quote::Literal);
                if let Some((w, _)) = &mut word {
                    w.quoted = true;
                }
            }
            (None, ';' | '|' | '>') => {
                end(&mut word, &mut out, i);
                out.push(Token::Op(c));
            }
            (None, c) if c.is_whitespace() => end(&mut word, &mut out, i),
            (None, c) => push(&mut word, c, Quote::Bare),
        }
    }
    if let Some(q) = quote {
        return Err(hinted(
            format!("bash: unexpected EOF while looking for matching `{q}'"),
            "close the quote, e.g. echo 'f0' > FILE",
        ));
    }
    end(&mut word, &mut out, line.len());
    Ok(out)
}

// ------------------------------------------------------------------------------ parsing

fn syntax_error(near: &str) -> String {
    hinted(format!("bash: syntax error near unexpected token `{near}'"), FOR_FORMS)
}

fn unexpected_end() -> String {
    hinted("bash: syntax error: unexpected end of file", FOR_FORMS)
}

/// Parses the tokens: `for` at the start makes a loop, anything else is a `;` list.
fn parse(tokens: &[Token]) -> Result<Script<'_>, String> {
    if tokens.is_empty() {
        return Ok(Script {
            each: None,
            body: Vec::new(),
        });
    }
    // `>` must be followed by a word.
    for (i, t) in tokens.iter().enumerate() {
        if matches!(t, Token::Op('>')) && !matches!(tokens.get(i + 1), Some(Token::Word(_))) {
            return Err(hinted(
                format!(
                    "bash: syntax error near unexpected token `{}'",
                    tokens.get(i + 1).map_or("newline".into(), Token::name)
                ),
                crate::sysfs::ECHO_FORMS,
            ));
        }
    }
    let mut parts: Vec<&[Token]> = tokens.split(|t| matches!(t, Token::Op(';'))).collect();
    match tokens.first() {
        Some(Token::Word(w)) if w.is("for") => parse_for(&parts),
        _ => {
            // A trailing `;` ends the last command; an empty command elsewhere is an error.
            if parts.len() > 1 && parts.last().is_some_and(|p| p.is_empty()) {
                parts.pop();
            }
            Ok(Script {
                each: None,
                body: parts.into_iter().map(pipe).collect::<Result<_, _>>()?,
            })
        }
    }
}

/// `for NAME in WORD...` `do COMMAND` `COMMAND`... `done` (the parts between `;`s).
fn parse_for<'a>(parts: &[&'a [Token]]) -> Result<Script<'a>, String> {
    let head = parts[0];
    let word = |i: usize| match head.get(i) {
        Some(Token::Word(w)) => Some(w),
        _ => None,
    };
    let name = match word(1) {
        Some(w) if is_name(&w.raw) => w.raw.clone(),
        Some(w) => return Err(hinted(format!("bash: `{}': not a valid identifier", w.raw), FOR_FORMS)),
        None => return Err(head.get(1).map_or_else(unexpected_end, |t| syntax_error(&t.name()))),
    };
    match word(2) {
        Some(w) if w.is("in") => {}
        _ => {
            return Err(hinted(
                "bash: for: steerlab's for takes its words after `in' (there are no positional parameters)",
                FOR_FORMS,
            ))
        }
    }
    let words = &head[3..];
    if let Some(t) = words.iter().find(|t| !matches!(t, Token::Word(_))) {
        return Err(syntax_error(&t.name()));
    }
    let Some((&first, rest)) = parts[1..].split_first() else {
        return Err(unexpected_end());
    };
    let first = match first.first() {
        Some(Token::Word(w)) if w.is("do") => &first[1..],
        Some(t) => return Err(syntax_error(&t.name())),
        None => return Err(syntax_error(";")),
    };
    // The body ends at a part that is `done`; only an empty part (`done;`) may follow it.
    let mut body = vec![first];
    let mut done = None;
    for (i, part) in rest.iter().enumerate() {
        match part.first() {
            Some(Token::Word(w)) if w.is("done") => {
                done = Some(i);
                break;
            }
            _ => body.push(part),
        }
    }
    let Some(d) = done else { return Err(unexpected_end()) };
    if let Some(extra) = rest[d].get(1) {
        return Err(syntax_error(&extra.name()));
    }
    if rest[d + 1..].iter().any(|p| !p.is_empty()) || rest.len() > d + 2 {
        return Err(hinted(
            "bash: steerlab runs one loop per line, with nothing after `done'",
            FOR_FORMS,
        ));
    }
    let body = body.into_iter().map(pipe).collect::<Result<_, _>>()?;
    Ok(Script {
        each: Some((name, words)),
        body,
    })
}

/// A pipe: simple commands between `|`s, none empty.
fn pipe(part: &[Token]) -> Result<Vec<Simple<'_>>, String> {
    if part.is_empty() {
        return Err(syntax_error(";"));
    }
    let cmds: Vec<Simple<'_>> = part.split(|t| matches!(t, Token::Op('|'))).collect();
    if cmds.iter().any(|c| c.is_empty()) {
        return Err(syntax_error("|"));
    }
    Ok(cmds)
}

/// A shell name: a letter or `_`, then letters, digits and `_`.
fn is_name(text: &str) -> bool {
    let mut c = text.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic() || f == '_') && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

// ------------------------------------------------------------------------------ expansion

/// A simple command's words and redirections, expanded with `var` set.
fn expand_command(sim: &Sim, simple: Simple<'_>, var: Option<(&str, &str)>) -> Result<Command, String> {
    let mut cmd = Command {
        words: Vec::new(),
        redirects: Vec::new(),
    };
    let mut tokens = simple.iter();
    while let Some(t) = tokens.next() {
        match t {
            Token::Word(w) => cmd.words.extend(fields(sim, w, var)?),
            Token::Op(_) => {
                // `parse` made sure a word follows.
                let Some(Token::Word(w)) = tokens.next() else {
                    return Err(syntax_error("newline"));
                };
                cmd.redirects.push(Redirect {
                    raw: w.raw.clone(),
                    paths: fields(sim, w, var)?,
                });
            }
        }
    }
    let sudo = cmd.words.iter().take_while(|w| *w == "sudo").count();
    if sudo > 0 && sudo == cmd.words.len() {
        return Err(hinted("usage: sudo [-AbEHknPS] [command [arg ...]]", SUDO_FORMS));
    }
    cmd.words.drain(..sudo);
    Ok(cmd)
}

/// Expands a list of words (a loop's).
fn expand_words(sim: &Sim, tokens: &[Token], var: Option<(&str, &str)>) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for t in tokens {
        if let Token::Word(w) = t {
            out.extend(fields(sim, w, var)?);
        }
    }
    Ok(out)
}

/// The words one typed word becomes: none (an empty unquoted expansion), the paths its glob
/// matches, or itself.
fn fields(sim: &Sim, word: &Word, var: Option<(&str, &str)>) -> Result<Vec<String>, String> {
    let chars = expand_vars(word, var)?;
    if chars.is_empty() && !word.quoted {
        return Ok(Vec::new());
    }
    if chars.iter().any(|&(c, wild)| wild && c == '*') {
        if let Some(paths) = glob(sim, &chars) {
            return Ok(paths);
        }
    }
    Ok(vec![chars.iter().map(|c| c.0).collect()])
}

/// `$NAME` and `${NAME}` replaced (outside single quotes); each character says whether a `*`
/// in it is a wildcard (typed bare, or from a bare expansion).
fn expand_vars(word: &Word, var: Option<(&str, &str)>) -> Result<Vec<(char, bool)>, String> {
    let value = |name: &str| var.filter(|(n, _)| *n == name).map_or("", |(_, v)| v);
    let mut out = Vec::new();
    let mut i = 0;
    let cs = &word.chars;
    while i < cs.len() {
        let (c, q) = cs[i];
        let expands = q != Quote::Literal;
        if expands && (c == '`' || (c == '$' && cs.get(i + 1).is_some_and(|n| n.0 == '('))) {
            return Err(hinted(
                "bash: command substitution is not modelled in steerlab",
                FOR_FORMS,
            ));
        }
        if !(expands && c == '$') {
            out.push((c, q == Quote::Bare));
            i += 1;
            continue;
        }
        let same = |j: usize| cs.get(j).filter(|n| n.1 == q).map(|n| n.0);
        let (name, next) = if same(i + 1) == Some('{') {
            let close = (i + 2..cs.len()).find(|&j| same(j) == Some('}'));
            let Some(close) = close else {
                return Err(hinted(format!("bash: {}: bad substitution", word.raw), FOR_FORMS));
            };
            let name: String = cs[i + 2..close].iter().map(|c| c.0).collect();
            if !is_name(&name) {
                return Err(hinted(format!("bash: ${{{name}}}: bad substitution"), FOR_FORMS));
            }
            (name, close + 1)
        } else {
            let end = (i + 1..=cs.len())
                .find(|&j| !same(j).is_some_and(|c| c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(cs.len());
            let name: String = cs[i + 1..end].iter().map(|c| c.0).collect();
            if !is_name(&name) {
                // A `$` not followed by a name is itself.
                out.push(('$', false));
                i += 1;
                continue;
            }
            (name, end)
        };
        out.extend(value(&name).chars().map(|c| (c, q == Quote::Bare)));
        i = next;
    }
    Ok(out)
}

/// Pathname expansion of an absolute pattern over the host's queue tree: the matching paths in
/// byte order, or `None` when none match.
fn glob(sim: &Sim, pattern: &[(char, bool)]) -> Option<Vec<String>> {
    let mut parts = pattern.split(|&(c, _)| c == '/');
    if !parts.next()?.is_empty() {
        return None; // relative: the console has no working directory with queues in it
    }
    let mut found = vec![String::new()];
    let mut globbed = false;
    for part in parts {
        let literal: String = part.iter().map(|c| c.0).collect();
        let wild = part.iter().any(|&(c, w)| w && c == '*');
        found = if wild || globbed {
            let mut next = Vec::new();
            for dir in &found {
                let Some(entries) = sysfs::list_dir(sim, dir) else {
                    continue;
                };
                if part.is_empty() {
                    next.push(format!("{dir}/")); // `rx-*/`: directories only, with their `/`
                    continue;
                }
                next.extend(
                    entries
                        .into_iter()
                        .filter(|e| matches(part, e))
                        .map(|e| format!("{dir}/{e}")),
                );
            }
            next
        } else {
            found.into_iter().map(|d| format!("{d}/{literal}")).collect()
        };
        globbed |= wild;
    }
    found.sort_unstable();
    (!found.is_empty()).then_some(found)
}

/// Whether `name` matches a path component whose wildcard `*`s are marked. One pass with a
/// return point at the last star, as bash's own matcher does (lib/glob/sm_loop.c): a star
/// only ever needs to swallow one more character, so any number of stars costs at most
/// pattern × name steps (trying every split recursively was exponential in the stars: a
/// fuzzed `rx-****…` line ran for minutes).
fn matches(pattern: &[(char, bool)], name: &str) -> bool {
    let name: Vec<char> = name.chars().collect();
    let (mut p, mut n) = (0, 0);
    // After the last star seen: the pattern index past it, and the name index it resumes at.
    let mut back: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(&('*', true)) => {
                p += 1;
                back = Some((p, n));
            }
            Some(&(c, _)) if c == name[n] => (p, n) = (p + 1, n + 1),
            _ => match back {
                Some((bp, bn)) => {
                    (p, n) = (bp, bn + 1);
                    back = Some((bp, bn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&(c, wild)| wild && c == '*')
}

// ------------------------------------------------------------------------------ planning

/// Checks one pipe and adds its steps: `echo`, `cat`, or `echo ... | tee ...`.
fn plan_pipe(sim: &Sim, cmds: &[Command], plan: &mut Vec<Step>) -> Result<(), String> {
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
        _ => Err(hinted("bash: steerlab pipes echo into tee only", TEE_FORMS)),
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
    "grep [-H|-h] . FILE...   (the non-empty lines, after FILE: when there are several files)";

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

/// The non-empty lines of `paths`, each after its file's name when `named`.
fn grep(sim: &Sim, paths: &[String], named: bool) -> Result<String, String> {
    let mut out = String::new();
    for path in paths {
        let text = read(sim, path).ok_or_else(|| no_such_file(sim, "grep", path))?;
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
        return Err(hinted("bash: steerlab pipes echo into tee only", TEE_FORMS));
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

/// Runs checked steps in order.
fn run_plan(sim: &mut Sim, plan: &[Step]) -> Result<String, String> {
    let mut out = String::new();
    for step in plan {
        match step {
            Step::Print(text) => out += text,
            Step::Write(w) => sysfs::apply(sim, w)?,
            Step::Cat(paths) => out += &cat(sim, &paths.iter().map(String::as_str).collect::<Vec<_>>())?,
            Step::Grep(paths, named) => out += &grep(sim, paths, *named)?,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        lex(line)
            .unwrap()
            .iter()
            .map(|t| match t {
                Token::Word(w) => w.chars.iter().map(|c| c.0).collect(),
                Token::Op(c) => c.to_string(),
            })
            .collect()
    }

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(words("echo  'f0' >/sys/x"), ["echo", "f0", ">", "/sys/x"]);
        assert_eq!(words("echo \"1 2\">f"), ["echo", "1 2", ">", "f"]);
        assert_eq!(
            words("for q in a b;do echo $q|tee x;done"),
            ["for", "q", "in", "a", "b", ";", "do", "echo", "$q", "|", "tee", "x", ";", "done"]
        );
        assert_eq!(words("echo 'a;b' \"c|d\" e\\>f"), ["echo", "a;b", "c|d", "e>f"]);
        assert!(lex("echo \"f").err().unwrap_or_default().contains("matching `\"'"));
    }

    #[test]
    fn stars_match_within_a_component() {
        let p = |s: &str| s.chars().map(|c| (c, true)).collect::<Vec<_>>();
        assert!(matches(&p("rx-*"), "rx-10"));
        assert!(matches(&p("*"), "tx-0"));
        assert!(matches(&p("*_cnt"), "rps_flow_cnt"));
        assert!(!matches(&p("rx-*"), "tx-1"));
        assert!(!matches(&[('r', false), ('*', false)], "rx"), "a quoted * is a star");
        // Fuzzing found the recursive matcher exponential in the stars (console_line timeout).
        let many: Vec<(char, bool)> = "rx-"
            .chars()
            .map(|c| (c, false))
            .chain(std::iter::repeat_n(('*', true), 60))
            .chain([('z', false)])
            .collect();
        assert!(!matches(&many, "rx-1234567890123456789012345678901234567890"));
        assert!(matches(&many, "rx-12z"));
        assert!(matches(
            &[('*', true), ('-', false), ('*', true), ('1', false)],
            "rx-11"
        ));
        assert!(!matches(
            &[('*', true), ('-', false), ('*', true), ('2', false)],
            "rx-11"
        ));
    }
}
