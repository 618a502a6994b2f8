//! Everything `arena` prints on stdout goes through [`out!`] and [`outln!`].
//!
//! `arena standings J | head -1` closes the pipe after one line; `println!`
//! then panics ("failed printing to stdout", exit code 101). A reader that has
//! seen enough is not an error, so, as ripgrep does, a write that finds the
//! pipe closed ends the process at once, quietly, with success. Any other
//! failure to write (a full disk under a redirection) is a plain error message
//! and [`exit::FAILURE`](crate::exit::FAILURE), not a panic.
//!
//! Styled text (the board of `arena play`) goes through the same calls:
//! `anstream` drops its colours where stdout is no terminal, a dumb one, or
//! `NO_COLOR` is set.
//!
//! Each call is flushed, so that the failure surfaces at the call that caused
//! it, not at exit. The commands print at their end, after their bots are shut
//! down, so nothing is left running by the early exit (`arena check` prints as
//! it goes: its bot then reads the end of its input, and on Linux it is killed
//! with the referee anyway).

use std::io::Write;

use crate::exit;

/// Writes `args` to stdout and flushes; a closed pipe ends the process quietly.
pub fn print(args: std::fmt::Arguments<'_>) {
    let mut stdout = anstream::stdout().lock();
    if let Err(error) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(i32::from(exit::SUCCESS));
        }
        eprintln!("arena: error: cannot write to stdout: {error}");
        std::process::exit(i32::from(exit::FAILURE));
    }
}

/// `print!` that ends the process quietly when stdout's reader has gone (see the module docs).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::print(format_args!($($arg)*))
    };
}

/// `println!` that ends the process quietly when stdout's reader has gone (see the module docs).
macro_rules! outln {
    () => {
        $crate::output::print(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::print(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {out, outln};
