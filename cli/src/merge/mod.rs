//! `ptxconform merge`: join the result folders of shards (`run --shard`) into the report one run
//! of the same work would have written: summary, JUnit, HTML, journal and divergence reports.
//! Every folder says which shards of which case set it holds ([`account`]): a missing, doubled
//! or foreign shard is refused, unless `--allow-partial` lets missing ones through into a report
//! marked partial. Unsharded runs of different case sets join into a union of whole runs.
//! Everything is read and checked before anything is written, so a refused merge leaves `--out`
//! as it was.

mod account;

use crate::journal;
use crate::report::write_all;
use crate::schema_version::{declared, FileKind};
use ptxconform_core::result::{CaseResult, RunInfo, Scope, Summary};
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// Result folders of the shards (each a `run --out`).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where the merged report goes.
    #[arg(long)]
    pub out: PathBuf,
    /// Merge even if shards are missing (a lost node): the report is marked partial in
    /// summary.json, JUnit, HTML and on the console. Doubled or foreign shards stay refused.
    #[arg(long)]
    pub allow_partial: bool,
}

/// What a shard folder holds.
struct Folder {
    info: RunInfo,
    scope: Scope,
    results: Vec<CaseResult>,
}

/// One shard's run description, scope and results (from its journal; summary.json gives the run
/// description and says the shard finished). Files of another schema version are refused.
fn shard(dir: &Path) -> Result<Folder, String> {
    if !dir.is_dir() {
        return Err(format!("{}: no such result folder", dir.display()));
    }
    let journal_path = dir.join("journal.jsonl");
    if !journal_path.is_file() {
        return Err(format!(
            "{}: no journal.jsonl: not the --out folder of `ptxconform run`",
            dir.display()
        ));
    }
    let summary = dir.join("summary.json");
    let text = std::fs::read_to_string(&summary).map_err(|e| {
        format!(
            "{}: {e} (an unfinished shard: run it again with --resume and the same --out)",
            summary.display()
        )
    })?;
    // The version first, then only what merge needs, so that a summary from another build
    // gets a clear error (version, mode) rather than a field-by-field parse error.
    let version =
        declared(&text).ok_or_else(|| format!("{}: not a JSON object", summary.display()))?;
    FileKind::Summary
        .check(version)
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    #[derive(serde::Deserialize)]
    struct Key {
        file: String,
        case: String,
    }
    #[derive(serde::Deserialize)]
    struct Head {
        info: RunInfo,
        scope: Scope,
        results: Vec<Key>,
    }
    let head: Head =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", summary.display()))?;
    let journaled = journal::read(&journal_path)?;
    if journaled.header.as_ref().map(|h| &h.scope) != Some(&head.scope) {
        return Err(format!(
            "{}: journal.jsonl and summary.json name different scopes: the files are of \
             different runs; finish the shard with --resume and the same --out",
            dir.display()
        ));
    }
    let results = journaled.results;
    // A rerun without --resume that was killed leaves a partial journal beside the previous
    // run's summary: merging it would silently drop cases.
    let in_summary: BTreeSet<String> = head
        .results
        .iter()
        .map(|k| journal::key(&k.file, &k.case))
        .collect();
    let in_journal = journal::done_keys(&results);
    if let Some(k) = in_summary.symmetric_difference(&in_journal).next() {
        return Err(format!(
            "{}: {} results in journal.jsonl, {} in summary.json (`{k}` is in only one): the \
             files are of different runs; finish the shard with --resume and the same --out",
            dir.display(),
            in_journal.len(),
            in_summary.len()
        ));
    }
    Ok(Folder {
        info: head.info,
        scope: head.scope,
        results,
    })
}

/// The run description of the merged report: shards must have run in the same mode with the same
/// build; distinct devices and drivers are listed; the date is the latest.
fn merged_info(infos: &[(PathBuf, RunInfo)]) -> Result<RunInfo, String> {
    let Some((first_dir, first)) = infos.first() else {
        return Err("merge: no shard folders".into());
    };
    for (dir, i) in &infos[1..] {
        if (&i.mode, &i.ptxconform, &i.profile) != (&first.mode, &first.ptxconform, &first.profile)
        {
            return Err(format!(
                "{} ran `{}` with ptxconform {} (profile `{}`), {} ran `{}` with {} (profile \
                 `{}`): shards of one run use one mode, one build and one profile",
                first_dir.display(),
                first.mode,
                first.ptxconform,
                first.profile,
                dir.display(),
                i.mode,
                i.ptxconform,
                i.profile
            ));
        }
    }
    let distinct = |f: fn(&RunInfo) -> &String| {
        let mut v: Vec<&str> = Vec::new();
        for (_, i) in infos {
            if !v.contains(&f(i).as_str()) {
                v.push(f(i));
            }
        }
        v.join(", ")
    };
    Ok(RunInfo {
        device: distinct(|i| &i.device),
        driver: distinct(|i| &i.driver),
        // ISO dates (`run::today`) order as text.
        date: infos
            .iter()
            .map(|(_, i)| i.date.clone())
            .max()
            .unwrap_or_default(),
        mode: first.mode.clone(),
        ptxconform: first.ptxconform.clone(),
        profile: first.profile.clone(),
        // A merged run is outside the scope if any of its shards was.
        outside_evidence: infos.iter().find_map(|(_, i)| i.outside_evidence.clone()),
    })
}

/// The files of the shards' `divergences/` folders, by name, each once (the same name with other
/// content in two shards is an error: two shards reported the same case).
fn divergence_files(dirs: &[PathBuf]) -> Result<BTreeMap<OsString, PathBuf>, String> {
    let mut from: BTreeMap<OsString, PathBuf> = BTreeMap::new();
    for dir in dirs {
        let d = dir.join("divergences");
        if !d.exists() {
            continue; // a shard without failures
        }
        let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for e in entries {
            let e = e.map_err(|e| format!("{}: {e}", d.display()))?;
            let p = e.path();
            if !p.is_file() {
                return Err(format!("{}: not a file", p.display()));
            }
            let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
            match from.get(&e.file_name()) {
                Some(other) if read(other)? != read(&p)? => {
                    return Err(format!(
                        "{} and {} differ: two shards reported the same case",
                        other.display(),
                        p.display()
                    ))
                }
                Some(_) => {}
                None => {
                    from.insert(e.file_name(), p);
                }
            }
        }
    }
    Ok(from)
}

/// `--out` must not be a shard folder: writing the merged journal would truncate the shard's.
fn check_out(out: &Path, dirs: &[PathBuf]) -> Result<(), String> {
    let Ok(o) = out.canonicalize() else {
        return Ok(()); // not there yet, so not a shard folder
    };
    match dirs
        .iter()
        .find(|d| d.canonicalize().ok().as_deref() == Some(o.as_path()))
    {
        Some(d) => Err(format!(
            "--out {} is the shard folder {}: merge into a folder of its own",
            out.display(),
            d.display()
        )),
        None => Ok(()),
    }
}

/// Refuse a merge that lacks shards unless partial merges are allowed.
fn check_complete(scope: &Scope, allow_partial: bool) -> Result<(), String> {
    let Scope::Shards { case_set, shards } = scope else {
        return Ok(()); // whole runs
    };
    let missing = shards.missing();
    if missing.is_empty() || allow_partial {
        return Ok(());
    }
    Err(format!(
        "shard{} {} missing (the folders hold {} of {case_set}): merge every shard, or \
         --allow-partial to merge these into a report marked partial",
        if missing.len() == 1 { "" } else { "s" },
        shards.names(missing.iter().copied()),
        shards.names(shards.held().iter().copied()),
    ))
}

/// A merge that holds the whole case set holds a result for each of its cases.
fn check_count(scope: &Scope, results: usize) -> Result<(), String> {
    match scope {
        Scope::Shards { case_set, shards } if shards.is_whole() && case_set.cases != results => {
            Err(format!(
                "the shards hold {results} results, their case set {} cases ({case_set}): a \
                 shard folder was edited or is of another run",
                case_set.cases
            ))
        }
        _ => Ok(()),
    }
}

/// Merge; the exit code is `run`'s: 1 if a merged result is a failure.
pub fn main(args: &MergeArgs) -> Result<i32, String> {
    check_out(&args.out, &args.dirs)?;
    let mut infos = Vec::new();
    let mut scopes = Vec::new();
    let mut by_key: BTreeMap<String, (&Path, CaseResult)> = BTreeMap::new();
    for dir in &args.dirs {
        let Folder {
            info,
            scope,
            results,
        } = shard(dir)?;
        infos.push((dir.clone(), info));
        scopes.push((dir.clone(), scope));
        for r in results {
            let k = journal::key(&r.file, &r.case);
            match by_key.get(&k) {
                // Serialized text is the result's identity (CaseResult has no PartialEq).
                Some((other, prev))
                    if serde_json::to_string(prev).ok() != serde_json::to_string(&r).ok() =>
                {
                    return Err(format!(
                        "case `{}` of {} has different results in {} and {}: shards overlap",
                        r.case,
                        r.file,
                        other.display(),
                        dir.display()
                    ));
                }
                Some(_) => {}
                None => {
                    by_key.insert(k, (dir, r));
                }
            }
        }
    }
    let info = merged_info(&infos)?;
    let scope = account::join(&scopes).map_err(|e| e.to_string())?;
    check_complete(&scope, args.allow_partial)?;
    let copies = divergence_files(&args.dirs)?;
    let results: Vec<CaseResult> = by_key.into_values().map(|(_, r)| r).collect();
    check_count(&scope, results.len())?;

    let header = journal::Header::new(scope.clone());
    let (mut journal, _) = journal::Journal::open(&args.out.join("journal.jsonl"), &header, false)?;
    for r in &results {
        journal.append(r)?;
    }
    if !copies.is_empty() {
        let to = args.out.join("divergences");
        std::fs::create_dir_all(&to).map_err(|e| format!("{}: {e}", to.display()))?;
        for (name, p) in &copies {
            std::fs::copy(p, to.join(name)).map_err(|e| format!("{}: {e}", p.display()))?;
        }
    }
    let summary = Summary::new(info, scope, results);
    write_all(&args.out, &summary)?;
    println!(
        "merged {} result folders ({} results, {} divergence files)",
        args.dirs.len(),
        summary.results.len(),
        copies.len()
    );
    crate::run::print_summary(&summary, &args.out);
    Ok(if summary.failures() > 0 { 1 } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(device: &str, date: &str, mode: &str) -> RunInfo {
        RunInfo {
            device: device.into(),
            driver: "CUDA 13.0".into(),
            date: date.into(),
            mode: mode.into(),
            ptxconform: "0.1.0".into(),
            profile: "sm_90".into(),
            outside_evidence: None,
        }
    }

    #[test]
    fn run_descriptions_join() {
        let hw = "reference + hardware";
        let infos = [
            ("a".into(), info("H100", "2026-11-20", hw)),
            ("b".into(), info("H200", "2026-11-22", hw)),
            ("c".into(), info("H100", "2026-11-21", hw)),
        ];
        let m = merged_info(&infos).unwrap();
        assert_eq!(
            (m.device.as_str(), m.driver.as_str(), m.date.as_str()),
            ("H100, H200", "CUDA 13.0", "2026-11-22")
        );
        let mixed = [
            ("a".into(), info("H100", "2026-11-20", hw)),
            ("b".into(), info("none", "2026-11-20", "reference-only")),
        ];
        let e = merged_info(&mixed).unwrap_err();
        assert!(e.contains("reference-only") && e.contains("b ran"), "{e}");
        assert!(merged_info(&[]).is_err());
    }

    #[test]
    fn divergence_reports_join_and_clash() {
        let tmp = std::env::temp_dir().join(format!("ptxc-merge-div-{}", std::process::id()));
        let dirs: Vec<PathBuf> = ["a", "b"].iter().map(|d| tmp.join(d)).collect();
        for (d, text) in dirs.iter().zip(["x", "x"]) {
            std::fs::create_dir_all(d.join("divergences")).unwrap();
            std::fs::write(d.join("divergences/c.yaml"), text).unwrap();
        }
        std::fs::write(dirs[1].join("divergences/d.ptx"), "p").unwrap();
        let names: Vec<_> = divergence_files(&dirs).unwrap().into_keys().collect();
        assert_eq!(names, ["c.yaml", "d.ptx"]);
        std::fs::write(dirs[1].join("divergences/c.yaml"), "y").unwrap();
        let e = divergence_files(&dirs).unwrap_err();
        assert!(e.contains("differ"), "{e}");
        let e = check_out(&dirs[0], &dirs).unwrap_err();
        assert!(e.contains("shard folder"), "{e}");
        assert!(check_out(&tmp.join("merged"), &dirs).is_ok());
        std::fs::remove_dir_all(&tmp).ok();
    }
}
