//! Validation of deserialized cases: everything serde's types cannot say. Problems are reported
//! by field path (plus an offset inside a `ptx:` string); the loader turns them into positions.
//! [`validate_case`] works on any `Case` (e.g. one the fuzzer built), without YAML.

use std::collections::{BTreeMap, HashMap};

use super::init::InitError;
use super::loc::{key, Seg};
use super::model::*;
use crate::ptx::operand::{AddrBase, ParseCtx, RegTy, Slot, Space, Value};
use crate::ptx::{Instruction, Statement};
use crate::target::{PtxVersion, Target};

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
/// Assumption (until `Slot` records direction): operand roles that are written by the
/// instruction (the harness declares a scratch register for them) or carry a value an earlier
/// step wrote, so they need no `params` binding. `_` is PTX's sink.
const OUTPUT_ROLES: &[&str] = &["state", "waitComplete", "ldDst"];

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
    fn describe(self) -> &'static str {
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
    pub params: HashMap<String, RegTy>,
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
        for (k, p) in &case.params {
            n.params
                .insert(k.clone(), param_type(p).unwrap_or(RegTy::B32));
        }
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
            crate::case::StepOp::Ptx(text) => {
                Some((i, crate::ptx::Statement::parse_with(text, &ctx)))
            }
            _ => None,
        })
        .collect()
}

/// The one parse context of a case: its params declared with their register types (untyped ones
/// as `.b32`), so type-disambiguated operands parse as the case means them everywhere.
pub fn parse_ctx(case: &Case) -> ParseCtx {
    Names::of(case).parse_ctx()
}

/// The first `ptx:` step that is illegal on the case's target (at its `ptx_version` when it
/// names one, else at any version): its index, the instruction and the restriction that fails.
pub fn illegal_step(case: &Case) -> Option<(usize, String)> {
    let pinned = case
        .ptx_version
        .as_deref()
        .and_then(|v| v.parse::<PtxVersion>().ok());
    parse_steps(case).into_iter().find_map(|(i, st)| {
        let st = st.ok()?;
        let req = st.instr.requirement();
        let why = match pinned {
            Some(v) => match req.verdict(case.target, v) {
                crate::target::Verdict::Legal => return None,
                crate::target::Verdict::WrongTarget { why }
                | crate::target::Verdict::PtxTooOld { why, .. } => why,
            },
            None => req.min_ptx_for(case.target).err()?,
        };
        Some((
            i,
            format!("`{}` is illegal on {}: {why}", st.instr, case.target),
        ))
    })
}

fn param_type(p: &Param) -> Option<RegTy> {
    match p {
        Param::Int(_) => Some(RegTy::B32),
        Param::Typed { ty, .. } => RegTy::from_ptx(ty),
        Param::Mapa { .. } => Some(RegTy::B32),
    }
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

/// A problem with one operand: the name it concerns (to locate it in the text) and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperandProblem {
    pub name: String,
    pub message: String,
}

fn check_value(role: &str, v: &Value, names: &Names, out: &mut Vec<OperandProblem>) {
    let Value::Reg(r) = v else { return };
    if names.params.contains_key(r) || is_special(r) {
        return;
    }
    if OUTPUT_ROLES.contains(&role) {
        return;
    }
    let message = match names.decls.get(r) {
        Some(Decl::Tmem) => return, // a Tensor Memory address is held in a register
        Some(d) => format!("`{r}` is {}; the {role} operand takes a register (bind it in `params`) or an immediate", d.describe()),
        None => format!("`{r}` (the {role} operand) is not a parameter or special register; bind it in `params`"),
    };
    out.push(OperandProblem {
        name: r.clone(),
        message,
    });
}

/// Check one operand slot against the case's names.
pub fn check_slot(slot: Slot<'_>, names: &Names, out: &mut Vec<OperandProblem>) {
    match slot {
        Slot::Addr { role, space, addr } => {
            let n = match &addr.base {
                AddrBase::Name(n) => n,
                AddrBase::Abs(a) => {
                    out.push(OperandProblem {
                        name: format!("0x{a:x}"),
                        message: format!(
                            "the {role} operand is an absolute address; name a region instead"
                        ),
                    });
                    return;
                }
            };
            let decl = names.decls.get(n).copied();
            let fits = match (space, decl) {
                (_, None) => false,
                (Space::Global, Some(d)) => matches!(d, Decl::Global { .. }),
                (Space::Tmem, Some(d)) => d == Decl::Tmem,
                (Space::Generic, Some(d)) => matches!(
                    d,
                    Decl::Global { .. } | Decl::Shared { .. } | Decl::Mbarrier | Decl::Tmem
                ),
                // A Tensor Memory allocation's name is also its address word in shared memory
                // (the `tcgen05.alloc` destination, A-EXEC-TCGEN05-WORD).
                (s, Some(d)) if s.is_shared() => {
                    matches!(d, Decl::Shared { .. } | Decl::Mbarrier | Decl::Tmem)
                }
                _ => false,
            };
            if fits {
                return;
            }
            let want = match space {
                Space::Global => "a global region",
                Space::Tmem => "a Tensor Memory allocation",
                Space::Generic => "a region or mbarrier",
                _ => "a shared region or mbarrier",
            };
            let message = match decl {
                Some(d) => format!(
                    "`{n}` is {}, but the {role} operand ({}) needs {want}",
                    d.describe(),
                    space_name(space)
                ),
                None if names.params.contains_key(n) => {
                    format!("`{n}` is a parameter; the {role} operand must name {want} (cases address memory by name)")
                }
                None => format!("`{n}` (the {role} operand) is not declared; it must name {want}"),
            };
            out.push(OperandProblem {
                name: n.clone(),
                message,
            });
        }
        Slot::Value { role, value, .. } => check_value(role, value, names, out),
        Slot::Tensor { role, tensor } => {
            if names.decls.get(&tensor.map) != Some(&Decl::TensorMap) {
                let what = names
                    .decls
                    .get(&tensor.map)
                    .map(|d| format!("is {}", d.describe()))
                    .unwrap_or_else(|| "is not declared".into());
                out.push(OperandProblem {
                    name: tensor.map.clone(),
                    message: format!("`{}` {what}; the {role} operand must name a tensor map in `memory.tensor_maps`", tensor.map),
                });
            }
            for c in &tensor.coords {
                check_value("coordinate", c, names, out);
            }
        }
        Slot::Vector { role, values, .. } => {
            for v in values.iter() {
                check_value(role, v, names, out);
            }
        }
    }
}

fn space_name(s: Space) -> &'static str {
    match s {
        Space::Global => ".global",
        Space::Shared | Space::SharedCta => ".shared::cta",
        Space::SharedCluster => ".shared::cluster",
        Space::Tmem => "Tensor Memory",
        Space::Generic => "generic",
    }
}

/// Check every operand of a parsed instruction against the case's names.
pub fn check_instruction(instr: &mut Instruction, names: &Names) -> Vec<OperandProblem> {
    let mut out = Vec::new();
    instr.visit_operands(&mut |slot| check_slot(slot, names, &mut out));
    out
}

/// Byte offset of the first whole-token occurrence of `name` in `text` (for locating operands).
pub fn find_token(text: &str, name: &str) -> Option<usize> {
    let is_tok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.' | '-');
    let mut from = 0;
    while let Some(i) = text[from..].find(name).map(|i| i + from) {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        if !before.is_some_and(is_tok) && !after.is_some_and(|c| is_tok(c) && c != '.') {
            return Some(i);
        }
        from = i + name.len().max(1);
        if from > text.len() {
            break;
        }
    }
    None
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
    launch(c, &mut o);
    memory(c, &mut o);
    params(c, &mut o);
    let names = Names::of(c);
    program(c, &names, &mut o);
    concurrent_groups(c, &mut o);
    expected_bytes(c, &names, &mut o);
    partial_observations(c, &names, &mut o);
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

/// The size of the region `k` names as observations and `expect: { bytes: .. }` name regions (a
/// global region, or a shared one of an existing CTA as `name@ctaN`), or why `k` names none.
fn keyed_region_size(c: &Case, names: &Names, k: &str) -> Result<u64, String> {
    let (name, cta) = super::split_region_key(k);
    let cta = cta.map(|c| c.parse::<u32>().ok());
    match (names.decls.get(name), cta) {
        (Some(Decl::Global { size }), None) => Ok(*size),
        (Some(Decl::Shared { size }), Some(Some(i))) if i < c.launch.ctas() => Ok(*size),
        (Some(Decl::Shared { .. }), Some(Some(i))) => Err(format!(
            "`{k}`: CTA {i} is not in the grid ({} CTAs)",
            c.launch.ctas()
        )),
        (Some(Decl::Shared { .. }), _) => Err(format!(
            "`{k}`: name a shared region with its CTA, `{name}@cta0`"
        )),
        _ => Err(format!(
            "`{k}` is not a global region or a shared region as `name@ctaN`"
        )),
    }
}

/// `expect: { bytes: .. }` names declared regions (shared ones of an existing CTA, as
/// `name@ctaN`) and fits them.
fn expected_bytes(c: &Case, names: &Names, o: &mut Out) {
    let Some(Expect::Bytes(want)) = &c.expect else {
        return;
    };
    for (k, pat) in want {
        let path = p(&["expect", "bytes", k]);
        let size = match keyed_region_size(c, names, k) {
            Ok(size) => size,
            Err(why) => {
                o.err(path, why);
                continue;
            }
        };
        let n = pat.bytes.len() as u64;
        if n > size || (!pat.open && n != size) {
            o.err(
                path,
                format!(
                    "{n} expected bytes for `{k}` of {size} bytes{}",
                    if pat.open {
                        ""
                    } else {
                        " (end the pattern with `..` to check a prefix)"
                    }
                ),
            );
        }
    }
}

/// Each part of a region a recorded observation gives (`partial`) names a declared region, not
/// also observed whole, and lies inside it.
fn partial_observations(c: &Case, names: &Names, o: &mut Out) {
    for (i, obs) in c.observed.iter().enumerate() {
        for (k, part) in &obs.partial {
            let mut path = pik(&["observed"], i, "partial");
            path.push(key(k));
            let size = match keyed_region_size(c, names, k) {
                Ok(size) => size,
                Err(why) => {
                    o.err(path, why);
                    continue;
                }
            };
            if obs.regions.contains_key(k) {
                o.err(
                    path,
                    format!("`{k}` is observed whole in `regions`; give it in one place"),
                );
                continue;
            }
            match part.range() {
                Some(r) if r.end <= size => {}
                _ => {
                    path.push(key("offset"));
                    o.err(
                        path,
                        format!(
                            "bytes {}..{} of `{k}` are observed, the region has {size} bytes",
                            part.offset,
                            part.offset as u128 + part.bytes.len() as u128
                        ),
                    );
                }
            }
        }
    }
}

fn launch(c: &Case, o: &mut Out) {
    let l = &c.launch;
    if !(1..=MAX_THREADS).contains(&l.threads) {
        o.err(
            p(&["launch", "threads"]),
            format!(
                "threads per CTA must be 1..={MAX_THREADS}, not {}",
                l.threads
            ),
        );
    }
    // CUDA grid limits: x < 2^31, y and z ≤ 65535.
    let grid_max = [i32::MAX as u32, 65535, 65535];
    for (d, &max) in grid_max.iter().enumerate() {
        if l.grid[d] == 0 || l.grid[d] > max {
            o.err(
                pi(&["launch", "grid"], d),
                format!("grid dimension {d} must be 1..={}, not {}", max, l.grid[d]),
            );
        }
        if l.cluster[d] == 0 {
            o.err(
                pi(&["launch", "cluster"], d),
                "cluster dimensions are at least 1",
            );
        } else if !l.grid[d].is_multiple_of(l.cluster[d]) {
            o.err(
                pi(&["launch", "cluster"], d),
                format!(
                    "cluster dimension {d} ({}) must divide grid dimension {d} ({})",
                    l.cluster[d], l.grid[d]
                ),
            );
        }
    }
    // Assumption: a grid's CTA count fits 32 bits (`Launch::ctas` is a u32).
    if product(&l.grid) > u32::MAX as u128 {
        o.err(
            p(&["launch", "grid"]),
            format!(
                "the grid has {} CTAs; at most {} are allowed",
                product(&l.grid),
                u32::MAX
            ),
        );
    }
    let size = product(&l.cluster);
    if size > MAX_CLUSTER as u128 {
        o.err(
            p(&["launch", "cluster"]),
            format!("cluster of {size} CTAs exceeds the maximum of {MAX_CLUSTER}"),
        );
    } else if size > PORTABLE_CLUSTER as u128 {
        o.note(
            p(&["launch", "cluster"]),
            format!("cluster of {size} CTAs exceeds the portable maximum of {PORTABLE_CLUSTER}; it needs the non-portable cluster size attribute"),
        );
    }
    if size > 1 && c.target.sm < 90 {
        o.err(
            p(&["launch", "cluster"]),
            format!("clusters need sm_90 or later; the target is {}", c.target),
        );
    }
}

fn init_problem(o: &mut Out, base: Vec<Seg>, init: &Init, e: InitError) {
    let mut path = base;
    path.push(key("init"));
    match (init, e.element) {
        (Init::Values(_), Some(i)) => path.extend([key("values"), key("data"), Seg::Idx(i)]),
        (Init::Bytes(_), Some(i)) => path.extend([key("bytes"), Seg::Idx(i)]),
        (Init::Hex(_), _) => path.push(key("hex")),
        _ => {}
    }
    o.err(path, e.message);
}

fn memory(c: &Case, o: &mut Out) {
    let m = &c.memory;
    // One namespace for every declaration: operands name them without saying which kind.
    let mut seen: BTreeMap<String, Vec<Seg>> = BTreeMap::new();
    let mut declare = |o: &mut Out, name: &str, path: Vec<Seg>| {
        let mut name_path = path.clone();
        name_path.push(key("name"));
        if !is_identifier(name) {
            o.err(
                name_path.clone(),
                format!("`{name}` is not an identifier ([A-Za-z_$][A-Za-z0-9_$]*)"),
            );
        }
        if let Some(prev) = seen.get(name) {
            o.err(
                name_path,
                format!(
                    "`{name}` is already declared at {}",
                    super::loc::path_string(prev)
                ),
            );
        } else {
            seen.insert(name.to_string(), path);
        }
    };
    let mut shared_end: u64 = 0;
    for (space, regions) in [("global", &m.global), ("shared", &m.shared)] {
        for (i, r) in regions.iter().enumerate() {
            let base = pi(&["memory", space], i);
            declare(o, &r.name, base.clone());
            let at = |k: &str| {
                let mut v = base.clone();
                v.push(key(k));
                v
            };
            if r.size == 0 {
                o.err(at("size"), "a region holds at least one byte");
            }
            if r.align == 0 || !r.align.is_power_of_two() {
                o.err(
                    at("align"),
                    format!("alignment must be a power of two, not {}", r.align),
                );
            }
            if let Err(e) = r.init.check(r.size) {
                if e.element.is_none() && r.size > super::init::MAX_REGION_BYTES {
                    o.err(at("size"), e.message);
                } else {
                    init_problem(o, base.clone(), &r.init, e);
                }
            }
            if space == "shared" && r.align.is_power_of_two() {
                shared_end = shared_end
                    .div_ceil(r.align)
                    .saturating_mul(r.align)
                    .saturating_add(r.misalign)
                    .saturating_add(r.size);
            }
        }
    }
    for (i, b) in m.mbarriers.iter().enumerate() {
        declare(o, &b.name, pi(&["memory", "mbarriers"], i));
        // §9.7.13.15.1: an mbarrier object is 8 bytes, 8-byte aligned.
        shared_end = shared_end.div_ceil(8).saturating_mul(8).saturating_add(8);
    }
    if shared_end > MAX_SHARED_BYTES {
        o.err(p(&["memory", "shared"]), format!("shared memory layout needs {shared_end} bytes per CTA; at most {MAX_SHARED_BYTES} (assumed sm_90/sm_100 opt-in maximum)"));
    }
    for (i, t) in m.tensor_maps.iter().enumerate() {
        declare(o, &t.name, pi(&["memory", "tensor_maps"], i));
        if !m.global.iter().any(|r| r.name == t.global) {
            o.err(
                pik(&["memory", "tensor_maps"], i, "global"),
                format!("`{}` is not a global region", t.global),
            );
        }
        // The executor supplies globalAddress from the region (its align / misalign).
        if t.map.global_address != 0 {
            o.err(pik(&["memory", "tensor_maps"], i, "map"), "`map.global_address` is set by the executor from the `global` region; leave it out".to_string());
        }
    }
    for (i, t) in m.tmem.iter().enumerate() {
        declare(o, &t.name, pi(&["memory", "tmem"], i));
        // §9.7.16.1.2: allocation in units of 32 columns, a power of two; §9.7.16.1: 512 columns per CTA.
        if !(32..=512).contains(&t.columns) || !t.columns.is_power_of_two() {
            o.err(
                pik(&["memory", "tmem"], i, "columns"),
                format!(
                    "columns must be a power of two in 32..=512, not {}",
                    t.columns
                ),
            );
        }
    }
}

fn params(c: &Case, o: &mut Out) {
    let decls = Names::of(c).decls;
    for (name, prm) in &c.params {
        let path = p(&["params", name]);
        if !(is_identifier(name) || name.starts_with('%') && is_identifier(&name[1..]))
            || is_special(name)
        {
            o.err(path.clone(), format!("parameter name `{name}` is not a register identifier (or is a special register)"));
        }
        if let Param::Mapa { mapa, cta } = prm {
            let shared = c.memory.shared.iter().any(|r| &r.name == mapa)
                || c.memory.mbarriers.iter().any(|b| &b.name == mapa);
            if !shared {
                o.err(
                    path.clone(),
                    format!("mapa param `{name}`: `{mapa}` is not a shared region or mbarrier"),
                );
            }
            if *cta >= c.launch.cluster_size() {
                o.err(
                    path,
                    format!(
                        "mapa param `{name}`: cluster rank {cta} outside a cluster of {}",
                        c.launch.cluster_size()
                    ),
                );
            }
            continue;
        }
        if decls.contains_key(name.as_str()) {
            o.err(
                path.clone(),
                format!(
                    "parameter `{name}` has the name of a declared {}",
                    "region or object"
                ),
            );
        }
        let (value, ty) = match prm {
            Param::Int(v) => (*v, Some(RegTy::B32)),
            Param::Typed { value, ty } => (*value, RegTy::from_ptx(ty)),
            Param::Mapa { .. } => continue, // checked above
        };
        let Some(ty) = ty else {
            let mut tp = path.clone();
            tp.push(key("type"));
            o.err(
                tp,
                "register type must be one of pred b16 b32 b64 u16 u32 u64 s32 s64",
            );
            continue;
        };
        let bits = ty.bits();
        let fits = match ty {
            RegTy::Pred => value == 0 || value == 1,
            _ if bits == 64 => true,
            // Either signed or unsigned reading of the bits is accepted for bN/uN/sN.
            _ => value >= -(1i64 << (bits - 1)) && value < (1i64 << bits),
        };
        if !fits {
            o.err(
                path,
                format!("value {value} does not fit a {} register", ty.ptx()),
            );
        }
    }
}

/// The product of three dimensions (no overflow: at most 96 bits).
fn product(d: &[u32; 3]) -> u128 {
    d.iter().map(|&x| x as u128).product()
}

fn in_range(n: u32, limit: u128) -> bool {
    (n as u128) < limit
}

fn program(c: &Case, names: &Names, o: &mut Out) {
    let ctas = product(&c.launch.grid);
    let ctx = names.parse_ctx();
    if c.program.is_empty() {
        o.err(p(&["program"]), "a program has at least one step");
    }
    for (j, step) in c.program.iter().enumerate() {
        let at = |k: &str| pik(&["program"], j, k);
        match &step.cta {
            Ctas::One(n) if !in_range(*n, ctas) => o.err(
                at("cta"),
                format!("CTA {n} is outside the grid of {ctas} CTAs"),
            ),
            Ctas::List(l) if l.is_empty() => {
                o.err(at("cta"), "an empty CTA list runs the step nowhere")
            }
            Ctas::List(l) => {
                for (k, n) in l.iter().enumerate() {
                    if !in_range(*n, ctas) {
                        let mut path = at("cta");
                        path.push(Seg::Idx(k));
                        o.err(path, format!("CTA {n} is outside the grid of {ctas} CTAs"));
                    }
                }
            }
            _ => {}
        }
        if step.thread >= c.launch.threads {
            o.err(
                at("thread"),
                format!(
                    "thread {} is outside the CTA of {} threads",
                    step.thread, c.launch.threads
                ),
            );
        }
        match &step.op {
            StepOp::Ptx(text) => ptx_step(text, names, &ctx, at("ptx"), o),
            StepOp::WaitParity { mbar, parity } => {
                let mut base = at("wait_parity");
                if names.decls.get(mbar) != Some(&Decl::Mbarrier) {
                    base.push(key("mbar"));
                    o.err(base, format!("`{mbar}` is not a declared mbarrier"));
                } else if *parity > 1 {
                    base.push(key("parity"));
                    o.err(base, format!("parity is 0 or 1, not {parity}"));
                }
            }
            StepOp::Store { at: region, bytes } => {
                let mut base = at("store");
                match names.decls.get(region) {
                    Some(Decl::Global { size } | Decl::Shared { size }) => {
                        if bytes.len() as u64 > *size {
                            base.push(key("bytes"));
                            o.err(
                                base,
                                format!(
                                    "{} bytes do not fit in `{region}` ({size} bytes)",
                                    bytes.len()
                                ),
                            );
                        }
                    }
                    Some(d) => {
                        base.push(key("at"));
                        o.err(
                            base,
                            format!("`{region}` is {}; stores go to regions", d.describe()),
                        );
                    }
                    None => {
                        base.push(key("at"));
                        o.err(base, format!("`{region}` is not a declared region"));
                    }
                }
            }
        }
    }
}

/// `concurrent` groups: consecutive, run by more than one thread, without blocking waits (a
/// step is atomic in the model, so a wait inside a group could only wait for steps before it),
/// and within the interleaving bound.
fn concurrent_groups(c: &Case, o: &mut Out) {
    const MAX_CTAS_ORDERED: u32 = 1 << 16;
    use crate::sem::exec::concurrent::{group_order_count, MAX_ORDERS};
    let ctas = product(&c.launch.grid);
    let mut ended: HashMap<&str, usize> = HashMap::new();
    let mut total: u128 = 1;
    let mut j = 0;
    while j < c.program.len() {
        let Some(g) = c.program[j].concurrent.as_deref() else {
            j += 1;
            continue;
        };
        let at = |i: usize| pik(&["program"], i, "concurrent");
        let end = (j..c.program.len())
            .find(|&i| c.program[i].concurrent.as_deref() != Some(g))
            .unwrap_or(c.program.len());
        if g.is_empty() {
            o.err(at(j), "a concurrent group needs a name");
        }
        if let Some(last) = ended.insert(g, end - 1) {
            o.err(
                at(j),
                format!("concurrent group `{g}` already ended at step {last}: a group's steps are consecutive"),
            );
        }
        let mut runners = std::collections::BTreeSet::new();
        for i in j..end {
            let s = &c.program[i];
            match &s.cta {
                Ctas::One(n) => {
                    runners.insert((*n, s.thread));
                }
                Ctas::List(l) => runners.extend(l.iter().map(|n| (*n, s.thread))),
                // Two CTAs are enough to tell the group is run by more than one thread.
                Ctas::Named(_) => runners.extend((0..ctas.min(2) as u32).map(|n| (n, s.thread))),
            }
            if matches!(s.op, StepOp::WaitParity { .. }) {
                o.err(
                    at(i),
                    "a wait_parity step cannot be concurrent (the model runs whole steps                      atomically, so it could wait only for steps before it): put it after the group",
                );
            }
        }
        if runners.len() < 2 {
            o.err(
                at(j),
                format!("concurrent group `{g}` is run by one thread only: its steps run in order anyway; give its steps different threads or CTAs"),
            );
        } else if ctas > u128::from(MAX_CTAS_ORDERED) {
            // `launch` reports the grid; counting orders over it would be meaningless.
        } else if group_order_count(c, j) > MAX_ORDERS {
            o.err(
                at(j),
                format!("concurrent group `{g}` has more than {MAX_ORDERS} interleavings (A-EXEC-CONCURRENT-INTERLEAVINGS): give it fewer steps or threads"),
            );
        } else {
            total = total.saturating_mul(group_order_count(c, j));
            if total > MAX_ORDERS {
                o.err(
                    at(j),
                    format!("with group `{g}` the concurrent groups have more than {MAX_ORDERS} interleavings together (A-EXEC-CONCURRENT-INTERLEAVINGS)"),
                );
                total = 1;
            }
        }
        j = end;
    }
}

fn ptx_step(text: &str, names: &Names, ctx: &ParseCtx, path: Vec<Seg>, o: &mut Out) {
    let mut st = match Statement::parse_with(text, ctx) {
        Ok(s) => s,
        Err(e) => {
            o.push(path, Some(e.offset), Severity::Error, e.to_string());
            return;
        }
    };
    if let Some(g) = &st.guard {
        if names.params.get(&g.pred) != Some(&RegTy::Pred) {
            let off = find_token(text, &g.pred);
            o.push(
                path.clone(),
                off,
                Severity::Error,
                format!("guard `{}` must be a `pred` parameter in `params`", g.pred),
            );
        }
    }
    for prob in check_instruction(&mut st.instr, names) {
        let off = find_token(text, &prob.name);
        o.push(path.clone(), off, Severity::Error, prob.message);
    }
}
