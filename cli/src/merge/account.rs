//! What a merge holds: the scopes of its folders joined into one. Refused when two folders hold
//! the same shard (or the same whole run), or when a folder ran another case set or another
//! number of shards than the first; whether a missing shard is refused is the caller's choice.

use ptxconform_core::result::{CaseSet, Scope, Shards};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// One case set a folder holds, and which of its shards.
struct Piece<'a> {
    dir: &'a Path,
    case_set: &'a CaseSet,
    shards: Shards,
}

impl Piece<'_> {
    /// `shard 1/4 (DIR)`, `the whole run (DIR)`.
    fn describe(&self) -> String {
        format!("{} ({})", held(&self.shards), self.dir.display())
    }
}

/// `shard 1/4`, `shard 0/4, 2/4`, `the whole run`.
fn held(shards: &Shards) -> String {
    if shards.is_whole() {
        "the whole run".into()
    } else {
        format!("shard {}", shards.names(shards.held().iter().copied()))
    }
}

/// Why a set of result folders is not (part of) one run, or of several whole runs.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    NoFolders,
    /// Two folders hold the same shard (`what`), or the same whole run.
    Twice {
        what: String,
        first: PathBuf,
        second: PathBuf,
    },
    /// A folder holds shards of another case set than the first folder.
    OtherCaseSet {
        what: String,
        case_set: Box<CaseSet>,
        first: String,
        first_case_set: Box<CaseSet>,
    },
    /// A folder holds shards of another split (count) than the first folder.
    OtherCount {
        what: String,
        count: u64,
        first: String,
        first_count: u64,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NoFolders => f.write_str("merge: no result folders"),
            Refusal::Twice {
                what,
                first,
                second,
            } => write!(
                f,
                "{what} given twice: {} and {} hold it",
                first.display(),
                second.display()
            ),
            Refusal::OtherCaseSet {
                what,
                case_set,
                first,
                first_case_set,
            } => write!(
                f,
                "{what} ran a different case set than {first}: {case_set}, against \
                 {first_case_set} (run every shard with the same case paths, selection and \
                 checkout)"
            ),
            Refusal::OtherCount {
                what,
                count,
                first,
                first_count,
            } => write!(
                f,
                "{what} is one of {count} shards, {first} one of {first_count}: the shards of \
                 one run are of one count"
            ),
        }
    }
}

/// The scope of the merge of `folders` (each with the scope it holds): shards of one case set
/// (each held by one folder; all of them make the whole), or whole runs of different case sets.
pub fn join(folders: &[(PathBuf, Scope)]) -> Result<Scope, Refusal> {
    let pieces: Vec<Piece> = folders
        .iter()
        .flat_map(|(dir, scope)| -> Vec<Piece> {
            match scope {
                Scope::Shards { case_set, shards } => vec![Piece {
                    dir,
                    case_set,
                    shards: shards.clone(),
                }],
                Scope::Runs { case_sets } => case_sets
                    .iter()
                    .map(|case_set| Piece {
                        dir,
                        case_set,
                        shards: Shards::whole(),
                    })
                    .collect(),
            }
        })
        .collect();
    let first = pieces.first().ok_or(Refusal::NoFolders)?;
    if pieces.iter().all(|p| p.shards.is_whole()) {
        return whole_runs(&pieces);
    }
    for p in &pieces[1..] {
        if p.case_set.fingerprint != first.case_set.fingerprint {
            return Err(Refusal::OtherCaseSet {
                what: p.describe(),
                case_set: Box::new(p.case_set.clone()),
                first: first.describe(),
                first_case_set: Box::new(first.case_set.clone()),
            });
        }
        if p.shards.count() != first.shards.count() {
            return Err(Refusal::OtherCount {
                what: p.describe(),
                count: p.shards.count(),
                first: first.describe(),
                first_count: first.shards.count(),
            });
        }
    }
    let count = first.shards.count();
    let mut by_index: BTreeMap<u64, &Path> = BTreeMap::new();
    for p in &pieces {
        for &i in p.shards.held() {
            if let Some(before) = by_index.insert(i, p.dir) {
                return Err(Refusal::Twice {
                    what: format!("shard {i}/{count}"),
                    first: before.to_path_buf(),
                    second: p.dir.to_path_buf(),
                });
            }
        }
    }
    Ok(Scope::Shards {
        case_set: first.case_set.clone(),
        shards: Shards::of(count, by_index.into_keys().collect())
            .expect("shards held by folders: not none, each below the count"),
    })
}

/// Whole runs: each case set once; one is a whole run again, several a union of runs.
fn whole_runs(pieces: &[Piece]) -> Result<Scope, Refusal> {
    let mut seen: BTreeMap<&str, &Path> = BTreeMap::new();
    for p in pieces {
        if let Some(before) = seen.insert(&p.case_set.fingerprint, p.dir) {
            return Err(Refusal::Twice {
                what: format!("the whole run of `{}`", p.case_set.selection),
                first: before.to_path_buf(),
                second: p.dir.to_path_buf(),
            });
        }
    }
    let mut case_sets: Vec<CaseSet> = pieces.iter().map(|p| p.case_set.clone()).collect();
    Ok(match case_sets.len() {
        1 => Scope::Shards {
            case_set: case_sets.remove(0),
            shards: Shards::whole(),
        },
        _ => Scope::Runs { case_sets },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxconform_core::result::Selection;

    fn set(fp: &str, path: &str) -> CaseSet {
        CaseSet {
            selection: Selection {
                paths: vec![path.into()],
                ..Default::default()
            },
            cases: 10,
            fingerprint: fp.into(),
        }
    }

    fn shard(dir: &str, fp: &str, i: u64, n: u64) -> (PathBuf, Scope) {
        let shards = Shards::of(n, [i].into()).unwrap();
        let case_set = set(fp, "cases");
        (dir.into(), Scope::Shards { case_set, shards })
    }

    fn missing(s: &Scope) -> Vec<u64> {
        s.missing()
    }

    #[test]
    fn every_shard_once_is_the_whole_run() {
        let all: Vec<_> = (0..4).map(|i| shard(&format!("s{i}"), "f", i, 4)).collect();
        let s = join(&all).unwrap();
        assert_eq!(
            s,
            Scope::Shards {
                case_set: set("f", "cases"),
                shards: Shards::whole()
            }
        );
        // Three of four: the join says which is missing (refusing it is the caller's choice).
        let s = join(&all[..3]).unwrap();
        assert_eq!(missing(&s), [3]);
        // A partial merge and the shard it lacks make the whole.
        let s = join(&[("m".into(), s), all[3].clone()]).unwrap();
        assert!(!s.is_partial());
    }

    #[test]
    fn a_shard_given_twice_is_refused() {
        let e = join(&[shard("a", "f", 1, 4), shard("b", "f", 1, 4)]).unwrap_err();
        assert_eq!(
            e,
            Refusal::Twice {
                what: "shard 1/4".into(),
                first: "a".into(),
                second: "b".into()
            }
        );
        assert_eq!(e.to_string(), "shard 1/4 given twice: a and b hold it");
        // The same folder twice is the same shard twice.
        assert!(matches!(
            join(&[shard("a", "f", 1, 4), shard("a", "f", 1, 4)]),
            Err(Refusal::Twice { .. })
        ));
    }

    #[test]
    fn shards_of_another_case_set_or_count_are_refused() {
        let e = join(&[shard("a", "f", 0, 4), shard("b", "g", 3, 4)]).unwrap_err();
        assert!(matches!(e, Refusal::OtherCaseSet { .. }), "{e:?}");
        assert!(
            e.to_string()
                .starts_with("shard 3/4 (b) ran a different case set than shard 0/4 (a)"),
            "{e}"
        );
        let e = join(&[shard("a", "f", 0, 4), shard("b", "f", 1, 2)]).unwrap_err();
        assert!(
            matches!(
                e,
                Refusal::OtherCount {
                    count: 2,
                    first_count: 4,
                    ..
                }
            ),
            "{e:?}"
        );
        // A whole run beside a shard of its case set.
        let whole = (
            PathBuf::from("w"),
            Scope::Shards {
                case_set: set("f", "cases"),
                shards: Shards::whole(),
            },
        );
        let e = join(&[shard("a", "f", 0, 4), whole]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("the whole run (w) is one of 1 shards"),
            "{e}"
        );
        assert_eq!(join(&[]), Err(Refusal::NoFolders));
    }

    /// Unsharded runs of different case sets merge into a union of whole runs; the same run
    /// twice is refused.
    #[test]
    fn whole_runs_join_as_a_union() {
        let whole = |dir: &str, fp: &str, path: &str| {
            let case_set = set(fp, path);
            let shards = Shards::whole();
            (PathBuf::from(dir), Scope::Shards { case_set, shards })
        };
        let a = whole("a", "f", "cases/bulk");
        let b = whole("b", "g", "cases/mbarrier");
        let s = join(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(
            s,
            Scope::Runs {
                case_sets: vec![set("f", "cases/bulk"), set("g", "cases/mbarrier")]
            }
        );
        assert!(!s.is_partial());
        let c = whole("c", "h", "cases/ub");
        assert!(
            matches!(join(&[("ab".into(), s.clone()), c]), Ok(Scope::Runs { case_sets }) if case_sets.len() == 3)
        );
        let e = join(&[("ab".into(), s), a]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the whole run of `cases/bulk` given twice: ab and a hold it"
        );
        assert_eq!(join(std::slice::from_ref(&b)).unwrap(), b.1);
    }
}
