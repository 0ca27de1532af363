//! Which build ran a case, and why: most cases run under the run's build; a case that a known
//! compiler defect breaks under it runs under a build without the defect, and a reproducer of
//! the defect under a build with it.

use ptxconform_reference::build::Codegen;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The build that made a case's kernel and why it was that one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RanBuild {
    pub build: Codegen,
    pub why: BuildReason,
}

/// Why a case ran under its build.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum BuildReason {
    /// The run's build (`--build`, or the default).
    Run,
    /// The known compiler defect `finding` breaks the case under the run's build `instead_of`;
    /// this build is one its data says runs the case as the model says.
    AvoidsDefect {
        finding: String,
        instead_of: Codegen,
    },
    /// The case reproduces the known compiler defect `finding`: it runs under a build that has
    /// the defect and is expected to trap.
    Reproduces { finding: String },
}

impl RanBuild {
    /// Did the case run under another build than the run's?
    pub fn routed(&self) -> bool {
        self.why != BuildReason::Run
    }
}

impl fmt::Display for RanBuild {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.why {
            BuildReason::Run => write!(f, "{}", self.build),
            BuildReason::AvoidsDefect {
                finding,
                instead_of,
            } => write!(
                f,
                "{} (not {instead_of}: known compiler defect {finding})",
                self.build
            ),
            BuildReason::Reproduces { finding } => {
                write!(
                    f,
                    "{} (reproduces known compiler defect {finding})",
                    self.build
                )
            }
        }
    }
}
