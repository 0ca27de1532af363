//! Sharded runs merged equal one run: `run --shard auto` under Slurm's and Kubernetes' variables,
//! then `merge`; every shard folder says which shard of which case set it holds, and `merge`
//! refuses a missing, doubled or foreign shard (unless `--allow-partial`, marked everywhere) and
//! result files of another schema version; a run that selects nothing is a tool error; and the
//! example job files in deploy/ say what the binary expects.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SCHEDULER_VARS: [&str; 4] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_COUNT",
    "JOB_COMPLETION_INDEX",
    "PTXCONFORM_SHARD_COUNT",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `ptxconform ARGS` with exactly the scheduler variables `env`.
fn ptxconform(args: &[&str], env: &[(&str, String)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptxconform"));
    c.args(args).env("CI", "1");
    for v in SCHEDULER_VARS {
        c.env_remove(v);
    }
    c.envs(env.iter().map(|(k, v)| (k, v)));
    c.output().expect("ptxconform runs")
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A run's summary without what legitimately differs between runs (wall times, the date).
fn summary(dir: &Path) -> Value {
    let mut v = json(&dir.join("summary.json"));
    v["info"]["date"] = Value::Null;
    for r in v["results"].as_array_mut().unwrap() {
        r["wall_us"] = Value::Null;
    }
    v
}

fn cases(v: &Value) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{}::{}", r["file"], r["case"]))
        .collect()
}

#[test]
fn four_shards_merged_equal_one_run() {
    let tmp = std::env::temp_dir().join(format!("ptxc-shards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let corpus: Vec<String> = ["cases/cp_async", "cases/mbarrier", "cases/bulk"]
        .iter()
        .map(|p| root().join(p).display().to_string())
        .collect();
    let run = |out: &Path, env: Vec<(&str, String)>, shard: bool| {
        let out = out.display().to_string();
        let mut args = vec!["run", "--reference-only", "--out", out.as_str()];
        if shard {
            args.extend(["--shard", "auto"]);
        }
        args.extend(corpus.iter().map(String::as_str));
        ptxconform(&args, &env)
    };
    let whole = tmp.join("whole");
    let shards: Vec<PathBuf> = (0..4).map(|i| tmp.join(format!("shard-{i}"))).collect();
    let outputs: Vec<Output> = std::thread::scope(|s| {
        let mut hs = vec![s.spawn(|| run(&whole, vec![], false))];
        for (i, dir) in shards.iter().enumerate() {
            // Two shards as Slurm array tasks, two as Kubernetes completion indexes.
            let env = if i < 2 {
                vec![
                    ("SLURM_ARRAY_TASK_ID", i.to_string()),
                    ("SLURM_ARRAY_TASK_COUNT", "4".to_string()),
                ]
            } else {
                vec![
                    ("JOB_COMPLETION_INDEX", i.to_string()),
                    ("PTXCONFORM_SHARD_COUNT", "4".to_string()),
                ]
            };
            let run = &run;
            hs.push(s.spawn(move || run(dir, env, true)));
        }
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for o in &outputs {
        assert!(
            o.status.code().is_some_and(|c| c <= 1),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // The run fails exactly when one of its shards does.
    let shard_code = outputs[1..].iter().filter_map(|o| o.status.code()).max();
    assert_eq!(shard_code, outputs[0].status.code());
    let mut seen = std::collections::BTreeSet::new();
    for dir in &shards {
        let cs = cases(&summary(dir));
        assert!(!cs.is_empty(), "{} is empty", dir.display());
        for c in cs {
            assert!(seen.insert(c.clone()), "{c} is in two shards");
        }
    }
    // A shard killed mid-write and resumed to the end can leave a torn line; it is not a result.
    let mut j = std::fs::OpenOptions::new()
        .append(true)
        .open(shards[3].join("journal.jsonl"))
        .unwrap();
    std::io::Write::write_all(&mut j, b"{\"case\":\"torn").unwrap();
    drop(j);
    let merged = tmp.join("merged");
    let mut args: Vec<String> = vec!["merge".into()];
    args.extend(shards.iter().map(|d| d.display().to_string()));
    args.extend(["--out".into(), merged.display().to_string()]);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let m = ptxconform(&argv, &[]);
    assert_eq!(
        m.status.code(),
        outputs[0].status.code(),
        "{}",
        String::from_utf8_lossy(&m.stderr)
    );
    let (one, joined) = (summary(&whole), summary(&merged));
    assert!(cases(&one).len() > 500, "{}", cases(&one).len());
    assert_eq!(seen.len(), cases(&one).len());
    assert_eq!(one, joined);
    for f in ["junit.xml", "report.html", "summary.md", "journal.jsonl"] {
        assert!(merged.join(f).is_file(), "{f}");
    }
    // Each shard says which shard of which case set it holds, in summary.json and in the journal's
    // header: the case set of the whole run (one fingerprint), the selection as given.
    let whole_scope = &one["scope"];
    assert_eq!(
        whole_scope["shards"],
        serde_json::json!({"count": 1, "held": [0]})
    );
    assert_eq!(whole_scope["case_set"]["cases"], cases(&one).len());
    assert_eq!(
        whole_scope["case_set"]["selection"]["paths"],
        serde_json::json!(corpus)
    );
    assert_eq!(one["partial"], false);
    for (i, dir) in shards.iter().enumerate() {
        let s = summary(dir);
        assert_eq!(
            s["scope"]["shards"],
            serde_json::json!({"count": 4, "held": [i]})
        );
        assert_eq!(s["scope"]["case_set"], whole_scope["case_set"]);
        assert_eq!(s["partial"], true);
        assert_eq!(s["schema_version"], 2);
        let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
        let header: Value = serde_json::from_str(journal.lines().next().unwrap()).unwrap();
        assert_eq!(header["schema_version"], 2);
        assert_eq!(header["scope"], s["scope"]);
    }
    // The result files meet their committed JSON Schemas.
    let validator =
        |name: &str| jsonschema::validator_for(&json(&root().join("docs").join(name))).unwrap();
    let (summary_schema, journal_schema) = (
        validator("summary.schema.json"),
        validator("journal.schema.json"),
    );
    for dir in [&whole, &merged, &shards[0]] {
        let s = json(&dir.join("summary.json"));
        let errors: Vec<String> = summary_schema
            .iter_errors(&s)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", dir.display());
        let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
        for line in journal.lines().filter(|l| !l.ends_with("\"torn")) {
            let v: Value = serde_json::from_str(line).unwrap();
            assert!(journal_schema.is_valid(&v), "{}: {line}", dir.display());
        }
    }
    // The schemas are strict enough to tell: a summary without its version fails.
    let mut unversioned = json(&whole.join("summary.json"));
    unversioned
        .as_object_mut()
        .unwrap()
        .remove("schema_version");
    assert!(!summary_schema.is_valid(&unversioned));

    // Shards that overlap with different results, or a folder that is not a finished shard, are
    // errors naming the folders.
    let bad = tmp.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    let journal = std::fs::read_to_string(shards[0].join("journal.jsonl")).unwrap();
    let (header, first) = (
        journal.lines().next().unwrap(),
        journal.lines().nth(1).unwrap(),
    );
    let mut r: Value = serde_json::from_str(first).unwrap();
    r["detail"] = Value::String("something else".into());
    std::fs::write(bad.join("journal.jsonl"), format!("{header}\n{r}\n")).unwrap();
    let mut sv: Value =
        serde_json::from_str(&std::fs::read_to_string(shards[0].join("summary.json")).unwrap())
            .unwrap();
    sv["results"] = Value::Array(vec![r]);
    std::fs::write(bad.join("summary.json"), sv.to_string()).unwrap();
    let out = tmp.join("m2").display().to_string();
    let (s0, b) = (shards[0].display().to_string(), bad.display().to_string());
    let e = ptxconform(&["merge", &s0, &b, "--out", &out], &[]);
    let err = String::from_utf8_lossy(&e.stderr);
    assert_eq!(e.status.code(), Some(2), "{err}");
    assert!(err.contains("shards overlap") && err.contains(&b), "{err}");
    let missing = tmp.join("nope").display().to_string();
    let e = ptxconform(&["merge", &s0, &missing, "--out", &out], &[]);
    assert!(String::from_utf8_lossy(&e.stderr).contains("no such result folder"));
    let e = ptxconform(&["merge", &tmp.display().to_string(), "--out", &out], &[]);
    assert!(String::from_utf8_lossy(&e.stderr).contains("no journal.jsonl"));
    // Shards of another mode (here: a hardware run) do not join.
    let other = tmp.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(shards[1].join("journal.jsonl"), other.join("journal.jsonl")).unwrap();
    let mut sv: Value =
        serde_json::from_str(&std::fs::read_to_string(shards[1].join("summary.json")).unwrap())
            .unwrap();
    sv["info"]["mode"] = Value::String("reference + hardware".into());
    std::fs::write(other.join("summary.json"), sv.to_string()).unwrap();
    let o = other.display().to_string();
    let e = ptxconform(&["merge", &s0, &o, "--out", &out], &[]);
    let err = String::from_utf8_lossy(&e.stderr);
    assert!(err.contains("one mode") && err.contains(&o), "{err}");
    // A journal that lost results beside a summary that has them (a rerun without --resume that
    // was killed) is not a finished shard.
    let half: String = journal.lines().take(2).map(|l| format!("{l}\n")).collect();
    std::fs::write(other.join("journal.jsonl"), half).unwrap();
    std::fs::copy(shards[0].join("summary.json"), other.join("summary.json")).unwrap();
    let e = ptxconform(&["merge", &o, "--out", &out], &[]);
    let err = String::from_utf8_lossy(&e.stderr);
    assert!(err.contains("different runs"), "{err}");
    // Nothing was written by the refused merges.
    assert!(!tmp.join("m2").exists());
    std::fs::remove_file(bad.join("summary.json")).unwrap();
    let e = ptxconform(&["merge", &b, "--out", &out], &[]);
    assert!(String::from_utf8_lossy(&e.stderr).contains("unfinished shard"));
    // `--shard auto` outside a scheduler says what it looks for.
    let e = ptxconform(&["run", "--reference-only", "--shard", "auto"], &[]);
    assert!(String::from_utf8_lossy(&e.stderr).contains("SLURM_ARRAY_TASK_ID"));
    std::fs::remove_dir_all(&tmp).ok();
}

/// `ptxconform merge DIRS... --out OUT EXTRA...`.
fn merge(dirs: &[&Path], out: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<String> = vec!["merge".into()];
    args.extend(dirs.iter().map(|d| d.display().to_string()));
    args.extend(["--out".into(), out.display().to_string()]);
    args.extend(extra.iter().map(|e| e.to_string()));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    ptxconform(&argv, &[])
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `run --reference-only --out OUT ARGS...` (case paths relative to the repository).
fn run_into(out: &Path, args: &[&str]) -> Output {
    let out = out.display().to_string();
    let mut argv = vec!["run", "--reference-only", "-q", "--out", out.as_str()];
    argv.extend(args);
    let o = Command::new(env!("CARGO_BIN_EXE_ptxconform"))
        .args(&argv)
        .current_dir(root())
        .env("CI", "1")
        .output()
        .expect("ptxconform runs");
    assert!(o.status.code().is_some_and(|c| c <= 1), "{}", stderr(&o));
    o
}

fn fresh(name: &str) -> PathBuf {
    let tmp = std::env::temp_dir().join(format!("ptxc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    tmp
}

/// A lost node does not shrink a run silently: three of four shards, a shard given twice, or a
/// shard of another case set is refused, naming the shard; `--allow-partial` merges the shards
/// present into a report marked partial in summary.json, JUnit, HTML and on the console, which
/// the missing shard completes later.
#[test]
fn missing_doubled_or_foreign_shards_are_refused() {
    let tmp = fresh("shards-refused");
    let shards: Vec<PathBuf> = (0..4).map(|i| tmp.join(format!("s{i}"))).collect();
    std::thread::scope(|s| {
        for (i, dir) in shards.iter().enumerate() {
            s.spawn(move || {
                run_into(
                    dir,
                    &["--shard", &format!("{i}/4"), "cases/bulk", "cases/mbarrier"],
                )
            });
        }
    });
    let all: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    let out = tmp.join("merged");
    let m = merge(&all[..3], &out, &[]);
    assert_eq!(m.status.code(), Some(2), "{}", stderr(&m));
    assert!(
        stderr(&m).contains("shard 3/4 missing (the folders hold 0/4, 1/4, 2/4 of"),
        "{}",
        stderr(&m)
    );
    assert!(!out.exists(), "a refused merge writes nothing");
    let m = merge(&[all[0], all[1], all[1], all[2], all[3]], &out, &[]);
    assert_eq!(m.status.code(), Some(2));
    assert!(
        stderr(&m).contains("shard 1/4 given twice"),
        "{}",
        stderr(&m)
    );
    // A shard of the same run on another corpus (here: one case left out).
    let foreign = tmp.join("s3-foreign");
    run_into(
        &foreign,
        &[
            "--shard",
            "3/4",
            "--exclude",
            "mbarrier.init.count1",
            "cases/bulk",
            "cases/mbarrier",
        ],
    );
    let m = merge(&[all[0], all[1], all[2], &foreign], &out, &[]);
    assert_eq!(m.status.code(), Some(2));
    assert!(
        stderr(&m).contains("shard 3/4 (")
            && stderr(&m).contains("ran a different case set than shard 0/4"),
        "{}",
        stderr(&m)
    );
    // --allow-partial lets a missing shard through, never a doubled one.
    let m = merge(&[all[0], all[0]], &out, &["--allow-partial"]);
    assert!(
        stderr(&m).contains("shard 0/4 given twice"),
        "{}",
        stderr(&m)
    );
    let m = merge(&all[..3], &out, &["--allow-partial"]);
    assert!(m.status.code().is_some_and(|c| c <= 1), "{}", stderr(&m));
    let console = String::from_utf8_lossy(&m.stdout);
    assert!(
        console.contains("PARTIAL: shard 0/4, 1/4, 2/4 of"),
        "{console}"
    );
    assert!(console.contains("missing 3/4"), "{console}");
    let partial = json(&out.join("summary.json"));
    assert_eq!(partial["partial"], true);
    assert_eq!(
        partial["scope"]["shards"],
        serde_json::json!({"count": 4, "held": [0, 1, 2]})
    );
    let junit = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    assert!(
        junit.contains("<testsuites name=\"ptxconform (PARTIAL)\">"),
        "{junit}"
    );
    assert!(junit.contains("<property name=\"partial\" value=\"PARTIAL: "));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<p id=\"scope\" class=\"fail\">PARTIAL: "));
    // The partial merge and the shard it lacks are the whole run.
    let complete = tmp.join("complete");
    let m = merge(&[&out, all[3]], &complete, &[]);
    assert!(m.status.code().is_some_and(|c| c <= 1), "{}", stderr(&m));
    let whole = json(&complete.join("summary.json"));
    assert_eq!(whole["partial"], false);
    assert_eq!(
        whole["scope"]["shards"],
        serde_json::json!({"count": 1, "held": [0]})
    );
    assert_eq!(
        whole["results"].as_array().unwrap().len(),
        whole["scope"]["case_set"]["cases"]
    );
    std::fs::remove_dir_all(&tmp).ok();
}

/// summary.json and the journal carry their schema version; `merge` and `run --resume` refuse
/// files of another version by name (files from before versions are version 1).
#[test]
fn result_files_of_another_schema_version_are_refused() {
    let tmp = fresh("shards-version");
    let run = tmp.join("run");
    run_into(&run, &["cases/bulk"]);
    let copy = |name: &str| {
        let d = tmp.join(name);
        std::fs::create_dir_all(&d).unwrap();
        for f in ["summary.json", "journal.jsonl"] {
            std::fs::copy(run.join(f), d.join(f)).unwrap();
        }
        d
    };
    let old_summary = copy("old-summary");
    let mut s = json(&old_summary.join("summary.json"));
    s.as_object_mut().unwrap().remove("schema_version");
    std::fs::write(old_summary.join("summary.json"), s.to_string()).unwrap();
    let out = tmp.join("merged");
    let m = merge(&[&old_summary], &out, &[]);
    assert_eq!(m.status.code(), Some(2));
    assert!(
        stderr(&m).contains("summary.json schema version 1, this ptxconform writes 2"),
        "{}",
        stderr(&m)
    );
    let old_journal = copy("old-journal");
    let j = std::fs::read_to_string(old_journal.join("journal.jsonl")).unwrap();
    let results: String = j.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(old_journal.join("journal.jsonl"), &results).unwrap();
    let m = merge(&[&old_journal], &out, &[]);
    assert_eq!(m.status.code(), Some(2));
    let version_1 = "journal.jsonl schema version 1, this ptxconform writes 2";
    assert!(stderr(&m).contains(version_1), "{}", stderr(&m));
    let o = old_journal.display().to_string();
    let r = ptxconform(
        &[
            "run",
            "--reference-only",
            "--resume",
            "--out",
            &o,
            &root().join("cases/bulk").display().to_string(),
        ],
        &[],
    );
    assert_eq!(r.status.code(), Some(2));
    assert!(stderr(&r).contains(version_1), "{}", stderr(&r));
    assert_eq!(
        std::fs::read_to_string(old_journal.join("journal.jsonl")).unwrap(),
        results,
        "a refused resume leaves the journal as it was"
    );
    // A newer summary is refused the same way.
    let mut s = json(&run.join("summary.json"));
    s["schema_version"] = 3.into();
    let newer = copy("newer");
    std::fs::write(newer.join("summary.json"), s.to_string()).unwrap();
    let m = merge(&[&newer], &out, &[]);
    assert!(stderr(&m).contains("summary.json schema version 3, this ptxconform writes 2"));
    assert!(!out.exists());
    std::fs::remove_dir_all(&tmp).ok();
}

/// Unsharded runs of different case sets merge into one report of both (scope `runs`); the same
/// run given twice is refused.
#[test]
fn unsharded_runs_merge_as_a_union() {
    let tmp = fresh("shards-union");
    let (a, b) = (tmp.join("bulk"), tmp.join("mbarrier"));
    std::thread::scope(|s| {
        s.spawn(|| run_into(&a, &["cases/bulk"]));
        s.spawn(|| run_into(&b, &["cases/mbarrier"]));
    });
    let out = tmp.join("merged");
    let m = merge(&[&a, &b], &out, &[]);
    assert!(m.status.code().is_some_and(|c| c <= 1), "{}", stderr(&m));
    let s = json(&out.join("summary.json"));
    assert_eq!(s["scope"]["kind"], "runs");
    assert_eq!(s["partial"], false);
    let n = |d: &Path| {
        json(&d.join("summary.json"))["results"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(n(&out), n(&a) + n(&b));
    let m = merge(&[&a, &b, &a], &tmp.join("m2"), &[]);
    assert_eq!(m.status.code(), Some(2));
    assert!(
        stderr(&m).contains("the whole run of `cases/bulk` given twice"),
        "{}",
        stderr(&m)
    );
    std::fs::remove_dir_all(&tmp).ok();
}

/// A shard that holds no case and a run without its corpus (started in the wrong folder) are
/// tool errors (exit 2) that say so, not an empty success or a failing "case".
#[test]
fn an_empty_shard_and_a_missing_corpus_are_tool_errors() {
    let tmp = fresh("shards-empty");
    let codes: Vec<(Option<i32>, String)> = (0..2)
        .map(|i| {
            let o = ptxconform(
                &[
                    "run",
                    "--reference-only",
                    "--shard",
                    &format!("{i}/2"),
                    "--filter",
                    "bulk.g2s.cta.16",
                    "--out",
                    &tmp.join(format!("s{i}")).display().to_string(),
                    &root().join("cases/bulk").display().to_string(),
                ],
                &[],
            );
            (o.status.code(), stderr(&o))
        })
        .collect();
    let empty: Vec<_> = codes.iter().filter(|(c, _)| *c == Some(2)).collect();
    assert_eq!(
        empty.len(),
        1,
        "one shard of 2 holds the one case: {codes:?}"
    );
    assert!(
        empty[0]
            .1
            .contains("holds none of the 1 selected cases: run fewer shards"),
        "{}",
        empty[0].1
    );
    let o = Command::new(env!("CARGO_BIN_EXE_ptxconform"))
        .args(["run", "--reference-only", "--out", "r"])
        .current_dir(&tmp)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no `cases/` folder in"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&tmp).ok();
}

fn yaml(path: &str) -> Value {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn example_job_files_shard_and_merge() {
    let job = yaml("deploy/k8s/ptxconform-indexed-job.yaml");
    assert_eq!(job["kind"], "Job");
    assert_eq!(job["spec"]["completionMode"], "Indexed");
    let container = &job["spec"]["template"]["spec"]["containers"][0];
    let count = container["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "PTXCONFORM_SHARD_COUNT")
        .expect("PTXCONFORM_SHARD_COUNT is set")["value"]
        .as_str()
        .unwrap()
        .parse::<u64>()
        .unwrap();
    assert_eq!(Some(count), job["spec"]["completions"].as_u64());
    let command = container["command"].to_string();
    assert!(command.contains("ptxconform run --shard auto"), "{command}");
    let merge = yaml("deploy/k8s/ptxconform-merge-job.yaml");
    let command = merge["spec"]["template"]["spec"]["containers"][0]["command"].to_string();
    assert!(
        command.contains("ptxconform merge /results/shard-*/"),
        "{command}"
    );

    // Both jobs run the image that deploy/container/Containerfile says it builds, on the claim
    // of ptxconform-results-pvc.yaml, which every shard pod can write at once.
    let text = |p: &str| std::fs::read_to_string(root().join(p)).unwrap();
    let containerfile = text("deploy/container/Containerfile");
    let readme = text("deploy/README.md");
    let pvc = yaml("deploy/k8s/ptxconform-results-pvc.yaml");
    assert_eq!(pvc["kind"], "PersistentVolumeClaim");
    assert_eq!(pvc["spec"]["accessModes"][0], "ReadWriteMany");
    for (name, job) in [("indexed", &job), ("merge", &merge)] {
        let pod = &job["spec"]["template"]["spec"];
        let image = pod["containers"][0]["image"].as_str().unwrap();
        for (doc, body) in [
            ("deploy/container/Containerfile", &containerfile),
            ("deploy/README.md", &readme),
        ] {
            assert!(
                body.contains(&format!("-t {image} .")),
                "{name} job: image {image} is not the one {doc} builds"
            );
        }
        assert_eq!(
            pod["volumes"][0]["persistentVolumeClaim"]["claimName"], pvc["metadata"]["name"],
            "{name} job"
        );
    }

    let shards = text("deploy/slurm/ptxconform-shards.sbatch");
    assert!(shards.contains("#SBATCH --array=0-3"));
    assert!(shards.contains("ptxconform run --shard auto"));
    assert!(text("deploy/slurm/ptxconform-merge.sbatch").contains("ptxconform merge"));
}
