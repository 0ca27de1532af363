//! Ctrl-C during a job that `--resume` continues (`run`, `fuzz`): the first asks the job to stop
//! where its journal holds only whole results; a second ends the process at once. Either way the
//! job ends saying how to resume it, and with exit status 130 (killed by SIGINT, as shells count).

use std::ffi::OsString;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Exit status of a job that Ctrl-C ended (128 + SIGINT).
pub const EXIT: i32 = 130;

static REQUESTED: AtomicBool = AtomicBool::new(false);
static MESSAGE: OnceLock<String> = OnceLock::new();

/// Catch Ctrl-C for the rest of the process; the resume command is this process's own command
/// line with `--resume`.
pub fn catch() -> Result<(), String> {
    let _ = MESSAGE.set(message(std::env::args_os()));
    ctrlc::set_handler(|| {
        if REQUESTED.swap(true, Ordering::SeqCst) {
            // The second Ctrl-C: the job did not reach a stopping point; a journal line being
            // written may be torn, which `--resume` drops.
            stop();
        }
    })
    .map_err(|e| format!("cannot catch Ctrl-C: {e}"))
}

/// Has Ctrl-C asked the job to stop?
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// End the process as interrupted, saying how to resume.
pub fn stop() -> ! {
    if let Some(m) = MESSAGE.get() {
        eprintln!("\n{m}");
    }
    std::process::exit(EXIT)
}

/// `interrupted; resume with: PROGRAM ARGS --resume` for this command line: `--force` (which
/// would discard the results) dropped, `--resume` added unless there.
fn message(args: impl IntoIterator<Item = OsString>) -> String {
    let mut words: Vec<String> = args
        .into_iter()
        .map(|a| shell_word(&a.to_string_lossy()))
        .filter(|w| w != "--force")
        .collect();
    if !words.iter().any(|w| w == "--resume") {
        words.push("--resume".into());
    }
    format!("interrupted; resume with: {}", words.join(" "))
}

/// `word` as a shell reads it back: quoted when it holds anything but plain characters.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resume_command_is_the_command_line_with_resume() {
        let m = |args: &[&str]| message(args.iter().map(OsString::from));
        assert_eq!(
            m(&[
                "ptxconform",
                "run",
                "cases",
                "--out",
                "my runs/a",
                "--force"
            ]),
            "interrupted; resume with: ptxconform run cases --out 'my runs/a' --resume"
        );
        assert_eq!(
            m(&["./ptxconform", "fuzz", "--resume", "--filter", "it's"]),
            r"interrupted; resume with: ./ptxconform fuzz --resume --filter 'it'\''s'"
        );
    }
}
