//! Validation of deserialized cases: everything serde's types cannot say. Problems are reported
//! by field path (plus an offset inside a `ptx:` string); the loader turns them into positions.
//! [`validate_case`] works on any `Case` (e.g. one the fuzzer built), without YAML.
//!
//! This file holds the problem types and the per-case driver; each part of a case is checked in
//! its own submodule. The names a case declares ([`Names`]) and its parse context belong to the
//! case model ([`crate::case_model::names`]) and are re-exported here.
//!
//! Validation sits above the semantics: a concurrent group is bounded by how many orders the
//! executor would run (`sem::exec::concurrent::group_order_count`), so a case the reference
//! cannot run is a located load error rather than a failed execution.

use std::collections::HashMap;

use super::loc::{key, Seg};
use super::model::*;
use crate::target::{PtxVersion, Target};

mod declarations;
mod expect;
mod launch;
mod operands;
mod program;

pub use crate::case_model::names::{parse_ctx, parse_steps, parsed_steps, Decl, Names};
pub use operands::{check_instruction, check_slot, find_token, OperandProblem};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    /// Advisory: the case is valid but not portable or not runnable everywhere.
    Note,
}

/// One problem in case number `case` of a file, at field `path` (and, for `ptx:` strings, at
/// byte `offset` of the string).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub case: usize,
    pub path: Vec<Seg>,
    pub offset: Option<usize>,
    pub message: String,
    pub severity: Severity,
}

/// Threads per CTA allowed by every CUDA GPU.
pub const MAX_THREADS: u32 = 1024;
/// Largest cluster any supported GPU launches (sm_90/sm_100 with the non-portable attribute).
pub const MAX_CLUSTER: u32 = 16;
/// Largest cluster guaranteed portable (CUDA Programming Guide, "Thread Block Clusters").
pub const PORTABLE_CLUSTER: u32 = 8;
/// Assumption: the per-CTA shared memory budget is the sm_90/sm_100 opt-in maximum, 227 KiB.
pub const MAX_SHARED_BYTES: u64 = 227 * 1024;
/// Special registers a case may read (PTX ISA §10).
const SPECIAL: &[&str] = &[
    "%tid",
    "%ntid",
    "%ctaid",
    "%nctaid",
    "%clusterid",
    "%nclusterid",
    "%cluster_ctaid",
    "%cluster_nctaid",
    "%cluster_ctarank",
    "%cluster_nctarank",
    "%laneid",
    "%warpid",
    "%nwarpid",
    "%smid",
    "%nsmid",
];

/// A `ptx:` step the case's target refuses (at the case's `ptx_version` when it names one, else
/// at every version): ptxas would refuse the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalStep {
    /// The index of the step in `program`.
    pub step: usize,
    /// The instruction, canonically printed.
    pub instruction: String,
    pub target: Target,
    /// Every restriction the instruction breaks there, by name (never empty).
    pub broken: Vec<String>,
}

impl std::fmt::Display for IllegalStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "step {}: `{}` is illegal on {}: {}",
            self.step,
            self.instruction,
            self.target,
            self.broken.join("; ")
        )
    }
}

/// Every `ptx:` step that is illegal on the case's target, in program order.
pub fn illegal_steps(case: &Case) -> Vec<IllegalStep> {
    let pinned = case
        .ptx_version
        .as_deref()
        .and_then(|v| v.parse::<PtxVersion>().ok());
    parsed_steps(case)
        .iter()
        .enumerate()
        .filter_map(|(step, st)| {
            let st = st.as_deref()?.as_ref().ok()?;
            let broken = st.instr.requirement().broken(case.target, pinned);
            (!broken.is_empty()).then(|| IllegalStep {
                step,
                instruction: st.instr.to_string(),
                target: case.target,
                broken,
            })
        })
        .collect()
}

fn is_special(name: &str) -> bool {
    let base = name.split_once('.').map(|(b, _)| b).unwrap_or(name);
    SPECIAL.contains(&base)
}

/// A name a case may declare: a plain PTX identifier (no `%`, no `-`), so operands can name it.
pub fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f.is_ascii_alphabetic() || f == '_' || f == '$')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_' || x == '$')
}

struct Out {
    case: usize,
    problems: Vec<Problem>,
}

impl Out {
    fn push(&mut self, path: Vec<Seg>, offset: Option<usize>, severity: Severity, message: String) {
        self.problems.push(Problem {
            case: self.case,
            path,
            offset,
            message,
            severity,
        });
    }
    fn err(&mut self, path: Vec<Seg>, message: impl Into<String>) {
        self.push(path, None, Severity::Error, message.into());
    }
    fn note(&mut self, path: Vec<Seg>, message: impl Into<String>) {
        self.push(path, None, Severity::Note, message.into());
    }
}

fn p(segs: &[&str]) -> Vec<Seg> {
    segs.iter().map(|s| key(s)).collect()
}
fn pi(segs: &[&str], i: usize) -> Vec<Seg> {
    let mut v = p(segs);
    v.push(Seg::Idx(i));
    v
}
fn pik(segs: &[&str], i: usize, k: &str) -> Vec<Seg> {
    let mut v = pi(segs, i);
    v.push(key(k));
    v
}

/// Validate every case of a file, including the rules across cases (unique names).
pub fn validate_file(cases: &[Case]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, c) in cases.iter().enumerate() {
        problems.extend(validate_case(c).into_iter().map(|mut p| {
            p.case = i;
            p
        }));
        if let Some(first) = seen.insert(&c.name, i) {
            seen.insert(&c.name, first);
            problems.push(Problem {
                case: i,
                path: p(&["name"]),
                offset: None,
                message: format!("duplicate case name `{}` (also case [{first}])", c.name),
                severity: Severity::Error,
            });
        }
    }
    problems
}

/// The errors of [`validate_case`] (warnings left out): a case with none can be executed and
/// emitted.
pub fn case_errors(c: &Case) -> Vec<Problem> {
    let mut all = validate_case(c);
    all.retain(|p| p.severity == Severity::Error);
    all
}

/// Validate one case (problems carry `case: 0`).
pub fn validate_case(c: &Case) -> Vec<Problem> {
    let mut o = Out {
        case: 0,
        problems: Vec::new(),
    };
    if c.name.is_empty() || c.name.chars().any(|ch| ch.is_whitespace() || ch == '/') {
        o.err(
            p(&["name"]),
            format!(
                "case name `{}` must be non-empty, without spaces or `/`",
                c.name
            ),
        );
    }
    if !Target::all_known().contains(&c.target) {
        let known: Vec<String> = Target::all_known().iter().map(|t| t.to_string()).collect();
        o.err(
            p(&["target"]),
            format!(
                "`{}` is not a target the pinned ptxas knows ({})",
                c.target,
                known.join(" ")
            ),
        );
    }
    if let Some(v) = &c.ptx_version {
        match v.parse::<PtxVersion>() {
            Err(e) => o.err(p(&["ptx_version"]), e),
            Ok(v) if v > PtxVersion::MAX_SUPPORTED => o.note(
                p(&["ptx_version"]),
                format!("PTX ISA {v} is newer than the pinned ptxas accepts ({}); the case runs on the reference only", PtxVersion::MAX_SUPPORTED),
            ),
            Ok(_) => {}
        }
    }
    launch::launch(c, &mut o);
    declarations::memory(c, &mut o);
    let names = Names::of(c);
    declarations::params(c, &names, &mut o);
    program::program(c, &names, &mut o);
    program::concurrent_groups(c, &mut o);
    expect::expected_bytes(c, &names, &mut o);
    expect::expected_illegal(c, &mut o);
    expect::partial_observations(c, &names, &mut o);
    for (k, n) in c.check.iter().enumerate() {
        match names.decls.get(n) {
            Some(Decl::Global { .. } | Decl::Shared { .. } | Decl::Mbarrier | Decl::Tmem) => {}
            Some(d) => o.err(
                pi(&["check"], k),
                format!(
                    "`{n}` is {}; `check` lists regions, mbarriers and Tensor Memory allocations",
                    d.describe()
                ),
            ),
            None => o.err(
                pi(&["check"], k),
                format!("`{n}` is not a declared region, mbarrier or Tensor Memory allocation"),
            ),
        }
    }
    o.problems
}

/// The product of three dimensions (no overflow: at most 96 bits).
fn product(d: &[u32; 3]) -> u128 {
    d.iter().map(|&x| x as u128).product()
}
