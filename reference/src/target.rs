//! Compilation targets (`.target sm_XX{a,f}`), PTX ISA versions, and static legality as data.
//!
//! A variant's legality is a conjunction of [`Support`] terms (one per qualifier or feature that
//! restricts it); each term is a disjunction of [`Since`] alternatives: "this class of targets,
//! from this PTX ISA version on". That is exactly the shape of the "PTX ISA Notes" and "Target ISA
//! Notes" paragraphs of the instruction pages.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A PTX ISA version such as 8.6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PtxVersion {
    pub major: u8,
    pub minor: u8,
}

impl PtxVersion {
    pub const fn new(major: u8, minor: u8) -> Self {
        PtxVersion { major, minor }
    }
    /// The newest PTX ISA the pinned ptxas (CUDA 13.0) and the GPU machines' driver accept.
    pub const MAX_SUPPORTED: PtxVersion = PtxVersion::new(9, 0);
    /// The version just below this one (8.0 -> 7.8 is not needed: minor simply decrements, 8.0 -> 7.9
    /// does not exist, so we step to the previous major's .8, the highest minor ever shipped).
    pub fn previous(self) -> Option<PtxVersion> {
        match (self.major, self.minor) {
            (0, 0) => None,
            (m, 0) => Some(PtxVersion::new(m - 1, 8)),
            (m, n) => Some(PtxVersion::new(m, n - 1)),
        }
    }
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl FromStr for PtxVersion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (a, b) = s
            .split_once('.')
            .ok_or_else(|| format!("PTX version `{s}` is not MAJOR.MINOR"))?;
        Ok(PtxVersion::new(
            a.parse()
                .map_err(|_| format!("bad PTX major version in `{s}`"))?,
            b.parse()
                .map_err(|_| format!("bad PTX minor version in `{s}`"))?,
        ))
    }
}

/// Architecture-specific (`a`) or family-specific (`f`) target suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Suffix {
    None,
    Family,
    Arch,
}

/// A `.target` such as `sm_90a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Target {
    pub sm: u32,
    pub suffix: Suffix,
}

impl Target {
    pub const fn new(sm: u32, suffix: Suffix) -> Self {
        Target { sm, suffix }
    }
    pub const SM_80: Target = Target::new(80, Suffix::None);
    pub const SM_90: Target = Target::new(90, Suffix::None);
    pub const SM_90A: Target = Target::new(90, Suffix::Arch);
    pub const SM_100A: Target = Target::new(100, Suffix::Arch);
    pub const SM_100F: Target = Target::new(100, Suffix::Family);

    /// Targets the pinned ptxas 13.0 knows, in the order reports list them.
    pub fn all_known() -> Vec<Target> {
        use Suffix::*;
        vec![
            Target::new(80, None),
            Target::new(86, None),
            Target::new(89, None),
            Target::new(90, None),
            Target::new(90, Arch),
            Target::new(100, None),
            Target::new(100, Family),
            Target::new(100, Arch),
            Target::new(103, None),
            Target::new(103, Family),
            Target::new(103, Arch),
            Target::new(110, None),
            Target::new(110, Family),
            Target::new(110, Arch),
            Target::new(120, None),
            Target::new(120, Family),
            Target::new(120, Arch),
        ]
    }

    /// The "family" a target belongs to for `sm_XXf` rules: same major generation, and the
    /// family-portable feature set grows with the minor (sm_103f includes sm_100f).
    fn family_major(sm: u32) -> u32 {
        sm / 10
    }

    /// Minimum PTX ISA version that can name this target at all (`.target` directive support).
    pub fn min_ptx(self) -> PtxVersion {
        // Target ISA support table of the PTX ISA (§"PTX ISA version" release history).
        match (self.sm, self.suffix) {
            (80, _) => PtxVersion::new(7, 0),
            (86, _) => PtxVersion::new(7, 1),
            (89, _) => PtxVersion::new(7, 8),
            (90, Suffix::None) => PtxVersion::new(7, 8),
            (90, _) => PtxVersion::new(8, 0),
            (100 | 103, Suffix::Family) | (110 | 120 | 121, Suffix::Family) => {
                PtxVersion::new(8, 8)
            }
            (100, _) => PtxVersion::new(8, 6),
            (103, _) => PtxVersion::new(8, 8),
            (110, _) => PtxVersion::new(9, 0),
            (120, _) => PtxVersion::new(8, 7),
            _ => PtxVersion::new(8, 8),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self.suffix {
            Suffix::None => "",
            Suffix::Family => "f",
            Suffix::Arch => "a",
        };
        write!(f, "sm_{}{}", self.sm, s)
    }
}

impl FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let rest = s
            .trim()
            .strip_prefix("sm_")
            .ok_or_else(|| format!("target `{s}` does not start with sm_"))?;
        let (digits, suffix) = match rest.as_bytes().last() {
            Some(b'a') => (&rest[..rest.len() - 1], Suffix::Arch),
            Some(b'f') => (&rest[..rest.len() - 1], Suffix::Family),
            _ => (rest, Suffix::None),
        };
        let sm: u32 = digits
            .parse()
            .map_err(|_| format!("target `{s}`: `{digits}` is not a number"))?;
        Ok(Target::new(sm, suffix))
    }
}

impl Serialize for Target {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Target {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A class of targets as the Target ISA Notes name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TargetClass {
    /// "Requires sm_XX or higher": every target with sm >= XX, whatever its suffix.
    AtLeast(u32),
    /// "sm_XXa": exactly that architecture-specific target.
    Arch(u32),
    /// "sm_XXf or higher in the same family": sm_YYf and sm_YYa with YY >= XX of the same family.
    Family(u32),
}

impl TargetClass {
    pub fn contains(self, t: Target) -> bool {
        match self {
            TargetClass::AtLeast(sm) => t.sm >= sm,
            TargetClass::Arch(sm) => t.sm == sm && t.suffix == Suffix::Arch,
            TargetClass::Family(sm) => {
                t.suffix != Suffix::None
                    && Target::family_major(t.sm) == Target::family_major(sm)
                    && t.sm >= sm
            }
        }
    }
}

impl fmt::Display for TargetClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetClass::AtLeast(sm) => write!(f, "sm_{sm}+"),
            TargetClass::Arch(sm) => write!(f, "sm_{sm}a"),
            TargetClass::Family(sm) => write!(f, "sm_{sm}f-family"),
        }
    }
}

/// One alternative: targets of `class`, from PTX ISA `ptx` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Since {
    pub class: TargetClass,
    pub ptx: PtxVersion,
}

/// One restriction: the variant is legal on a target only if one of `any` admits it.
/// `why` names the feature, for reports ("`.cp_mask` needs sm_100").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Support {
    pub why: String,
    pub any: Vec<Since>,
}

impl Support {
    pub fn new(why: impl Into<String>, any: Vec<Since>) -> Self {
        Support {
            why: why.into(),
            any,
        }
    }
    /// A qualifier rule no target accepts (e.g. "`.tile::gather4` only with `.2d`"): the variant is
    /// well-formed text but illegal everywhere.
    pub fn never(rule: impl Into<String>) -> Self {
        Support::new(rule, Vec::new())
    }
    /// "Requires sm_XX or higher" + "Introduced in PTX ISA version M.N".
    pub fn at_least(why: impl Into<String>, sm: u32, ptx: PtxVersion) -> Self {
        Support::new(
            why,
            vec![Since {
                class: TargetClass::AtLeast(sm),
                ptx,
            }],
        )
    }
    /// The recurring Blackwell pattern of the Target ISA Notes: `sm_100a` (from `arch_ptx`),
    /// `sm_101a`→`sm_110a` (PTX 9.0 renamed it), and the `sm_100f` / `sm_110f` families from PTX 8.8.
    pub fn blackwell_arch_or_family(why: impl Into<String>, arch_ptx: PtxVersion) -> Self {
        let v88 = PtxVersion::new(8, 8);
        let v90 = PtxVersion::new(9, 0);
        Support::new(
            why,
            vec![
                Since {
                    class: TargetClass::Arch(100),
                    ptx: arch_ptx,
                },
                Since {
                    class: TargetClass::Arch(110),
                    ptx: v90.max(arch_ptx),
                },
                Since {
                    class: TargetClass::Family(100),
                    ptx: v88.max(arch_ptx),
                },
                Since {
                    class: TargetClass::Family(110),
                    ptx: v90.max(arch_ptx),
                },
            ],
        )
    }
    /// Earliest PTX version at which `t` is admitted, if any alternative admits it.
    pub fn min_ptx_for(&self, t: Target) -> Option<PtxVersion> {
        self.any
            .iter()
            .filter(|s| s.class.contains(t))
            .map(|s| s.ptx)
            .min()
    }
}

/// Static legality of one variant: the conjunction of its restrictions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requirement {
    pub all: Vec<Support>,
}

/// The model's verdict for (variant, target, PTX version).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    Legal,
    /// Illegal on this target at any PTX version; `why` is the first restriction that fails.
    WrongTarget {
        why: String,
    },
    /// Legal on this target from `needs` on, but the program's PTX version is older.
    PtxTooOld {
        why: String,
        needs: PtxVersion,
    },
}

impl Requirement {
    pub fn new() -> Self {
        Requirement::default()
    }
    pub fn and(mut self, s: Support) -> Self {
        self.all.push(s);
        self
    }
    pub fn push(&mut self, s: Support) {
        self.all.push(s);
    }
    /// The minimum PTX version for `t` (including what `.target t` itself needs), or `Err(why)`
    /// naming the restriction no alternative of which admits `t`.
    pub fn min_ptx_for(&self, t: Target) -> Result<PtxVersion, String> {
        let mut need = t.min_ptx();
        for s in &self.all {
            match s.min_ptx_for(t) {
                Some(v) => need = need.max(v),
                None => return Err(s.why.clone()),
            }
        }
        Ok(need)
    }
    /// Every restriction that refuses the variant on `t` at `ptx` (at every version when `None`),
    /// by name, in the requirement's order; empty when it is legal there. These are the names
    /// `expect: { illegal: .. }` matches.
    pub fn broken(&self, t: Target, ptx: Option<PtxVersion>) -> Vec<String> {
        let too_old = |v: PtxVersion| ptx.is_some_and(|p| v > p);
        let mut out: Vec<String> = self
            .all
            .iter()
            .filter(|s| s.min_ptx_for(t).is_none_or(too_old))
            .map(|s| s.why.clone())
            .collect();
        if too_old(t.min_ptx()) {
            out.push(format!(".target {t}"));
        }
        out
    }
    pub fn verdict(&self, t: Target, ptx: PtxVersion) -> Verdict {
        match self.min_ptx_for(t) {
            Err(why) => Verdict::WrongTarget { why },
            Ok(v) if v > ptx => {
                // Name the restriction that pushed the version up.
                let why = self
                    .all
                    .iter()
                    .find(|s| s.min_ptx_for(t).is_some_and(|x| x > ptx))
                    .map(|s| s.why.clone())
                    .unwrap_or_else(|| format!(".target {t}"));
                Verdict::PtxTooOld { why, needs: v }
            }
            Ok(_) => Verdict::Legal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_parse_print() {
        for t in Target::all_known() {
            assert_eq!(t.to_string().parse::<Target>().unwrap(), t);
        }
        assert!("sm90".parse::<Target>().is_err());
    }

    #[test]
    fn classes() {
        let sm100f: Target = "sm_100f".parse().unwrap();
        let sm103a: Target = "sm_103a".parse().unwrap();
        assert!(TargetClass::Family(100).contains(sm100f));
        assert!(TargetClass::Family(100).contains(sm103a));
        assert!(!TargetClass::Family(100).contains(Target::SM_90A));
        assert!(!TargetClass::Family(100).contains("sm_100".parse().unwrap()));
        assert!(!TargetClass::Family(100).contains("sm_110f".parse().unwrap()));
        assert!(TargetClass::AtLeast(90).contains(Target::SM_90A));
        assert!(!TargetClass::AtLeast(90).contains(Target::SM_80));
        assert!(TargetClass::Arch(100).contains(Target::SM_100A));
        assert!(!TargetClass::Arch(100).contains(sm103a));
    }

    #[test]
    fn verdicts() {
        let r = Requirement::new()
            .and(Support::at_least(
                "cp.async.bulk",
                90,
                PtxVersion::new(8, 0),
            ))
            .and(Support::blackwell_arch_or_family(
                ".cta_group",
                PtxVersion::new(8, 6),
            ));
        assert!(matches!(
            r.verdict(Target::SM_90A, PtxVersion::MAX_SUPPORTED),
            Verdict::WrongTarget { .. }
        ));
        assert_eq!(
            r.verdict(Target::SM_100A, PtxVersion::new(8, 6)),
            Verdict::Legal
        );
        assert!(matches!(
            r.verdict(Target::SM_100F, PtxVersion::new(8, 6)),
            Verdict::PtxTooOld { .. }
        ));
        assert_eq!(r.min_ptx_for(Target::SM_100F), Ok(PtxVersion::new(8, 8)));
        // Every restriction that refuses it is named, not only the first.
        let v80 = Some(PtxVersion::new(8, 0));
        assert_eq!(
            r.broken(Target::SM_80, None),
            ["cp.async.bulk", ".cta_group"]
        );
        assert_eq!(
            r.broken(Target::SM_100F, v80),
            [".cta_group", ".target sm_100f"]
        );
        assert!(r.broken(Target::SM_100A, None).is_empty());
    }
}
