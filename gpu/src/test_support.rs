//! How a test that cannot check anything here (no ptxas, no GPU) says so.

use std::io::Write;

/// Say in the normal `cargo test` output that the running test skipped its checks, why, and
/// which variable makes that a failure. libtest captures the `print!` / `eprint!` macros and
/// shows them for failing tests only, so a passing test's `eprintln!` would hide the skip; a
/// write to the stderr handle is not captured. libtest runs each test on a thread named for it.
pub fn note(why: &str, require_env: &str) {
    let name = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let _ = writeln!(
        std::io::stderr(),
        "note: {name} SKIPPED its checks: {why} ({require_env}=1 makes this a failure)"
    );
}
