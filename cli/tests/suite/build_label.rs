//! The build script's commit label: right, and read without writing the repository (a rewritten
//! `.git/index` made the README's second command rebuild the binary on a fresh clone).

#[path = "../../build.rs"]
#[allow(dead_code)]
mod build_script;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime};

fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "git {args:?}: {o:?}");
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

fn set_mtime(path: &Path, t: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

#[test]
fn the_label_names_the_commit_and_leaves_a_stale_index_alone() {
    let dir = std::env::temp_dir().join(format!("ptxc-build-label-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q"]);
    std::fs::write(dir.join("f"), "a\n").unwrap();
    git(&dir, &["add", "f"]);
    git(&dir, &["commit", "-qm", "x"]);
    let head = git(&dir, &["rev-parse", "--short", "HEAD"]);

    // The file's stat no longer matches the index (as after a fresh clone's checkout): a plain
    // `git status` would refresh and rewrite the index.
    let index = dir.join(".git/index");
    let past = SystemTime::now() - Duration::from_secs(60);
    set_mtime(&index, past);
    set_mtime(&dir.join("f"), SystemTime::now() - Duration::from_secs(30));
    let before = std::fs::metadata(&index).unwrap().modified().unwrap();

    assert_eq!(build_script::commit_label(&dir), head);
    let after = std::fs::metadata(&index).unwrap().modified().unwrap();
    assert_eq!(before, after, "the label rewrote .git/index");

    std::fs::write(dir.join("f"), "b\n").unwrap();
    assert_eq!(build_script::commit_label(&dir), format!("{head}+changes"));
    assert_eq!(
        build_script::commit_label(&dir.join("not-a-repo-below")),
        "unknown"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
