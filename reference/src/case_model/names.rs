//! The names a case declares and how its `ptx:` steps parse with them: what the validator checks
//! operands against, and the one parse context every consumer of a case's PTX uses (the
//! executor, the emitter, the generator's oracle).

use std::collections::{BTreeMap, HashMap};

use super::model::{Case, Param, StepOp};
use crate::ptx::operand::{ParseCtx, RegTy};

/// What a name declared in `memory` denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decl {
    Global { size: u64 },
    Shared { size: u64 },
    Mbarrier,
    TensorMap,
    Tmem,
}

impl Decl {
    /// What the name is, for messages ("a global region", ...).
    pub fn describe(self) -> &'static str {
        match self {
            Decl::Global { .. } => "a global region",
            Decl::Shared { .. } => "a shared region",
            Decl::Mbarrier => "an mbarrier",
            Decl::TensorMap => "a tensor map",
            Decl::Tmem => "a Tensor Memory allocation",
        }
    }
}

/// The names a case's program may use.
#[derive(Clone, Debug, Default)]
pub struct Names {
    pub decls: HashMap<String, Decl>,
    pub params: BTreeMap<String, RegTy>,
}

impl Names {
    pub fn of(case: &Case) -> Names {
        let mut n = Names::default();
        let m = &case.memory;
        for r in &m.global {
            n.decls
                .entry(r.name.clone())
                .or_insert(Decl::Global { size: r.size });
        }
        for r in &m.shared {
            n.decls
                .entry(r.name.clone())
                .or_insert(Decl::Shared { size: r.size });
        }
        for b in &m.mbarriers {
            n.decls.entry(b.name.clone()).or_insert(Decl::Mbarrier);
        }
        for t in &m.tensor_maps {
            n.decls.entry(t.name.clone()).or_insert(Decl::TensorMap);
        }
        for t in &m.tmem {
            n.decls.entry(t.name.clone()).or_insert(Decl::Tmem);
        }
        n.params = declared_params(case);
        // A Mapa param is the address of a shared place in another CTA: it validates as that place.
        for (k, p) in &case.params {
            if let Param::Mapa { mapa, .. } = p {
                if let Some(d @ (Decl::Shared { .. } | Decl::Mbarrier)) = n.decls.get(mapa).copied()
                {
                    n.decls.entry(k.clone()).or_insert(d);
                }
            }
        }
        n
    }
    pub fn parse_ctx(&self) -> ParseCtx {
        ParseCtx {
            decls: self.params.clone(),
        }
    }
}

/// The parsed PTX statement of every `ptx:` step (index into `case.program`), with the case's
/// params declared so type-disambiguated operands parse as the case means them.
pub fn parse_steps(
    case: &Case,
) -> Vec<(
    usize,
    Result<crate::ptx::Statement, crate::ptx::lex::SyntaxError>,
)> {
    let ctx = parse_ctx(case);
    case.program
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match &s.op {
            StepOp::Ptx(text) => Some((i, crate::ptx::Statement::parse_with(text, &ctx))),
            _ => None,
        })
        .collect()
}

/// The one parse context of a case: its params declared with their register types (untyped ones
/// as `.b32`), so type-disambiguated operands parse as the case means them everywhere.
pub fn parse_ctx(case: &Case) -> ParseCtx {
    ParseCtx {
        decls: declared_params(case),
    }
}

/// The case's params with the register type each parses as (untyped ones as `.b32`): all a
/// parse context needs of [`Names`], built without the memory's names (every consumer of a
/// program's steps makes one).
fn declared_params(case: &Case) -> BTreeMap<String, RegTy> {
    case.params
        .iter()
        .map(|(k, p)| (k.clone(), param_type(p).unwrap_or(RegTy::B32)))
        .collect()
}

fn param_type(p: &Param) -> Option<RegTy> {
    match p {
        Param::Int(_) => Some(RegTy::B32),
        Param::Typed { ty, .. } => RegTy::from_ptx(ty),
        Param::Mapa { .. } => Some(RegTy::B32),
    }
}
