//! Expansion as bash does it for the parts steerlab has: `$VAR` and `${VAR}`, globs over the
//! host's queue tree (sorted as bash sorts them), and each redirection's word.

use steerlab_engine::Sim;

use super::syntax::{is_name, syntax_error};
use super::{Command, Quote, Redirect, Simple, Token, Word, FOR_FORMS, SUDO_FORMS};
use crate::{hinted, sysfs};

/// A simple command's words and redirections, expanded with `var` set.
pub(super) fn expand_command(sim: &Sim, simple: Simple<'_>, var: Option<(&str, &str)>) -> Result<Command, String> {
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
pub(super) fn expand_words(sim: &Sim, tokens: &[Token], var: Option<(&str, &str)>) -> Result<Vec<String>, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
