//! Known findings (`reports/known-divergences.yaml`): named, explained departures that a run
//! reports as [`Verdict::Known`] instead of failing on them.

use crate::glob;
use crate::result::{CaseResult, Verdict};
use ptxconform_reference::gen::swarm::Features;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A named, explained finding: cases whose name matches `case` (`*` wildcards) and that diverge,
/// trap or time out unexpectedly are reported as [`Verdict::Known`]. `signature` (a glob over
/// `fuzz` divergence signatures, `family/verdict/where`, e.g. `cp.reduce.async.bulk/diverge/rdst`)
/// matches generated programs, whose names say nothing.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownDivergence {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub case: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Generator features (`Features::NAMES`) that reach this finding: a campaign turns them
    /// off, so that it spends its time on new ground instead of rediscovering it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub avoid: Vec<String>,
    /// Who departs from the model, as attribution established it (default: the silicon).
    #[serde(default, skip_serializing_if = "KnownCulprit::is_silicon")]
    pub culprit: KnownCulprit,
    pub reason: String,
}

/// The culprit of a known finding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KnownCulprit {
    /// The silicon departs from the model (which keeps the text's position).
    #[default]
    Silicon,
    /// A code generator (ptxas, the driver's JIT) miscompiles the program: the same PTX under
    /// another build matches the model.
    Compiler,
}

impl KnownCulprit {
    fn is_silicon(&self) -> bool {
        *self == KnownCulprit::Silicon
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownDivergences {
    #[serde(default)]
    pub known: Vec<KnownDivergence>,
}

impl KnownDivergences {
    pub fn load(path: &Path) -> Result<KnownDivergences, String> {
        if !path.exists() {
            return Ok(KnownDivergences::default());
        }
        let t = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let k: KnownDivergences =
            serde_saphyr::from_str(&t).map_err(|e| format!("{}: {e}", path.display()))?;
        k.check_patterns()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(k)
    }
    /// An error naming the entry of the first `case` or `signature` that is no valid glob (it
    /// would match nothing).
    pub fn check_patterns(&self) -> Result<(), String> {
        for k in &self.known {
            let patterns = std::iter::once(k.case.as_str())
                .filter(|c| !c.is_empty())
                .chain(k.signature.as_deref());
            for p in patterns {
                glob::check(p).map_err(|e| format!("known divergence `{}`: {e}", k.name))?;
            }
        }
        Ok(())
    }
    /// The known divergence a diverging case falls under, if any.
    pub fn matching(&self, case: &str) -> Option<&KnownDivergence> {
        self.known
            .iter()
            .find(|k| !k.case.is_empty() && crate::glob::glob(&k.case, case))
    }
    /// The generator features to turn off (union of every entry's `avoid`), with the entries
    /// that ask for each; an unknown feature name is an error naming its entry.
    pub fn avoided(&self) -> Result<(Features, Vec<(String, String)>), String> {
        let mut f = Features::default();
        let mut why = Vec::new();
        for k in &self.known {
            for a in &k.avoid {
                let one = Features::named(a).ok_or_else(|| {
                    format!(
                        "known divergence `{}`: avoid: unknown generator feature `{a}` (one of {})",
                        k.name,
                        Features::NAMES.join(", ")
                    )
                })?;
                f = f.union(one);
                why.push((a.clone(), k.name.clone()));
            }
        }
        Ok((f, why))
    }
    /// The known finding that explains a trap in `case`, if any. A trap does not say which
    /// instruction caused it, so a signature naming the program's first copy family proves
    /// little: a finding explains the trap when the program uses a feature the finding's `avoid`
    /// names and the finding's signature matches the trap under one of the program's families.
    pub fn explaining_trap(
        &self,
        used: Features,
        families: &[&str],
        verdict_at: &str,
    ) -> Option<&KnownDivergence> {
        self.known.iter().find(|k| {
            let Some(glob) = k.signature.as_deref() else {
                return false;
            };
            let avoid = k
                .avoid
                .iter()
                .filter_map(|a| Features::named(a))
                .fold(Features::default(), Features::union);
            avoid.intersects(used)
                && families
                    .iter()
                    .any(|f| crate::glob::glob(glob, &format!("{f}/{verdict_at}")))
        })
    }
    /// The known divergence a fuzz divergence signature falls under, if any.
    pub fn matching_signature(&self, signature: &str) -> Option<&KnownDivergence> {
        self.known.iter().find(|k| {
            k.signature
                .as_deref()
                .is_some_and(|g| crate::glob::glob(g, signature))
        })
    }
    /// Re-classify a failure that is a known finding.
    pub fn apply(&self, r: &mut CaseResult) {
        if matches!(
            r.verdict,
            Verdict::Diverge | Verdict::TrapUnexpected | Verdict::TimeoutUnexpected
        ) {
            if let Some(k) = self.matching(&r.case) {
                let what = match k.culprit {
                    KnownCulprit::Silicon => "known",
                    KnownCulprit::Compiler => "known compiler defect",
                };
                r.detail = format!("[{what}: {}] {}: {}", k.name, r.verdict.name(), r.detail);
                r.verdict = Verdict::Known;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_findings_are_reclassified_by_name() {
        let k = KnownDivergences {
            known: vec![KnownDivergence {
                name: "f32-no-ftz".into(),
                case: "reduce.*.f32*".into(),
                signature: None,
                avoid: vec![],
                culprit: Default::default(),
                reason: "r".into(),
            }],
        };
        let result = |case: &str| CaseResult {
            detail: "byte 2".into(),
            ..CaseResult::new(case, "f.yaml", "cp.reduce.async.bulk", Verdict::Diverge)
        };
        let mut r = result("reduce.global.add.f32");
        k.apply(&mut r);
        assert_eq!(r.verdict, Verdict::Known);
        assert!(
            r.detail.starts_with("[known: f32-no-ftz] diverge"),
            "{}",
            r.detail
        );
        let mut other = result("a");
        k.apply(&mut other);
        assert_eq!(
            other.verdict,
            Verdict::Diverge,
            "an unlisted case stays a failure"
        );
    }

    /// A `case` or `signature` that is no glob is refused, naming its entry.
    #[test]
    fn invalid_patterns_are_refused() {
        let entry = |case: &str, signature: Option<&str>| KnownDivergences {
            known: vec![KnownDivergence {
                name: "k".into(),
                case: case.into(),
                signature: signature.map(String::from),
                avoid: vec![],
                culprit: Default::default(),
                reason: "r".into(),
            }],
        };
        assert_eq!(
            entry("reduce.*", Some("cp.async/*")).check_patterns(),
            Ok(())
        );
        let e = entry("reduce.[", None).check_patterns().unwrap_err();
        assert!(
            e.starts_with("known divergence `k`: invalid pattern `reduce.[`"),
            "{e}"
        );
        assert!(entry("", Some("{a")).check_patterns().is_err());
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../reports/known-divergences.yaml");
        KnownDivergences::load(&path).unwrap();
    }
}
