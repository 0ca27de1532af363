//! The hardware side of a run: emit each case's program, turn it into a worker job (parameter
//! block with patched pointers, dump buffer, every global region between canaries), run batches
//! through the isolating supervisor, decode the dump and classify the case against the reference.

use super::batch::{BatchStats, Isolation, Kernel, Limits, Unit};
use super::reference::{evaluate, expected_regions, shared_key};
use super::{Loaded, RunArgs};
use crate::emit::{emit, link, Emitted};
use crate::gpu::{DeviceInfo, JobResult, Outcome, Supervisor, SupervisorConfig, WorkerCommand};
use crate::journal::Journal;
use crate::report::{CaseResult, RegionDiff, RunInfo, Verdict};
use indicatif::ProgressBar;
use ptxconform_reference::case::{load_file, to_yaml, Case, Observation};
use ptxconform_reference::layout::{Layout, Place, CANARY, CANARY_BYTE};
use ptxconform_reference::sem::exec::{Execution, ExpectedHw, Outcome as RefOutcome};
use ptxconform_reference::target::{Suffix, Target};
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// Buffer indices of a case's job result (see [`super::batch`], which shapes each instance's
/// result this way): the dump, then every global region's buffer.
pub(crate) const DUMP: usize = 1;
pub(crate) const FIRST_GLOBAL: usize = 3;

/// Can a device of compute capability `cc` run code built for `t`? Arch-specific targets (`a`) run
/// only on exactly that architecture; family targets (`f`) on the same family; plain ones on
/// anything at least as new.
pub fn runs_on(t: Target, cc: (i32, i32)) -> bool {
    let dev = (cc.0 * 10 + cc.1) as u32;
    match t.suffix {
        Suffix::Arch => dev == t.sm,
        Suffix::Family => dev / 10 == t.sm / 10 && dev >= t.sm,
        Suffix::None => dev >= t.sm,
    }
}

/// Where global region `i` starts inside its buffer, and the buffer's size and alignment: at
/// least [`CANARY`] canary bytes on each side, the start aligned as the region asks plus its
/// deliberate `misalign` (the reference's A-EXEC-GLOBAL-BASE).
pub(crate) fn global_geometry(case: &Case, i: usize) -> (u64, u64, u64) {
    let r = &case.memory.global[i];
    let pad = CANARY.max(r.align);
    let start = pad + r.misalign;
    (start, start + r.size + CANARY, r.align.max(256))
}

/// What the hardware showed, by report region name (`name` for global, `name@ctaN` for shared).
pub struct Observed {
    pub regions: BTreeMap<String, Vec<u8>>,
    pub canaries_ok: Vec<String>,
    pub timeouts: Vec<usize>,
    pub not_reached: Vec<u32>,
    /// (mbarrier@cta, parity-0 complete, parity-1 complete)
    pub parity: Vec<(String, bool, bool)>,
    /// Checked Tensor Memory by `name@ctaN`: cells lane-major (128 lanes × declared columns).
    pub tmem: BTreeMap<String, Vec<u32>>,
}

pub fn observe(case: &Case, em: &Emitted, r: &JobResult) -> Result<Observed, String> {
    let get = |i: usize| {
        r.read_back
            .iter()
            .find(|b| b.index == i)
            .map(|b| b.data.as_slice())
            .ok_or_else(|| format!("buffer {i} not read back"))
    };
    let view = em.dump_layout.decode(get(DUMP)?)?;
    let layout = Layout::of(case).map_err(|e| e.to_string())?;
    let mut regions = BTreeMap::new();
    let mut bad_canaries = Vec::new();
    for (i, g) in case.memory.global.iter().enumerate() {
        let data = get(FIRST_GLOBAL + i)?;
        let (start, size, _) = global_geometry(case, i);
        let (s, e) = (start as usize, (start + g.size) as usize);
        if data.len() < size as usize {
            return Err(format!("global `{}` read back short", g.name));
        }
        if data[..s]
            .iter()
            .chain(&data[e..])
            .any(|&b| b != CANARY_BYTE)
        {
            bad_canaries.push(g.name.clone());
        }
        regions.insert(g.name.clone(), data[s..e].to_vec());
    }
    for (cta, img) in view.images.iter().enumerate() {
        for s in &case.memory.shared {
            if let Some(Place::Shared { offset, size }) = layout.get(&s.name) {
                let (a, b) = (offset as usize, (offset + size) as usize);
                if b <= img.len() {
                    regions.insert(shared_key(&s.name, cta), img[a..b].to_vec());
                }
            }
        }
    }
    let mut parity = Vec::new();
    for (cta, ms) in view.parity.iter().enumerate() {
        for (m, (p0, p1)) in ms.iter().enumerate() {
            parity.push((shared_key(&em.dump_layout.mbarriers[m], cta), *p0, *p1));
        }
    }
    let timeouts = view
        .timeouts
        .iter()
        .enumerate()
        .filter(|(_, cs)| cs.iter().any(|&t| t))
        .map(|(s, _)| s)
        .collect();
    let not_reached = view
        .reached_end
        .iter()
        .enumerate()
        .filter(|(_, &r)| !r)
        .map(|(c, _)| c as u32)
        .collect();
    let mut tmem = BTreeMap::new();
    for (cta, ks) in view.tmem.iter().enumerate() {
        for (k, cells) in ks.iter().enumerate() {
            tmem.insert(shared_key(&em.dump_layout.tmem[k].0, cta), cells.clone());
        }
    }
    Ok(Observed {
        regions,
        canaries_ok: bad_canaries,
        timeouts,
        not_reached,
        parity,
        tmem,
    })
}

/// Compare one hardware result with the reference's execution.
pub fn classify(
    case: &Case,
    ex: &Execution,
    em: &Emitted,
    jr: &JobResult,
    base: &mut CaseResult,
) -> Option<Observed> {
    let undefined = matches!(ex.outcome, RefOutcome::Undefined { .. });
    let trap_or_timeout = |base: &mut CaseResult, expected: ExpectedHw, what: String| {
        base.verdict = match (expected, what.starts_with("trap")) {
            (ExpectedHw::MayTrap, true) => Verdict::TrapExpected,
            (ExpectedHw::Timeout, false) => Verdict::TimeoutExpected,
            _ if undefined => Verdict::ReferenceUndefined,
            (_, true) => Verdict::TrapUnexpected,
            (_, false) => Verdict::TimeoutUnexpected,
        };
        base.detail = format!("{what}; reference: {}", ref_summary(ex));
    };
    match &jr.outcome {
        Outcome::Ok => {}
        Outcome::Trap { kind, code } => {
            trap_or_timeout(
                base,
                ex.expected_hw,
                format!("trap {kind:?} (CUDA error {code})"),
            );
            return None;
        }
        Outcome::Timeout { after_ms } => {
            trap_or_timeout(
                base,
                ex.expected_hw,
                format!("timeout: watchdog after {after_ms} ms"),
            );
            return None;
        }
        Outcome::Setup { message } if undefined && message.contains("tensor map") => {
            // The driver refused a map the reference classified as an encode rejection.
            base.verdict = Verdict::ReferenceUndefined;
            base.detail = format!("driver: {message}; reference: {}", ref_summary(ex));
            return None;
        }
        other => {
            base.verdict = Verdict::HarnessError;
            base.detail = format!("{other:?}").chars().take(600).collect();
            return None;
        }
    }
    let obs = match observe(case, em, jr) {
        Ok(o) => o,
        Err(e) => {
            base.verdict = Verdict::HarnessError;
            base.detail = e;
            return None;
        }
    };
    if !obs.timeouts.is_empty() {
        trap_or_timeout(
            base,
            ex.expected_hw,
            format!("timeout in wait step(s) {:?}", obs.timeouts),
        );
        return Some(obs);
    }
    if undefined {
        base.verdict = Verdict::ReferenceUndefined;
        base.detail = format!("hardware completed; reference: {}", ref_summary(ex));
        return Some(obs);
    }
    let mut problems = Vec::new();
    if !obs.canaries_ok.is_empty() {
        problems.push(format!(
            "canary bytes overwritten around {:?}",
            obs.canaries_ok
        ));
    }
    if !obs.not_reached.is_empty() {
        problems.push(format!("CTAs {:?} did not reach the end", obs.not_reached));
    }
    for (name, exp) in expected_regions(case, ex) {
        if let Some(o) = obs.regions.get(&name) {
            let d = RegionDiff {
                region: name.clone(),
                expected: exp,
                observed: o.clone(),
            };
            if let Some(i) = d.first_mismatch() {
                problems.push(format!("{name} byte {i}: observed {:#04x}", d.observed[i]));
                base.diffs.push(d);
            }
        }
    }
    for (cta, ts) in ex.final_state.tmem.iter().enumerate() {
        for (name, cells) in ts {
            let key = shared_key(name, cta);
            let Some(o) = obs.tmem.get(&key) else {
                continue;
            };
            let cols = cells.len() / 128;
            if let Some(i) = cells.iter().zip(o).position(|(c, v)| !c.accepts(*v)) {
                problems.push(format!(
                    "Tensor Memory {key} lane {} column {}: observed {:#010x}, expected {:?}",
                    i / cols.max(1),
                    i % cols.max(1),
                    o[i],
                    cells[i]
                ));
            }
        }
    }
    for (cta, ms) in ex.final_state.mbarriers.iter().enumerate() {
        for (name, st) in ms {
            let key = shared_key(name, cta);
            let Some(&(_, p0, p1)) = obs.parity.iter().find(|(k, _, _)| *k == key) else {
                continue;
            };
            if let (true, Some(cur)) = (st.valid, st.phase_parity) {
                // test_wait.parity(p) is true when the phase of parity p (the current or the
                // immediately preceding one) has completed, i.e. when p != the current parity.
                let want = (cur != 0, cur != 1);
                if (p0, p1) != want {
                    problems.push(format!("mbarrier {key}: phase parity {cur} expected, test_wait.parity gave ({p0}, {p1})"));
                }
            }
        }
    }
    if problems.is_empty() {
        base.verdict = Verdict::Pass;
        base.detail = String::new();
    } else {
        base.verdict = Verdict::Diverge;
        base.detail = problems.join("; ");
    }
    Some(obs)
}

fn ref_summary(ex: &Execution) -> String {
    match &ex.outcome {
        RefOutcome::Defined => format!("well defined, expects {:?}", ex.expected_hw),
        RefOutcome::Undefined { ub, step } => format!(
            "UB {} at step {step}, expects {:?}",
            ub.rule, ex.expected_hw
        ),
    }
}

/// The observation recorded into a case file.
pub fn observation(info: &RunInfo, verdict: &Verdict, obs: &Observed) -> Observation {
    Observation {
        device: info.device.clone(),
        driver: info.driver.clone(),
        date: info.date.clone(),
        outcome: match verdict {
            Verdict::Pass => "pass",
            Verdict::Diverge => "diverge",
            Verdict::TrapExpected | Verdict::TrapUnexpected => "trap",
            Verdict::TimeoutExpected | Verdict::TimeoutUnexpected => "timeout",
            _ => "other",
        }
        .to_string(),
        regions: obs
            .regions
            .iter()
            .map(|(k, v)| (k.clone(), crate::hex::encode(v)))
            .collect(),
        mbarriers: obs
            .parity
            .iter()
            .map(|(k, a, b)| (k.clone(), format!("parity0_done={a} parity1_done={b}")))
            .collect(),
    }
}

/// Write a divergence report: the case with the hardware observation (itself a runnable case)
/// and its PTX.
pub fn write_divergence(
    dir: &Path,
    case: &Case,
    ptx: &str,
    obs: Option<&Observation>,
) -> Result<(), String> {
    let d = dir.join("divergences");
    std::fs::create_dir_all(&d).map_err(|e| e.to_string())?;
    let mut c = case.clone();
    if let Some(o) = obs {
        c.observed = vec![o.clone()];
    }
    let stem: String = case
        .name
        .chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' || ch == '.' {
                ch
            } else {
                '_'
            }
        })
        .collect();
    std::fs::write(d.join(format!("{stem}.yaml")), to_yaml(&[c])).map_err(|e| e.to_string())?;
    std::fs::write(d.join(format!("{stem}.ptx")), ptx).map_err(|e| e.to_string())
}

/// Record observations into the case files (one per device: a newer one replaces the older).
fn record(recorded: &BTreeMap<String, Vec<(String, Observation)>>) -> Result<usize, String> {
    let mut n = 0;
    for (file, obs) in recorded {
        let mut cases = load_file(Path::new(file)).map_err(|e| e.to_string())?;
        for c in cases.iter_mut() {
            if let Some((_, o)) = obs.iter().find(|(name, _)| *name == c.name) {
                c.observed.retain(|x| x.device != o.device);
                c.observed.push(o.clone());
                n += 1;
            }
        }
        std::fs::write(file, to_yaml(&cases)).map_err(|e| format!("{file}: {e}"))?;
    }
    Ok(n)
}

/// A case prepared for hardware: either already decided (reference failure, not runnable on this
/// device, emit error) or ready to run with its reference execution and emitted program.
pub enum Prepared {
    Done(CaseResult),
    Ready {
        result: CaseResult,
        ex: Box<Execution>,
        em: Box<Emitted>,
    },
}

/// Evaluate `case` on the reference and emit it for a device of compute capability `cc`.
pub fn prepare(file: &str, case: &Case, cc: (i32, i32)) -> Prepared {
    let (r, ex) = evaluate(file, case);
    let ex = match ex {
        Ok(x) if !r.verdict.is_failure() => x,
        _ => return Prepared::Done(r),
    };
    let mut r = r;
    if !runs_on(case.target, cc) {
        r.verdict = Verdict::NotRun;
        r.detail = format!("needs {}", case.target);
        return Prepared::Done(r);
    }
    match emit(case) {
        Ok(em) if em.assemblable() => Prepared::Ready {
            result: r,
            ex: Box::new(ex),
            em: Box::new(em),
        },
        Ok(em) => {
            r.verdict = Verdict::NotRun;
            r.detail = format!(
                "needs PTX ISA {} (the driver takes at most 9.0)",
                em.version
            );
            Prepared::Done(r)
        }
        Err(e) => {
            r.verdict = Verdict::HarnessError;
            r.detail = format!("emit: {e}");
            Prepared::Done(r)
        }
    }
}

/// The classified hardware result of one case, with what a divergence report needs.
pub struct HwResult {
    pub result: CaseResult,
    pub observed: Option<Observed>,
    pub em: Option<Box<Emitted>>,
}

/// The hardware side of every path (`run`, `fuzz`, minimization): a worker supervisor, the
/// device's compute capability, compiled modules by shape, and launch limits.
pub struct Engine {
    pub sup: Supervisor,
    pub cc: (i32, i32),
    pub limits: Limits,
    /// Offline compiler; `None`: the driver JIT compiles in the worker.
    pub compiler: Option<crate::compile::Compiler>,
    /// Compiled kernels by shape key.
    kernels: HashMap<u64, Kernel>,
    /// Every case compiles a module of its own (the naive baseline of `bench`).
    pub naive: bool,
    /// Known findings: their cases are expected to misbehave and run apart.
    pub known: crate::report::KnownDivergences,
    pub stats: BatchStats,
    pub times: Times,
}

/// Wall time of each stage of [`run_batch`], summed over calls.
#[derive(Clone, Copy, Debug, Default)]
pub struct Times {
    /// Reference evaluation and emission (host threads).
    pub prepare: Duration,
    /// Offline compilation of new shapes.
    pub compile: Duration,
    /// Batched execution (see [`BatchStats`] for its host and device parts).
    pub execute: Duration,
    /// Observation and judgement (host threads).
    pub judge: Duration,
}

impl Engine {
    pub fn new(
        sup: Supervisor,
        cc: (i32, i32),
        compiler: Option<crate::compile::Compiler>,
    ) -> Engine {
        Engine {
            sup,
            cc,
            limits: Limits::default(),
            compiler,
            kernels: HashMap::new(),
            naive: false,
            known: Default::default(),
            stats: BatchStats::default(),
            times: Times::default(),
        }
    }

    /// Compile every shape of `ems` not compiled yet. Shapes of one preamble are linked into
    /// modules of several kernels (one ptxas run and one module load each), the modules compiled
    /// in parallel. A module that does not compile is split into its shapes, so that an error
    /// belongs to one shape; a shape that does not compile offline is left to the driver's JIT
    /// (which reports its own error for the case).
    fn compile(&mut self, ems: &[&Emitted]) {
        let Some(c) = &self.compiler else { return };
        if self.kernels.len() > MAX_KERNELS {
            self.kernels.clear();
            self.sup.clear_modules();
        }
        let dev = (self.cc.0 * 10 + self.cc.1) as u32;
        // A cubin runs only on its own architecture: PTX for an older target (sm_80 on an sm_90
        // device) is compiled for the device, as the driver's JIT would.
        let arch = |em: &Emitted| {
            if em.target.sm == dev {
                em.target
            } else {
                Target::new(dev, Suffix::None)
            }
        };
        let mut seen = std::collections::HashSet::new();
        let mut groups: BTreeMap<(&str, Target), Vec<&Emitted>> = BTreeMap::new();
        for em in ems {
            if !self.kernels.contains_key(&em.shape_key) && seen.insert(em.shape_key) {
                groups
                    .entry((em.preamble(), arch(em)))
                    .or_default()
                    .push(em);
            }
        }
        // Enough modules to keep every core busy, at most MODULE_KERNELS kernels each.
        let threads = rayon::current_num_threads().max(1);
        let mut modules: Vec<(Target, Vec<&Emitted>)> = Vec::new();
        for ((_, t), members) in groups {
            let per = members.len().div_ceil(threads).clamp(1, MODULE_KERNELS);
            modules.extend(members.chunks(per).map(|m| (t, m.to_vec())));
        }
        let texts: Vec<String> = modules.iter().map(|(_, m)| link(m)).collect();
        let jobs: Vec<(&str, Target)> = texts
            .iter()
            .zip(&modules)
            .map(|(text, (t, _))| (text.as_str(), *t))
            .collect();
        let mut alone: Vec<(&str, Target, &Emitted)> = Vec::new();
        for ((t, members), r) in modules.iter().zip(c.compile_many(&jobs)) {
            match r {
                Ok(cubin) => {
                    let module = self.sup.add_module(cubin);
                    for em in members {
                        let k = Kernel {
                            module,
                            entry: em.linked_entry(),
                        };
                        self.kernels.insert(em.shape_key, k);
                    }
                }
                Err(_) if members.len() > 1 => {
                    alone.extend(members.iter().map(|em| (em.ptx.as_str(), *t, *em)))
                }
                Err(_) => {}
            }
        }
        let jobs: Vec<(&str, Target)> = alone.iter().map(|(p, t, _)| (*p, *t)).collect();
        for ((_, _, em), r) in alone.iter().zip(c.compile_many(&jobs)) {
            if let Ok(cubin) = r {
                let module = self.sup.add_module(cubin);
                let entry = em.entry.to_string();
                self.kernels.insert(em.shape_key, Kernel { module, entry });
            }
        }
    }
}

/// Most kernels linked into one module.
const MODULE_KERNELS: usize = 64;
/// Compiled kernels an engine keeps before starting over (bounds a long campaign's memory).
const MAX_KERNELS: usize = 65_536;

/// Run `cases` (file, case) on the reference (host threads) and the device (batched launches),
/// and classify each (known divergences are not applied here). One result per case, in order.
pub fn run_batch(eng: &mut Engine, cases: &[(&str, &Case)]) -> Result<Vec<HwResult>, String> {
    use rayon::prelude::*;
    let cc = eng.cc;
    let t = Instant::now();
    let mut prepared: Vec<Prepared> = cases
        .par_iter()
        .map(|(file, case)| prepare(file, case, cc))
        .collect();
    if eng.naive {
        let base = eng.stats.instances;
        for (k, p) in prepared.iter_mut().enumerate() {
            if let Prepared::Ready { em, .. } = p {
                em.ptx
                    .push_str(&format!("// instance {}\n", base + k as u64));
                em.shape_key = crate::emit::fnv1a(&em.ptx);
            }
        }
    }
    let ready: Vec<(usize, &Execution, &Emitted)> = prepared
        .iter()
        .enumerate()
        .filter_map(|(k, p)| match p {
            Prepared::Ready { ex, em, .. } => Some((k, &**ex, &**em)),
            Prepared::Done(_) => None,
        })
        .collect();
    let ems: Vec<&Emitted> = ready.iter().map(|(_, _, em)| *em).collect();
    eng.times.prepare += t.elapsed();
    let t = Instant::now();
    eng.compile(&ems);
    eng.times.compile += t.elapsed();
    let t = Instant::now();
    let units: Vec<Unit> = ready
        .iter()
        .map(|&(k, ex, em)| Unit {
            case: cases[k].1,
            em,
            isolation: if ex.expected_hw == ExpectedHw::MayTrap
                || eng.known.matching(&cases[k].1.name).is_some()
            {
                Isolation::Suspect
            } else if ex.expected_hw != ExpectedHw::Completes
                || matches!(ex.outcome, RefOutcome::Undefined { .. })
            {
                // Predicted hangs and undefined behaviour may disturb their neighbours.
                Isolation::Alone
            } else {
                Isolation::Shared
            },
        })
        .collect();
    let results = super::batch::execute(
        &mut eng.sup,
        &units,
        &eng.kernels,
        eng.limits,
        &mut eng.stats,
    )?;
    let mut jrs: Vec<Option<JobResult>> = vec![None; cases.len()];
    for ((k, _, _), jr) in ready.iter().zip(results) {
        jrs[*k] = Some(jr);
    }
    drop(ready);
    eng.times.execute += t.elapsed();
    let t = Instant::now();
    let out = prepared
        .into_par_iter()
        .zip(jrs)
        .enumerate()
        .map(|(k, (p, jr))| match (p, jr) {
            (Prepared::Done(r), _) => Ok(HwResult {
                result: r,
                observed: None,
                em: None,
            }),
            (Prepared::Ready { mut result, ex, em }, Some(jr)) => {
                result.wall_us = jr.wall_us;
                let observed = classify(cases[k].1, &ex, &em, &jr, &mut result);
                Ok(HwResult {
                    result,
                    observed,
                    em: Some(em),
                })
            }
            (Prepared::Ready { .. }, None) => {
                Err("worker returned fewer results than jobs".to_string())
            }
        })
        .collect();
    eng.times.judge += t.elapsed();
    out
}

impl Engine {
    /// One line: where the time went.
    pub fn breakdown(&self) -> String {
        let (t, s) = (&self.times, &self.stats);
        let c = self
            .compiler
            .as_ref()
            .map(|c| c.stats())
            .unwrap_or_default();
        format!(
            "timing: prepare {:.2}s, compile {:.2}s ({} modules compiled, {} cached), execute {:.2}s \
             (host {:.2}s, supervisor {:.2}s: {} launches taking {:.2}s in workers, {} split, \
             {} workers, {:.2}s waiting for one), judge {:.2}s",
            t.prepare.as_secs_f64(),
            t.compile.as_secs_f64(),
            c.compiled,
            c.memory_hits + c.disk_hits,
            t.execute.as_secs_f64(),
            s.host.as_secs_f64(),
            s.device.as_secs_f64(),
            s.launches,
            s.worker.as_secs_f64(),
            s.splits,
            self.sup.spawned,
            self.sup.spawn_wall.as_secs_f64(),
            t.judge.as_secs_f64(),
        )
    }
}

/// A supervisor for device `device` with a per-job watchdog.
pub fn supervisor(
    device: i32,
    job_timeout: u64,
    confirm_failures: bool,
) -> Result<Supervisor, String> {
    let mut cfg = SupervisorConfig::new(WorkerCommand::current_exe(device)?);
    cfg.job_timeout = Duration::from_secs(job_timeout);
    cfg.confirm_failures = confirm_failures;
    Ok(Supervisor::new(cfg))
}

pub fn run_cases(
    args: &RunArgs,
    dev: &DeviceInfo,
    todo: &[&Loaded],
    journal: &mut Journal,
    pb: &ProgressBar,
    info: &RunInfo,
) -> Result<Vec<CaseResult>, String> {
    let mut out = Vec::new();
    let sup = supervisor(args.device, args.job_timeout, true)?;
    let mut eng = Engine::new(
        sup,
        dev.compute_capability,
        crate::compile::Compiler::find().ok(),
    );
    eng.known = crate::report::KnownDivergences::load(&args.known)?;
    let mut recorded: BTreeMap<String, Vec<(String, Observation)>> = BTreeMap::new();
    for chunk in todo.chunks(args.batch.max(1)) {
        let batch: Vec<(&str, &Case)> = chunk.iter().map(|l| (l.file.as_str(), &l.case)).collect();
        for (l, hw) in chunk.iter().zip(run_batch(&mut eng, &batch)?) {
            let mut r = hw.result;
            eng.known.apply(&mut r);
            let o = hw
                .observed
                .as_ref()
                .map(|o| observation(info, &r.verdict, o));
            if let (true, Some(em)) = (
                r.verdict.is_failure() && r.verdict != Verdict::HarnessError,
                &hw.em,
            ) {
                write_divergence(&args.out, &l.case, &em.ptx, o.as_ref())?;
            }
            if let (true, Some(o)) = (args.record, o) {
                recorded
                    .entry(l.file.clone())
                    .or_default()
                    .push((l.case.name.clone(), o));
            }
            super::settle(&r, journal, pb)?;
            out.push(r);
        }
    }
    eprintln!("{}", eng.breakdown());
    if args.record {
        let n = record(&recorded)?;
        println!("recorded {n} hardware observations into the case files");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shapes of one preamble share a module; a module ptxas rejects is split into its shapes,
    /// so that only the bad shape is left without a kernel (for the JIT to report).
    #[test]
    fn shapes_link_into_modules_and_a_rejected_module_splits() {
        let Some(p) = crate::ptxas::for_tests() else {
            return;
        };
        let dir = std::env::temp_dir().join(format!("ptxconform-link-{}", std::process::id()));
        let compiler = crate::compile::Compiler::new(p, Some(dir.clone())).unwrap();
        let sup = supervisor(0, 10, true).unwrap();
        let mut eng = Engine::new(sup, (9, 0), Some(compiler));
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/cp_async/copy.yaml");
        let cases = load_file(&file).unwrap();
        // One thread: the engine makes as many modules as threads, here one.
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let good: Vec<Emitted> = cases[..6].iter().map(|c| emit(c).unwrap()).collect();
        one.install(|| eng.compile(&good.iter().collect::<Vec<_>>()));
        let modules: std::collections::BTreeSet<u64> = good
            .iter()
            .map(|e| eng.kernels[&e.shape_key].module)
            .collect();
        assert_eq!(modules.len(), 1, "six shapes of one preamble, one module");
        assert_eq!(
            eng.kernels[&good[0].shape_key].entry,
            good[0].linked_entry()
        );

        let mut bad = emit(&cases[6]).unwrap();
        bad.ptx = bad.ptx.replacen("cp.async.ca", "cp.async.bogus", 1);
        bad.shape_key = crate::emit::fnv1a(&bad.ptx);
        let other = emit(&cases[7]).unwrap();
        one.install(|| eng.compile(&[&bad, &other]));
        assert!(!eng.kernels.contains_key(&bad.shape_key), "left to the JIT");
        let k = &eng.kernels[&other.shape_key];
        assert_eq!(
            k.entry,
            crate::emit::ENTRY,
            "compiled alone, under its own name"
        );
        assert!(!modules.contains(&k.module));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn target_runs_on_device() {
        let h100 = (9, 0);
        assert!(runs_on("sm_90a".parse().unwrap(), h100));
        assert!(runs_on("sm_80".parse().unwrap(), h100));
        assert!(!runs_on("sm_100a".parse().unwrap(), h100));
        assert!(!runs_on("sm_100f".parse().unwrap(), h100));
        assert!(runs_on("sm_100f".parse().unwrap(), (10, 3)));
        assert!(!runs_on("sm_100a".parse().unwrap(), (10, 3)));
    }
}
