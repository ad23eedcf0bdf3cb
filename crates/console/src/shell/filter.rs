//! `COMMAND | grep [OPTION]... PATTERN`: the lines of a command's output a pipe's `grep` keeps,
//! as learners read counters on a real host (`ethtool -S eth0 | grep drop`,
//! `nstat -az | grep -i udp`, `cat /proc/interrupts | grep -E 'CPU|13[0-3]'`).
//!
//! GNU grep's rules for the part steerlab takes (grep(1), "REGULAR EXPRESSIONS"): a basic
//! expression by default, where `\|`, `\+` and `\?` are operators (GNU extensions) and `|`,
//! `+`, `?` are plain characters; `-E` makes `|`, `+` and `?` operators; `-F` takes the pattern
//! as fixed text. Both have `.`, `*`, `^` and `$` anchors, bracket expressions (`[0-9]`,
//! `[^a-z]`) and `\` before a character to take it as is. Options `-i`, `-v`, `-c`, `-w`,
//! `-E`, `-F`, `-e PATTERN`, combined (`-iv`). Groups `(…)`, intervals `{n,m}`, back-references
//! and character classes such as `[[:digit:]]` are refused with the forms accepted. No line
//! matching is not an error: the pipe prints nothing, as grep does (its exit status 1).
//! Case and word characters are ASCII's, as in the C locale (the tools' outputs are ASCII;
//! Unicode's tables would add 17 KB gzipped to the worker).

use crate::hinted;

/// The forms of a pipe's grep.
pub(crate) const FILTER_FORMS: &str =
    "COMMAND | grep [-i] [-v] [-c] [-w] [-E|-F] PATTERN   (lines of COMMAND's output)\n\
PATTERN: text, . * ^ $ [a-z] [^0-9], \\| (or | with -E) between alternatives, + and ? with -E";

/// One character position of a pattern.
#[derive(Clone, Debug)]
enum Atom {
    Any,
    Char(char),
    /// A bracket expression: its ranges, negated or not.
    Class(bool, Vec<(char, char)>),
}

/// An atom and how many times it may repeat.
#[derive(Clone, Debug)]
struct Piece {
    atom: Atom,
    min: usize,
    max: usize,
}

/// One alternative: anchored at the line's start or end or not, and its pieces.
#[derive(Clone, Debug, Default)]
struct Branch {
    start: bool,
    end: bool,
    pieces: Vec<Piece>,
}

/// A pipe's grep: its pattern compiled, and its options.
#[derive(Debug)]
pub(crate) struct Filter {
    branches: Vec<Branch>,
    icase: bool,
    invert: bool,
    count: bool,
    word: bool,
}

impl Filter {
    /// `grep`'s words after the command name.
    pub(crate) fn parse(args: &[String]) -> Result<Filter, String> {
        let (mut icase, mut invert, mut count, mut word) = (false, false, false, false);
        let (mut extended, mut fixed) = (false, false);
        let mut pattern: Option<String> = None;
        let mut words = args.iter();
        while let Some(w) = words.next() {
            match w.as_str() {
                "-e" | "--regexp" => pattern = words.next().cloned(),
                "--ignore-case" => icase = true,
                "--invert-match" => invert = true,
                "--count" => count = true,
                "--word-regexp" => word = true,
                "--extended-regexp" => extended = true,
                "--fixed-strings" => fixed = true,
                o if o.starts_with('-') && o.len() > 1 && !o.starts_with("--") => {
                    for c in o[1..].chars() {
                        match c {
                            'i' => icase = true,
                            'v' => invert = true,
                            'c' => count = true,
                            'w' => word = true,
                            'E' => extended = true,
                            'F' => fixed = true,
                            other => {
                                return Err(hinted(
                                    format!("grep: option -{other} is not supported in steerlab"),
                                    FILTER_FORMS,
                                ))
                            }
                        }
                    }
                }
                o if o.starts_with("--") => {
                    return Err(hinted(
                        format!("grep: option {o} is not supported in steerlab"),
                        FILTER_FORMS,
                    ))
                }
                p if pattern.is_none() => pattern = Some(p.to_string()),
                f => {
                    return Err(hinted(
                        format!("grep: {f}: a pipe's grep reads the command's output, not files"),
                        FILTER_FORMS,
                    ))
                }
            }
        }
        let Some(pattern) = pattern else {
            return Err(hinted("grep: no pattern given", FILTER_FORMS));
        };
        let pattern = if icase { pattern.to_ascii_lowercase() } else { pattern };
        let branches = if fixed {
            pattern
                .split('\n')
                .map(|p| Branch {
                    pieces: p.chars().map(|c| one(Atom::Char(c))).collect(),
                    ..Branch::default()
                })
                .collect()
        } else {
            compile(&pattern, extended)?
        };
        Ok(Filter {
            branches,
            icase,
            invert,
            count,
            word,
        })
    }

    /// The lines of `text` it keeps, or their count with `-c`.
    pub(crate) fn apply(&self, text: &str) -> String {
        let kept = text.lines().filter(|l| self.matches(l) != self.invert);
        if self.count {
            return format!("{}\n", kept.count());
        }
        kept.flat_map(|l| [l, "\n"]).collect()
    }

    /// Whether a part of `line` matches. Each alternative is run over the line as a set of
    /// positions (every start at once, a piece at a time), so a pattern's repetitions cost at
    /// most its pieces × the line's length², never the exponential time backtracking takes on
    /// `a*a*a*a*b`. `-w` as GNU grep has it: the match starts at the line's start or after a
    /// non-word character, and ends at its end or before one.
    fn matches(&self, line: &str) -> bool {
        let text: Vec<char> = if self.icase {
            line.to_ascii_lowercase().chars().collect()
        } else {
            line.chars().collect()
        };
        let len = text.len();
        self.branches.iter().any(|b| {
            let mut at: Vec<bool> = (0..=len)
                .map(|i| (!b.start || i == 0) && (!self.word || i == 0 || !is_word(text[i - 1])))
                .collect();
            for p in &b.pieces {
                let mut next = vec![false; len + 1];
                for pos in (0..=len).filter(|&pos| at[pos]) {
                    next[pos] |= p.min == 0;
                    let mut n = 0;
                    while n < p.max && pos + n < len && takes(&p.atom, text[pos + n]) {
                        n += 1;
                        next[pos + n] |= n >= p.min;
                    }
                }
                at = next;
            }
            (0..=len).any(|end| at[end] && (!b.end || end == len) && (!self.word || end == len || !is_word(text[end])))
        })
    }
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn one(atom: Atom) -> Piece {
    Piece { atom, min: 1, max: 1 }
}

fn takes(atom: &Atom, c: char) -> bool {
    match atom {
        Atom::Any => true,
        Atom::Char(x) => *x == c,
        Atom::Class(neg, ranges) => ranges.iter().any(|&(a, b)| a <= c && c <= b) != *neg,
    }
}

/// A basic (or, `extended`, an extended) expression as GNU grep reads the forms steerlab
/// takes.
fn compile(pattern: &str, extended: bool) -> Result<Vec<Branch>, String> {
    let refuse = |what: &str| {
        Err(hinted(
            format!("grep: {what} in a pattern is not supported in steerlab"),
            FILTER_FORMS,
        ))
    };
    let mut branches = vec![Branch::default()];
    let mut chars = pattern.chars().peekable();
    let mut first = true;
    while let Some(c) = chars.next() {
        let b = branches.last_mut().expect("one branch at least");
        // An operator, as this syntax spells it.
        let op = match (c, extended) {
            ('\\', false) => match chars.peek() {
                Some(&o @ ('|' | '+' | '?')) => {
                    chars.next();
                    Some(o)
                }
                Some('(' | ')' | '{' | '}') => return refuse("a group or an interval"),
                _ => None,
            },
            (o @ ('|' | '+' | '?'), true) => Some(o),
            ('(' | ')' | '{', true) => return refuse("a group or an interval"),
            _ => None,
        };
        match op {
            Some('|') => {
                branches.push(Branch::default());
                first = true;
                continue;
            }
            Some(o) => {
                // `+` and `?` after an atom; at the start they are plain characters in GNU grep.
                match b.pieces.last_mut() {
                    Some(p) if p.max == 1 && p.min == 1 => {
                        (p.min, p.max) = if o == '+' { (1, usize::MAX) } else { (0, 1) };
                    }
                    _ => b.pieces.push(one(Atom::Char(o))),
                }
                first = false;
                continue;
            }
            None => {}
        }
        match c {
            '^' if first => b.start = true,
            // `$` anchors where its alternative ends; elsewhere it is a plain character.
            '$' => {
                let mut ahead = chars.clone();
                let ends = match ahead.next() {
                    None => true,
                    Some('|') => extended,
                    Some('\\') => !extended && ahead.next() == Some('|'),
                    _ => false,
                };
                if ends {
                    b.end = true;
                } else {
                    b.pieces.push(one(Atom::Char('$')));
                }
            }
            '.' => b.pieces.push(one(Atom::Any)),
            // `*` repeats the atom before it; with none (a branch's start) it is a character.
            '*' => match b.pieces.last_mut() {
                Some(p) => (p.min, p.max) = (0, usize::MAX),
                None => b.pieces.push(one(Atom::Char('*'))),
            },
            '[' => b.pieces.push(one(bracket(&mut chars)?)),
            '\\' => match chars.next() {
                Some(x) if x.is_ascii_alphanumeric() => {
                    return refuse(&format!("\\{x} (a back-reference or a class escape)"))
                }
                Some(x) => b.pieces.push(one(Atom::Char(x))),
                None => return Err(hinted("grep: trailing backslash (\\)", FILTER_FORMS)),
            },
            c => b.pieces.push(one(Atom::Char(c))),
        }
        first = false;
    }
    Ok(branches)
}

/// A bracket expression after its `[`: `^` negates, `]` first is a member, `a-z` a range.
fn bracket(chars: &mut core::iter::Peekable<core::str::Chars>) -> Result<Atom, String> {
    let neg = chars.peek() == Some(&'^');
    if neg {
        chars.next();
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let Some(c) = chars.next() else {
            return Err(hinted("grep: Unmatched [, [^, [:, [., or [=", FILTER_FORMS));
        };
        match c {
            ']' if !first => return Ok(Atom::Class(neg, ranges)),
            '[' if matches!(chars.peek(), Some(':' | '.' | '=')) => {
                return Err(hinted(
                    "grep: a character class ([:digit:]) in a pattern is not supported in steerlab",
                    FILTER_FORMS,
                ))
            }
            a => {
                let mut ahead = chars.clone();
                if ahead.next() == Some('-') && ahead.peek().is_some_and(|&z| z != ']') {
                    chars.next();
                    let z = chars.next().unwrap_or(a);
                    ranges.push((a, z));
                } else {
                    ranges.push((a, a));
                }
            }
        }
        first = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grep(args: &[&str], text: &str) -> String {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        Filter::parse(&args).unwrap().apply(text)
    }

    const STATS: &str =
        "NIC statistics:\n     rx_packets: 10\n     rx_dropped: 3\n     tx_dropped: 0\n     rx_queue_0_packets: 10\n";

    /// GNU grep gives these lines for these patterns on `STATS` (3.8, checked on this machine).
    #[test]
    fn patterns_keep_the_lines_gnu_grep_keeps() {
        assert_eq!(grep(&["drop"], STATS), "     rx_dropped: 3\n     tx_dropped: 0\n");
        assert_eq!(grep(&["-i", "NIC"], STATS), "NIC statistics:\n");
        assert_eq!(grep(&["-v", "rx_"], STATS), "NIC statistics:\n     tx_dropped: 0\n");
        assert_eq!(grep(&["-c", "rx"], STATS), "3\n");
        assert_eq!(grep(&["-E", "drop|queue"], STATS).lines().count(), 3);
        assert_eq!(grep(&["drop\\|queue"], STATS).lines().count(), 3);
        assert_eq!(
            grep(&["drop|queue"], STATS),
            "",
            "| is a plain character in a basic expression"
        );
        assert_eq!(grep(&["^NIC"], STATS), "NIC statistics:\n");
        assert_eq!(
            grep(&["0$"], STATS),
            "     rx_packets: 10\n     tx_dropped: 0\n     rx_queue_0_packets: 10\n"
        );
        assert_eq!(grep(&["rx_.*_packets"], STATS), "     rx_queue_0_packets: 10\n");
        assert_eq!(
            grep(&["[0-9]: [1-9]"], STATS),
            "",
            "no count with a space before it is one digit then a colon"
        );
        assert_eq!(grep(&["_[0-9]_"], STATS), "     rx_queue_0_packets: 10\n");
        assert_eq!(grep(&["-w", "rx_dropped"], STATS), "     rx_dropped: 3\n");
        assert_eq!(grep(&["-w", "dropped"], STATS), "", "dropped is part of a longer word");
        assert_eq!(grep(&["-F", "x_d"], STATS).lines().count(), 2);
        assert_eq!(grep(&["-E", "x_?dropped"], STATS).lines().count(), 2);
        assert_eq!(grep(&["-E", "[0-9]+$"], STATS).lines().count(), 4);
        assert_eq!(grep(&["-iv", "STAT"], STATS).lines().count(), 4);
        assert_eq!(grep(&["-e", "-x"], "a-x\nb\n"), "a-x\n");
        assert_eq!(grep(&["nothing"], STATS), "");
        assert_eq!(
            grep(&["-w", ": 1"], STATS),
            "",
            "after a word character: not a word match"
        );
        assert_eq!(grep(&["-w", "3"], STATS), "     rx_dropped: 3\n");
    }

    /// Repetitions cost polynomial time: a pattern that takes backtracking exponential time
    /// on a long line of `a` answers at once.
    #[test]
    fn nested_repetitions_do_not_hang() {
        let line = format!("{}\n", "a".repeat(400));
        assert_eq!(grep(&["a*a*a*a*a*a*a*a*a*a*a*a*b"], &line), "");
        assert_eq!(grep(&["a*a*a*a*a*a*a*a*a*a*a*a"], &line), line);
    }

    #[test]
    fn what_steerlab_does_not_take_is_refused_with_the_forms() {
        for bad in [
            &["-P", "x"][..],
            &["-E", "(a|b)"],
            &["a\\{2\\}"],
            &["[[:digit:]]"],
            &["\\d"],
            &[],
            &["x", "FILE"],
            &["[ab"],
        ] {
            let args: Vec<String> = bad.iter().map(|s| s.to_string()).collect();
            let e = Filter::parse(&args).unwrap_err();
            assert!(e.contains("hint:"), "{bad:?}: {e}");
        }
    }
}
