//! What part of which case set a report holds. Every run records it, so shards account for
//! themselves: a merge sees a lost, doubled or foreign shard instead of writing a smaller report.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// How a run chose its cases, as given on its command line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Selection {
    /// Case files and folders (empty: `cases`).
    pub paths: Vec<String>,
    /// `--filter` patterns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filter: Vec<String>,
    /// `--exclude` patterns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    /// `--case-list` files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub case_list: Vec<String>,
}

impl fmt::Display for Selection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut words: Vec<String> = if self.paths.is_empty() {
            vec!["cases".into()]
        } else {
            self.paths.clone()
        };
        let flags = [
            ("--filter", &self.filter),
            ("--exclude", &self.exclude),
            ("--case-list", &self.case_list),
        ];
        for (flag, values) in flags {
            words.extend(values.iter().map(|v| format!("{flag} {v}")));
        }
        f.write_str(&words.join(" "))
    }
}

/// The cases a run selected, before sharding: the same for every shard of one run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CaseSet {
    pub selection: Selection,
    /// Selected cases, and cases or files that did not load (each is a result of the run).
    pub cases: usize,
    /// A stable hash (32 hex digits) of every selected case's file, name and content
    /// (recorded observations left out: a sharded `--record` run writes them while other
    /// shards load): equal for the shards of one run, different where a machine's corpus or
    /// selection differed.
    pub fingerprint: String,
}

impl fmt::Display for CaseSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} cases of `{}`, fingerprint {}",
            self.cases, self.selection, self.fingerprint
        )
    }
}

/// Which of a case set's shards a report holds: all of it (`count` 1), or some of `count` shards
/// (at least one, each below `count`, not all: every shard merged is the whole, so the merge
/// equals the unsharded run).
// Private fields, checked when made and when read, keep it so.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(into = "ShardsRepr", try_from = "ShardsRepr")]
pub struct Shards {
    count: u64,
    held: BTreeSet<u64>,
}

/// [`Shards`] as written: `{"count": 4, "held": [1, 3]}`; the whole is `{"count": 1, "held": [0]}`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ShardsRepr {
    /// How many shards the case set was split into (1: not split).
    count: u64,
    /// The shards held (0-based).
    held: BTreeSet<u64>,
}

impl From<Shards> for ShardsRepr {
    fn from(s: Shards) -> ShardsRepr {
        ShardsRepr {
            count: s.count,
            held: s.held,
        }
    }
}

impl TryFrom<ShardsRepr> for Shards {
    type Error = String;
    fn try_from(r: ShardsRepr) -> Result<Shards, String> {
        Shards::of(r.count, r.held)
    }
}

impl Shards {
    /// All of the case set.
    pub fn whole() -> Shards {
        Shards {
            count: 1,
            held: BTreeSet::from([0]),
        }
    }

    /// Shards `held` of `count`; every one of them is [`Shards::whole`].
    pub fn of(count: u64, held: BTreeSet<u64>) -> Result<Shards, String> {
        if held.is_empty() {
            return Err(format!("no shard of {count} held"));
        }
        if let Some(i) = held.iter().find(|&&i| i >= count) {
            return Err(format!(
                "shard {i}/{count}: the index must be below the count"
            ));
        }
        if held.len() as u64 == count {
            return Ok(Shards::whole());
        }
        Ok(Shards { count, held })
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn held(&self) -> &BTreeSet<u64> {
        &self.held
    }

    pub fn is_whole(&self) -> bool {
        self.count == 1
    }

    /// The shards not held.
    pub fn missing(&self) -> Vec<u64> {
        (0..self.count).filter(|i| !self.held.contains(i)).collect()
    }

    /// `1/4`, `1/4, 3/4` for the given indices of this count.
    pub fn names(&self, indices: impl IntoIterator<Item = u64>) -> String {
        let n: Vec<String> = indices
            .into_iter()
            .map(|i| format!("{i}/{}", self.count))
            .collect();
        n.join(", ")
    }
}

/// What a report holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Scope {
    /// Shards of one case set (an unsharded run holds all of it).
    Shards { case_set: CaseSet, shards: Shards },
    /// Whole runs of different case sets, merged (`merge` of unsharded runs).
    Runs { case_sets: Vec<CaseSet> },
}

impl Scope {
    /// The shards a report lacks (none: it holds whole case sets).
    pub fn missing(&self) -> Vec<u64> {
        match self {
            Scope::Shards { shards, .. } => shards.missing(),
            Scope::Runs { .. } => Vec::new(),
        }
    }

    /// In words: which shards of which case set, or which runs.
    pub fn describe(&self) -> String {
        match self {
            Scope::Shards { case_set, shards } if shards.is_whole() => format!("{case_set}"),
            Scope::Shards { case_set, shards } => format!(
                "shard {} of {case_set}",
                shards.names(shards.held().iter().copied())
            ),
            Scope::Runs { case_sets } => format!("{} merged case sets", case_sets.len()),
        }
    }

    /// Is this the same part of the same selection as `other`, whatever the cases' content?
    /// (`run --resume` continues a run whose case files were fixed or edited since.)
    pub fn same_part(&self, other: &Scope) -> bool {
        match (self, other) {
            (
                Scope::Shards { case_set, shards },
                Scope::Shards {
                    case_set: c,
                    shards: s,
                },
            ) => shards == s && case_set.selection == c.selection,
            _ => self == other,
        }
    }

    /// Does the report lack shards of its case set?
    pub fn is_partial(&self) -> bool {
        !self.missing().is_empty()
    }

    /// A line for reports that hold less or more than one run: `None` for a whole run.
    pub fn note(&self) -> Option<String> {
        match self {
            Scope::Shards { shards, .. } if shards.is_whole() => None,
            Scope::Shards { case_set, shards } => Some(format!(
                "PARTIAL: shard {} of {} cases, missing {}",
                shards.names(shards.held().iter().copied()),
                case_set.cases,
                shards.names(shards.missing())
            )),
            Scope::Runs { case_sets } => Some(format!(
                "merged whole runs of {} case sets: {}",
                case_sets.len(),
                case_sets
                    .iter()
                    .map(|c| format!("`{}`", c.selection))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(fp: &str) -> CaseSet {
        CaseSet {
            selection: Selection {
                paths: vec!["cases/bulk".into()],
                filter: vec!["g2s".into()],
                ..Default::default()
            },
            cases: 10,
            fingerprint: fp.into(),
        }
    }

    #[test]
    fn shards_hold_some_or_are_whole() {
        assert!(Shards::of(4, BTreeSet::new()).is_err());
        assert!(Shards::of(4, BTreeSet::from([4])).is_err());
        let all = Shards::of(4, (0..4).collect()).unwrap();
        assert_eq!(all, Shards::whole());
        let some = Shards::of(4, BTreeSet::from([1, 3])).unwrap();
        assert_eq!(some.missing(), [0, 2]);
        assert_eq!(some.names(some.missing()), "0/4, 2/4");
        // Written and read back; an impossible set is refused when read.
        let text = serde_json::to_string(&some).unwrap();
        assert_eq!(text, r#"{"count":4,"held":[1,3]}"#);
        assert_eq!(serde_json::from_str::<Shards>(&text).unwrap(), some);
        let e = serde_json::from_str::<Shards>(r#"{"count":2,"held":[]}"#).unwrap_err();
        assert!(e.to_string().contains("no shard of 2"), "{e}");
    }

    #[test]
    fn a_partial_scope_says_what_it_lacks() {
        let whole = Scope::Shards {
            case_set: set("00"),
            shards: Shards::whole(),
        };
        assert!(!whole.is_partial() && whole.note().is_none());
        let part = Scope::Shards {
            case_set: set("00"),
            shards: Shards::of(4, BTreeSet::from([0, 1, 3])).unwrap(),
        };
        assert!(part.is_partial());
        assert_eq!(
            part.note().unwrap(),
            "PARTIAL: shard 0/4, 1/4, 3/4 of 10 cases, missing 2/4"
        );
        let runs = Scope::Runs {
            case_sets: vec![set("00"), set("01")],
        };
        assert!(!runs.is_partial());
        assert!(runs.note().unwrap().contains("`cases/bulk --filter g2s`"));
    }
}
