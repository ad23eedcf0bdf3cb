//! A line as bash reads it: words and the operators `;`, `|`, `>` with how each character was
//! quoted, then the grammar of the forms steerlab runs (one `for` at the start, `;` lists, pipes).

use super::{Quote, Script, Simple, Token, Word, FOR_FORMS};
use crate::hinted;

/// Splits a line into words and operators, keeping how each character was quoted.
pub(super) fn lex(line: &str) -> Result<Vec<Token>, String> {
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

pub(super) fn syntax_error(near: &str) -> String {
    hinted(format!("bash: syntax error near unexpected token `{near}'"), FOR_FORMS)
}

pub(super) fn unexpected_end() -> String {
    hinted("bash: syntax error: unexpected end of file", FOR_FORMS)
}

/// Parses the tokens: `for` at the start makes a loop, anything else is a `;` list.
pub(super) fn parse(tokens: &[Token]) -> Result<Script<'_>, String> {
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
pub(super) fn is_name(text: &str) -> bool {
    let mut c = text.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic() || f == '_') && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
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
}
