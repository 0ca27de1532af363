//! The run journal: one JSON line per case result, appended and flushed as each result arrives,
//! so a run killed midway loses nothing; `run --resume` reads it back and skips what is done.

use crate::report::CaseResult;
use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

pub struct Journal {
    path: PathBuf,
    file: File,
    /// Held while the journal is open: a second run into the same folder is refused instead of
    /// interleaving its lines with ours.
    _lock: File,
}

/// The key a result is journaled under: the file and the case name.
pub fn key(file: &str, case: &str) -> String {
    format!("{file}::{case}")
}

impl Journal {
    /// Open `path`. With `resume`, keep and return the results already there (a torn last line
    /// from a killed run is dropped); without, start a new journal.
    pub fn open(path: &Path, resume: bool) -> Result<(Journal, Vec<CaseResult>), String> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let lock_path = path.with_extension("lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| format!("{}: {e}", lock_path.display()))?;
        if let Err(e) = lock.try_lock() {
            return Err(match e {
                std::fs::TryLockError::WouldBlock => format!(
                    "{}: another run is writing to this folder; give this one another --out",
                    path.display()
                ),
                std::fs::TryLockError::Error(e) => format!("{}: {e}", lock_path.display()),
            });
        }
        let mut done = Vec::new();
        if resume && path.exists() {
            done = read(path)?;
            // Rewrite without a torn tail so later appends start on a fresh line.
            let mut text = String::new();
            for r in &done {
                text.push_str(&serde_json::to_string(r).map_err(|e| e.to_string())?);
                text.push('\n');
            }
            std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .truncate(false)
            .open(path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if !resume {
            file.set_len(0)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok((
            Journal {
                path: path.to_path_buf(),
                file,
                _lock: lock,
            },
            done,
        ))
    }

    pub fn append(&mut self, r: &CaseResult) -> Result<(), String> {
        let line = serde_json::to_string(r).map_err(|e| e.to_string())?;
        writeln!(self.file, "{line}")
            .and_then(|_| self.file.flush())
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The results journaled in `path`; a line that does not parse (the torn tail of a killed run)
/// is dropped.
pub fn read(path: &Path) -> Result<Vec<CaseResult>, String> {
    let f = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for line in BufReader::new(f).lines() {
        let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
        if let Ok(r) = serde_json::from_str::<CaseResult>(&line) {
            out.push(r);
        }
    }
    Ok(out)
}

/// Keys of journaled results.
pub fn done_keys(done: &[CaseResult]) -> BTreeSet<String> {
    done.iter().map(|r| key(&r.file, &r.case)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Verdict;

    fn r(name: &str) -> CaseResult {
        CaseResult {
            case: name.into(),
            file: "f.yaml".into(),
            family: "x".into(),
            verdict: Verdict::Pass,
            detail: String::new(),
            diffs: vec![],
            wall_us: 0,
            device: String::new(),
            attribution: None,
        }
    }

    /// Two runs into one folder: the second is refused while the first holds the journal.
    #[test]
    fn one_writer_per_folder() {
        let dir = std::env::temp_dir().join(format!("ptxc-journal-lock-{}", std::process::id()));
        let p = dir.join("journal.jsonl");
        let (first, _) = Journal::open(&p, false).unwrap();
        let e = Journal::open(&p, true).err().unwrap();
        assert!(e.contains("another run is writing"), "{e}");
        drop(first);
        assert!(Journal::open(&p, true).is_ok());
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn resume_keeps_results_and_drops_torn_tail() {
        let dir = std::env::temp_dir().join(format!("ptxc-journal-{}", std::process::id()));
        let p = dir.join("journal.jsonl");
        let (mut j, done) = Journal::open(&p, false).unwrap();
        assert!(done.is_empty());
        j.append(&r("a")).unwrap();
        j.append(&r("b")).unwrap();
        drop(j);
        // a run killed mid-write leaves half a line
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        write!(f, "{{\"case\":\"c\",\"fi").unwrap();
        drop(f);
        let (mut j, done) = Journal::open(&p, true).unwrap();
        assert_eq!(
            done.iter().map(|d| d.case.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        j.append(&r("c")).unwrap();
        drop(j);
        let (_, done) = Journal::open(&p, true).unwrap();
        assert_eq!(done.len(), 3);
        assert!(done_keys(&done).contains("f.yaml::c"));
        let (_, fresh) = Journal::open(&p, false).unwrap();
        assert!(fresh.is_empty());
        std::fs::remove_dir_all(dir).ok();
    }
}
