//! The width the terminal's standings table fits (pahtum-report's `fit`, which takes it as a plain
//! number): `COLUMNS` when it holds a number, so that a script, a test or a person can choose; else the
//! width of the terminal that stdout is; else 80, the width a table piped to a file or a pager is written
//! for (as `ls` does). It is read when the table is printed, so that a terminal resized during a run counts.

use std::io::IsTerminal;

/// The width when `COLUMNS` says nothing and stdout is no terminal.
pub const DEFAULT: usize = 80;

/// The width to fit the standings table to, by the rule of the module docs.
pub fn width() -> usize {
    let terminal = || {
        let stdout = std::io::stdout();
        if !stdout.is_terminal() {
            return None;
        }
        rustix::termios::tcgetwinsize(&stdout).ok().map(|size| size.ws_col)
    };
    width_of(std::env::var("COLUMNS").ok().as_deref(), terminal)
}

/// [`width`] from `COLUMNS` (`None` when unset) and the terminal's width (`None` when stdout is none).
fn width_of(columns: Option<&str>, terminal: impl FnOnce() -> Option<u16>) -> usize {
    let positive = |width: &usize| *width > 0;
    columns
        .and_then(|columns| columns.trim().parse::<usize>().ok())
        .filter(positive)
        .or_else(|| terminal().map(usize::from).filter(positive))
        .unwrap_or(DEFAULT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_first_then_the_terminal_then_80() {
        assert_eq!(width_of(Some("132"), || Some(100)), 132);
        assert_eq!(width_of(Some(" 60 "), || None), 60);
        assert_eq!(width_of(Some("wide"), || Some(100)), 100);
        assert_eq!(width_of(Some("0"), || Some(100)), 100);
        assert_eq!(width_of(None, || Some(100)), 100);
        assert_eq!(width_of(None, || Some(0)), DEFAULT);
        assert_eq!(width_of(Some(""), || None), DEFAULT);
    }
}
