//! The run journal: a header line (schema version, the run's scope), then one JSON line per case
//! result, appended and flushed as each result arrives, so a run killed midway loses nothing;
//! `run --resume` reads it back and skips what is done.

use crate::schema_version::{declared, FileKind, SchemaVersion};
use ptxconform_core::result::{CaseResult, Scope};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
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

/// The journal's first line: its schema version and what part of which case set the run covers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Header {
    #[schemars(extend("const" = crate::schema_version::JOURNAL.0))]
    pub schema_version: SchemaVersion,
    pub scope: Scope,
}

impl Header {
    /// The header this ptxconform writes for a run of `scope`.
    pub fn new(scope: Scope) -> Header {
        Header {
            schema_version: FileKind::Journal.current(),
            scope,
        }
    }
}

/// One line of journal.jsonl, as its JSON Schema (`ptxconform schema journal`) describes it: the
/// first is the header, every other a case result.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // described, never built: `read` takes the first line apart from the rest
pub enum Line {
    Header(Header),
    Result(Box<CaseResult>),
}

/// A journal read back: its header (none in an empty journal) and its results.
#[derive(Debug)]
pub struct Journaled {
    pub header: Option<Header>,
    pub results: Vec<CaseResult>,
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

    /// Does the journal hold results (or something unreadable that may be results)?
    pub fn has_results(&self) -> bool {
        match read(&self.path) {
            Ok(j) => !j.results.is_empty(),
            Err(_) => std::fs::metadata(&self.path).is_ok_and(|m| m.len() > 0),
        }
    }

    /// Start an empty journal under `header`.
    pub fn start(self, header: &Header) -> Result<Journal, String> {
        let mut j = self.open(true)?;
        j.write_line(header)?;
        Ok(j)
    }

    /// Continue the journal (refused if it is of another schema version): its results that
    /// `keep` accepts, one per case (the last journaled wins: a case journaled twice is counted
    /// once), with the journal rewritten to hold `header` and exactly those, so that it and the
    /// summary of this run agree and later appends start on a fresh line after a torn tail.
    pub fn resume(
        self,
        header: &Header,
        keep: impl Fn(&CaseResult) -> bool,
    ) -> Result<(Journal, Vec<CaseResult>), String> {
        let (old, mut done) = if self.path.exists() {
            let j = read(&self.path)?;
            (j.header, j.results)
        } else {
            (None, Vec::new())
        };
        // Results of another shard or selection would be dropped, or counted as this run's:
        // refused, the journal left as it is. (A case edited or fixed since is run again when
        // the selection leaves its old result out, as before.)
        if let Some(old) = old.filter(|h| !h.scope.same_part(&header.scope) && !done.is_empty()) {
            return Err(format!(
                "{}: its results are of another run ({}), not of this one ({}): --force discards \
                 them, or choose another --out",
                self.path.display(),
                old.scope.describe(),
                header.scope.describe()
            ));
        }
        done.retain(keep);
        let mut text = json_line(header)?;
        for r in &done {
            text.push_str(&json_line(r)?);
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

/// `v` as one line of JSON.
fn json_line(v: &impl Serialize) -> Result<String, String> {
    serde_json::to_string(v)
        .map(|l| l + "\n")
        .map_err(|e| e.to_string())
}

impl Journal {
    /// Open `path` under `header`. With `resume`, keep and return the results already there
    /// (see [`Claim::resume`]); without, start a new journal.
    pub fn open(
        path: &Path,
        header: &Header,
        resume: bool,
    ) -> Result<(Journal, Vec<CaseResult>), String> {
        let claim = Claim::take(path)?;
        if resume {
            claim.resume(header, |_| true)
        } else {
            Ok((claim.start(header)?, Vec::new()))
        }
    }

    pub fn append(&mut self, r: &CaseResult) -> Result<(), String> {
        self.write_line(r)
    }

    fn write_line(&mut self, v: &impl Serialize) -> Result<(), String> {
        let line = json_line(v)?;
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The header of a journal from its first line; `None` for a torn one (a run killed while it
/// started). A journal of another schema version is refused (one without a header is version 1).
fn header(path: &Path, line: &str) -> Result<Option<Header>, String> {
    let Some(version) = declared(line) else {
        return Ok(None);
    };
    FileKind::Journal
        .check(version)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(line)
        .map(Some)
        .map_err(|e| format!("{}: line 1 (the header): {e}", path.display()))
}

/// The journal at `path`: its header and its results, one per case: a line that does not parse
/// (the torn tail of a killed run) is dropped, and of a case journaled more than once the last
/// result is kept.
pub fn read(path: &Path) -> Result<Journaled, String> {
    let f = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = BufReader::new(f).lines();
    let mut read_line = || {
        lines
            .next()
            .transpose()
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    let header = match read_line()? {
        Some(first) => header(path, &first)?,
        None => None,
    };
    let mut out: Vec<CaseResult> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    while let Some(line) = read_line()? {
        if header.is_none() {
            return Err(format!(
                "{}: line 1 is no journal header: not a journal of `ptxconform run`",
                path.display()
            ));
        }
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
    Ok(Journaled {
        header,
        results: out,
    })
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

    fn head() -> Header {
        Header::new(Scope::Shards {
            case_set: ptxconform_core::result::CaseSet {
                selection: Default::default(),
                cases: 3,
                fingerprint: "0123456789abcdef".into(),
            },
            shards: ptxconform_core::result::Shards::whole(),
        })
    }

    /// Two runs into one folder: the second is refused while the first holds the journal.
    #[test]
    fn one_writer_per_folder() {
        let dir = std::env::temp_dir().join(format!("ptxc-journal-lock-{}", std::process::id()));
        let p = dir.join("journal.jsonl");
        let (first, _) = Journal::open(&p, &head(), false).unwrap();
        let e = Journal::open(&p, &head(), true).err().unwrap();
        assert!(e.contains("another run is writing"), "{e}");
        drop(first);
        assert!(Journal::open(&p, &head(), true).is_ok());
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn resume_keeps_results_and_drops_torn_tail() {
        let dir = std::env::temp_dir().join(format!("ptxc-journal-{}", std::process::id()));
        let p = dir.join("journal.jsonl");
        let (mut j, done) = Journal::open(&p, &head(), false).unwrap();
        assert!(done.is_empty());
        j.append(&r("a")).unwrap();
        j.append(&r("b")).unwrap();
        drop(j);
        // a run killed mid-write leaves half a line
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        write!(f, "{{\"case\":\"c\",\"fi").unwrap();
        drop(f);
        let (mut j, done) = Journal::open(&p, &head(), true).unwrap();
        assert_eq!(
            done.iter().map(|d| d.case.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        j.append(&r("c")).unwrap();
        drop(j);
        let (_, done) = Journal::open(&p, &head(), true).unwrap();
        assert_eq!(done.len(), 3);
        assert!(done_keys(&done).contains("f.yaml::c"));
        let (_, fresh) = Journal::open(&p, &head(), false).unwrap();
        assert!(fresh.is_empty());
        std::fs::remove_dir_all(dir).ok();
    }

    /// A case journaled twice (an older build, a copy, a hand edit) is one result: the last.
    #[test]
    fn a_repeated_case_is_one_result() {
        let dir = std::env::temp_dir().join(format!("ptxc-journal-dup-{}", std::process::id()));
        let p = dir.join("journal.jsonl");
        let (mut j, _) = Journal::open(&p, &head(), false).unwrap();
        let mut second = r("a");
        second.verdict = Verdict::Diverge;
        for x in [r("a"), r("b"), second] {
            j.append(&x).unwrap();
        }
        drop(j);
        let got = read(&p).unwrap().results;
        assert_eq!(got.len(), 2);
        assert_eq!(
            (got[0].case.as_str(), &got[0].verdict),
            ("a", &Verdict::Diverge)
        );
        // Resuming keeps what `keep` accepts and rewrites the journal to exactly that.
        let (j, done) = Claim::take(&p)
            .unwrap()
            .resume(&head(), |r| r.case == "a")
            .unwrap();
        drop(j);
        assert_eq!(done.len(), 1);
        assert_eq!(std::fs::read_to_string(&p).unwrap().lines().count(), 2);
        assert_eq!(read(&p).unwrap().header, Some(head()));
        std::fs::remove_dir_all(dir).ok();
    }

    /// A journal of another schema version (one without a header is version 1) is refused by
    /// its version; a header torn by a kill leaves an empty journal.
    #[test]
    fn journals_of_another_version_are_refused() {
        let dir = std::env::temp_dir().join(format!("ptxc-journal-ver-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("journal.jsonl");
        let old = serde_json::to_string(&r("a")).unwrap() + "\n";
        std::fs::write(&p, &old).unwrap();
        let e = read(&p).unwrap_err();
        assert!(
            e.contains("journal.jsonl schema version 1, this ptxconform writes 2"),
            "{e}"
        );
        let e = Journal::open(&p, &head(), true).err().unwrap();
        assert!(e.contains("schema version 1"), "{e}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), old, "left as it was");
        let mut newer = serde_json::to_value(head()).unwrap();
        newer["schema_version"] = 3.into();
        std::fs::write(&p, format!("{newer}\n{old}")).unwrap();
        assert!(read(&p).unwrap_err().contains("schema version 3"));
        std::fs::write(&p, "{\"schema_ver").unwrap();
        let torn = read(&p).unwrap();
        assert!(torn.header.is_none() && torn.results.is_empty());
        std::fs::write(&p, format!("{{\"schema_ver\n{old}")).unwrap();
        assert!(read(&p).unwrap_err().contains("no journal header"));
        std::fs::remove_dir_all(dir).ok();
    }
}
