//! Which code generator builds a kernel, as a name: the driver's JIT at an optimization level or
//! an offline ptxas release at an `-O` level. Finding *how* to make a build is the GPU backend's
//! (`ptxconform-gpu`'s `builds`); the identity lives here because the case format pins one
//! (`build:`), observations record the one that ran, and known compiler defects say which builds
//! trap and which pass — all data the reference and the core read without a GPU.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The driver JIT's default (and highest) optimization level.
pub const JIT_DEFAULT_LEVEL: u8 = 4;
/// ptxas's default (and highest) optimization level.
pub const PTXAS_DEFAULT_LEVEL: u8 = 3;

/// One way of building a kernel; written `jit-O4`, `ptxas-13.0-O3` (see [`FromStr`]).
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(try_from = "String", into = "String")]
#[schemars(with = "String")]
pub enum Codegen {
    /// The driver's JIT: `cuModuleLoadDataEx` of the PTX with `CU_JIT_OPTIMIZATION_LEVEL`
    /// (0–4).
    Jit { level: u8 },
    /// An offline ptxas of CUDA release `release` (`13.0`) at `-O<level>` (0–3); the cubin is
    /// loaded as it is.
    Ptxas { release: String, level: u8 },
}

impl fmt::Display for Codegen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Codegen::Jit { level } => write!(f, "jit-O{level}"),
            Codegen::Ptxas { release, level } => write!(f, "ptxas-{release}-O{level}"),
        }
    }
}

impl From<Codegen> for String {
    fn from(c: Codegen) -> String {
        c.to_string()
    }
}

impl TryFrom<String> for Codegen {
    type Error = String;
    fn try_from(s: String) -> Result<Codegen, String> {
        s.parse()
    }
}

impl FromStr for Codegen {
    type Err = String;
    /// `jit`, `jit-O2`, `ptxas-13.5`, `ptxas-13.0-O0` (a missing level is the generator's
    /// default: 4 for the JIT, 3 for ptxas).
    fn from_str(s: &str) -> Result<Codegen, String> {
        let bad = || {
            format!(
                "build `{s}`: expected jit[-O0..4] or ptxas-RELEASE[-O0..3] (e.g. ptxas-13.0-O3)"
            )
        };
        let (head, level) = match s.rsplit_once("-O") {
            Some((h, l)) if !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()) => {
                (h, Some(l.parse::<u8>().map_err(|_| bad())?))
            }
            _ => (s, None),
        };
        let cg = if head == "jit" {
            Codegen::Jit {
                level: level.unwrap_or(JIT_DEFAULT_LEVEL),
            }
        } else if let Some(release) = head.strip_prefix("ptxas-") {
            let parts: Vec<&str> = release.split('.').collect();
            if parts.len() != 2
                || parts
                    .iter()
                    .any(|p| p.is_empty() || p.parse::<u32>().is_err())
            {
                return Err(bad());
            }
            Codegen::Ptxas {
                release: release.to_string(),
                level: level.unwrap_or(PTXAS_DEFAULT_LEVEL),
            }
        } else {
            return Err(bad());
        };
        let max = match cg {
            Codegen::Jit { .. } => JIT_DEFAULT_LEVEL,
            Codegen::Ptxas { .. } => PTXAS_DEFAULT_LEVEL,
        };
        match &cg {
            Codegen::Jit { level } | Codegen::Ptxas { level, .. } if *level > max => Err(bad()),
            _ => Ok(cg),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_parse_print_and_serialize_as_their_names() {
        for (s, want) in [
            ("jit", "jit-O4"),
            ("jit-O0", "jit-O0"),
            ("ptxas-13.0", "ptxas-13.0-O3"),
            ("ptxas-13.5-O0", "ptxas-13.5-O0"),
        ] {
            let cg: Codegen = s.parse().unwrap();
            assert_eq!(cg.to_string(), want);
            assert_eq!(serde_json::to_string(&cg).unwrap(), format!("\"{want}\""));
            let back: Codegen = serde_json::from_str(&format!("\"{s}\"")).unwrap();
            assert_eq!(back, cg);
        }
        for bad in [
            "jit-O5",
            "ptxas-13.0-O4",
            "ptxas-13",
            "ptxas-x.y",
            "nvcc-13.0",
            "",
        ] {
            assert!(bad.parse::<Codegen>().is_err(), "{bad}");
            assert!(serde_json::from_str::<Codegen>(&format!("\"{bad}\"")).is_err());
        }
    }
}
