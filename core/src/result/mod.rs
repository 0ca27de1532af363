//! The result model: a case's verdict, its detail and byte differences, where it ran, and the
//! summary of a run with its scope (which shards of which case set it holds). Reports
//! (`ptxconform` CLI) render it; the journal stores it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod attribution;
mod build;
mod bytes;
mod difference;
mod run_info;
mod scope;
mod seen_on;
mod verdict;

pub use attribution::{culprit, departs, Attribution, BuildOutcome, Culprit};
pub use build::{BuildReason, RanBuild};
pub use bytes::{ExpectedByte, RegionDiff};
pub use difference::{model_refusals, render, Difference};
pub use run_info::{today, RunInfo};
pub use scope::{CaseSet, Scope, Selection, Shards};
pub use seen_on::{sm90_readings_seen_on, SeenOn, Site};
pub use verdict::Verdict;

use ptxconform_reference::sem::exec::Undecided;

/// The result of one case, as journaled and reported.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct CaseResult {
    pub case: String,
    pub file: String,
    pub family: String,
    pub verdict: Verdict,
    /// One-line explanation (the UB rule, the first differing byte, the trap kind, ...).
    pub detail: String,
    /// What the judge found, typed (the detail is rendered from it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub differences: Vec<Difference>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diffs: Vec<RegionDiff>,
    #[serde(default)]
    pub wall_us: u64,
    /// The device that ran it, when a run used several.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub device: String,
    /// Who departed from the model, when the case was run under several builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
    /// Profile positions (`sem::profile`) where the hardware matched the sm_90 reading and
    /// departed from the spec reading: a pass that is a finding against the text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub departures: Vec<String>,
    /// The build that made the kernel and why (hardware runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<RanBuild>,
}

impl CaseResult {
    /// A result of `case` with `verdict` and nothing else found yet.
    pub fn new(case: &str, file: &str, family: &str, verdict: Verdict) -> CaseResult {
        CaseResult {
            case: case.to_string(),
            file: file.to_string(),
            family: family.to_string(),
            verdict,
            detail: String::new(),
            differences: vec![],
            diffs: vec![],
            wall_us: 0,
            device: String::new(),
            attribution: None,
            departures: vec![],
            build: None,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    pub info: RunInfo,
    /// What part of which case set the results are.
    pub scope: Scope,
    /// family -> verdict name -> count
    pub counts: BTreeMap<String, BTreeMap<String, usize>>,
    pub totals: BTreeMap<String, usize>,
    /// Profile position -> cases whose hardware result departed from its spec reading.
    #[serde(default)]
    pub departures: BTreeMap<String, usize>,
    /// Undefined cases whose prediction allowed several outcomes, by rule id, split by what was
    /// undecided (`class`: several outcome classes; `kind`: several trap kinds).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub undecided: BTreeMap<String, UndecidedCounts>,
    pub results: Vec<CaseResult>,
}

/// Undecided predictions of one rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UndecidedCounts {
    pub class: usize,
    pub kind: usize,
}

impl Summary {
    /// The summary of `results`, ordered by file, then case name (stable), so that a run's report
    /// does not depend on the order results arrived in (batches, devices, shards, `--resume`).
    pub fn new(info: RunInfo, scope: Scope, mut results: Vec<CaseResult>) -> Summary {
        results.sort_by(|a, b| (&a.file, &a.case).cmp(&(&b.file, &b.case)));
        let mut counts: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        let mut totals: BTreeMap<String, usize> = BTreeMap::new();
        let mut departures: BTreeMap<String, usize> = BTreeMap::new();
        let mut undecided: BTreeMap<String, UndecidedCounts> = BTreeMap::new();
        for r in &results {
            for d in &r.departures {
                *departures.entry(d.clone()).or_default() += 1;
            }
            for d in &r.differences {
                if let Difference::Undecided { rule, between, .. } = d {
                    let u = undecided.entry(rule.clone()).or_default();
                    match between {
                        Undecided::Class => u.class += 1,
                        Undecided::Kind => u.kind += 1,
                    }
                }
            }
            *counts
                .entry(r.family.clone())
                .or_default()
                .entry(r.verdict.name().to_string())
                .or_default() += 1;
            *totals.entry(r.verdict.name().to_string()).or_default() += 1;
        }
        Summary {
            info,
            scope,
            counts,
            totals,
            departures,
            undecided,
            results,
        }
    }
    /// The results that departed from the spec reading of a profile position.
    pub fn spec_departures(&self) -> impl Iterator<Item = &CaseResult> {
        self.results.iter().filter(|r| !r.departures.is_empty())
    }
    pub fn failures(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.verdict.is_failure())
            .count()
    }
}
