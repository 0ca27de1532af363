//! The schema versions of the result files other programs read: one constant per file kind,
//! written into every such file and checked where ptxconform reads one back (`merge`,
//! `run --resume`), so that a file of another version is refused by name, never misread.
//! Files written before versions existed are version 1.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A schema version of a result file.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(transparent)]
pub struct SchemaVersion(pub u32);

impl SchemaVersion {
    /// What a file without a version is: written before versions existed.
    pub const UNVERSIONED: SchemaVersion = SchemaVersion(1);
}

impl Default for SchemaVersion {
    fn default() -> Self {
        SchemaVersion::UNVERSIONED
    }
}

impl fmt::Display for SchemaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The kinds of versioned result files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Summary,
    Journal,
    Junit,
}

/// summary.json: 2 added `schema_version`, `scope` and `partial`.
pub const SUMMARY: SchemaVersion = SchemaVersion(2);
/// journal.jsonl: 2 added the header line (`schema_version`, `scope`).
pub const JOURNAL: SchemaVersion = SchemaVersion(2);
/// junit.xml: 2 added the `schema_version` and `partial` properties.
pub const JUNIT: SchemaVersion = SchemaVersion(2);

impl FileKind {
    /// The file's name in a result folder.
    pub fn file_name(self) -> &'static str {
        match self {
            FileKind::Summary => "summary.json",
            FileKind::Journal => "journal.jsonl",
            FileKind::Junit => "junit.xml",
        }
    }

    /// The version this ptxconform writes.
    pub fn current(self) -> SchemaVersion {
        match self {
            FileKind::Summary => SUMMARY,
            FileKind::Journal => JOURNAL,
            FileKind::Junit => JUNIT,
        }
    }

    /// Accept a file of version `found` only if it is the one this ptxconform writes.
    pub fn check(self, found: SchemaVersion) -> Result<(), VersionMismatch> {
        if found == self.current() {
            Ok(())
        } else {
            Err(VersionMismatch { kind: self, found })
        }
    }
}

/// A result file of another schema version than this ptxconform writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionMismatch {
    pub kind: FileKind,
    pub found: SchemaVersion,
}

impl fmt::Display for VersionMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let advice = if self.found < self.kind.current() {
            "written by an older ptxconform: rerun it with this one"
        } else {
            "written by a newer ptxconform: read it with that one"
        };
        write!(
            f,
            "{} schema version {}, this ptxconform writes {} ({advice})",
            self.kind.file_name(),
            self.found,
            self.kind.current()
        )
    }
}

/// The version a JSON text declares in its `schema_version` field, read before anything else so
/// that a file of another version is refused by its version rather than by a field it lacks;
/// `None`: not JSON of an object (a torn line).
pub fn declared(json: &str) -> Option<SchemaVersion> {
    #[derive(Deserialize)]
    struct Probe {
        #[serde(default)]
        schema_version: SchemaVersion,
    }
    serde_json::from_str::<Probe>(json)
        .ok()
        .map(|p| p.schema_version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_checked_by_kind() {
        assert_eq!(FileKind::Summary.check(SUMMARY), Ok(()));
        let old = FileKind::Summary
            .check(SchemaVersion::UNVERSIONED)
            .unwrap_err();
        assert_eq!(
            old,
            VersionMismatch {
                kind: FileKind::Summary,
                found: SchemaVersion(1)
            }
        );
        assert!(old.to_string().starts_with(
            "summary.json schema version 1, this ptxconform writes 2 (written by an older"
        ));
        let new = FileKind::Journal.check(SchemaVersion(3)).unwrap_err();
        assert!(new.to_string().contains("journal.jsonl schema version 3"));
        assert!(new.to_string().contains("newer"));
    }

    #[test]
    fn a_file_without_a_version_is_version_1() {
        assert_eq!(declared(r#"{"info": {}}"#), Some(SchemaVersion(1)));
        assert_eq!(declared(r#"{"schema_version": 7}"#), Some(SchemaVersion(7)));
        assert_eq!(declared(r#"{"case": "torn"#), None);
        assert_eq!(declared("42"), None);
    }
}
