//! Emission of the GPU program of a YAML case.
//!
//! # Kernel ABI
//!
//! ```text
//! .extern .shared .align 1024 .b8 smem[];                  // the per-CTA shared image
//! .visible .entry ptxconform_case(.param .u64 table,
//!                                 .param .align 64 .b8 tmaps[128 * TMAP_SLOTS])  // if maps
//! ```
//! One launch runs many *instances* of a kernel (cases of one shape): the grid's x extent is
//! the case's times the instance count, and instance `i` owns CTAs `i*gx .. i*gx+gx-1` along x
//! (its own CTAs or clusters). `table` points to a device array of u64 pairs, entry `i` =
//! (instance `i`'s `pblock`, its `dump`); tensor map `k` of instance `i` is the 128 bytes at
//! `tmaps + (i * maps + k) * 128` ([`Emitted::max_instances`] bounds a launch by the slots).
//! * `pblock` points to a device array of u64 ([`dump::pb`] names the header slots): header,
//!   the base address of every global region, then the value of every register operand in
//!   emission order (immediates of operand slots, `params` values, region offsets of address
//!   operands, bytes of `store` steps). Operands are loaded from the block (`ld.global.bN` of the
//!   low bytes; `setp.ne` for predicates), so ONE compiled kernel serves every case of the same
//!   *shape*: cases that differ only in such values give identical PTX ([`Emitted::shape_key`]).
//!   What stays in the text (the shape): opcodes and qualifiers, immediates that are no operand
//!   slot (cp-size, wait_group N, …), `wait_parity` parities, which CTA/thread runs each step,
//!   which region each address operand names, the number of stored bytes, the grid and cluster
//!   extents.
//! * `dump` points to the observation buffer ([`DumpLayout`]), zero-filled by the host.
//! * Shared memory is dynamic (`dyn_smem_bytes`: the case's `memory.shared_allocation`, by
//!   default the image's size); regions and mbarriers sit at
//!   [`Layout`] offsets. The prologue copies the initial image (`Emitted::shared_init`, uploaded
//!   by the host to the address in `pblock[pb::SHARED_INIT]`) into every CTA's shared memory.
//! * Address operands: `.shared::cta`/`.shared::cluster` operands are 32-bit shared addresses
//!   (smem base + offset); generic operands naming shared memory go through `cvta.shared`;
//!   global ones are the region base from `pblock` + offset. A `Param::Mapa { mapa, cta }`
//!   operand is `mapa.shared::cluster.u32` of the local address with the rank from `pblock`
//!   (`mapa.u64` of the generic address for generic operands). A tensor map operand is the generic
//!   address of the instance's map in the `tmaps` parameter (`cvta.param.u64` of `tmaps`, what
//!   nvcc emits for the address of a `__grid_constant__` parameter, plus the map's offset).
//!
//! # CTA numbering and step order
//!
//! CTA number (within the instance): with clusters, `cluster linear id * cluster size +
//! %cluster_ctarank` (so in a one-cluster grid it is the cluster rank); without, the linear
//! `%ctaid`; both computed from the instance-local CTA id. Assumption: this is
//! the numbering `cta:` in a case means (the reference executor must agree). Steps run in listed
//! order, each guarded by "this is CTA c and thread t" (a run of consecutive steps of one executor
//! outside concurrent groups shares one guard, unless [`Guards::PerStep`]). Between consecutive
//! steps with different executors the kernel inserts `bar.sync 0` (same CTA set) or, in a
//! clustered launch, a cluster barrier (`barrier.cluster.arrive.release` +
//! `barrier.cluster.wait.acquire`) when the CTA sets differ. Without clusters CTAs cannot be
//! ordered: such cases only get `bar.sync 0`. Steps of one `concurrent` group get no barrier
//! between them (they run at once); entering and leaving a group always synchronises (a cluster
//! barrier in a clustered launch).
//!
//! `wait_parity` loops on `mbarrier.try_wait.parity` (`test_wait.parity` before sm_90) bounded
//! by `%globaltimer` (budget `pblock[pb::TIMEOUT_NS]`); on timeout it sets the step's flag in
//! the dump and goes on. The epilogue: `bar.sync 0` (+ cluster barrier), thread 0 records each
//! mbarrier's `test_wait.parity` answers for parity 0 and 1, all threads copy the shared image
//! to the dump, thread 0 sets the reached-end word, (+ a final cluster barrier so no CTA exits
//! while a peer may still touch its shared memory).

//!
//! # Tensor Memory (tcgen05, sm_100a)
//!
//! A `memory.tmem` allocation `t` is a 4-byte word of the shared image ([`Layout`]):
//! `tcgen05.alloc [t], n` writes the Tensor Memory address there, and `t` used as a taddr or
//! register operand is `ld.shared.b32` of that word at that point (A-EXEC-TCGEN05-WORD). A tcgen05
//! `.sync.aligned` step (alloc, dealloc, relinquish, ld, st, wait) runs on the whole warp of its
//! `thread`. A tcgen05.cp descriptor is written relative to the shared image; the emitter adds
//! `smem >> 4` to its start-address field (A-EXEC-TCGEN05-DESC-RELATIVE). Epilogue: for each
//! checked allocation, threads 0..127 (warp w: lanes 32w..32w+31) read every column with
//! `tcgen05.ld.sync.aligned.32x32b.x1.b32` into the dump's Tensor Memory section, then warp 0
//! deallocates it (A-EXEC-TCGEN05-EPILOGUE); such cases need 128 threads.

pub mod dump;
mod emitted;
mod frame;
mod instances;
mod operands;
mod text_key;
mod tmem;

pub use dump::{DumpLayout, DumpView, DEFAULT_TIMEOUT_NS};
pub use emitted::{link, Emitted, LaunchDims, StepLines, TensorMapParam};
pub use instances::{emit_all, emit_all_guarded};

use crate::test_kernel::KernelBuilder;
use dump::pb;
use ptxconform_reference::case::validate::{case_errors, parse_steps, Names};
use ptxconform_reference::case::{Case, Ctas, Param, StepOp};
use ptxconform_reference::layout::{Layout, Place};
use ptxconform_reference::ptx::common::CtaGroup;
use ptxconform_reference::ptx::operand::{AddrBase, RegTy, Slot, Space, Value};
use ptxconform_reference::ptx::tcgen05::Tcgen05Op;
use ptxconform_reference::ptx::{Instruction, Statement};
use ptxconform_reference::target::PtxVersion;
use std::collections::{BTreeSet, HashMap};

/// Corpus cases whose programs ptxas (CUDA 13.0) refuses although the manual only calls them
/// undefined: mixing `.cta_group::1` and `::2` in one kernel ("uses single CTA(.cta_group::1) and
/// CTA pair granularity(.cta_group::2) and that is not allowed"; §9.7.16.9.2 says "must").
/// A finding: they run on the reference only.
pub const STATICALLY_REJECTED: &[&str] = &["tcgen05.ub.cta_group_mixed"];

/// Name of the kernel entry.
pub const ENTRY: &str = "ptxconform_case";

/// Tensor-map slots of the `tmaps` parameter: 28 KiB, within the 32,764 bytes of kernel
/// parameters PTX ISA 8.1+ allows, with room for `table`.
pub const TMAP_SLOTS: usize = 224;
/// Slots under PTX ISA < 8.1 (a case pinning an older version): 4,352 bytes of parameters at most.
const TMAP_SLOTS_BEFORE_8_1: usize = 33;

/// The `tmaps` slots of a kernel of PTX ISA `v`.
pub fn tmap_slots(v: PtxVersion) -> usize {
    if v >= PtxVersion::new(8, 1) {
        TMAP_SLOTS
    } else {
        TMAP_SLOTS_BEFORE_8_1
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitError(pub String);

impl std::fmt::Display for EmitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(m: impl Into<String>) -> Result<T, EmitError> {
    Err(EmitError(m.into()))
}

/// FNV-1a, 64-bit (stable across builds, unlike `DefaultHasher`).
pub fn fnv1a(s: &str) -> u64 {
    ptxconform_core::hash::fnv1a64(s.as_bytes())
}

/// What a `params` name binds to.
#[derive(Debug, PartialEq)]
enum Bound {
    Value(i64),
    /// A `.shared::cluster` address of `region` in cluster CTA rank `cta` (`mapa`).
    Mapa {
        region: String,
        cta: u32,
    },
}

/// The binding of a param.
fn bound(p: &Param) -> Result<Bound, String> {
    Ok(match p {
        Param::Int(v) => Bound::Value(*v),
        Param::Typed { value, .. } => Bound::Value(*value),
        Param::Mapa { mapa, cta } => Bound::Mapa {
            region: mapa.clone(),
            cta: *cta,
        },
    })
}

/// Who runs a step.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Who {
    /// `None` = every CTA.
    ctas: Option<BTreeSet<u32>>,
    thread: u32,
    /// A warp-collective (tcgen05 `.sync.aligned`) step: the whole warp of `thread` runs it.
    warp: bool,
}

/// The kernel's `.cta_group` (the first tcgen05 instruction naming one; `::1` without any).
fn cta_group_of(stmts: &[Option<Statement>]) -> CtaGroup {
    stmts
        .iter()
        .flatten()
        .find_map(|s| match &s.instr {
            Instruction::Tcgen05(op) => match op {
                Tcgen05Op::Alloc(a) => Some(a.cta),
                Tcgen05Op::Dealloc(d) => Some(d.cta),
                Tcgen05Op::Relinquish(r) => Some(r.cta),
                Tcgen05Op::Cp(c) => Some(c.cta),
                Tcgen05Op::Commit(c) => Some(c.cta),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or(CtaGroup::One)
}

/// Who runs a step of `cta` and `thread` whose statement (for a `ptx:` step) is `st`.
fn who(cta: &Ctas, thread: u32, st: Option<&Statement>) -> Who {
    let ctas = match cta {
        Ctas::One(n) => Some(BTreeSet::from([*n])),
        Ctas::List(l) => Some(l.iter().copied().collect()),
        Ctas::Named(_) => None,
    };
    Who {
        ctas,
        thread,
        // tensormap.cp_fenceproxy's threads copy the same 128 bytes: the result is one copy's.
        warp: st.is_some_and(|s| s.instr.is_warp_collective()),
    }
}

struct Em<'a> {
    case: &'a Case,
    layout: Layout,
    kb: KernelBuilder,
    pblock: Vec<u64>,
    names: Names,
    /// Registers standing for names that are neither params nor regions (values an earlier step
    /// wrote, e.g. an mbarrier `state`), one per (name, type), shared by all steps.
    named: HashMap<(String, RegTy), String>,
    /// The kernel's `.cta_group` (for the epilogue's dealloc).
    cta_group: CtaGroup,
    /// Dump offset of the Tensor Memory section.
    tmem_at: u64,
    /// Fixed registers of the prologue.
    pbr: String,
    dumpr: String,
    smem: String,
    cta: String,
    tid: String,
    /// The instance number of this CTA in a batched launch.
    inst: String,
    label: usize,
    errors: Vec<String>,
    /// Whether body lines are printed ([`Em::line`]); a walk only fills the parameter block.
    text: bool,
    /// Body lines so far (printed or not).
    lines: usize,
}

/// What a walk of a case must share with the emission it reuses the text of, beyond the text
/// key that chose it: checked, so that a text is never reused on the key's word alone.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Footprint {
    version: PtxVersion,
    lines: usize,
    registers: [usize; crate::test_kernel::REG_TYPES],
    labels: usize,
    slots: usize,
}

/// Emit the GPU program of `case` (which must validate without errors).
pub fn emit(case: &Case) -> Result<Emitted, EmitError> {
    emit_parsed(Parsed::of(case)?, None).map(|(e, _)| e)
}

/// How a kernel guards its steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guards {
    /// Consecutive steps of one executor outside concurrent groups share one guard ([`emit`]):
    /// ptxas compiles fewer branches.
    Runs,
    /// Every step has its own barrier and guard: each step's first line (its [`StepLines`]
    /// start) is a point every thread of every CTA passes, where a rewrite of the text may
    /// insert code that all of them run (litmus's stress spin).
    PerStep,
}

/// [`emit`] with the steps guarded as `guards` says.
pub fn emit_guarded(case: &Case, guards: Guards) -> Result<Emitted, EmitError> {
    emit_parsed(Parsed::guarded(case, guards)?, None).map(|(e, _)| e)
}

/// A case that validated, its layout and names, and its parsed steps: where emission starts.
struct Parsed<'a> {
    case: &'a Case,
    layout: Layout,
    names: Names,
    /// The statement of every `ptx:` step (`None` for the other steps).
    stmts: Vec<Option<Statement>>,
    guards: Guards,
}

impl<'a> Parsed<'a> {
    fn of(case: &'a Case) -> Result<Self, EmitError> {
        let problems: Vec<String> = case_errors(case).into_iter().map(|p| p.message).collect();
        if !problems.is_empty() {
            return err(format!(
                "case `{}` is invalid: {}",
                case.name,
                problems.join("; ")
            ));
        }
        let layout = Layout::of(case).map_err(|e| EmitError(e.0))?;
        let names = Names::of(case);
        let mut stmts: Vec<Option<Statement>> = vec![None; case.program.len()];
        for (i, st) in parse_steps(case) {
            let text = case.program[i].op.ptx().unwrap_or_default();
            stmts[i] = Some(st.map_err(|e| EmitError(format!("`{text}`: {e}")))?);
        }
        Ok(Parsed {
            case,
            layout,
            names,
            stmts,
            guards: Guards::Runs,
        })
    }

    /// [`Parsed::of`], to be emitted with its steps guarded as `guards` says.
    fn guarded(case: &'a Case, guards: Guards) -> Result<Self, EmitError> {
        Ok(Parsed {
            guards,
            ..Parsed::of(case)?
        })
    }
}

/// Emit `p`. With `reuse`, an emission whose kernel text this one is known to share (by
/// [`text_key`]), the emitter only walks the program: it fills the parameter block
/// but prints no line, and takes the text, its shape key and step map from `reuse`. The caller
/// must compare the returned [`Footprint`] with `reuse`'s before trusting the text.
fn emit_parsed(
    p: Parsed<'_>,
    reuse: Option<&(Emitted, Footprint)>,
) -> Result<(Emitted, Footprint), EmitError> {
    let Parsed {
        case,
        layout,
        names,
        stmts,
        guards,
    } = p;
    let version = version_of(case, &stmts)?;
    let mut kb = KernelBuilder::new(version, case.target);
    kb.name = ENTRY.into();
    let (pbr, dumpr, smem, cta, tid, inst) = (
        kb.fresh(RegTy::B64),
        kb.fresh(RegTy::B64),
        kb.fresh(RegTy::B32),
        kb.fresh(RegTy::B32),
        kb.fresh(RegTy::B32),
        kb.fresh(RegTy::B32),
    );
    let globals = case.memory.global.len();
    let mut pblock = vec![0u64; pb::HEADER + globals];
    let checked_tmem: Vec<(String, u32)> = case
        .memory
        .tmem
        .iter()
        .filter(|t| case.check.contains(&t.name))
        .map(|t| (t.name.clone(), t.columns))
        .collect();
    if !checked_tmem.is_empty() && case.launch.threads < 128 {
        return err("checking Tensor Memory needs 128 threads (one warp per lane quarter)");
    }
    let dump_layout = DumpLayout::new(
        case.launch.ctas(),
        layout.shared_bytes,
        case.memory
            .mbarriers
            .iter()
            .map(|m| m.name.clone())
            .collect(),
        case.program.len(),
    )
    .with_tmem(checked_tmem);
    let cta_group = cta_group_of(&stmts);
    pblock[pb::TIMEOUT_NS] = DEFAULT_TIMEOUT_NS;
    pblock[pb::IMAGE_BYTES] = layout.shared_bytes;
    pblock[pb::PARITY_AT] = dump_layout.parity_at;
    pblock[pb::TIMEOUTS_AT] = dump_layout.timeouts_at;
    pblock[pb::REACHED_AT] = dump_layout.reached_at;
    let shared_init = shared_image(case, &layout)?;
    let mut em = Em {
        case,
        layout,
        kb,
        pblock,
        names,
        named: HashMap::new(),
        cta_group,
        tmem_at: dump_layout.tmem_at,
        pbr,
        dumpr,
        smem,
        cta,
        tid,
        inst,
        label: 0,
        errors: Vec::new(),
        text: reuse.is_none(),
        lines: 0,
    };
    let tensor_maps = em.prologue()?;
    let mut spans = Vec::new();
    let executors: Vec<(Who, Option<&str>)> = case
        .program
        .iter()
        .zip(&stmts)
        .map(|(step, st)| {
            let w = who(&step.cta, step.thread, st.as_ref());
            (w, step.concurrent.as_deref())
        })
        .collect();
    // Consecutive steps of one executor outside concurrent groups run in program order under
    // one guard: ptxas then compiles one branch for the run instead of one a step (400 generated
    // kernels, in modules of five: 7% less ptxas CPU).
    let shares_guard = |j: usize| match (
        j.checked_sub(1).and_then(|i| executors.get(i)),
        executors.get(j),
    ) {
        (Some((p, None)), Some((w, None))) => guards == Guards::Runs && p == w,
        _ => false,
    };
    let mut skip = String::new();
    for (j, (step, st)) in case.program.iter().zip(stmts).enumerate() {
        let (w, group) = &executors[j];
        let start = em.lines;
        if !shares_guard(j) {
            if let Some((p, pg)) = j.checked_sub(1).map(|i| &executors[i]) {
                // Steps of one concurrent group run at once; entering or leaving a group always
                // synchronises, so the group's steps meet nothing before or after it.
                let same_group = group.is_some() && pg == group;
                let boundary = pg != group;
                if boundary || (!same_group && p != w) {
                    if (p.ctas != w.ctas || boundary) && em.clustered() {
                        em.cluster_barrier();
                    } else {
                        em.line("bar.sync 0;");
                    }
                }
            }
            skip = em.guard(w);
        }
        match (&step.op, st) {
            (StepOp::Ptx(_), Some(st)) => em.ptx_step(st),
            (StepOp::WaitParity { mbar, parity }, _) => em.wait_step(j, mbar, *parity)?,
            (StepOp::Store { at, bytes }, _) => em.store_step(at, bytes)?,
            _ => return err("internal: step and statement out of step"),
        }
        if !shares_guard(j + 1) {
            em.line(format_args!("{skip}:"));
        }
        spans.push((j, start..em.lines));
        if !em.errors.is_empty() {
            return err(format!("step {j}: {}", em.errors.join("; ")));
        }
    }
    em.epilogue();
    let footprint = Footprint {
        version,
        lines: em.lines,
        registers: em.kb.register_counts(),
        labels: em.label,
        slots: em.pblock.len(),
    };
    let (ptx, shape_key, step_map) = match reuse {
        Some((t, _)) => (t.ptx.clone(), t.shape_key, t.step_map.clone()),
        None => {
            let k = em.kb.build();
            let step_map = spans
                .into_iter()
                .map(|(step, r)| {
                    let first = if r.start < k.lines.len() {
                        k.lines[r.start]
                    } else {
                        0
                    };
                    StepLines {
                        step,
                        lines: first..first + r.len(),
                    }
                })
                .collect();
            (k.text.as_str().into(), fnv1a(&k.text), step_map)
        }
    };
    let l = &case.launch;
    let emitted = Emitted {
        shape_key,
        ptx,
        entry: ENTRY,
        target: case.target,
        version,
        pblock: em.pblock,
        globals,
        dyn_smem_bytes: em.layout.shared_allocation,
        dump_layout,
        shared_init,
        launch: LaunchDims {
            grid: l.grid,
            cluster: l.cluster,
            block: [l.threads, 1, 1],
        },
        tensor_maps,
        step_map,
    };
    Ok((emitted, footprint))
}

/// The case's `ptx_version`, else the least version the program's instructions and the
/// emitter's own scaffolding (see [`scaffold_min_ptx`]) need on the target.
fn version_of(case: &Case, stmts: &[Option<Statement>]) -> Result<PtxVersion, EmitError> {
    if let Some(v) = &case.ptx_version {
        return v.parse().map_err(EmitError);
    }
    let mut v = scaffold_min_ptx(case);
    for s in stmts.iter().flatten() {
        let need = s
            .instr
            .requirement()
            .min_ptx_for(case.target)
            .map_err(|why| {
                EmitError(format!(
                    "`{}` is not legal on {}: {why}",
                    s.instr, case.target
                ))
            })?;
        v = v.max(need);
    }
    Ok(v)
}

/// PTX ISA the harness's own instructions need: `fence.proxy.async` 8.0 (emitted on sm_90+),
/// cluster barriers / `%cluster_ctarank` / `mapa` and `mbarrier.try_wait` 7.8, `cvta.param` 7.7
/// (8.1 with tensor maps: the batched `tmaps` parameter),
/// `mbarrier.test_wait` 7.1. With an explicit `ptx_version` below 8.0 the fence is left out.
fn scaffold_min_ptx(case: &Case) -> PtxVersion {
    let mut v = case.target.min_ptx();
    let waits = case
        .program
        .iter()
        .any(|s| matches!(s.op, StepOp::WaitParity { .. }));
    if !case.memory.mbarriers.is_empty() || waits {
        v = v.max(PtxVersion::new(7, 1));
    }
    if !case.memory.tensor_maps.is_empty() {
        // `cvta.param` 7.7; a `tmaps` parameter over 4,352 bytes 8.1.
        v = v.max(PtxVersion::new(8, 1));
    }
    if case.launch.cluster_size() > 1 || (waits && case.target.sm >= 90) {
        v = v.max(PtxVersion::new(7, 8));
    }
    if case.target.sm >= 90 {
        v = v.max(PtxVersion::new(8, 0));
    }
    v
}

fn shared_image(case: &Case, layout: &Layout) -> Result<Vec<u8>, EmitError> {
    let mut img = vec![0u8; layout.shared_bytes as usize];
    for r in &case.memory.shared {
        let Some(Place::Shared { offset, size }) = layout.get(&r.name) else {
            continue;
        };
        let bytes = r
            .init
            .materialize(size)
            .map_err(|e| EmitError(format!("region `{}`: {}", r.name, e.message)))?;
        img[offset as usize..(offset + size) as usize].copy_from_slice(&bytes);
    }
    Ok(img)
}

impl Em<'_> {
    /// A body line: printed when the emitter writes text, only counted when it walks.
    fn line(&mut self, l: impl std::fmt::Display) {
        self.lines += 1;
        if self.text {
            self.kb.push_line(l.to_string());
        }
    }

    /// A fresh label; a walk only counts it (its name would print nowhere).
    fn label(&mut self, what: &str) -> String {
        self.label += 1;
        if !self.text {
            return String::new();
        }
        format!("$L_{what}_{}", self.label)
    }

    /// A fresh register of type `ty`; a walk only counts it, as [`Em::label`].
    fn reg(&mut self, ty: RegTy) -> String {
        if !self.text {
            self.kb.next(ty);
            return String::new();
        }
        self.kb.fresh(ty)
    }

    fn clustered(&self) -> bool {
        self.case.launch.cluster_size() > 1
    }

    fn cluster_barrier(&mut self) {
        self.line("barrier.cluster.arrive.release.aligned;");
        self.line("barrier.cluster.wait.acquire.aligned;");
    }

    /// Append `value` to the pblock and return its byte offset.
    fn slot(&mut self, value: u64) -> usize {
        self.pblock.push(value);
        (self.pblock.len() - 1) * 8
    }

    /// A fresh register of type `ty` loaded from pblock slot at byte offset `off`.
    fn load_at(&mut self, ty: RegTy, off: usize) -> String {
        let r = self.reg(ty);
        let pbr = self.pbr.clone();
        if ty == RegTy::Pred {
            let t = self.reg(RegTy::B32);
            self.line(format_args!("ld.global.b32 {t}, [{pbr}+{off}];"));
            self.line(format_args!("setp.ne.b32 {r}, {t}, 0;"));
        } else {
            // Little-endian: the low `bits` of the u64 slot.
            self.line(format_args!("ld.global.b{} {r}, [{pbr}+{off}];", ty.bits()));
        }
        r
    }

    /// A fresh register of type `ty` holding `value` (through the pblock).
    fn load(&mut self, ty: RegTy, value: u64) -> String {
        let off = self.slot(value);
        self.load_at(ty, off)
    }

    /// Branch over the step unless this is its CTA and thread; returns the skip label.
    fn guard(&mut self, w: &Who) -> String {
        let skip = self.label("skip");
        let p = self.reg(RegTy::Pred);
        let tid = self.tid.clone();
        if w.warp {
            let t = self.reg(RegTy::B32);
            self.line(format_args!("shr.u32 {t}, {tid}, 5;"));
            self.line(format_args!("setp.eq.u32 {p}, {t}, {};", w.thread / 32));
        } else {
            self.line(format_args!("setp.eq.u32 {p}, {tid}, {};", w.thread));
        }
        if let Some(set) = &w.ctas {
            let cta = self.cta.clone();
            let any = self.reg(RegTy::Pred);
            for (k, c) in set.iter().enumerate() {
                if k == 0 {
                    self.line(format_args!("setp.eq.u32 {any}, {cta}, {c};"));
                } else {
                    self.line(format_args!("setp.eq.or.u32 {any}, {cta}, {c}, {any};"));
                }
            }
            self.line(format_args!("and.pred {p}, {p}, {any};"));
        }
        self.line(format_args!("@!{p} bra {skip};"));
        skip
    }

    fn ptx_step(&mut self, mut st: Statement) {
        if let Some(g) = &mut st.guard {
            let p = g.pred.clone();
            g.pred = self.named_value("guard", RegTy::Pred, &p);
        }
        st.instr.visit_operands(&mut |slot| match slot {
            Slot::Addr { role, space, addr } => self.address(role, space, addr),
            Slot::Value {
                role, ty, value, ..
            } => self.value(role, ty, value),
            Slot::Tensor { role, tensor } => {
                match self
                    .case
                    .memory
                    .tensor_maps
                    .iter()
                    .position(|t| t.name == tensor.map)
                {
                    Some(i) => {
                        // Map i of instance `inst`: tmaps + (inst * maps + i) * 128.
                        let (r, o) = (self.reg(RegTy::B64), self.reg(RegTy::B64));
                        let maps = self.case.memory.tensor_maps.len() * 128;
                        let inst = self.inst.clone();
                        self.line(format_args!("mov.u64 {r}, tmaps;"));
                        self.line(format_args!("cvta.param.u64 {r}, {r};"));
                        self.line(format_args!("mul.wide.u32 {o}, {inst}, {maps};"));
                        self.line(format_args!("add.s64 {r}, {r}, {o};"));
                        if i > 0 {
                            self.line(format_args!("add.s64 {r}, {r}, {};", i * 128));
                        }
                        tensor.map = r;
                    }
                    None => self.errors.push(format!(
                        "the {role} operand `{}` is not a tensor map",
                        tensor.map
                    )),
                }
                for c in tensor.coords.iter_mut() {
                    self.value("coordinate", RegTy::B32, c);
                }
            }
            Slot::Vector { role, ty, values } => {
                for v in values.iter_mut() {
                    self.value(role, ty, v);
                }
            }
        });
        if let Instruction::Tcgen05(Tcgen05Op::Cp(cp)) = &mut st.instr {
            // A-EXEC-TCGEN05-DESC-RELATIVE: start address += the image's shared address >> 4.
            if let Value::Reg(d) = &cp.sdesc {
                let (b, r) = (self.reg(RegTy::B64), self.reg(RegTy::B64));
                let (s32, smem) = (self.reg(RegTy::B32), self.smem.clone());
                self.line(format_args!("shr.u32 {s32}, {smem}, 4;"));
                self.line(format_args!("cvt.u64.u32 {b}, {s32};"));
                self.line(format_args!("add.s64 {r}, {d}, {b};"));
                cp.sdesc = Value::Reg(r);
            }
        }
        self.line(&st);
    }

    fn wait_step(&mut self, step: usize, mbar: &str, parity: u32) -> Result<(), EmitError> {
        let Some(Place::Mbarrier { offset }) = self.layout.get(mbar) else {
            return err(format!("`{mbar}` is not an mbarrier"));
        };
        let a = self.shared_addr(offset);
        let budget = self.load_at(RegTy::U64, pb::TIMEOUT_NS * 8);
        let (t0, t1) = (self.reg(RegTy::U64), self.reg(RegTy::U64));
        let (done, more) = (self.reg(RegTy::Pred), self.reg(RegTy::Pred));
        let (top, out) = (self.label("wait"), self.label("waited"));
        // §9.7.13.15.16: try_wait suspends for a system-dependent time; test_wait (sm_80) does not.
        // `.shared` (= `.shared::cta`) rather than `.shared::cta`, which needs PTX 7.8.
        let op = if self.case.target.sm >= 90 {
            "try_wait"
        } else {
            "test_wait"
        };
        self.line(format_args!("mov.u64 {t0}, %globaltimer;"));
        self.line(format_args!("{top}:"));
        self.line(format_args!(
            "mbarrier.{op}.parity.shared.b64 {done}, [{a}], {parity};"
        ));
        self.line(format_args!("@{done} bra {out};"));
        self.line(format_args!("mov.u64 {t1}, %globaltimer;"));
        self.line(format_args!("sub.u64 {t1}, {t1}, {t0};"));
        self.line(format_args!("setp.lt.u64 {more}, {t1}, {budget};"));
        self.line(format_args!("@{more} bra {top};"));
        // Timed out: flag (step, cta) and go on.
        let at = self.load_at(RegTy::B32, pb::TIMEOUTS_AT * 8);
        let (cta, dumpr) = (self.cta.clone(), self.dumpr.clone());
        let idx = self.reg(RegTy::B32);
        let fa = self.reg(RegTy::B64);
        let base = step as u64 * self.case.launch.ctas() as u64;
        self.line(format_args!("add.u32 {idx}, {cta}, {base};"));
        self.line(format_args!("shl.b32 {idx}, {idx}, 2;"));
        self.line(format_args!("add.u32 {idx}, {idx}, {at};"));
        self.line(format_args!("cvt.u64.u32 {fa}, {idx};"));
        self.line(format_args!("add.s64 {fa}, {fa}, {dumpr};"));
        self.line(format_args!("st.global.u32 [{fa}], 1;"));
        self.line(format_args!("{out}:"));
        Ok(())
    }

    fn store_step(&mut self, at: &str, bytes: &[u8]) -> Result<(), EmitError> {
        let (addr, space) = match self.layout.get(at) {
            Some(Place::Shared { offset, .. }) => (self.shared_addr(offset), "shared"),
            Some(Place::Global { index, .. }) if index != usize::MAX => {
                (self.global_addr(index, 0), "global")
            }
            _ => return err(format!("store: `{at}` is not a region")),
        };
        let v = self.reg(RegTy::B16);
        let pbr = self.pbr.clone();
        for (i, b) in bytes.iter().enumerate() {
            let off = self.slot(*b as u64);
            self.line(format_args!("ld.global.u8 {v}, [{pbr}+{off}];"));
            self.line(format_args!("st.{space}.u8 [{addr}+{i}], {v};"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_bind_to_values() {
        assert_eq!(bound(&Param::Int(-3)), Ok(Bound::Value(-3)));
        assert_eq!(
            bound(&Param::Typed {
                value: 7,
                ty: "b64".into()
            }),
            Ok(Bound::Value(7))
        );
    }

    /// A `.sync.aligned` step runs on the whole warp of its thread; others on the thread alone.
    #[test]
    fn warp_collective_steps_run_on_the_warp() {
        let warp = |text: &str| {
            let st = Statement::parse(text).unwrap();
            who(&Ctas::One(0), 33, Some(&st)).warp
        };
        assert!(warp(
            "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [d], 32"
        ));
        assert!(warp("tcgen05.wait::st.sync.aligned"));
        assert!(warp(
            "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [g], [s], 128"
        ));
        assert!(!warp("tcgen05.fence::after_thread_sync"));
        assert!(!warp(
            "tensormap.replace.tile.global_address.global.b1024.b64 [g], v"
        ));
        assert!(!warp("cp.async.ca.shared.global [d], [s], 4"));
        assert!(!who(&Ctas::One(0), 33, None).warp);
    }

    #[test]
    fn fnv_is_stable() {
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
