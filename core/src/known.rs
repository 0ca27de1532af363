//! Known findings (`reports/known-divergences.yaml`): named, explained departures that a run
//! reports as [`Verdict::Known`] instead of failing on them.

use crate::glob;
use crate::result::{BuildReason, CaseResult, Verdict};
pub use crate::result::{SeenOn, Site};
use ptxconform_reference::build::Codegen;
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
    /// Who departs from the model, as attribution established it (default: the silicon); a
    /// compiler defect names the builds it breaks and those it does not.
    #[serde(default, skip_serializing_if = "KnownCulprit::is_silicon")]
    pub culprit: KnownCulprit,
    /// Where the finding was observed. A match on another device or driver is new evidence,
    /// not this finding: it is reported, not suppressed.
    pub seen_on: SeenOn,
    pub reason: String,
}

impl KnownDivergence {
    /// Whether a failure observed at `site` falls in the finding's `seen_on` (`None`: no
    /// observation says where, so nothing rules it out).
    pub fn seen_at(&self, site: Option<Site>) -> bool {
        site.is_none_or(|s| self.seen_on.covers(s))
    }
}

/// The builds of a known compiler defect (`culprit: { compiler: … }`), as attribution found
/// them. A run under a breaking build routes the finding's cases to a passing one, so that the
/// silicon is observed; the reproducers keep a breaking build.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DefectBuilds {
    /// Builds under which the finding's cases depart (trap).
    pub traps: Vec<Codegen>,
    /// Builds under which they run as the model says, in order of preference: a case is routed
    /// to the first one that can be made here.
    pub passes: Vec<Codegen>,
    /// Cases (exact names) that show the defect: they run under a trapping build (the run's
    /// own when it traps, else the first of `traps` that can be made here) and are expected to
    /// trap; one that completes means the defect is gone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reproducers: Vec<String>,
}

/// The build a case runs under when it is not the run's, and why ([`KnownDivergences::build_for`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Routed {
    pub build: Codegen,
    pub why: BuildReason,
}

/// The culprit of a known finding.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KnownCulprit {
    /// The silicon departs from the model (which keeps the text's position).
    #[default]
    Silicon,
    /// A code generator (ptxas, the driver's JIT) miscompiles the program: the same PTX under
    /// another build matches the model.
    Compiler(DefectBuilds),
}

impl KnownCulprit {
    fn is_silicon(&self) -> bool {
        *self == KnownCulprit::Silicon
    }
    /// The builds of a compiler defect.
    pub fn builds(&self) -> Option<&DefectBuilds> {
        match self {
            KnownCulprit::Silicon => None,
            KnownCulprit::Compiler(b) => Some(b),
        }
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
            .and_then(|()| k.check_builds())
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
            if k.seen_on.devices.is_empty() || k.seen_on.drivers.is_empty() {
                return Err(format!(
                    "known divergence `{}`: `seen_on` names no device or no driver (a finding \
                     is known only where it was observed)",
                    k.name
                ));
            }
            for p in k.seen_on.devices.iter().chain(&k.seen_on.drivers) {
                glob::check(p).map_err(|e| format!("known divergence `{}`: {e}", k.name))?;
            }
        }
        Ok(())
    }
    /// The build `case` runs under in a run whose build is `run`, when a known compiler defect
    /// decides it: a case of a defect that `run` has goes to the first passing build that
    /// `can_make`; a reproducer of a defect runs under `run` if it has the defect, else under the
    /// first trapping build that `can_make`. `None`: the run's build for the run's reason (also
    /// when no such build can be made here).
    pub fn build_for(
        &self,
        case: &str,
        run: &Codegen,
        can_make: impl Fn(&Codegen) -> bool,
    ) -> Option<Routed> {
        self.known.iter().find_map(|k| {
            let b = k.culprit.builds()?;
            if b.reproducers.iter().any(|r| r == case) {
                let build = if b.traps.contains(run) {
                    run.clone()
                } else {
                    b.traps.iter().find(|c| can_make(c))?.clone()
                };
                return Some(Routed {
                    build,
                    why: BuildReason::Reproduces {
                        finding: k.name.clone(),
                    },
                });
            }
            if k.case.is_empty() || !glob::glob(&k.case, case) || !b.traps.contains(run) {
                return None;
            }
            let build = b.passes.iter().find(|c| can_make(c))?.clone();
            Some(Routed {
                build,
                why: BuildReason::AvoidsDefect {
                    finding: k.name.clone(),
                    instead_of: run.clone(),
                },
            })
        })
    }
    /// An error naming the first compiler finding whose builds are inconsistent: a build both
    /// traps and passes, or none traps or passes.
    pub fn check_builds(&self) -> Result<(), String> {
        for k in &self.known {
            let Some(b) = k.culprit.builds() else {
                continue;
            };
            let bad = |what: &str| Err(format!("known divergence `{}`: compiler: {what}", k.name));
            if b.passes.is_empty() || b.traps.is_empty() {
                return bad("name at least one build that traps and one that passes");
            }
            if let Some(both) = b.traps.iter().find(|t| b.passes.contains(t)) {
                return bad(&format!("`{both}` both traps and passes"));
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
    /// Re-classify a failure that is a known finding, observed at `site` (`None`: no
    /// observation says where). A case routed around a compiler defect ran under a build
    /// without it: its result stands as judged. A reproducer of a defect is expected to trap:
    /// its trap is the known finding, and anything else is a divergence (the defect no longer
    /// shows under its build). A match observed outside the finding's `seen_on` stays a failure,
    /// with a note naming the finding and its scope.
    pub fn apply(&self, r: &mut CaseResult, site: Option<Site>) {
        let outside = |k: &KnownDivergence| site.filter(|_| !k.seen_at(site));
        match r.build.as_ref().map(|b| &b.why) {
            Some(BuildReason::AvoidsDefect { .. }) => return,
            Some(BuildReason::Reproduces { finding }) => {
                let finding = finding.clone();
                let k = self.known.iter().find(|k| k.name == finding);
                if let Some(s) = k.and_then(|k| outside(k).map(|s| (k, s))) {
                    note_outside(r, s.0, s.1);
                } else if r.verdict == Verdict::TrapUnexpected {
                    r.detail = format!(
                        "[known compiler defect: {finding}, reproduced] {}: {}",
                        r.verdict.name(),
                        r.detail
                    );
                    r.verdict = Verdict::Known;
                } else if r.verdict == Verdict::Pass {
                    r.detail = format!(
                        "[known compiler defect: {finding}] expected a trap under this build, \
                         the case ran as {}: the defect is gone? {}",
                        r.verdict.name(),
                        r.detail
                    );
                    r.verdict = Verdict::Diverge;
                }
                return;
            }
            Some(BuildReason::Run) | None => {}
        }
        if matches!(
            r.verdict,
            Verdict::Diverge | Verdict::TrapUnexpected | Verdict::TimeoutUnexpected
        ) {
            if let Some(k) = self.matching(&r.case) {
                if let Some(s) = outside(k) {
                    note_outside(r, k, s);
                    return;
                }
                let what = match k.culprit {
                    KnownCulprit::Silicon => "known",
                    KnownCulprit::Compiler(_) => "known compiler defect",
                };
                r.detail = format!("[{what}: {}] {}: {}", k.name, r.verdict.name(), r.detail);
                r.verdict = Verdict::Known;
            }
        }
    }
}

/// A failure that matches `k` but was observed outside its scope stays a failure: new evidence.
fn note_outside(r: &mut CaseResult, k: &KnownDivergence, s: Site) {
    r.detail = format!(
        "[matches known finding {}, seen only on {}; observed on {}, driver {}: reported as \
         new] {}",
        k.name,
        k.seen_on.describe(),
        s.device,
        s.driver,
        r.detail
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100() -> SeenOn {
        SeenOn {
            devices: vec!["NVIDIA H100*".into()],
            drivers: vec!["CUDA 13.*".into()],
        }
    }

    /// A match observed on another device or driver is reported as new, with the finding named.
    #[test]
    fn a_match_outside_its_scope_is_not_suppressed() {
        let k = KnownDivergences {
            known: vec![KnownDivergence {
                name: "f32-no-ftz".into(),
                case: "reduce.*".into(),
                signature: None,
                avoid: vec![],
                culprit: Default::default(),
                seen_on: h100(),
                reason: "r".into(),
            }],
        };
        let at = |device, driver| {
            let mut r = CaseResult::new("reduce.f32", "f.yaml", "x", Verdict::Diverge);
            k.apply(&mut r, Some(Site { device, driver }));
            r
        };
        assert_eq!(
            at("NVIDIA H100 80GB HBM3", "CUDA 13.0").verdict,
            Verdict::Known
        );
        for (d, v) in [
            ("NVIDIA H200", "CUDA 13.0"),
            ("NVIDIA H100 PCIe", "CUDA 14.0"),
        ] {
            let r = at(d, v);
            assert_eq!(r.verdict, Verdict::Diverge, "{d} {v}");
            assert!(
                r.detail.contains("matches known finding f32-no-ftz"),
                "{}",
                r.detail
            );
        }
        let mut unscoped = k.clone();
        unscoped.known[0].seen_on.drivers.clear();
        let e = unscoped.check_patterns().unwrap_err();
        assert!(e.contains("`seen_on`"), "{e}");
    }

    #[test]
    fn known_findings_are_reclassified_by_name() {
        let k = KnownDivergences {
            known: vec![KnownDivergence {
                name: "f32-no-ftz".into(),
                case: "reduce.*.f32*".into(),
                signature: None,
                avoid: vec![],
                culprit: Default::default(),
                seen_on: h100(),
                reason: "r".into(),
            }],
        };
        let result = |case: &str| CaseResult {
            detail: "byte 2".into(),
            ..CaseResult::new(case, "f.yaml", "cp.reduce.async.bulk", Verdict::Diverge)
        };
        let mut r = result("reduce.global.add.f32");
        k.apply(&mut r, None);
        assert_eq!(r.verdict, Verdict::Known);
        assert!(
            r.detail.starts_with("[known: f32-no-ftz] diverge"),
            "{}",
            r.detail
        );
        let mut other = result("a");
        k.apply(&mut other, None);
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
                seen_on: h100(),
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

    /// A routed case's result stands as judged; a reproducer's trap is the finding and its
    /// completion a divergence; the committed findings' builds are consistent.
    #[test]
    fn compiler_defects_route_and_reproduce() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../reports/known-divergences.yaml");
        let k = KnownDivergences::load(&path).unwrap();
        let (o3, o0): (Codegen, Codegen) = (
            "ptxas-13.0-O3".parse().unwrap(),
            "ptxas-13.0-O0".parse().unwrap(),
        );
        let all = |_: &Codegen| true;
        let r = k
            .build_for("cp_async.ca.16.shared.full.hint", &o3, all)
            .unwrap();
        assert_eq!(r.build, o0);
        assert!(k
            .build_for("cp_async.ca.16.shared.full.hint", &o0, all)
            .is_none());
        assert!(k
            .build_for("cp_async.ca.16.shared.full.hint", &o3, |_| false)
            .is_none());
        assert!(k
            .build_for("cp_async.ca.16.shared.full", &o3, all)
            .is_none());
        let repro = k
            .build_for("cp_async.ca.4.shared.full.hint.defect", &o0, all)
            .unwrap();
        assert_eq!(repro.build, o3);
        let routed = |why: BuildReason, v: Verdict| {
            let mut r = CaseResult::new("cp_async.ca.4.shared.full.hint", "f", "cp.async", v);
            r.build = Some(crate::result::RanBuild {
                build: o0.clone(),
                why,
            });
            k.apply(&mut r, None);
            r.verdict
        };
        let avoids = BuildReason::AvoidsDefect {
            finding: "cp-async-cache-hint-policy-traps".into(),
            instead_of: o3.clone(),
        };
        assert_eq!(routed(avoids.clone(), Verdict::Pass), Verdict::Pass);
        assert_eq!(
            routed(avoids, Verdict::TrapUnexpected),
            Verdict::TrapUnexpected,
            "a trap under a passing build is no known finding"
        );
        assert_eq!(
            routed(BuildReason::Run, Verdict::TrapUnexpected),
            Verdict::Known
        );
        let reproduces = BuildReason::Reproduces {
            finding: "cp-async-cache-hint-policy-traps".into(),
        };
        assert_eq!(
            routed(reproduces.clone(), Verdict::TrapUnexpected),
            Verdict::Known
        );
        assert_eq!(routed(reproduces.clone(), Verdict::Pass), Verdict::Diverge);
        assert_eq!(routed(reproduces, Verdict::NotRun), Verdict::NotRun);

        let mut bad = k.clone();
        if let KnownCulprit::Compiler(b) = &mut bad.known[0].culprit {
            b.passes.push(o3.clone());
        }
        let e = bad.check_builds().unwrap_err();
        assert!(e.contains("`ptxas-13.0-O3` both traps and passes"), "{e}");
    }
}
