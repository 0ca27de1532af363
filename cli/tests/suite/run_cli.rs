//! `ptxconform run` selection and output, through the built binary on small corpora copied from
//! cases/ (reference-only): a folder of earlier results needs --resume or --force, --resume
//! counts each case once, --list / --filter / --exclude / --case-list, a missing path, -q / -v,
//! --format json and colour.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A scratch folder with a corpus of `files` (paths under cases/) in `corpus/`.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str, files: &[&str]) -> Scratch {
        let dir = std::env::temp_dir().join(format!("ptxc-runcli-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("corpus")).unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        for f in files {
            let to = dir.join("corpus").join(f.replace('/', "_"));
            std::fs::copy(root.join(f), to).unwrap();
        }
        Scratch(dir)
    }
    /// `ptxconform run --reference-only CORPUS ARGS` in the scratch folder.
    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ptxconform"))
            .args(["run", "--reference-only", "corpus"])
            .args(args)
            .current_dir(&self.0)
            .env("CI", "1")
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .output()
            .unwrap()
    }
    fn summary(&self, out: &str) -> Value {
        let text = std::fs::read_to_string(self.0.join(out).join("summary.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// (file, case) of every result, in order.
fn results(s: &Value) -> Vec<(String, String)> {
    s["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["file"].to_string(), r["case"].to_string()))
        .collect()
}

#[test]
fn a_folder_of_earlier_results_needs_resume_or_force() {
    let s = Scratch::new(
        "out",
        &["cp_async/groups.yaml", "examples/mbarrier_phase.yaml"],
    );
    let first = s.run(&["--out", "out"]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let before = s.summary("out");
    assert_eq!(results(&before).len(), 12);

    let again = s.run(&["--out", "out"]);
    let err = text(&again.stderr);
    assert_eq!(again.status.code(), Some(2), "{err}");
    assert!(
        err.contains("earlier run") && err.contains("--resume") && err.contains("--force"),
        "{err}"
    );
    // Refused: the folder is as it was.
    assert_eq!(s.summary("out"), before);

    // --force discards the old results, stale divergence reports included.
    std::fs::create_dir_all(s.0.join("out/divergences")).unwrap();
    std::fs::write(s.0.join("out/divergences/stale.yaml"), "old").unwrap();
    let forced = s.run(&["--out", "out", "--force", "--filter", "empty_group_only"]);
    assert_eq!(forced.status.code(), Some(0), "{}", text(&forced.stderr));
    assert!(!s.0.join("out/divergences").exists());
    assert_eq!(results(&s.summary("out")).len(), 1);
    let journal = std::fs::read_to_string(s.0.join("out/journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 2, "the header and the one result");

    let both = s.run(&["--out", "out", "--force", "--resume"]);
    assert_eq!(both.status.code(), Some(2));
}

/// Resuming a finished run, a journal with a case twice and a torn last line, and results of
/// cases that did not load: one result per case, the same counts as the run itself.
#[test]
fn resume_counts_each_case_once() {
    let s = Scratch::new("resume", &["cp_async/groups.yaml", "bulk/s2g.yaml"]);
    let bad = "- name: bad\n  target: sm_90a\n  progrm: [ { ptx: cp.async.wait_all } ]\n";
    let good = "- name: now.good\n  target: sm_90a\n  program: [ { ptx: cp.async.wait_all } ]\n";
    std::fs::write(s.0.join("corpus/mixed.yaml"), bad).unwrap();
    let first = s.run(&["--out", "out"]);
    assert_eq!(first.status.code(), Some(1), "{}", text(&first.stderr));
    let whole = s.summary("out");
    let n = results(&whole).len();
    assert_eq!(n, 10 + 14 + 1);

    // A finished run resumed reports the same results.
    let r = s.run(&["--out", "out", "--resume"]);
    assert_eq!(r.status.code(), Some(1), "{}", text(&r.stderr));
    assert_eq!(s.summary("out")["totals"], whole["totals"]);
    assert_eq!(results(&s.summary("out")), results(&whole));

    // A journaled case twice and half a line at the end.
    let jp = s.0.join("out/journal.jsonl");
    let j = std::fs::read_to_string(&jp).unwrap();
    let dup = j.lines().nth(3).unwrap();
    std::fs::write(&jp, format!("{j}{dup}\n{{\"case\":\"cp_async.gr")).unwrap();
    let r = s.run(&["--out", "out", "--resume"]);
    assert_eq!(r.status.code(), Some(1), "{}", text(&r.stderr));
    assert_eq!(results(&s.summary("out")), results(&whole));
    assert_eq!(s.summary("out")["totals"], whole["totals"]);
    let lines = std::fs::read_to_string(&jp).unwrap().lines().count();
    assert_eq!(
        lines,
        1 + n,
        "the journal holds its header and one line per result"
    );

    // The bad case is fixed: its load error goes, the case runs.
    std::fs::write(s.0.join("corpus/mixed.yaml"), good).unwrap();
    let r = s.run(&["--out", "out", "--resume"]);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stdout));
    let cases: Vec<String> = results(&s.summary("out"))
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    assert_eq!(cases.len(), n);
    assert!(cases.contains(&"\"now.good\"".to_string()), "{cases:?}");
    assert!(!cases.iter().any(|c| c.contains("<case")), "{cases:?}");
}

#[test]
fn list_filter_exclude_and_case_lists() {
    let s = Scratch::new(
        "list",
        &[
            "cp_async/groups.yaml",
            "bulk/g2s.yaml",
            "tcgen05/alloc.yaml",
        ],
    );
    let list = |args: &[&str]| {
        let mut a = vec!["--list", "--out", "never"];
        a.extend(args);
        let o = s.run(&a);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
        text(&o.stdout)
            .lines()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let all = list(&[]);
    assert_eq!(all.len(), 10 + 19 + 7);
    assert!(all.contains(&"corpus/bulk_g2s.yaml:bulk.g2s.cta.16".to_string()));
    // --list runs nothing and writes nothing.
    assert!(!s.0.join("never").exists());

    // A plain text is a substring (as before), a glob matches the whole name.
    let sub = list(&["--filter", "g2s.cta.1"]);
    assert!(!sub.is_empty() && sub.iter().all(|l| l.contains("g2s.cta.1")));
    assert_eq!(
        s.run(&["--list", "--filter", "g2s.cta.1*"]).status.code(),
        Some(2)
    );
    let glob = list(&["--filter", "bulk.g2s.cta.1*"]);
    assert_eq!(glob, sub);
    // With `/` or `:` a pattern is matched against FILE:NAME; excludes win.
    let tc = list(&["--filter", "*tcgen05_alloc.yaml:*"]);
    assert_eq!(tc.len(), 7);
    let some = list(&["--filter", "corpus/tcgen05*", "--exclude", "*cta_group2*"]);
    assert_eq!(some.len(), 5);
    assert!(some.iter().all(|l| !l.contains("cta_group2")));
    let two = list(&[
        "--filter",
        "empty_group_only",
        "--filter",
        "bulk.g2s.cta.16",
    ]);
    assert_eq!(two.len(), 2);

    // A case list: names, FILE:NAME (as --list prints them), globs; comments and blank lines.
    std::fs::write(
        s.0.join("must.txt"),
        format!(
            "# smoke\n\n{}\ncp_async.groups.empty_group_only\n  bulk.g2s.cta.16  \nno.such.case\n",
            all[all.len() - 1]
        ),
    )
    .unwrap();
    let o = s.run(&["--list", "--case-list", "must.txt"]);
    assert_eq!(o.status.code(), Some(0));
    let listed = text(&o.stdout);
    assert_eq!(listed.lines().count(), 3, "{listed}");
    let err = text(&o.stderr);
    assert!(
        err.contains("warning: must.txt:6: `no.such.case` matches no case"),
        "{err}"
    );

    // JSON for machines: every listed case with its file and family.
    let o = s.run(&["--list", "--format", "json", "--filter", "tcgen05.alloc*"]);
    let v: Value = serde_json::from_slice(&o.stdout).expect("stdout is JSON");
    let v = v.as_array().unwrap();
    assert!(!v.is_empty());
    assert!(v.iter().all(|c| c["file"] == "corpus/tcgen05_alloc.yaml"
        && c["family"].as_str().unwrap().starts_with("tcgen05.")));

    // Bad selections are errors that say where; so is a path that does not exist (not a
    // failing "case" of a report).
    for (args, says) in [
        (
            vec!["missing.yaml"],
            "missing.yaml: no such file or directory",
        ),
        (vec!["--case-list", "missing.txt"], "missing.txt"),
        (vec!["--filter", "a[b"], "--filter: invalid pattern `a[b`"),
        (
            vec!["--filter", "nothing.matches.this"],
            "no cases selected by",
        ),
    ] {
        let o = s.run(&args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn quiet_verbose_json_and_colour() {
    let s = Scratch::new("output", &["cp_async/groups.yaml"]);
    std::fs::write(
        s.0.join("corpus/bad.yaml"),
        "name: bad\ntarget: sm_90a\nprogrm: []\n",
    )
    .unwrap();
    let run = |args: &[&str]| {
        let mut a = vec!["--force", "--out", "out"];
        a.extend(args);
        let o = s.run(&a);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", text(&o.stderr));
        (text(&o.stdout), text(&o.stderr))
    };
    // -q: the failure and the totals line, nothing else.
    let (out, _) = run(&["-q"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("FAIL corpus/bad.yaml: <file>: reference FAIL"));
    assert!(lines[1].starts_with("total: 11 cases — "), "{out}");
    // -v: a line per result, then the table.
    let (out, _) = run(&["-v"]);
    let per_case = out
        .lines()
        .filter(|l| l.starts_with("corpus/cp_async_groups.yaml: "))
        .count();
    assert_eq!(per_case, 10, "{out}");
    assert!(out.contains("  total "), "{out}");
    assert!(
        out.contains("\n11 cases on the reference model only, profile sm_90\n"),
        "{out}"
    );
    // Family rows carry instruction names.
    assert!(out.contains("  cp.async.commit_group "), "{out}");
    assert!(!out.contains("async-group"), "{out}");
    // No colour into a pipe; --color always colours verdict names.
    assert!(!out.contains('\x1b'));
    let (out, _) = run(&["--color", "always"]);
    assert!(out.contains("reference FAIL\x1b[0m"), "{out}");
    assert!(out.contains("\x1b[32mreference pass\x1b[0m"), "{out}");

    // --format json: stdout is one JSON document, the summary.json counts with the failures.
    let (out, err) = run(&["--format", "json", "-v", "--color", "always"]);
    let v: Value = serde_json::from_str(&out).expect("stdout is JSON");
    let summary = s.summary("out");
    assert_eq!(v["counts"], summary["counts"]);
    assert_eq!(v["totals"], summary["totals"]);
    assert_eq!(v["cases"], 11);
    assert_eq!(v["failures"].as_array().unwrap().len(), 1);
    assert_eq!(v["failures"][0]["case"], "<file>");
    // The per-result lines went to stderr.
    assert!(err.contains("corpus/cp_async_groups.yaml: "), "{err}");
}

/// `--profile`: the recorded H100 reductions judged under sm_90 pass, the H3 / H4 cases with a
/// spec departure in the console, summary.json and JUnit; under spec those cases fail the run.
#[test]
fn profile_decides_what_a_spec_departure_is() {
    let s = Scratch::new("profile", &["reduce/global.yaml"]);
    let base = ["--replay", "H100", "--filter", "reduce.global.add.f*"];
    let run = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend(extra);
        s.run(&a)
    };
    let o = run(&["--out", "sm90"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(out.contains("judged under profile sm_90"), "{out}");
    assert_eq!(out.matches("\nSPEC DEPARTURE ").count(), 5, "{out}");
    let v = s.summary("sm90");
    assert_eq!(v["info"]["profile"], "sm_90");
    assert_eq!(v["departures"]["P-RED-F32-SUBNORMALS"], 3);
    assert_eq!(v["departures"]["P-RED-F64-NAN-OPERAND"], 2);
    let junit = std::fs::read_to_string(s.0.join("sm90/junit.xml")).unwrap();
    assert!(junit.contains("<property name=\"profile\" value=\"sm_90\"/>"));
    assert_eq!(junit.matches("name=\"spec departure\"").count(), 5);

    let o = run(&["--out", "spec", "--profile", "spec", "-q"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("FAIL ")).count(),
        5,
        "{out}"
    );
    let v = s.summary("spec");
    assert_eq!(v["info"]["profile"], "spec");
    assert_eq!(v["departures"], serde_json::json!({}));
}

/// `--replay`: a recording that disagrees with the model is reported as the divergence a live run
/// seeing it would report (verdict, byte differences, a `divergences/` entry with the case, the
/// observation and the PTX), while the other devices' recordings are still replayed as the
/// case's expectations.
#[test]
fn a_replayed_recording_that_disagrees_is_a_divergence() {
    let s = Scratch::new("replay-diverge", &["cp_async/groups.yaml"]);
    let file = s.0.join("corpus/cp_async_groups.yaml");
    let text_of = std::fs::read_to_string(&file).unwrap();
    // The first case's H100 recording (its first region line) no longer matches the model.
    let good = "a@cta0: 9d3080237d64f550a1136b7ad25c2a43";
    assert!(text_of.contains(good));
    let tampered = text_of.replacen(good, "a@cta0: 0d3080237d64f550a1136b7ad25c2a43", 1);
    std::fs::write(&file, tampered).unwrap();
    let case = "cp_async.groups.two_groups_wait_all";

    let o = s.run(&["--replay", "H100", "--filter", case, "--out", "h100"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let v = s.summary("h100");
    let r = &v["results"][0];
    assert_eq!(r["verdict"], "diverge", "{r}");
    assert!(
        r["differences"].as_array().is_some_and(|d| !d.is_empty()),
        "{r}"
    );
    let report = s.0.join("h100/divergences").join(format!("{case}.yaml"));
    let yaml = std::fs::read_to_string(&report).unwrap();
    assert!(yaml.contains("0d3080237d64f550a1136b7ad25c2a43"), "{yaml}");
    let ptx = std::fs::read_to_string(report.with_extension("ptx")).unwrap();
    assert!(ptx.contains("cp.async"), "{ptx}");

    // The H200 recording is untouched: replaying it passes, the H100 one still checked first.
    let o = s.run(&["--replay", "H200", "--filter", case, "--out", "h200"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_eq!(s.summary("h200")["results"][0]["verdict"], "reference_fail");
}

/// Without a GPU, `run` still says where its time went (the README promises a `timing:` line);
/// `-q` leaves it out.
#[test]
fn a_run_says_where_its_time_went() {
    let s = Scratch::new("timing", &["cp_async/groups.yaml"]);
    let timing = |o: &Output| {
        text(&o.stderr)
            .lines()
            .filter(|l| l.starts_with("timing: "))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let o = s.run(&["--out", "plain"]);
    let t = timing(&o);
    assert_eq!(t.len(), 1, "{}", text(&o.stderr));
    let cases = s.summary("plain")["results"].as_array().unwrap().len();
    assert!(
        t[0].starts_with("timing: reference ") && t[0].ends_with(&format!(" for {cases} cases")),
        "{t:?}"
    );
    let o = s.run(&["--out", "replay", "--replay", "H100"]);
    let t = timing(&o);
    assert_eq!(t.len(), 1, "{}", text(&o.stderr));
    assert!(t[0].contains("recorded observations"), "{t:?}");
    assert!(timing(&s.run(&["--out", "quiet", "-q"])).is_empty());
}

/// A refused --out is said before the corpus loads (nothing the load says comes first), whether
/// it holds an earlier run or cannot be a folder at all.
#[test]
fn a_refused_out_is_said_before_loading() {
    let s = Scratch::new("early", &["cp_async/groups.yaml"]);
    // The load warns that this line of the case list matches no case.
    std::fs::write(s.0.join("list.txt"), "no.such.case\n").unwrap();
    let first = s.run(&["--out", "out"]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    std::fs::write(s.0.join("a-file"), "").unwrap();
    for out in ["out", "a-file/out"] {
        let r = s.run(&["--out", out, "--case-list", "list.txt"]);
        let err = text(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{err}");
        assert!(err.contains(out), "{err}");
        assert!(
            !err.contains("warning"),
            "the corpus was loaded first: {err}"
        );
    }
}

/// Ctrl-C ends a run saying how to resume it, its journal holding whole results only; the
/// resumed run finishes it, each case counted once.
#[test]
fn ctrl_c_says_how_to_resume() {
    let s = Scratch::new("sigint", &[]);
    // Cases the reference takes a while over (an 8 MiB region each), so the run is in progress.
    let n = 30;
    let cases: String = (0..n)
        .map(|i| {
            format!(
                "- name: slow.{i}\n  target: sm_80\n  memory:\n    global: [ {{ name: src, size: 8388608, init: {{ hash: {i} }} }} ]\n    shared: [ {{ name: dst, size: 16 }} ]\n  program:\n    - ptx: cp.async.cg.shared.global [dst], [src], 16\n    - ptx: cp.async.wait_all\n"
            )
        })
        .collect();
    std::fs::write(s.0.join("corpus/slow.yaml"), cases).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_ptxconform"))
        .args(["run", "--reference-only", "corpus", "--out", "out"])
        .current_dir(&s.0)
        .env("CI", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let journal = s.0.join("out/journal.jsonl");
    let t0 = std::time::Instant::now();
    // The journal's first line is its header; results follow.
    let results_in = |j: &str| {
        j.lines()
            .filter(|l| !l.contains("\"schema_version\""))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    while std::fs::read_to_string(&journal).map_or(0, |j| results_in(&j).len()) == 0 {
        assert!(t0.elapsed().as_secs() < 60, "no result journaled");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let r = child.wait_with_output().unwrap();
    let err = text(&r.stderr);
    assert_eq!(r.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted; resume with: ")
            && err.contains(" run --reference-only corpus --out out --resume"),
        "{err}"
    );
    let lines = results_in(&std::fs::read_to_string(&journal).unwrap());
    assert!(
        !lines.is_empty() && lines.len() < n,
        "{} results",
        lines.len()
    );
    for l in &lines {
        serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}"));
    }
    let resumed = s.run(&["--out", "out", "--resume"]);
    assert_eq!(resumed.status.code(), Some(0), "{}", text(&resumed.stderr));
    assert_eq!(results(&s.summary("out")).len(), n);
}

/// `--resume` of a folder holding another run's results (another shard, another selection) is
/// refused and leaves them alone, rather than dropping them or counting them as this run's.
#[test]
fn resume_refuses_another_runs_results() {
    let s = Scratch::new("resume-scope", &["cp_async/groups.yaml", "bulk/s2g.yaml"]);
    let first = s.run(&["--out", "out", "--shard", "0/2"]);
    assert!(
        matches!(first.status.code(), Some(0 | 1)),
        "{}",
        text(&first.stderr)
    );
    let journal = std::fs::read_to_string(s.0.join("out/journal.jsonl")).unwrap();
    for other in [
        vec!["--shard", "1/2"],
        vec!["--shard", "0/2", "--filter", "cp_async.*"],
    ] {
        let mut args = vec!["--out", "out", "--resume"];
        args.extend(other);
        let r = s.run(&args);
        let err = text(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("another run") && err.contains("--force"),
            "{err}"
        );
        let after = std::fs::read_to_string(s.0.join("out/journal.jsonl")).unwrap();
        assert_eq!(journal, after);
    }
    let same = s.run(&["--out", "out", "--shard", "0/2", "--resume"]);
    assert!(
        matches!(same.status.code(), Some(0 | 1)),
        "{}",
        text(&same.stderr)
    );
}
