//! Command lines as people paste them: after any shell prompt (`$ `, `[root@dut ~]# `,
//! `host:~# `, `user@h:/$ `, `(venv) me@h ~/x ❯ `, `sh-4.2$ `), after `sudo`, or bare, and
//! with pipes (`| grep …`, `| head`). A line is a command when a prompt stands before it, or
//! when its first word is one of [`KNOWN`]; a `#` line is a command only when a known command
//! follows the `#` (a root prompt), else it stays a comment (the capture script's own header).

/// The commands recognised on a line of their own, with no prompt, or after a bare `#`: the
/// tools whose outputs steerlab reads, and the ones people run around them (their outputs are
/// skipped and said). Outputs never start with one of these words followed by a space.
pub(super) const KNOWN: &[&str] = &[
    "ethtool", "cat", "grep", "egrep", "head", "tail", "lscpu", "nproc", "sysctl", "readlink", "ls", "ip", "uname",
    "echo", "tee", "ss", "tc", "for", "nstat", "mpstat",
];

/// The characters a shell prompt ends with (bash `$`/`#`, zsh `%`, fish and others `>`,
/// starship and powerlevel `❯`).
const PROMPT_END: &[char] = &['$', '#', '%', '>', '❯'];

/// A command line of the capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Command {
    /// The command as typed, after the prompt (`sudo` kept, for the messages).
    pub text: String,
    /// The first stage's words, `sudo` and `VAR=value` assignments removed.
    pub words: Vec<String>,
    /// The first filter a pipe sends the output through (`grep -A1 "RSS hash key"`, `head`):
    /// the output shown is then a part of the whole.
    pub filter: Option<String>,
}

/// The command on `line`, if it is one; `Some` with no words for a bare prompt (`sh-4.2$`).
pub(super) fn command(line: &str) -> Option<Command> {
    let t = line.trim();
    if t.is_empty() {
        return None;
    }
    // A known command written alone (`ethtool -n eth1`, `sudo ethtool -x eth0`): first, so
    // that a redirection (`… > /tmp/x`) is not taken for a prompt.
    if first_word(t).is_some_and(|w| KNOWN.contains(&w)) {
        return Some(parse(t));
    }
    for (i, c) in t.char_indices().take_while(|&(i, _)| i < 160) {
        if !PROMPT_END.contains(&c) {
            continue;
        }
        let after = &t[i + c.len_utf8()..];
        if !(after.is_empty() || after.starts_with([' ', '\t'])) {
            continue;
        }
        let prefix = &t[..i + c.len_utf8()];
        if !prompt(prefix) {
            continue;
        }
        let rest = after.trim();
        let known = first_word(rest).is_some_and(|w| KNOWN.contains(&w));
        // A bare `#` is a root prompt only before a known command; otherwise a comment.
        if prefix == "#" && !known {
            return None;
        }
        return Some(parse(rest));
    }
    None
}

/// Whether `prefix` (up to and including its last character, one of [`PROMPT_END`]) has the
/// shape of a prompt: at most four words of the characters prompts are made of (user, host,
/// directory, brackets, a virtualenv in parentheses). Output lines that contain a `>` or `#`
/// (`2: eth0: <BROADCAST,UP> mtu …`, `[stdout] …`) have others (`<`, `,`, `=`, two spaces).
fn prompt(prefix: &str) -> bool {
    let body = prefix[..prefix.len() - prefix.chars().last().map_or(0, char::len_utf8)].trim_end();
    if body.is_empty() {
        return true;
    }
    let words: Vec<&str> = body.split(' ').collect();
    words.len() <= 3
        && words.iter().all(|w| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "@:~/._-[]()+".contains(c))
        })
        // `12:` of a table row, `IP SA` of a field list: prompts are not numbers alone.
        && !body.chars().all(|c| c.is_ascii_digit() || c == ':')
}

/// The first word a command runs: after `sudo` (and its options) and `VAR=value`s.
fn first_word(text: &str) -> Option<&str> {
    stage_words(text.split('|').next().unwrap_or_default())
        .into_iter()
        .next()
}

fn stage_words(stage: &str) -> Vec<&str> {
    let mut words: Vec<&str> = stage.split_whitespace().collect();
    loop {
        match words.first() {
            Some(&"sudo") => {
                words.remove(0);
                while words.first().is_some_and(|w| w.starts_with('-')) {
                    words.remove(0);
                }
            }
            Some(w) if w.contains('=') && !w.starts_with('-') => {
                words.remove(0);
            }
            _ => return words,
        }
    }
}

fn parse(text: &str) -> Command {
    let mut stages = text.split('|').map(str::trim);
    let words = stage_words(stages.next().unwrap_or_default())
        .into_iter()
        .map(str::to_string)
        .collect();
    Command {
        text: text.to_string(),
        words,
        filter: stages.next().filter(|s| !s.is_empty()).map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Option<Vec<String>> {
        command(line).map(|c| c.words)
    }

    #[test]
    fn prompts_of_every_shape_give_the_command() {
        for line in [
            "$ ethtool -x eth1",
            "[root@dut ~]# ethtool -x eth1",
            "myhost:~# ethtool -x eth1",
            "estuary:/$ ethtool -x eth1",
            "[ec2-user ~]$ sudo ethtool -x eth1",
            "user@h:/$ ethtool -x eth1",
            "(venv) me@h ~/x ❯ ethtool -x eth1",
            "root@clr-19bebbac ~ # ethtool -x eth1",
            "# ethtool -x eth1",
            "sh-4.2$ ethtool -x eth1",
            "receiver$ ethtool -x eth1",
            "ethtool -x eth1",
            "sudo -E ethtool -x eth1",
            "~]$ ethtool -x eth1",
        ] {
            assert_eq!(
                words(line),
                Some(vec!["ethtool".into(), "-x".into(), "eth1".into()]),
                "{line}"
            );
        }
    }

    #[test]
    fn comments_outputs_and_pipes() {
        assert_eq!(command("# steerlab host capture of eth0, 2026"), None);
        assert_eq!(
            command("# The following is the parsable format, which can be fed to other"),
            None
        );
        assert_eq!(
            command("2: eth0: <BROADCAST,MULTICAST,UP> mtu 1500 qdisc mq state UP"),
            None
        );
        assert_eq!(command("    0:      0     1     2     3"), None);
        assert_eq!(command("IP SA"), None);
        assert_eq!(command("grep: /proc/irq/0/effective_affinity_list: No such file"), None);
        let c = command("firezone@vm:~$ sudo ethtool -x ens5 | grep -A 1 \"RSS hash key\"").unwrap();
        assert_eq!(c.words, ["ethtool", "-x", "ens5"]);
        assert_eq!(c.filter.as_deref(), Some("grep -A 1 \"RSS hash key\""));
        // A prompt before a command steerlab does not know is still a command (its output
        // is skipped); a prompt alone is a command of no words.
        assert_eq!(words("sigitp@host:~/x$ aws ec2 describe-instances").unwrap()[0], "aws");
        assert_eq!(words("sh-4.2$"), Some(vec![]));
    }
}
