//! The names a case declares and how its `ptx:` steps parse with them: what the validator checks
//! operands against, and the one parse context every consumer of a case's PTX uses (the
//! executor, the emitter, the generator's oracle).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::model::{Case, Param};
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
}

/// Each step's parse: `None` for a step that is not `ptx:`.
pub type ParsedSteps = Vec<Option<crate::ptx::SharedParse>>;

/// What a parse of a case's steps depends on: the steps' texts (`None`: not a `ptx:` step) and
/// the params, which make the parse context.
struct ParsedFrom {
    texts: Vec<Option<String>>,
    params: BTreeMap<String, Param>,
}

impl ParsedFrom {
    fn of(case: &Case) -> ParsedFrom {
        ParsedFrom {
            texts: case
                .program
                .iter()
                .map(|s| s.op.ptx().map(str::to_string))
                .collect(),
            params: case.params.clone(),
        }
    }

    fn matches(&self, case: &Case) -> bool {
        self.texts.len() == case.program.len()
            && self
                .texts
                .iter()
                .zip(&case.program)
                .all(|(t, s)| t.as_deref() == s.op.ptx())
            && self.params == case.params
    }
}

/// A case's memo of its steps' parse, shared by everything that reads them (validation, the
/// oracles, the executor, coverage, the reference's side, emission), on whichever thread: each
/// read its steps, on threads of different stages. A clone starts without it, and a case
/// changed in place after it was filled parses again: the memo's texts and params are
/// compared with the case's, never assumed.
#[derive(Default)]
pub struct StepsMemo(std::sync::OnceLock<(ParsedFrom, Arc<ParsedSteps>)>);

impl Clone for StepsMemo {
    fn clone(&self) -> Self {
        StepsMemo::default()
    }
}

/// A memo is not part of what a case is.
impl PartialEq for StepsMemo {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for StepsMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let filled = if self.0.get().is_some() {
            "parsed"
        } else {
            "not parsed"
        };
        f.write_str(filled)
    }
}

/// The parse of every step of `case` (index into `case.program`), with the case's params
/// declared so type-disambiguated operands parse as the case means them: the case's memo
/// ([`StepsMemo`]) while its texts and params are those it was made of, else a parse made now.
pub fn parsed_steps(case: &Case) -> Arc<ParsedSteps> {
    if let Some((from, steps)) = case.parsed.0.get() {
        if from.matches(case) {
            return Arc::clone(steps);
        }
        return Arc::new(parse_now(case));
    }
    let steps = Arc::new(parse_now(case));
    // Another thread may have filled it meanwhile, with the same parse.
    let _ = case
        .parsed
        .0
        .set((ParsedFrom::of(case), Arc::clone(&steps)));
    steps
}

fn parse_now(case: &Case) -> ParsedSteps {
    let ctx = parse_ctx(case);
    case.program
        .iter()
        .map(|s| {
            s.op.ptx()
                .map(|text| crate::ptx::Statement::parse_shared(text, &ctx))
        })
        .collect()
}

/// The parsed PTX statement of every `ptx:` step (index into `case.program`), as
/// [`parsed_steps`] parses them.
pub fn parse_steps(
    case: &Case,
) -> Vec<(
    usize,
    Result<crate::ptx::Statement, crate::ptx::lex::SyntaxError>,
)> {
    parsed_steps(case)
        .iter()
        .enumerate()
        .filter_map(|(i, st)| Some((i, st.as_deref()?.clone())))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case_model::model::StepOp;
    use crate::ptx::Instruction;

    fn case() -> Case {
        crate::case::load_str(
            "name: t
target: sm_90
params: { n: 16 }
memory:
  global: [ { name: src, size: 64 } ]
  shared: [ { name: dst, size: 64 } ]
program:
  - ptx: cp.async.ca.shared.global [dst], [src], 16
  - ptx: cp.async.wait_all
",
            "t.yaml",
        )
        .unwrap()
        .remove(0)
    }

    fn size(steps: &ParsedSteps) -> String {
        match steps[0].as_deref() {
            Some(Ok(st)) => match &st.instr {
                Instruction::CpAsync(c) => c.to_string(),
                other => panic!("{other}"),
            },
            other => panic!("{other:?}"),
        }
    }

    /// The case's parse serves it again, and a case changed in place (a step's text, a param)
    /// parses again: the parse is compared, never assumed.
    #[test]
    fn a_case_changed_in_place_parses_again() {
        let mut c = case();
        let first = parsed_steps(&c);
        assert!(
            Arc::ptr_eq(&first, &parsed_steps(&c)),
            "shared with the last call"
        );
        assert!(size(&first).ends_with(", 16"), "{}", size(&first));
        c.program[0].op = StepOp::Ptx("cp.async.ca.shared.global [dst], [src], 8".into());
        let again = parsed_steps(&c);
        assert!(!Arc::ptr_eq(&first, &again));
        assert!(size(&again).contains(", 8"), "{}", size(&again));
        // A step that names a param: the parse context depends on the params, so a case whose
        // params changed parses again even where its texts did not.
        c.program[0].op = StepOp::Ptx("cp.async.ca.shared.global [dst], [src], 16, n".into());
        let with_n = parsed_steps(&c);
        assert!(
            matches!(with_n[0].as_deref(), Some(Ok(_))),
            "{:?}",
            with_n[0]
        );
        c.params.clear();
        let without = parsed_steps(&c);
        assert!(!Arc::ptr_eq(&with_n, &without), "the params changed");
        assert_eq!(without.len(), c.program.len(), "one entry a step");
    }

    /// Every thread reading a case's steps shares its one parse; a clone starts without it,
    /// and the memo is no part of the case's equality.
    #[test]
    fn threads_share_a_case_parse_and_clones_start_without_it() {
        let c = case();
        let here = parsed_steps(&c);
        let there = std::thread::scope(|s| s.spawn(|| parsed_steps(&c)).join().unwrap());
        assert!(Arc::ptr_eq(&here, &there), "one parse for every thread");
        let copy = c.clone();
        assert!(copy.parsed.0.get().is_none(), "a clone parses for itself");
        assert_eq!(copy, c);
        assert!(!Arc::ptr_eq(&here, &parsed_steps(&copy)));
    }
}
