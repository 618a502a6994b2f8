//! Everything `arena` prints goes through these macros: stdout through
//! [`out!`] and [`outln!`], stderr through [`err!`] and [`errln!`].
//!
//! `arena standings J | head -1` closes the pipe after one line; `println!`
//! then panics ("failed printing to stdout", exit code 101), and so does
//! `eprintln!` when stderr's reader has gone (`arena run FILE 2>&1 | head`).
//! A reader that has seen enough is not an error. The two streams differ in
//! what the rest of the run is worth:
//!
//! - **stdout** carries the product (the standings, a record, a board): as
//!   ripgrep does, a write that finds the pipe closed ends the process at
//!   once, quietly, with success. Any other failure to write (a full disk
//!   under a redirection) is a plain error message and
//!   [`exit::FAILURE`](crate::exit::FAILURE), not a panic.
//! - **stderr** carries what a run tells its organiser (progress, warnings,
//!   where the files are): a write to it is best effort and never fails the
//!   process, whatever the error (a closed pipe, a terminal hung up, a full
//!   disk). A tournament whose stderr was closed plays on to its end, and its
//!   journal and tables are whole; only what stdout says decides the exit.
//!   The progress display (pahtum-report) writes to stderr the same way, and
//!   indicatif, which draws the bar there on a terminal, ignores its write
//!   errors too.
//!
//! Styled text (the board of `arena play`) goes through the same calls:
//! `anstream` drops its colours where the stream is no terminal, a dumb one,
//! or `NO_COLOR` is set.
//!
//! Each call is flushed, so that the failure surfaces at the call that caused
//! it, not at exit. The commands print on stdout at their end, after their
//! bots are shut down, so nothing is left running by the early exit (`arena
//! check` prints its header before its games, when no bot runs yet, and its
//! report after them).

use std::io::Write;

use crate::exit;

/// Writes `args` to `stream` and flushes it.
fn write(mut stream: impl Write, args: std::fmt::Arguments<'_>) -> std::io::Result<()> {
    stream.write_fmt(args)?;
    stream.flush()
}

/// Writes `args` to stdout and flushes; a closed pipe ends the process quietly.
pub fn print(args: std::fmt::Arguments<'_>) {
    if let Err(error) = write(anstream::stdout().lock(), args) {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(i32::from(exit::SUCCESS));
        }
        eprint(format_args!("arena: error: cannot write to stdout: {error}\n"));
        std::process::exit(i32::from(exit::FAILURE));
    }
}

/// Writes `args` to stderr and flushes, ignoring any failure (see the module docs).
pub fn eprint(args: std::fmt::Arguments<'_>) {
    let _ = write(anstream::stderr().lock(), args);
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

/// `eprint!` that never panics nor fails the process when stderr cannot be written (see the module docs).
macro_rules! err {
    ($($arg:tt)*) => {
        $crate::output::eprint(format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics nor fails the process when stderr cannot be written (see the module docs).
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::output::eprint(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {err, errln, out, outln};
