//! Records the commit the binary is built from (`PTXCONFORM_BUILD_COMMIT`): results measured on
//! another machine name the code that ran, not whatever checkout the binary happens to run in.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    println!(
        "cargo:rustc-env=PTXCONFORM_BUILD_COMMIT={}",
        commit_label(here)
    );
    // A commit or a checkout moves these; an edit since the last commit shows in the sources,
    // which must turn the label into `+changes`. Not `.git/index`: any git command may refresh
    // it (a `git status` after a fresh clone does), and each rewrite would rebuild the binary.
    for f in git_paths(here, &["HEAD"]).into_iter().chain(head_ref(here)) {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    for f in ["src", "../reference/src", "../core/src", "../gpu/src"] {
        println!("cargo:rerun-if-changed={f}");
    }
}

/// `abc1234`, `abc1234+changes` when tracked files differ from it, or `unknown` outside a
/// checkout. Reads the repository without writing it: a plain `git status` refreshes a stale
/// index (as on a fresh clone), and the rewritten index would make the next cargo command rebuild.
pub fn commit_label(dir: &Path) -> String {
    let Some(commit) = git(dir, &["rev-parse", "--short", "HEAD"]) else {
        return "unknown".to_string();
    };
    let dirty =
        git(dir, &["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    if dirty {
        format!("{commit}+changes")
    } else {
        commit
    }
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .arg("--no-optional-locks")
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// Where git keeps these files for this checkout (a worktree's are not under `../.git`).
fn git_paths(dir: &Path, names: &[&str]) -> Vec<PathBuf> {
    names
        .iter()
        .filter_map(|n| {
            git(
                dir,
                &["rev-parse", "--path-format=absolute", "--git-path", n],
            )
        })
        .map(PathBuf::from)
        .filter(|p| p.exists())
        .collect()
}

/// The branch file a commit moves (`refs/heads/main`), when HEAD names a branch.
fn head_ref(dir: &Path) -> Vec<PathBuf> {
    git(dir, &["symbolic-ref", "-q", "HEAD"])
        .map(|r| git_paths(dir, &[r.as_str()]))
        .unwrap_or_default()
}
