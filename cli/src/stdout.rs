//! Standard output as a Unix filter writes it: when the reader goes away (`ptxconform run |
//! head`), the process ends quietly with the status a shell gives a process killed by SIGPIPE.
//!
//! SIGPIPE itself stays ignored (Rust's default): a worker process that died must not kill the
//! run through its stdin. A write to a closed pipe therefore fails with
//! [`io::ErrorKind::BrokenPipe`], and [`print`] decides on that kind. std's `print!` and
//! `println!` would panic instead, and a panic carries its cause only as message text; the
//! crate's own `print!` and `println!` (defined in `lib.rs`, shadowing std's in every module)
//! come here.

use std::fmt;
use std::io::{self, Write};

/// The exit status of a process killed by SIGPIPE, as a shell reports it (128 + 13).
pub const CLOSED_STATUS: i32 = 141;

/// Write `args` to stdout; end the process with [`CLOSED_STATUS`] if its reader is gone.
pub fn print(args: fmt::Arguments<'_>) {
    if let Err(e) = io::stdout().lock().write_fmt(args) {
        if reader_gone(&e) {
            std::process::exit(CLOSED_STATUS);
        }
        // Any other failure (a full disk behind a redirect) is as fatal as std makes it.
        panic!("failed printing to stdout: {e}");
    }
}

/// Whether a failed write means the reading end of stdout was closed.
fn reader_gone(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// The device a command runs on: `None` when told to stay on the reference, or when there is
/// no usable GPU (said in one line on standard output, with what the command does `instead`).
pub fn device_unless(
    reference_only: bool,
    ordinal: i32,
    instead: &str,
) -> Option<ptxconform_gpu::device::DeviceInfo> {
    if reference_only {
        return None;
    }
    match ptxconform_gpu::device::device_info(ordinal) {
        Ok(d) => Some(d),
        Err(why) => {
            println!("no GPU ({why}): {instead}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_broken_pipe_is_a_reader_gone() {
        assert!(reader_gone(&io::Error::from(io::ErrorKind::BrokenPipe)));
        for other in [
            io::ErrorKind::StorageFull,
            io::ErrorKind::PermissionDenied,
            io::ErrorKind::Other,
        ] {
            assert!(!reader_gone(&io::Error::from(other)), "{other:?}");
        }
    }
}
