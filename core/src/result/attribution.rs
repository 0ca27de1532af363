//! Who departed from the model, as data: every build's judged run of a departing case and the
//! culprit they name. `ptxconform-gpu`'s attribution runs the builds.

use super::{Difference, Verdict};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The culprit of a departure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Culprit {
    Silicon,
    Compiler(Vec<String>),
    Mixed,
    Flaky,
    /// No other build could run the case (their toolchains are missing or failed).
    Untested,
}

impl fmt::Display for Culprit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Culprit::Silicon => f.write_str("silicon"),
            Culprit::Compiler(b) => write!(f, "compiler: {}", b.join(", ")),
            Culprit::Mixed => f.write_str("mixed"),
            Culprit::Flaky => f.write_str("flaky"),
            Culprit::Untested => f.write_str("untested"),
        }
    }
}

/// One build's judged run of the case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BuildOutcome {
    pub build: String,
    pub verdict: Verdict,
    pub detail: String,
    /// What the judge found (the detail is its rendering).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub differences: Vec<Difference>,
    /// It departed from the model: diverged, trapped or hung (also where the model calls the
    /// case undefined).
    pub departs: bool,
}

impl BuildOutcome {
    pub fn departs(&self) -> bool {
        self.departs
    }
    pub fn same(&self, o: &BuildOutcome) -> bool {
        self.verdict == o.verdict && self.differences == o.differences
    }
}

/// A departure's attribution: the culprit and every build's outcome (the case's own build
/// first, then its repeat, then the others).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Attribution {
    pub culprit: Culprit,
    pub builds: Vec<BuildOutcome>,
}

impl fmt::Display for Attribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let per: Vec<String> = self
            .builds
            .iter()
            .map(|b| format!("{}: {}", b.build, b.verdict.name()))
            .collect();
        write!(f, "{} ({})", self.culprit, per.join("; "))
    }
}

/// Does a raw (before known findings) verdict depart from the model on hardware?
pub fn departs(v: &Verdict) -> bool {
    matches!(
        v,
        Verdict::Diverge
            | Verdict::UndefinedMispredicted
            | Verdict::TrapUnexpected
            | Verdict::TimeoutUnexpected
            | Verdict::TrapExpected
            | Verdict::TimeoutExpected
    )
}

/// The culprit from the original run, its repeat under the same build, and the other builds.
pub fn culprit(first: &BuildOutcome, again: &BuildOutcome, others: &[BuildOutcome]) -> Culprit {
    if !again.same(first) {
        return Culprit::Flaky;
    }
    // A build that could not run says nothing.
    let others: Vec<BuildOutcome> = others
        .iter()
        .filter(|o| o.verdict != Verdict::HarnessError)
        .cloned()
        .collect();
    let others = &others[..];
    if others.is_empty() {
        return Culprit::Untested;
    }
    let all = std::iter::once(first).chain(others);
    if others.iter().all(|o| o.same(first)) {
        return Culprit::Silicon;
    }
    let departing: Vec<&BuildOutcome> = all.clone().filter(|o| o.departs()).collect();
    let agreeing = all.clone().filter(|o| !o.departs()).count();
    // Some builds agree with the model, and every departing build departs the same way.
    if agreeing > 0 && departing.iter().all(|o| o.same(departing[0])) {
        return Culprit::Compiler(departing.iter().map(|o| o.build.clone()).collect());
    }
    Culprit::Mixed
}
