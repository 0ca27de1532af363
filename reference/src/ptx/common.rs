//! Qualifier enums shared by several families (reductions, memory-ordering semantics, scopes,
//! completion mechanisms), so the syntax model and the semantics name them once.

use serde::{Deserialize, Serialize};

/// `.redOp` of cp.reduce.async.bulk{.tensor} (§9.7.9.25.4.2, §9.7.9.25.5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RedOp {
    And,
    Or,
    Xor,
    Add,
    Inc,
    Dec,
    Min,
    Max,
}

impl RedOp {
    pub const ALL: [RedOp; 8] = [
        RedOp::And,
        RedOp::Or,
        RedOp::Xor,
        RedOp::Add,
        RedOp::Inc,
        RedOp::Dec,
        RedOp::Min,
        RedOp::Max,
    ];
    pub fn ptx(self) -> &'static str {
        match self {
            RedOp::And => "and",
            RedOp::Or => "or",
            RedOp::Xor => "xor",
            RedOp::Add => "add",
            RedOp::Inc => "inc",
            RedOp::Dec => "dec",
            RedOp::Min => "min",
            RedOp::Max => "max",
        }
    }
    pub fn choices() -> Vec<(&'static str, RedOp)> {
        Self::ALL.iter().map(|r| (r.ptx(), *r)).collect()
    }
}

/// Element `.type` of cp.reduce.async.bulk (non-tensor).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RedType {
    B32,
    U32,
    S32,
    B64,
    U64,
    S64,
    F16,
    Bf16,
    F32,
    F64,
}

impl RedType {
    pub const ALL: [RedType; 10] = [
        RedType::B32,
        RedType::U32,
        RedType::S32,
        RedType::B64,
        RedType::U64,
        RedType::S64,
        RedType::F16,
        RedType::Bf16,
        RedType::F32,
        RedType::F64,
    ];
    pub fn ptx(self) -> &'static str {
        match self {
            RedType::B32 => "b32",
            RedType::U32 => "u32",
            RedType::S32 => "s32",
            RedType::B64 => "b64",
            RedType::U64 => "u64",
            RedType::S64 => "s64",
            RedType::F16 => "f16",
            RedType::Bf16 => "bf16",
            RedType::F32 => "f32",
            RedType::F64 => "f64",
        }
    }
    pub fn bytes(self) -> usize {
        match self {
            RedType::F16 | RedType::Bf16 => 2,
            RedType::B32 | RedType::U32 | RedType::S32 | RedType::F32 => 4,
            _ => 8,
        }
    }
    pub fn choices() -> Vec<(&'static str, RedType)> {
        Self::ALL.iter().map(|r| (r.ptx(), *r)).collect()
    }
}

/// Memory-ordering semantics qualifier (`.release`, `.relaxed`, `.acquire`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Sem {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    Sc,
}

impl Sem {
    pub fn ptx(self) -> &'static str {
        match self {
            Sem::Relaxed => "relaxed",
            Sem::Acquire => "acquire",
            Sem::Release => "release",
            Sem::AcqRel => "acq_rel",
            Sem::Sc => "sc",
        }
    }
}

/// Scope qualifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scope {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

impl Scope {
    pub fn ptx(self) -> &'static str {
        match self {
            Scope::Cta => "cta",
            Scope::Cluster => "cluster",
            Scope::Gpu => "gpu",
            Scope::Sys => "sys",
        }
    }
}

/// `.cta_group::1` / `.cta_group::2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CtaGroup {
    One,
    Two,
}

impl CtaGroup {
    pub fn ptx(self) -> &'static str {
        match self {
            CtaGroup::One => "cta_group::1",
            CtaGroup::Two => "cta_group::2",
        }
    }
    pub const CHOICES: [(&'static str, CtaGroup); 2] = [
        ("cta_group::1", CtaGroup::One),
        ("cta_group::2", CtaGroup::Two),
    ];
}
