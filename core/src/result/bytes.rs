//! Expected and observed bytes: what a divergence shows.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One expected byte: exactly one value, or a set of allowed values (uncertain).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ExpectedByte {
    Known(u8),
    OneOf(Vec<u8>),
    Any,
}

impl ExpectedByte {
    pub fn allows(&self, v: u8) -> bool {
        match self {
            ExpectedByte::Known(k) => *k == v,
            ExpectedByte::OneOf(s) => s.contains(&v),
            ExpectedByte::Any => true,
        }
    }
    pub fn is_known(&self) -> bool {
        matches!(self, ExpectedByte::Known(_))
    }
}

/// Expected vs observed bytes of one region, for the divergence pictures and YAML reports.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct RegionDiff {
    pub region: String,
    pub expected: Vec<ExpectedByte>,
    pub observed: Vec<u8>,
}

impl RegionDiff {
    pub fn first_mismatch(&self) -> Option<usize> {
        self.expected
            .iter()
            .zip(&self.observed)
            .position(|(e, o)| !e.allows(*o))
    }
    pub fn mismatches(&self) -> usize {
        self.expected
            .iter()
            .zip(&self.observed)
            .filter(|(e, o)| !e.allows(**o))
            .count()
    }
}
