//! Records the commit the binary is built from (`PTXCONFORM_BUILD_COMMIT`): results measured on
//! another machine name the code that ran, not whatever checkout the binary happens to run in.

fn main() {
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let dirty = std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .is_some_and(|o| !o.stdout.is_empty());
    let commit = match (commit.is_empty(), dirty) {
        (true, _) => "unknown".to_string(),
        (false, true) => format!("{commit}+changes"),
        (false, false) => commit,
    };
    println!("cargo:rustc-env=PTXCONFORM_BUILD_COMMIT={commit}");
    // The sources too: an edit since the last commit must turn the label into `+changes`.
    for f in [
        "../.git/HEAD",
        "../.git/index",
        "src",
        "../reference/src",
        "../core/src",
        "../gpu/src",
    ] {
        println!("cargo:rerun-if-changed={f}");
    }
}
