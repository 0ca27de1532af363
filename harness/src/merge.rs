//! `ptxconform merge`: join the result folders of shards (`run --shard`) into the report one run
//! of the same work would have written: summary, JUnit, HTML, journal and divergence reports.

use crate::journal;
use crate::report::{write_all, CaseResult, RunInfo, Summary};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// Result folders of the shards (each a `run --out`).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where the merged report goes.
    #[arg(long)]
    pub out: PathBuf,
}

/// One shard's run description and results.
fn shard(dir: &Path) -> Result<(RunInfo, Vec<CaseResult>), String> {
    let summary = dir.join("summary.json");
    let text = std::fs::read_to_string(&summary).map_err(|e| {
        format!(
            "{}: {e} (an unfinished shard: run it again with --resume and the same --out)",
            summary.display()
        )
    })?;
    #[derive(serde::Deserialize)]
    struct Head {
        info: RunInfo,
    }
    let head: Head =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", summary.display()))?;
    let results = journal::read(&dir.join("journal.jsonl"))?;
    Ok((head.info, results))
}

/// The run description of the merged report: shards must have run in the same mode with the same
/// build; distinct devices and drivers are listed; the date is the latest.
fn merged_info(infos: &[(PathBuf, RunInfo)]) -> Result<RunInfo, String> {
    let (first_dir, first) = &infos[0];
    let mut info = first.clone();
    let join = |f: fn(&RunInfo) -> &String| {
        let mut v: Vec<&str> = Vec::new();
        for (_, i) in infos {
            if !v.contains(&f(i).as_str()) {
                v.push(f(i));
            }
        }
        v.join(", ")
    };
    for (dir, i) in &infos[1..] {
        if (i.mode.as_str(), i.ptxconform.as_str())
            != (first.mode.as_str(), first.ptxconform.as_str())
        {
            return Err(format!(
                "{} ran `{}` with ptxconform {}, {} ran `{}` with {}: shards of one run use one mode and one build",
                first_dir.display(),
                first.mode,
                first.ptxconform,
                dir.display(),
                i.mode,
                i.ptxconform
            ));
        }
    }
    info.device = join(|i| &i.device);
    info.driver = join(|i| &i.driver);
    info.date = infos
        .iter()
        .map(|(_, i)| i.date.clone())
        .max()
        .unwrap_or_default();
    Ok(info)
}

/// Copy every divergence report of the shards into `out/divergences` (the same name with other
/// content in two shards is an error).
fn divergences(dirs: &[PathBuf], out: &Path) -> Result<usize, String> {
    let to = out.join("divergences");
    let mut from: BTreeMap<std::ffi::OsString, PathBuf> = BTreeMap::new();
    for dir in dirs {
        let d = dir.join("divergences");
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e.map_err(|e| format!("{}: {e}", d.display()))?.path();
            let name = p.file_name().unwrap_or_default().to_os_string();
            if let Some(other) = from.get(&name) {
                let same = std::fs::read(other).ok() == std::fs::read(&p).ok();
                if !same {
                    return Err(format!(
                        "{} and {} differ: two shards reported the same case",
                        other.display(),
                        p.display()
                    ));
                }
                continue;
            }
            std::fs::create_dir_all(&to).map_err(|e| format!("{}: {e}", to.display()))?;
            std::fs::copy(&p, to.join(&name)).map_err(|e| format!("{}: {e}", p.display()))?;
            from.insert(name, p);
        }
    }
    Ok(from.len())
}

/// Merge; the exit code is `run`'s: 1 if a merged result is a failure.
pub fn main(args: &MergeArgs) -> Result<i32, String> {
    let mut infos = Vec::new();
    let mut by_key: BTreeMap<String, (PathBuf, CaseResult)> = BTreeMap::new();
    for dir in &args.dirs {
        if !dir.is_dir() {
            return Err(format!("{}: no such result folder", dir.display()));
        }
        let (info, results) = shard(dir)?;
        infos.push((dir.clone(), info));
        for r in results {
            let k = journal::key(&r.file, &r.case);
            if let Some((other, prev)) = by_key.get(&k) {
                let same = serde_json::to_string(prev).ok() == serde_json::to_string(&r).ok();
                if !same {
                    return Err(format!(
                        "case `{}` of {} has different results in {} and {}: shards overlap",
                        r.case,
                        r.file,
                        other.display(),
                        dir.display()
                    ));
                }
                continue;
            }
            by_key.insert(k, (dir.clone(), r));
        }
    }
    let info = merged_info(&infos)?;
    let results: Vec<CaseResult> = by_key.into_values().map(|(_, r)| r).collect();
    let (mut journal, _) = journal::Journal::open(&args.out.join("journal.jsonl"), false)?;
    for r in &results {
        journal.append(r)?;
    }
    let copied = divergences(&args.dirs, &args.out)?;
    let summary = Summary::new(info, results);
    write_all(&args.out, &summary)?;
    println!(
        "merged {} shard folders ({} results, {copied} divergence files)",
        args.dirs.len(),
        summary.results.len()
    );
    crate::run::print_summary(&summary, &args.out);
    Ok(if summary.failures() > 0 { 1 } else { 0 })
}
