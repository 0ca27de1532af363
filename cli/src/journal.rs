//! The run journal: one JSON line per case result, appended and flushed as each result arrives,
//! so a run killed midway loses nothing; `run --resume` reads it back and skips what is done.

use ptxconform_core::result::CaseResult;
use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap};
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

/// How long a claim waits for a lock that reads as held.
const CLAIM_PATIENCE: std::time::Duration = std::time::Duration::from_millis(500);

/// A journal's folder, held by this process (an exclusive lock next to the journal) before
/// anything in it is read, cleared or written.
pub struct Claim {
    path: PathBuf,
    lock: File,
}

impl Claim {
    /// Claim the journal at `path` (creating its folder); refused while another run holds it.
    pub fn take(path: &Path) -> Result<Claim, String> {
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
        // A process this one forks (a GPU worker) shares the lock's file description until it
        // execs, so a lock released a moment ago can still read as held: ask again for a short
        // while before blaming another run, which would hold it for its whole length.
        let deadline = std::time::Instant::now() + CLAIM_PATIENCE;
        loop {
            match lock.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(10))
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(format!(
                        "{}: another run is writing to this folder; give this one another --out",
                        path.display()
                    ))
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(format!("{}: {e}", lock_path.display()))
                }
            }
        }
        Ok(Claim {
            path: path.to_path_buf(),
            lock,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Does the journal hold results?
    pub fn has_results(&self) -> bool {
        std::fs::metadata(&self.path).is_ok_and(|m| m.len() > 0)
    }

    /// Start an empty journal.
    pub fn start(self) -> Result<Journal, String> {
        self.open(true)
    }

    /// Continue the journal: its results that `keep` accepts, one per case (the last journaled
    /// wins: a case journaled twice is counted once), with the journal rewritten to hold exactly
    /// those, so that it and the summary of this run agree and later appends start on a fresh
    /// line after a torn tail.
    pub fn resume(
        self,
        keep: impl Fn(&CaseResult) -> bool,
    ) -> Result<(Journal, Vec<CaseResult>), String> {
        let mut done = if self.path.exists() {
            read(&self.path)?
        } else {
            Vec::new()
        };
        done.retain(keep);
        let mut text = String::new();
        for r in &done {
            text.push_str(&serde_json::to_string(r).map_err(|e| e.to_string())?);
            text.push('\n');
        }
        // Through a new file and a rename: a kill mid-rewrite leaves the old journal whole.
        let tmp = self.path.with_extension("jsonl.tmp");
        std::fs::write(&tmp, text)
            .and_then(|_| std::fs::rename(&tmp, &self.path))
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        Ok((self.open(false)?, done))
    }

    fn open(self, truncate: bool) -> Result<Journal, String> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        if truncate {
            file.set_len(0)
                .map_err(|e| format!("{}: {e}", self.path.display()))?;
        }
        Ok(Journal {
            path: self.path,
            file,
            _lock: self.lock,
        })
    }
}

impl Journal {
    /// Open `path`. With `resume`, keep and return the results already there (see
    /// [`Claim::resume`]); without, start a new journal.
    pub fn open(path: &Path, resume: bool) -> Result<(Journal, Vec<CaseResult>), String> {
        let claim = Claim::take(path)?;
        if resume {
            claim.resume(|_| true)
        } else {
            Ok((claim.start()?, Vec::new()))
        }
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

/// The results journaled in `path`, one per case: a line that does not parse (the torn tail of a
/// killed run) is dropped, and of a case journaled more than once the last result is kept.
pub fn read(path: &Path) -> Result<Vec<CaseResult>, String> {
    let f = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out: Vec<CaseResult> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for line in BufReader::new(f).lines() {
        let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
        if let Ok(r) = serde_json::from_str::<CaseResult>(&line) {
            match at.entry(key(&r.file, &r.case)) {
                Entry::Occupied(o) => out[*o.get()] = r,
                Entry::Vacant(v) => {
                    v.insert(out.len());
                    out.push(r);
                }
            }
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
    use ptxconform_core::result::Verdict;

    fn r(name: &str) -> CaseResult {
        CaseResult::new(name, "f.yaml", "x", Verdict::Pass)
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

    /// A case journaled twice (an older build, a copy, a hand edit) is one result: the last.
    #[test]
    fn a_repeated_case_is_one_result() {
        let dir = std::env::temp_dir().join(format!("ptxc-journal-dup-{}", std::process::id()));
        let p = dir.join("journal.jsonl");
        let (mut j, _) = Journal::open(&p, false).unwrap();
        let mut second = r("a");
        second.verdict = Verdict::Diverge;
        for x in [r("a"), r("b"), second] {
            j.append(&x).unwrap();
        }
        drop(j);
        let got = read(&p).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(
            (got[0].case.as_str(), &got[0].verdict),
            ("a", &Verdict::Diverge)
        );
        // Resuming keeps what `keep` accepts and rewrites the journal to exactly that.
        let (j, done) = Claim::take(&p).unwrap().resume(|r| r.case == "a").unwrap();
        drop(j);
        assert_eq!(done.len(), 1);
        assert_eq!(std::fs::read_to_string(&p).unwrap().lines().count(), 1);
        std::fs::remove_dir_all(dir).ok();
    }
}
