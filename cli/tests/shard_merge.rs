//! Sharded runs merged equal one run: `run --shard auto` under Slurm's and Kubernetes' variables,
//! then `merge`; and the example job files in deploy/ say what the binary expects.

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

/// A run's summary without what legitimately differs between runs (wall times, the date).
fn summary(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
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

    // Shards that overlap with different results, or a folder that is not a finished shard, are
    // errors naming the folders.
    let bad = tmp.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    let journal = std::fs::read_to_string(shards[0].join("journal.jsonl")).unwrap();
    let first = journal.lines().next().unwrap();
    let mut r: Value = serde_json::from_str(first).unwrap();
    r["detail"] = Value::String("something else".into());
    std::fs::write(bad.join("journal.jsonl"), format!("{r}\n")).unwrap();
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
    let half: String = journal.lines().take(1).map(|l| format!("{l}\n")).collect();
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
