//! Two readings, one model: where the PTX ISA text and sm_90 silicon differ, the model holds both.
//! An execution runs under a [`Profile`]: `spec` computes what the text guarantees (with the
//! model's named positions where the text is silent), `sm_90` what the recorded H100 / H200 runs
//! did, bit for bit. Every such place is a [`Position`] of [`POSITIONS`], with its evidence; where
//! the silicon's reading is only partly known, the unprobed part keeps the spec reading and says
//! so, instead of guessing.

use std::fmt;
use std::str::FromStr;

/// Which reading of the named positions an execution uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Profile {
    /// What the PTX ISA text guarantees (the model's positions where it is silent).
    Spec,
    /// What sm_90 silicon (H100, H200) was recorded doing.
    Sm90,
}

impl Profile {
    pub const ALL: [Profile; 2] = [Profile::Spec, Profile::Sm90];

    pub fn name(self) -> &'static str {
        match self {
            Profile::Spec => "spec",
            Profile::Sm90 => "sm_90",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Profile, String> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name() == s || (s == "sm90" && *p == Profile::Sm90))
            .ok_or_else(|| format!("unknown profile `{s}` (one of: spec, sm_90)"))
    }
}

/// How well the sm_90 reading of a position is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Silicon {
    /// Recorded runs show it (the `unprobed` text names what they do not cover).
    Observed,
    /// No recorded run tells: the sm_90 profile keeps the spec reading.
    Unprobed,
}

/// A named place where the text and sm_90 silicon differ (or may differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub id: &'static str,
    /// The section of the PTX ISA 9.2 text the position reads.
    pub section: &'static str,
    /// What the position is about, in a few words.
    pub subject: &'static str,
    pub spec: &'static str,
    pub sm_90: &'static str,
    pub silicon: Silicon,
    /// The finding (reports/findings.md) and the recorded cases behind the sm_90 reading.
    pub evidence: &'static str,
    /// What no recording covers (the sm_90 profile keeps the spec reading there).
    pub unprobed: &'static str,
}

/// H3: the bulk f32 add keeps subnormals.
pub const RED_F32_SUBNORMALS: Position = Position {
    id: "P-RED-F32-SUBNORMALS",
    section: "§9.7.9.25.4.2",
    subject: "cp.reduce.async.bulk .add.f32 subnormal inputs and results",
    spec: "flushed to sign-preserving zero (\"the current implementation of \
           cp.reduce.async.bulk.add.f32 flushes subnormal inputs and results\")",
    sm_90: "kept: IEEE add, round to nearest even, subnormal inputs and results preserved; \
            a NaN result is the canonical 0x7FFFFFFF as in the spec reading",
    silicon: Silicon::Observed,
    evidence: "finding H3; cases/reduce/global.yaml reduce.global.add.f32, .f32.hint, \
               .f32.twice on NVIDIA H100 80GB HBM3 and NVIDIA H200 (2026-11-21): \
               2e-39 + 2e-39 = 0x002b8e60, -1e-40 + -0.0 = 0x800116c2; the same runs show \
               ties to even (1 + 2^-24 = 0x3f800000), overflow to +inf, inf + -inf and \
               NaN(0x7fc00000) + 1.0 = 0x7fffffff, all as the spec reading",
    unprobed: "nothing recorded departs from this reading: cases/reduce/special/global.yaml \
               reduce.special.global.add.f32 (H100, 2026-11-25) adds subnormal sums of normal \
               operands and NaNs with payloads (canonical 0x7FFFFFFF every time)",
};

/// H4: the bulk f64 add returns its NaN operand.
pub const RED_F64_NAN_OPERAND: Position = Position {
    id: "P-RED-F64-NAN-OPERAND",
    section: "§9.7.9.25.4.2",
    subject: "cp.reduce.async.bulk .add.f64 with a NaN operand, and inf + -inf",
    spec: "the text states no NaN rule; the model writes the canonical NaN \
           0x7FFFFFFFFFFFFFFF (A-RED-NAN)",
    sm_90: "a NaN source operand is returned bit for bit, else a NaN destination operand \
            (payload and sign kept, signalling NaNs not quieted); inf + -inf (either order) \
            gives 0xFFF8000000000000",
    silicon: Silicon::Observed,
    evidence:
        "finding H4, finding H12; cases/reduce/global.yaml reduce.global.add.f64, .f64.hint on \
               NVIDIA H100 80GB HBM3 and NVIDIA H200 (2026-11-21): +inf (dst) + \
               0x7ff8000000000000 (src) = 0x7ff8000000000000; cases/reduce/special/global.yaml \
               reduce.special.global.add.f64 on NVIDIA H100 80GB HBM3 (2026-11-25): 324 pairs \
               of 18 special values, every NaN pair (quiet with payloads 0-2 and either sign, \
               signalling with payloads 1 and 3, in either operand and both) as stated, \
               +inf + -inf and -inf + +inf = 0xfff8000000000000",
    unprobed: "NaN payloads above the low bits; the shared::cluster form has no .f64 add",
};

/// The tensor form of H3's question.
pub const RED_TENSOR_F32_SUBNORMALS: Position = Position {
    id: "P-RED-TENSOR-F32-SUBNORMALS",
    section: "§9.7.9.25.5.3",
    subject: "cp.reduce.async.bulk.tensor .add.f32 over a FLOAT32 map: subnormal inputs and \
              results",
    spec: "the tensor page states no flush rule and has no .noftz; the model flushes as the \
           non-tensor text says (A-RED-TENSOR-FLOAT)",
    sm_90: "kept, as the bulk form (P-RED-F32-SUBNORMALS): IEEE add, round to nearest even, \
            subnormal inputs and results preserved, a NaN result the canonical 0x7FFFFFFF; \
            over a FLOAT32_FTZ map subnormals are flushed under both readings",
    silicon: Silicon::Observed,
    evidence:
        "finding H11; cases/reduce/special/tensor.yaml on NVIDIA H100 80GB HBM3 (2026-11-25): \
               reduce.special.tensor.add.float32 (345 pairs: subnormal operands and sums kept, \
               e.g. +min subnormal + +min subnormal = 0x00000002) and \
               reduce.special.tensor.add.float32_ftz (the same pairs, flushed)",
    unprobed: "im2col_no_offs reductions (the same arithmetic is assumed)",
};

/// Every position, in the order `ptxconform rules` lists them.
pub const POSITIONS: &[Position] = &[
    RED_F32_SUBNORMALS,
    RED_F64_NAN_OPERAND,
    RED_TENSOR_F32_SUBNORMALS,
];

/// The position named `id`.
pub fn position(id: &str) -> Option<&'static Position> {
    POSITIONS.iter().find(|p| p.id == id)
}

impl Position {
    /// The reading under `p`.
    pub fn reading(&self, p: Profile) -> &'static str {
        match p {
            Profile::Spec => self.spec,
            Profile::Sm90 => self.sm_90,
        }
    }
}

/// The granule silicon rounds a CTA's dynamic shared-memory allocation up to when it bounds a
/// shared access (a model position where the text is silent: §6.4.1 calls any access outside its
/// region undefined). An access past its region that ends within the allocation rounded up to
/// this many bytes is predicted to complete, one that ends beyond it to trap with an illegal
/// address (CUDA error 700). Probed: `reports/probes/smem-allocation/` (H200 280 runs, H100 24;
/// allocations of 64 B to 227 KiB) and `cases/ub/shared_window.yaml` (48 cases, H100), every
/// outcome as this granule predicts.
pub const SHARED_WINDOW_GRANULE: u64 = 128;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_parse_and_print() {
        for p in Profile::ALL {
            assert_eq!(p.name().parse::<Profile>(), Ok(p));
            assert_eq!(p.to_string(), p.name());
        }
        assert_eq!("sm90".parse::<Profile>(), Ok(Profile::Sm90));
        let e = "sm_100".parse::<Profile>().unwrap_err();
        assert!(e.contains("sm_100") && e.contains("spec, sm_90"), "{e}");
    }

    #[test]
    fn positions_are_named_once_and_cite_their_evidence() {
        for (i, p) in POSITIONS.iter().enumerate() {
            assert!(p.id.starts_with("P-"), "{}", p.id);
            assert_eq!(position(p.id), Some(p));
            assert!(POSITIONS[..i].iter().all(|q| q.id != p.id), "{}", p.id);
            assert!(p.section.starts_with('§'));
            assert!(p.evidence.contains("cases/"), "{}", p.id);
            assert_ne!(p.reading(Profile::Spec), p.reading(Profile::Sm90));
            // An observed reading cites its finding; an unprobed one says so.
            match p.silicon {
                Silicon::Observed => assert!(p.evidence.contains("finding H"), "{}", p.id),
                Silicon::Unprobed => assert!(p.sm_90.starts_with("sm_90 reading unprobed")),
            }
        }
        assert_eq!(position("P-NONE"), None);
    }

    /// Against every recorded reduction (cases/reduce/global.yaml, H100 and H200): the sm_90
    /// profile reproduces each observation byte for byte; the spec profile departs exactly on
    /// the f32 and f64 adds, and both executions name the position that tells them apart.
    #[test]
    fn sm_90_reproduces_every_recorded_reduction() {
        use crate::sem::exec::{execute_with, ExecOptions};
        use crate::sem::memory::Byte;
        let file =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/reduce/global.yaml");
        let cases = crate::case::load_file(&file).unwrap();
        let mut departing = vec![];
        let mut observations = 0;
        for case in &cases {
            let run = |profile| execute_with(case, ExecOptions::of(profile)).unwrap();
            let (spec, sm90) = (run(Profile::Spec), run(Profile::Sm90));
            let matches = |ex: &crate::sem::exec::Execution, obs: &crate::case::Observation| {
                obs.regions.iter().all(|(key, bytes)| {
                    let got = ex.final_region(key).unwrap();
                    got.iter().zip(bytes).all(|(g, b)| *g == Byte::Known(*b))
                })
            };
            for obs in &case.observed {
                observations += 1;
                assert!(matches(&sm90, obs), "{} on {}", case.name, obs.device);
                if !matches(&spec, obs) {
                    departing.push(case.name.as_str());
                }
            }
            assert_eq!(spec.departures, sm90.departures, "{}", case.name);
            let ids: Vec<&str> = sm90.departures.iter().map(|p| p.id).collect();
            let want: &[&str] = match case.name.as_str() {
                n if n.starts_with("reduce.global.add.f32") => &["P-RED-F32-SUBNORMALS"],
                n if n.starts_with("reduce.global.add.f64") => &["P-RED-F64-NAN-OPERAND"],
                _ => &[],
            };
            assert_eq!(ids, want, "{}", case.name);
        }
        departing.dedup();
        assert!(observations >= 100, "{observations}");
        assert_eq!(
            departing,
            [
                "reduce.global.add.f32",
                "reduce.global.add.f64",
                "reduce.global.add.f32.hint",
                "reduce.global.add.f64.hint",
                "reduce.global.add.f32.twice"
            ]
        );
    }
}
