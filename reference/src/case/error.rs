//! The one error type of case loading and validation: always located.

use std::fmt;

/// A problem in a case file, located at the YAML node it concerns.
/// Displays as `FILE:LINE:COL: PATH: MESSAGE`, where PATH is the field path
/// (`program[2].ptx`, `[1].memory.global[0].name` in a file holding a sequence of cases) or, for
/// problems that concern no field, the rule (`yaml`, `utf-8`, `io`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseError {
    pub file: String,
    /// 1-based line and column (columns count characters).
    pub line: usize,
    pub col: usize,
    pub path: String,
    pub message: String,
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.file, self.line, self.col, self.path, self.message
        )
    }
}

impl std::error::Error for CaseError {}
