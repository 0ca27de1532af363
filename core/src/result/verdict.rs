//! The classified result of one case.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The classified result of one case.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Hardware matched the reference (uncertain bytes accepted any allowed value).
    Pass,
    /// Hardware differed from the reference.
    Diverge,
    /// A divergence, unexpected trap or unexpected timeout recorded in
    /// `reports/known-divergences.yaml` (a named, explained finding): reported, not a failure.
    Known,
    /// The GPU trapped where the reference said it might (UB the hardware traps on).
    TrapExpected,
    /// The GPU trapped on a case the reference found well defined.
    TrapUnexpected,
    /// A bounded wait timed out where the reference said the phase can never complete.
    TimeoutExpected,
    /// A bounded wait timed out on a case the reference found well defined.
    TimeoutUnexpected,
    /// The reference classified the case as undefined and the hardware did what its prediction
    /// allows (recorded).
    ReferenceUndefined,
    /// The reference classified the case as undefined and the hardware ended outside the
    /// predicted outcomes (a failure, like a divergence).
    UndefinedMispredicted,
    /// The reference alone ran and found the case well defined (no GPU, or `--reference-only`).
    ReferencePass,
    /// The reference itself failed on the case (a case error, or a violated `expect`).
    ReferenceFail,
    /// The program is illegal on its target (the restriction named): ptxas would refuse it, so
    /// it is neither judged nor run.
    Illegal,
    /// The program is illegal on its target by the restriction the case expects
    /// (`expect: { illegal: .. }`): not a failure, and not run.
    IllegalExpected,
    /// Not run on hardware, with the reason (e.g. "needs sm_100a").
    NotRun,
    /// The harness could not run it (JIT error, setup error, worker crash).
    HarnessError,
    /// Builds of its kernel (code generators, levels) ran it differently: a compiler finding.
    BuildsDisagree,
}

impl Verdict {
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Diverge => "diverge",
            Verdict::Known => "known finding",
            Verdict::TrapExpected => "trap (expected)",
            Verdict::TrapUnexpected => "trap (unexpected)",
            Verdict::TimeoutExpected => "timeout (expected)",
            Verdict::TimeoutUnexpected => "timeout (unexpected)",
            Verdict::ReferenceUndefined => "reference-undefined",
            Verdict::UndefinedMispredicted => "undefined, outcome mispredicted",
            Verdict::ReferencePass => "reference pass",
            Verdict::ReferenceFail => "reference FAIL",
            Verdict::Illegal => "illegal on its target",
            Verdict::IllegalExpected => "illegal (expected)",
            Verdict::NotRun => "not run",
            Verdict::HarnessError => "harness error",
            Verdict::BuildsDisagree => "builds disagree",
        }
    }
    /// Does this verdict fail a run?
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            Verdict::Diverge
                | Verdict::UndefinedMispredicted
                | Verdict::TrapUnexpected
                | Verdict::TimeoutUnexpected
                | Verdict::ReferenceFail
                | Verdict::Illegal
                | Verdict::HarnessError
                | Verdict::BuildsDisagree
        )
    }
    /// Does a case with this reference verdict go on to be observed (hardware, recordings)?
    /// Not when the reference failed it, nor when it is illegal as expected: ptxas refuses it.
    pub fn goes_on(&self) -> bool {
        !self.is_failure() && *self != Verdict::IllegalExpected
    }
}
