//! Writing to stdout and stderr as a Unix tool does: a reader that goes away (`opgen json
//! FILE | head`) ends the program quietly, with the status a shell reports for a tool killed
//! by `SIGPIPE` (128 + 13), instead of a panic or an error message.

use std::fmt;
use std::io::{self, Write};

/// The exit status after the reader of stdout went away: 128 + `SIGPIPE`, what a shell
/// shows for `cat FILE | head` when `cat` is still writing.
pub const CLOSED_PIPE: i32 = 141;

/// Writes one line to stdout.
macro_rules! outln {
    () => { $crate::out::line(format_args!("")) };
    ($($arg:tt)*) => { $crate::out::line(format_args!($($arg)*)) };
}
pub(crate) use outln;

/// Writes `args` and a line break to stdout; see [`write_or_exit`].
pub fn line(args: fmt::Arguments<'_>) {
    let mut stdout = io::stdout().lock();
    write_or_exit(
        stdout
            .write_fmt(args)
            .and_then(|()| stdout.write_all(b"\n")),
    );
}

/// Writes `text` to stdout and flushes it; see [`write_or_exit`].
pub fn all(text: &str) {
    let mut stdout = io::stdout().lock();
    write_or_exit(
        stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush()),
    );
}

/// Ends the program when a write to stdout failed: quietly with [`CLOSED_PIPE`] when the
/// reader went away, else with a message and status 2.
pub fn write_or_exit(result: io::Result<()>) {
    let Err(e) = result else { return };
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(CLOSED_PIPE);
    }
    error(format_args!("cannot write the output: {e}"));
    std::process::exit(2);
}

/// Writes `error: MESSAGE` to stderr; a closed stderr is ignored (there is nowhere else to
/// say it).
pub fn error(message: fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr().lock(), "error: {message}");
}
