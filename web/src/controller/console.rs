//! The console's log: each command with its output or error, and the commands typed (for
//! up/down recall). Bounded: the oldest lines go first.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

/// Console lines kept.
const CONSOLE_LINES: usize = 200;
/// Typed commands kept for recall.
const TYPED: usize = 200;

/// One console entry: the command and its output or error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsoleLine {
    /// The command as typed (or as a control applied it).
    pub command: String,
    /// Output (Ok) or error text (Err).
    pub output: Result<String, String>,
    /// Simulated time it ran at, ns.
    pub at_ns: u64,
    /// steerlab's own remark after the output (not the tool's): time is paused, say.
    pub note: Option<String>,
    /// Time went back to before it: the host no longer holds what it did.
    pub undone: bool,
}

/// The console as the page shows it: the lines, oldest first, and the commands typed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsoleView {
    /// Entries, oldest first.
    pub lines: Vec<ConsoleLine>,
    /// Commands typed, oldest first (up/down recall).
    pub typed: Vec<String>,
}

/// A host's console: what was run and what it answered. Held as the view itself, shared:
/// a frame takes it without a copy, and only a change copies it (copy on write) while the
/// last frame still holds the old one (`frame.rs` sends it only then).
#[derive(Clone, Debug, Default)]
pub struct ConsoleLog {
    view: Rc<ConsoleView>,
}

impl ConsoleLog {
    /// Records a command and its answer at simulated time `at_ns`, and the command for recall
    /// (once if repeated).
    pub fn record(&mut self, command: &str, output: Result<String, String>, at_ns: u64) {
        let typed = &mut Rc::make_mut(&mut self.view).typed;
        if typed.last().map(String::as_str) != Some(command) {
            typed.push(command.to_string());
            if typed.len() > TYPED {
                typed.remove(0);
            }
        }
        self.note(command, output, at_ns);
    }

    /// Records a line that is not a typed command (a timeline error, a refused command while
    /// a link restores).
    pub fn note(&mut self, command: &str, output: Result<String, String>, at_ns: u64) {
        let lines = &mut Rc::make_mut(&mut self.view).lines;
        lines.push(ConsoleLine {
            command: command.to_string(),
            output,
            at_ns,
            note: None,
            undone: false,
        });
        if lines.len() > CONSOLE_LINES {
            lines.drain(..lines.len() - CONSOLE_LINES);
        }
    }

    /// Adds steerlab's remark to the last line.
    pub fn remark(&mut self, text: &str) {
        if let Some(l) = Rc::make_mut(&mut self.view).lines.last_mut() {
            l.note = Some(text.to_string());
        }
    }

    /// Time went back to `t`: the commands that ran after it are undone (still listed, so the
    /// learner sees what the state no longer holds).
    pub fn undo_after(&mut self, t: u64) {
        if self
            .view
            .lines
            .iter()
            .any(|l| l.at_ns > t && l.output.is_ok() && !l.undone)
        {
            for l in Rc::make_mut(&mut self.view).lines.iter_mut() {
                l.undone |= l.at_ns > t && l.output.is_ok();
            }
        }
    }

    /// The lines, oldest first.
    pub fn lines(&self) -> impl Iterator<Item = &ConsoleLine> {
        self.view.lines.iter()
    }

    /// Commands typed, oldest first.
    pub fn typed(&self) -> &[String] {
        &self.view.typed
    }

    /// The view of it (shared, not copied).
    pub fn view(&self) -> Rc<ConsoleView> {
        self.view.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_lines_and_each_repeated_command_once() {
        let mut log = ConsoleLog::default();
        for i in 0..CONSOLE_LINES + 5 {
            log.record(&format!("cmd {}", i / 2), Ok(String::new()), i as u64);
        }
        assert_eq!(log.lines().count(), CONSOLE_LINES);
        assert_eq!(log.lines().next().unwrap().command, "cmd 2");
        assert_eq!(log.typed().len(), (CONSOLE_LINES + 5).div_ceil(2));
        log.note("(timeline)", Err("x".into()), 0);
        assert_eq!(log.typed().last().unwrap(), &format!("cmd {}", (CONSOLE_LINES + 4) / 2));
        log.undo_after(CONSOLE_LINES as u64);
        let undone: Vec<bool> = log.lines().map(|l| l.undone).collect();
        assert_eq!(
            undone.iter().filter(|&&u| u).count(),
            4,
            "the commands after the time, not the note"
        );
    }
}
