//! The GPU backend of the differential core: emit each case's program, turn it into a worker job
//! (parameter block with patched pointers, dump buffer, every global region between canaries),
//! run batches through the isolating supervisor, decode what came back into a typed observation.

use crate::builds::Codegen;
use crate::device::{DeviceInfo, JobResult, Supervisor, SupervisorConfig, WorkerCommand};
use crate::emit::{emit_all_guarded, emit_guarded, Emitted, Guards};
use batch::{BatchStats, Isolation, Kernel, Limits, Plan, Unit};
use decode::observation;
use kernels::{compile_with, Ahead, MAX_KERNELS};
use ptxconform_core::differential::{decoded, Backend, Decode, Prepare, Prepared, Ran, Run};
use ptxconform_core::known::KnownDivergences;
use ptxconform_core::result::{BuildReason, RanBuild, RunInfo};
pub mod batch;
pub mod decode;
pub mod fleet;
pub mod host;
mod kernels;

use ptxconform_reference::case::{to_yaml, Case, Observation};
use ptxconform_reference::layout::CANARY;
use ptxconform_reference::sem::exec::{Execution, ExpectedHw, Outcome as RefOutcome};
use ptxconform_reference::target::{Suffix, Target};
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
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
    let stem = file_stem(&case.name);
    std::fs::write(d.join(format!("{stem}.yaml")), to_yaml(&[c])).map_err(|e| e.to_string())?;
    std::fs::write(d.join(format!("{stem}.ptx")), ptx).map_err(|e| e.to_string())
}

/// A case name as a file name (characters other than letters, digits, `-_.` become `_`).
pub fn file_stem(name: &str) -> String {
    name.chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' || ch == '.' {
                ch
            } else {
                '_'
            }
        })
        .collect()
}

/// A change made to every emitted program before it is compiled (litmus's stress code). The
/// result is a kernel of its own: the change must set its shape key from its text.
pub type Rewrite = Arc<dyn Fn(&Case, Emitted) -> Emitted + Send + Sync>;

/// The hardware side of every path (`run`, `fuzz`, minimization): a worker supervisor, the
/// device's compute capability, compiled modules by shape, and launch limits.
pub struct Engine {
    pub sup: Supervisor,
    pub cc: (i32, i32),
    pub limits: Limits,
    /// Offline compiler; `None`: the driver JIT compiles in the worker.
    pub compiler: Option<Arc<crate::compile::Compiler>>,
    /// The JIT's optimization level when it compiles (`None`: the driver's default).
    pub jit_level: Option<u8>,
    /// Compiled kernels by shape key.
    kernels: HashMap<u64, Kernel>,
    /// Kernels compiled ahead of their batch ([`Prepare::warm`]), not registered yet.
    ahead: Arc<Ahead>,
    /// Every case compiles a module of its own (the naive baseline of `bench`).
    pub naive: bool,
    /// Known findings: their cases are expected to misbehave and run apart.
    pub known: ptxconform_core::known::KnownDivergences,
    pub stats: BatchStats,
    pub times: Times,
    /// Decoding time of steps decoded on the pipeline's threads, not yet in `times`.
    decoding: Spent,
    /// The device, as observations record it.
    pub info: RunInfo,
    /// The device among several (`GPU 1 (NVIDIA H200)`), as results record it; empty for one.
    pub label: String,
    /// Applied to every emitted program (`None`: programs run as emitted).
    pub rewrite: Option<Rewrite>,
    /// Run the cases of known compiler defects under a build without the defect, and their
    /// reproducers under one with it ([`KnownDivergences::build_for`]); off: every case under
    /// the engine's build.
    pub route_builds: bool,
    /// Offline builds other than the engine's that routed cases use, made when first needed
    /// (`None`: that build cannot be made here).
    others: HashMap<Codegen, Option<crate::compile::Compiler>>,
    /// The builds known findings name that can be made here (routing chooses among them).
    routable: Vec<Codegen>,
    /// Where the offline compilers cache cubins (`None`: no disk cache).
    cache_dir: Option<std::path::PathBuf>,
}

/// Wall time of each stage of a batch, summed over calls.
#[derive(Clone, Copy, Debug, Default)]
pub struct Times {
    /// Reference evaluation and recorded-observation replay (host threads).
    pub reference: Duration,
    /// Emission (host threads).
    pub emit: Duration,
    /// Offline compilation of new shapes when their batch runs.
    pub compile: Duration,
    /// Offline compilation of shapes ahead of their batch (beside other work: [`Prepare::warm`]).
    pub compile_ahead: Duration,
    /// Batched execution (see [`BatchStats`] for its host and device parts).
    pub execute: Duration,
    /// Decoding read-back state into observations (host threads).
    pub observe: Duration,
    /// Judgement (host threads).
    pub judge: Duration,
}

/// Time spent on other threads, added up until the owner takes it.
#[derive(Clone, Default)]
pub(crate) struct Spent(Arc<std::sync::atomic::AtomicU64>);

impl Spent {
    pub(crate) fn add(&self, d: Duration) {
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        self.0.fetch_add(ns, std::sync::atomic::Ordering::Relaxed);
    }
    /// The time added since the last take.
    pub(crate) fn take(&self) -> Duration {
        Duration::from_nanos(self.0.swap(0, std::sync::atomic::Ordering::Relaxed))
    }

    /// A step's [`Decode`]: `decode` of the step's `len` cases, its time added here.
    pub(crate) fn decode<F>(&self, len: usize, decode: F) -> Decode
    where
        F: FnOnce(&[(&Case, &Execution)]) -> Vec<Run> + Send + 'static,
    {
        let spent = self.clone();
        Box::new(move |cases| {
            if cases.len() != len {
                return Err(format!(
                    "{} cases to decode for a step of {len}",
                    cases.len()
                ));
            }
            let t = Instant::now();
            let runs = decode(cases);
            spent.add(t.elapsed());
            Ok(runs)
        })
    }
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
            compiler: compiler.map(Arc::new),
            jit_level: None,
            kernels: HashMap::new(),
            ahead: Arc::default(),
            naive: false,
            known: Default::default(),
            stats: BatchStats::default(),
            times: Times::default(),
            decoding: Spent::default(),
            info: RunInfo::default(),
            label: String::new(),
            rewrite: None,
            route_builds: false,
            others: HashMap::new(),
            routable: Vec::new(),
            cache_dir: crate::compile::default_cache_dir(),
        }
    }

    /// Compile every shape of `ems` not compiled yet (see [`kernels`]), after registering what
    /// was compiled ahead.
    fn compile(&mut self, ems: &[&Emitted]) {
        self.ahead.wait_for(ems.iter().map(|em| em.shape_key));
        let (modules, wall) = self.ahead.take();
        kernels::register(modules, &mut self.kernels, &mut self.sup);
        self.times.compile_ahead += wall;
        let Some(c) = &self.compiler else { return };
        if self.kernels.len() > MAX_KERNELS {
            self.kernels.clear();
            self.sup.clear_modules();
            self.ahead.forget();
        }
        compile_with(c, self.cc, &mut self.kernels, &mut self.sup, ems);
    }

    /// Compile the shapes of routed cases, each with its build's offline compiler (made once;
    /// a build that cannot be made leaves its shapes to the driver's JIT, whose error or run
    /// then shows).
    fn compile_routed(&mut self, ems: &[(&Emitted, &Codegen)]) {
        let mut by_build: BTreeMap<&Codegen, Vec<&Emitted>> = BTreeMap::new();
        for (em, cg) in ems {
            by_build.entry(cg).or_default().push(em);
        }
        for (cg, ems) in by_build {
            let cache = &self.cache_dir;
            let c = self
                .others
                .entry(cg.clone())
                .or_insert_with(|| make_compiler(cg, cache.clone()));
            if let Some(c) = c {
                compile_with(c, self.cc, &mut self.kernels, &mut self.sup, &ems);
            }
        }
    }
}

/// The offline compiler of build `cg` (`None`: the JIT, or a ptxas not installed here).
fn make_compiler(
    cg: &Codegen,
    cache: Option<std::path::PathBuf>,
) -> Option<crate::compile::Compiler> {
    let Codegen::Ptxas { release, level } = cg else {
        return None;
    };
    crate::compile::Compiler::new(crate::builds::ptxas_of(release).ok()?, cache)
        .ok()?
        .with_opt_level(*level)
        .ok()
}

impl Backend for Engine {
    fn info(&self) -> RunInfo {
        self.info.clone()
    }
    fn runs(&self, t: Target) -> bool {
        runs_on(t, self.cc)
    }
    /// Emit every case (host threads), compile new shapes, run them in batched launches, decode
    /// what came back.
    fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
        let naive = self.naive.then_some(self.stats.instances);
        let step = prepare(cases, &self.settings(), naive);
        self.finish(cases, step)
    }
    /// Emission and composed launches need none of the engine's state that a batch changes, so
    /// the core prepares a batch while the device runs the one before (not for the naive path,
    /// whose programs are numbered by the instances run so far).
    fn preparer(&self) -> Option<Arc<dyn Prepare>> {
        (!self.naive).then(|| Arc::new(self.settings()) as Arc<dyn Prepare>)
    }
    fn observe_prepared(
        &mut self,
        cases: &[(&Case, &Execution)],
        prepared: Prepared,
    ) -> Result<Vec<Run>, String> {
        match prepared.take::<Step>() {
            Some(step) => self.finish(cases, step),
            None => self.observe(cases),
        }
    }
    fn run_prepared(
        &mut self,
        cases: &[(&Case, &Execution)],
        prepared: Prepared,
    ) -> Result<Decode, String> {
        match prepared.take::<Step>() {
            Some(step) => self.run_step(cases, step),
            None => Ok(decoded(self.observe(cases)?)),
        }
    }
    fn host_time(&mut self, reference: Duration, judge: Duration) {
        self.times.reference += reference;
        self.times.judge += judge;
        // Steps decoded by now, on the pipeline's threads.
        self.times.observe += self.decoding.take();
    }
    /// The case emitted and compiled once, its `n` copies instances of one program in as few
    /// launches as the limits allow.
    fn observe_copies(
        &mut self,
        case: &Case,
        _: &Execution,
        _: u64,
        n: usize,
    ) -> Result<Vec<Run>, String> {
        use rayon::prelude::*;
        let t = Instant::now();
        let rewrite = self.rewrite.as_ref();
        let em = runnable(case, emit_guarded(case, guards_for(rewrite)), rewrite);
        self.times.emit += t.elapsed();
        let em = match em {
            Ok(em) => em,
            Err(ran) => {
                let run = Run {
                    device: self.label.clone(),
                    ..Run::of(*ran)
                };
                return Ok(vec![run; n]);
            }
        };
        let t = Instant::now();
        self.compile(&[&em]);
        self.times.compile += t.elapsed();
        let t = Instant::now();
        let unit = Unit {
            case,
            em: &em,
            isolation: Isolation::Shared,
        };
        let units = vec![unit; n];
        let plan = batch::plan(&units, self.limits, self.jit_level)?;
        let results = self.execute(&units, plan)?;
        self.times.execute += t.elapsed();
        let t = Instant::now();
        let (info, label) = (&self.info, &self.label);
        let build = RanBuild {
            build: self.codegen(),
            why: BuildReason::Run,
        };
        let runs = results
            .par_iter()
            .map(|jr| Run {
                ran: observation(case, &em, jr, info),
                ptx: Some(em.ptx.clone()),
                wall_us: jr.wall_us,
                device: label.clone(),
                build: Some(build.clone()),
            })
            .collect();
        self.times.observe += t.elapsed();
        Ok(runs)
    }
}

/// What an engine does for a batch before it needs the device: every case's program emitted,
/// how each may share a launch, and the launches composed.
struct Step {
    emitted: Vec<Result<Emitted, Box<Ran>>>,
    /// The cases (by index) whose program was emitted, each with its isolation; the plan's units
    /// in order.
    ready: Vec<(usize, Isolation)>,
    plan: Result<Plan, String>,
    /// Host time emitting.
    emit: Duration,
    /// The build each case runs under, and why.
    builds: Vec<RanBuild>,
}

/// An engine's settings that [`prepare`] reads, apart from the engine.
struct Settings {
    known: KnownDivergences,
    limits: Limits,
    jit_level: Option<u8>,
    rewrite: Option<Rewrite>,
    /// The engine's build.
    build: Codegen,
    /// The builds routing may choose (empty: routing is off).
    routable: Vec<Codegen>,
    /// The engine's offline compiler (`None`: the JIT) and device, for [`Prepare::warm`].
    compiler: Option<Arc<crate::compile::Compiler>>,
    cc: (i32, i32),
    ahead: Arc<Ahead>,
}

impl Settings {
    /// The build routing sends `case` to (`None`: routing is off, or no known finding routes
    /// it).
    fn routed(&self, case: &Case) -> Option<ptxconform_core::known::Routed> {
        (!self.routable.is_empty())
            .then(|| {
                self.known
                    .build_for(&case.name, &self.build, |cg| self.routable.contains(cg))
            })
            .flatten()
    }

    /// The settings of a host with no offline compiler for a device of compute capability `cc`:
    /// the JIT's default build, default limits, nothing known, no routing.
    fn host(cc: (i32, i32)) -> Settings {
        Settings {
            known: KnownDivergences::default(),
            limits: Limits::default(),
            jit_level: None,
            rewrite: None,
            build: Codegen::Jit {
                level: crate::builds::JIT_DEFAULT_LEVEL,
            },
            routable: Vec::new(),
            compiler: None,
            cc,
            ahead: Arc::default(),
        }
    }
}

impl Prepare for Settings {
    fn prepare(&self, cases: &[(&Case, &Execution)]) -> Prepared {
        Prepared::new(prepare(cases, self, None))
    }

    /// Emit the cases that this device runs under the engine's own build and compile their
    /// shapes; the engine registers the modules when a batch next compiles.
    fn warm(&self, cases: &[&Case]) {
        warm_alike(&[self], cases);
    }
}

impl Settings {
    /// Whether `other`'s engine compiles what this one's does (device, build, routing and
    /// rewrite; the known findings routing reads are the same for every engine of a command),
    /// so that one compile ahead serves both ([`warm_alike`]).
    fn compiles_like(&self, other: &Settings) -> bool {
        let rewrites = match (&self.rewrite, &other.rewrite) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        self.cc == other.cc
            && self.build == other.build
            && self.routable == other.routable
            && rewrites
    }
}

/// [`Prepare::warm`] for the engines of `group`, which compile alike
/// ([`Settings::compiles_like`]): the cases the first runs under its own build are emitted and
/// their shapes compiled once, for every engine of the group.
fn warm_alike(group: &[&Settings], cases: &[&Case]) {
    use rayon::prelude::*;
    let Some(first) = group.first() else { return };
    let Some(c) = &first.compiler else { return };
    let ems: Vec<Emitted> = cases
        .par_iter()
        .filter(|case| runs_on(case.target, first.cc))
        .filter(|case| first.routed(case).is_none_or(|r| r.build == first.build))
        .filter_map(|case| {
            let rewrite = first.rewrite.as_ref();
            runnable(case, emit_guarded(case, guards_for(rewrite)), rewrite).ok()
        })
        .collect();
    let aheads: Vec<&Ahead> = group.iter().map(|s| &*s.ahead).collect();
    Ahead::compile_for(&aheads, c, first.cc, &ems.iter().collect::<Vec<_>>());
}

impl Engine {
    fn settings(&self) -> Settings {
        Settings {
            known: self.known.clone(),
            limits: self.limits,
            jit_level: self.jit_level,
            rewrite: self.rewrite.clone(),
            build: self.codegen(),
            routable: if self.route_builds {
                self.routable.clone()
            } else {
                Vec::new()
            },
            compiler: self.compiler.clone(),
            cc: self.cc,
            ahead: self.ahead.clone(),
        }
    }
}

/// How an engine whose programs `rewrite` changes guards their steps: a rewrite inserts code at
/// a step's first line, which every thread of every CTA passes only when each step has a guard
/// of its own ([`Guards::PerStep`]).
fn guards_for(rewrite: Option<&Rewrite>) -> Guards {
    match rewrite {
        Some(_) => Guards::PerStep,
        None => Guards::Runs,
    }
}

/// An emitted program as the engine runs it (`rewrite` applied), or why it cannot run.
fn runnable(
    case: &Case,
    em: Result<Emitted, crate::emit::EmitError>,
    rewrite: Option<&Rewrite>,
) -> Result<Emitted, Box<Ran>> {
    match em {
        Ok(em) if em.assemblable() => Ok(match rewrite {
            Some(f) => f(case, em),
            None => em,
        }),
        Ok(em) => Err(Box::new(Ran::NotRun(format!(
            "needs PTX ISA {} (the driver takes at most 9.0)",
            em.version
        )))),
        Err(e) => Err(Box::new(Ran::Failed(format!("emit: {e}")))),
    }
}

/// Emit every case (host threads) and compose its launches. `naive`: every case a program of its
/// own, numbered from that many instances run before.
fn prepare(cases: &[(&Case, &Execution)], settings: &Settings, naive: Option<u64>) -> Step {
    let Settings {
        known,
        limits,
        jit_level,
        rewrite,
        build,
        ..
    } = settings;
    use rayon::prelude::*;
    let t = Instant::now();
    let all: Vec<&Case> = cases.iter().map(|(c, _)| *c).collect();
    let mut emitted: Vec<Result<Emitted, Box<Ran>>> =
        emit_all_guarded(&all, guards_for(rewrite.as_ref()))
            .into_par_iter()
            .zip(all.par_iter())
            .map(|(em, case)| runnable(case, em, rewrite.as_ref()))
            .collect();
    if let Some(base) = naive {
        for (k, em) in emitted.iter_mut().enumerate() {
            if let Ok(em) = em {
                em.ptx = format!("{}// instance {}\n", em.ptx, base + k as u64).into();
                em.shape_key = crate::emit::fnv1a(&em.ptx);
            }
        }
    }
    // A case under another build than the engine's is another kernel: its shape key names the
    // build, so that it neither shares a launch nor a compiled kernel with the engine's.
    let builds: Vec<RanBuild> = cases
        .iter()
        .zip(&mut emitted)
        .map(|((case, _), em)| match settings.routed(case) {
            Some(r) => {
                if let (Ok(em), true) = (em, r.build != *build) {
                    em.shape_key = routed_key(em.shape_key, &r.build);
                }
                RanBuild {
                    build: r.build,
                    why: r.why,
                }
            }
            None => RanBuild {
                build: build.clone(),
                why: BuildReason::Run,
            },
        })
        .collect();
    let emit = t.elapsed();
    let span = ptxconform_core::trace::span("prepare: isolation", emitted.len());
    let ready: Vec<(usize, Isolation)> = emitted
        .iter()
        .enumerate()
        .filter(|(_, e)| e.is_ok())
        .map(|(k, _)| {
            let (case, ex) = cases[k];
            // A case routed around a compiler defect is not expected to trap. With trap workers,
            // a case that trapped when it was recorded is expected to trap again.
            let recorded_trap = limits.trap_workers > 1
                && case
                    .observed
                    .iter()
                    .any(|o| matches!(o.outcome, ptxconform_reference::case::Ending::Trap { .. }));
            let known_trap = (known.matching(&case.name).is_some() || recorded_trap)
                && !matches!(builds[k].why, BuildReason::AvoidsDefect { .. });
            let isolation = if ex.expected_hw == ExpectedHw::MayTrap || known_trap {
                Isolation::Suspect
            } else if ex.expected_hw != ExpectedHw::Completes
                || matches!(ex.outcome, RefOutcome::Undefined { .. })
            {
                // Predicted hangs and undefined behaviour may disturb their neighbours.
                Isolation::Alone
            } else {
                Isolation::Shared
            };
            (k, isolation)
        })
        .collect();
    drop(span);
    let span = ptxconform_core::trace::span("prepare: plan", ready.len());
    let plan = batch::plan(&units_of(cases, &emitted, &ready), *limits, *jit_level);
    drop(span);
    Step {
        emitted,
        ready,
        plan,
        emit,
        builds,
    }
}

/// The shape key of a kernel built by `cg` instead of the engine's build.
fn routed_key(key: u64, cg: &Codegen) -> u64 {
    crate::emit::fnv1a(&format!("{key:016x} {cg}"))
}

/// The units of a step's `ready` cases, in order.
fn units_of<'a>(
    cases: &[(&'a Case, &Execution)],
    emitted: &'a [Result<Emitted, Box<Ran>>],
    ready: &[(usize, Isolation)],
) -> Vec<Unit<'a>> {
    ready
        .iter()
        .filter_map(|&(k, isolation)| {
            let em = emitted[k].as_ref().ok()?;
            Some(Unit {
                case: cases[k].0,
                em,
                isolation,
            })
        })
        .collect()
}

impl Engine {
    /// Run a prepared step: compile its new shapes, run its launches, decode what came back.
    /// Run `units` as `plan` composes them, on this engine's workers and kernels.
    fn execute(&mut self, units: &[Unit], plan: Plan) -> Result<Vec<JobResult>, String> {
        batch::execute(&mut self.sup, units, &self.kernels, &mut self.stats, plan)
    }

    fn finish(&mut self, cases: &[(&Case, &Execution)], step: Step) -> Result<Vec<Run>, String> {
        let decode = self.run_step(cases, step)?;
        let runs = decode(cases);
        self.times.observe += self.decoding.take();
        runs
    }

    /// Run a prepared step: compile its new shapes, run its launches; what came back is decoded
    /// by the [`Decode`] returned, on any thread.
    fn run_step(&mut self, cases: &[(&Case, &Execution)], step: Step) -> Result<Decode, String> {
        let Step {
            emitted,
            ready,
            plan,
            emit,
            builds,
        } = step;
        self.times.emit += emit;
        let t = Instant::now();
        let span = ptxconform_core::trace::span("step: compiles it waits for", cases.len());
        let units = units_of(cases, &emitted, &ready);
        let own_build = self.codegen();
        let (own, routed): (Vec<_>, Vec<_>) = ready
            .iter()
            .zip(&units)
            .map(|((k, _), u)| (u.em, &builds[*k]))
            .partition(|(_, b)| b.build == own_build);
        self.compile(&own.into_iter().map(|(em, _)| em).collect::<Vec<_>>());
        self.compile_routed(
            &routed
                .into_iter()
                .map(|(em, b)| (em, &b.build))
                .collect::<Vec<_>>(),
        );
        self.times.compile += t.elapsed();
        drop(span);
        let t = Instant::now();
        let span = ptxconform_core::trace::span("step: launches", cases.len());
        let results = self.execute(&units, plan?)?;
        drop(span);
        let mut jrs: Vec<Option<JobResult>> = vec![None; cases.len()];
        for ((k, _), jr) in ready.iter().zip(results) {
            jrs[*k] = Some(jr);
        }
        drop(units);
        self.times.execute += t.elapsed();
        let (info, label) = (self.info.clone(), self.label.clone());
        Ok(self.decoding.decode(emitted.len(), move |cases| {
            use rayon::prelude::*;
            emitted
                .into_par_iter()
                .zip(jrs)
                .zip(builds)
                .enumerate()
                .map(|(k, ((em, jr), build))| match (em, jr) {
                    (Err(ran), _) => Run {
                        device: label.clone(),
                        ..Run::of(*ran)
                    },
                    (Ok(em), Some(jr)) => {
                        let mut ran = observation(cases[k].0, &em, &jr, &info);
                        if let Ran::Observed(o) = &mut ran {
                            o.build = Some(build.build.clone());
                        }
                        Run {
                            ran,
                            ptx: Some(em.ptx),
                            wall_us: jr.wall_us,
                            device: label.clone(),
                            build: Some(build),
                        }
                    }
                    (Ok(em), None) => Run {
                        ran: Ran::Failed("worker returned fewer results than jobs".into()),
                        ptx: Some(em.ptx),
                        wall_us: 0,
                        device: label.clone(),
                        build: Some(build),
                    },
                })
                .collect()
        }))
    }
}

impl Engine {
    /// The build this engine's kernels are made with.
    pub fn codegen(&self) -> crate::builds::Codegen {
        use crate::builds::{release_of, Codegen, JIT_DEFAULT_LEVEL};
        match &self.compiler {
            Some(c) => Codegen::Ptxas {
                release: release_of(&c.ptxas().version).unwrap_or_else(|| "?".into()),
                level: c.opt_level(),
            },
            None => Codegen::Jit {
                level: self.jit_level.unwrap_or(JIT_DEFAULT_LEVEL),
            },
        }
    }

    /// One line: where the time went.
    pub fn breakdown(&self) -> String {
        let (t, s) = (&self.times, &self.stats);
        let c = self
            .compiler
            .as_ref()
            .map(|c| c.stats())
            .unwrap_or_default();
        format!(
            "timing: reference {:.2}s, emit {:.2}s, compile {:.2}s (and {:.2}s ahead; {} modules \
             compiled, {} cached), \
             execute {:.2}s (host {:.2}s, supervisor {:.2}s: {} launches taking {:.2}s in workers \
             (setup {:.2}s, upload {:.2}s, module {:.2}s, kernel {:.2}s, read back {:.2}s), \
             {} split, {} workers, {:.2}s waiting for one; {} traps taking {:.2}s to report; \
             {} launches apart taking {:.2}s, their workers {:.2}s to start), observe {:.2}s, \
             judge {:.2}s",
            t.reference.as_secs_f64(),
            t.emit.as_secs_f64(),
            t.compile.as_secs_f64(),
            t.compile_ahead.as_secs_f64(),
            c.compiled,
            c.memory_hits + c.disk_hits,
            t.execute.as_secs_f64(),
            s.host.as_secs_f64(),
            s.device.as_secs_f64(),
            s.launches,
            s.worker.as_secs_f64(),
            s.phases.setup_us as f64 / 1e6,
            s.phases.upload_us as f64 / 1e6,
            s.phases.module_us as f64 / 1e6,
            s.phases.kernel_us as f64 / 1e6,
            s.phases.read_back_us as f64 / 1e6,
            s.splits,
            self.sup.spawned,
            self.sup.spawn_wall.as_secs_f64(),
            self.sup.traps,
            self.sup.trap_wall.as_secs_f64(),
            self.sup.apart,
            s.apart.as_secs_f64(),
            self.sup.apart_spawn.as_secs_f64(),
            t.observe.as_secs_f64(),
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
    supervisor_config(device, job_timeout, confirm_failures).map(Supervisor::new)
}

/// The configuration [`supervisor`] uses, for callers that change more of it.
pub fn supervisor_config(
    device: i32,
    job_timeout: u64,
    confirm_failures: bool,
) -> Result<SupervisorConfig, String> {
    let mut cfg = SupervisorConfig::new(WorkerCommand::current_exe(device)?);
    cfg.job_timeout = Duration::from_secs(job_timeout);
    cfg.confirm_failures = confirm_failures;
    Ok(cfg)
}

/// What an engine is opened with. Every command opens its engines through [`open`].
pub struct Spec<'a> {
    pub device: &'a DeviceInfo,
    /// Recorded into observations and reports; its `device` is set from [`Spec::device`].
    pub info: RunInfo,
    /// Seconds a job may run before its worker is killed.
    pub job_timeout: u64,
    /// Run a trapping or hanging job again, alone, before recording it (`run`, `litmus`,
    /// `bench`); a campaign that minimizes its failures anyway skips it.
    pub confirm_failures: bool,
    /// How every kernel is built; `None`: the offline compiler when one is found (at
    /// `opt_level`, else its default), else the driver's JIT.
    pub build: Option<Codegen>,
    pub opt_level: Option<u8>,
    /// The known findings, for isolating cases that trap.
    pub known: KnownDivergences,
    /// The naive path `bench` measures against: every case a module of its own, compiled by
    /// the driver's JIT without its disk cache (which would serve a rerun's modules
    /// uncompiled), one case a launch.
    pub naive: bool,
    /// Route the cases of known compiler defects to builds without the defect (and their
    /// reproducers to builds with it), as `run` does unless `--no-build-routing`.
    pub route_builds: bool,
    /// Where compiled cubins are cached on disk (`None`: `$PTXCONFORM_CACHE` or its default;
    /// `bench` gives a fresh folder for a cold run).
    pub cache: Option<std::path::PathBuf>,
}

impl Spec<'_> {
    /// The engine most commands want on `device`: traps confirmed, the offline compiler when
    /// one is found, no known findings.
    pub fn on(device: &DeviceInfo, info: RunInfo, job_timeout: u64) -> Spec<'_> {
        Spec {
            device,
            info,
            job_timeout,
            confirm_failures: true,
            build: None,
            opt_level: None,
            known: KnownDivergences::default(),
            naive: false,
            route_builds: false,
            cache: None,
        }
    }
}

/// The engine of [`Spec`] on its device.
pub fn open(spec: Spec) -> Result<Engine, String> {
    let mut cfg = supervisor_config(spec.device.ordinal, spec.job_timeout, spec.confirm_failures)?;
    if spec.naive {
        cfg.command
            .env
            .push(("CUDA_CACHE_DISABLE".to_string(), "1".to_string()));
    }
    let sup = Supervisor::new(cfg);
    let cache = spec
        .cache
        .clone()
        .or_else(crate::compile::default_cache_dir);
    let (compiler, jit_level) = match &spec.build {
        _ if spec.naive => (None, None),
        Some(Codegen::Jit { level }) => (None, Some(*level)),
        Some(Codegen::Ptxas { release, level }) => (
            Some(
                crate::compile::Compiler::new(crate::builds::ptxas_of(release)?, cache.clone())?
                    .with_opt_level(*level)?,
            ),
            None,
        ),
        None => match (
            crate::ptxas::Ptxas::find()
                .and_then(|p| crate::compile::Compiler::new(p, cache.clone())),
            spec.opt_level,
        ) {
            (Ok(c), Some(level)) => (Some(c.with_opt_level(level)?), None),
            (Ok(c), None) => (Some(c), None),
            (Err(_), _) => (None, None),
        },
    };
    let mut e = Engine::new(sup, spec.device.compute_capability, compiler);
    e.jit_level = jit_level;
    e.cache_dir = cache;
    if spec.naive {
        e.naive = true;
        e.limits.instances = 1;
    }
    if spec.route_builds && !spec.naive {
        e.route_builds = true;
        e.routable = routable(&spec.known);
    }
    e.known = spec.known;
    e.info = RunInfo {
        device: spec.device.name.clone(),
        ..spec.info
    };
    Ok(e)
}

/// The builds the known compiler defects name that can be made here: offline ptxas builds
/// whose release is installed (the JIT's level is the engine's, so it is not routed to).
fn routable(known: &KnownDivergences) -> Vec<Codegen> {
    let mut out: Vec<Codegen> = Vec::new();
    for b in known.known.iter().filter_map(|k| k.culprit.builds()) {
        for cg in b.traps.iter().chain(&b.passes) {
            if let Codegen::Ptxas { release, .. } = cg {
                if !out.contains(cg) && crate::builds::ptxas_of(release).is_ok() {
                    out.push(cg.clone());
                }
            }
        }
    }
    out
}

/// An engine that builds every kernel with `cg`, traps confirmed (attribution's builds).
pub fn open_build(
    dev: &DeviceInfo,
    info: &RunInfo,
    job_timeout: u64,
    known: &KnownDivergences,
    cg: &Codegen,
) -> Result<Engine, String> {
    open(Spec {
        build: Some(cg.clone()),
        known: known.clone(),
        ..Spec::on(dev, info.clone(), job_timeout)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::emit;

    /// The engine's rewrite reaches every program it prepares, and the rewritten program is the
    /// kernel its launches are planned with. Its steps are guarded one by one (a rewrite inserts
    /// code at a step's start, for every thread of every CTA); without a rewrite, a run of steps
    /// of one executor shares a guard.
    #[test]
    fn the_rewrite_applies_to_every_prepared_program() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/cp_async/copy.yaml");
        let cases = ptxconform_reference::case::load_file(&file).unwrap();
        let exs: Vec<Execution> = cases[..3]
            .iter()
            .map(|c| ptxconform_reference::sem::exec::execute(c).unwrap())
            .collect();
        let batch: Vec<(&Case, &Execution)> = cases.iter().zip(&exs).collect();
        let mark: Rewrite = Arc::new(|c: &Case, mut em: Emitted| {
            em.ptx = format!("{}// rewritten: {}\n", em.ptx, c.name).into();
            em.shape_key = crate::emit::fnv1a(&em.ptx);
            em
        });
        let settings = |rewrite| Settings {
            rewrite,
            build: "ptxas-13.0-O3".parse().unwrap(),
            ..Settings::host((9, 0))
        };
        let plain = prepare(&batch, &settings(None), None);
        let marked = prepare(&batch, &settings(Some(mark)), None);
        let guards = |em: &Emitted| em.ptx.matches(" bra $L_skip_").count();
        let mut shared = 0;
        for ((c, p), m) in cases.iter().zip(&plain.emitted).zip(&marked.emitted) {
            let (p, m) = (p.as_ref().unwrap(), m.as_ref().unwrap());
            assert!(!p.ptx.contains("// rewritten"));
            assert!(m.ptx.ends_with(&format!("// rewritten: {}\n", c.name)));
            assert_ne!(p.shape_key, m.shape_key);
            assert_eq!(guards(m), c.program.len(), "{}", m.ptx);
            shared += usize::from(guards(p) < guards(m));
        }
        assert!(shared > 0, "no plain program shared a guard");
    }

    /// A case of a known compiler defect runs under a passing build (its own kernel, sharing
    /// launches again), a reproducer under a trapping one (alone); without routing, both run
    /// under the engine's build as before.
    #[test]
    fn known_compiler_defects_route_their_cases_to_other_builds() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let known = KnownDivergences::load(&dir.join("reports/known-divergences.yaml")).unwrap();
        let mut cases =
            ptxconform_reference::case::load_file(&dir.join("cases/cp_async/copy.yaml")).unwrap();
        cases.retain(|c| c.name == "cp_async.ca.4.shared.full.hint" || c.name.ends_with(".full"));
        cases.truncate(2);
        let repro = ptxconform_reference::case::load_file(
            &dir.join("cases/regressions/compiler-defects.yaml"),
        )
        .unwrap();
        cases.extend(repro);
        let exs: Vec<Execution> = cases
            .iter()
            .map(|c| ptxconform_reference::sem::exec::execute(c).unwrap())
            .collect();
        let batch: Vec<(&Case, &Execution)> = cases.iter().zip(&exs).collect();
        let (o3, o0): (Codegen, Codegen) = (
            "ptxas-13.0-O3".parse().unwrap(),
            "ptxas-13.0-O0".parse().unwrap(),
        );
        let settings = |build: &Codegen, routable: Vec<Codegen>| Settings {
            known: known.clone(),
            build: build.clone(),
            routable,
            ..Settings::host((9, 0))
        };
        let both = vec![o3.clone(), o0.clone()];
        let off = prepare(&batch, &settings(&o3, vec![]), None);
        let on = prepare(&batch, &settings(&o3, both.clone()), None);
        let hint = cases
            .iter()
            .position(|c| c.name == "cp_async.ca.4.shared.full.hint")
            .unwrap();
        let plain = cases
            .iter()
            .position(|c| c.name.ends_with(".full"))
            .unwrap();
        assert!(off
            .builds
            .iter()
            .all(|b| b.why == BuildReason::Run && b.build == o3));
        assert_eq!(on.builds[hint].build, o0);
        assert!(matches!(
            &on.builds[hint].why,
            BuildReason::AvoidsDefect { instead_of, .. } if *instead_of == o3
        ));
        let key = |s: &Step, k: usize| s.emitted[k].as_ref().unwrap().shape_key;
        assert_ne!(
            key(&on, hint),
            key(&off, hint),
            "another build, another kernel"
        );
        assert_eq!(key(&on, plain), key(&off, plain));
        let iso = |s: &Step, k: usize| s.ready.iter().find(|(i, _)| *i == k).unwrap().1;
        assert_eq!(iso(&off, hint), Isolation::Suspect);
        assert_eq!(iso(&on, hint), Isolation::Shared, "not expected to trap");
        // Reproducers keep the defective build: the run's own when it has the defect, else
        // the first trapping build that can be made.
        let repro: Vec<usize> = (0..cases.len())
            .filter(|&k| k != hint && k != plain)
            .collect();
        assert!(!repro.is_empty());
        for &k in &repro {
            assert_eq!(on.builds[k].build, o3, "{}", cases[k].name);
            assert!(matches!(on.builds[k].why, BuildReason::Reproduces { .. }));
            assert_eq!(key(&on, k), key(&off, k), "the engine's own kernel");
            assert_eq!(iso(&on, k), Isolation::Suspect);
        }
        let under_o0 = prepare(&batch, &settings(&o0, both), None);
        for &k in &repro {
            assert_eq!(under_o0.builds[k].build, o3, "{}", cases[k].name);
            assert!(matches!(
                under_o0.builds[k].why,
                BuildReason::Reproduces { .. }
            ));
        }
        assert_eq!(
            under_o0.builds[hint].why,
            BuildReason::Run,
            "-O0 has no defect"
        );
    }

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
        let cases = ptxconform_reference::case::load_file(&file).unwrap();
        // One thread: a batch's compile makes about BATCH_MODULES_PER_CORE modules, here three
        // of two shapes.
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
        assert_eq!(
            modules.len(),
            3,
            "six shapes of one preamble, three modules"
        );
        assert_eq!(
            eng.kernels[&good[0].shape_key].entry,
            good[0].linked_entry()
        );

        let mut bad = emit(&cases[6]).unwrap();
        bad.ptx = bad.ptx.replacen("cp.async.ca", "cp.async.bogus", 1).into();
        bad.shape_key = crate::emit::fnv1a(&bad.ptx);
        let other = emit(&cases[7]).unwrap();
        // Six new shapes again: `bad` and `other` share the first module of two.
        let more: Vec<Emitted> = cases[8..12].iter().map(|c| emit(c).unwrap()).collect();
        let mut batch = vec![&bad, &other];
        batch.extend(&more);
        one.install(|| eng.compile(&batch));
        assert!(!eng.kernels.contains_key(&bad.shape_key), "left to the JIT");
        let k = &eng.kernels[&other.shape_key];
        assert_eq!(
            k.entry,
            crate::emit::ENTRY,
            "compiled alone, under its own name"
        );
        assert!(!modules.contains(&k.module));

        // Shapes of two PTX versions: three modules of two shapes, the middle one holding a
        // shape of each (one ptxas run of two files), each kernel under its linked name.
        let version = |e: &Emitted| e.ptx.lines().next().unwrap_or_default().to_string();
        let mut mixed: Vec<Emitted> = cases[12..18].iter().map(|c| emit(c).unwrap()).collect();
        let (from, to) = (version(&mixed[0]), ".version 9.0");
        assert_ne!(from, to, "the corpus cases are of another version");
        for e in &mut mixed[3..] {
            e.ptx = e.ptx.replacen(&from, to, 1).into();
            e.shape_key = crate::emit::fnv1a(&e.ptx);
        }
        one.install(|| eng.compile(&mixed.iter().collect::<Vec<_>>()));
        let module_of = |e: &Emitted| eng.kernels[&e.shape_key].module;
        let distinct: std::collections::BTreeSet<u64> = mixed.iter().map(module_of).collect();
        assert_eq!(distinct.len(), 3, "six shapes, three modules");
        assert_eq!(
            module_of(&mixed[2]),
            module_of(&mixed[3]),
            "one module, two versions"
        );
        assert!(mixed
            .iter()
            .all(|e| eng.kernels[&e.shape_key].entry == e.linked_entry()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Shapes handed to the preparer's `warm` compile there; the engine's next compile registers
    /// them and runs ptxas for none of them again.
    #[test]
    fn shapes_warmed_ahead_are_registered_without_compiling_again() {
        let Some(p) = crate::ptxas::for_tests() else {
            return;
        };
        let compiler = crate::compile::Compiler::new(p, None).unwrap();
        let mut eng = Engine::new(supervisor(0, 10, true).unwrap(), (9, 0), Some(compiler));
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/cp_async/copy.yaml");
        let cases = ptxconform_reference::case::load_file(&file).unwrap();
        let some: Vec<&Case> = cases[..4].iter().collect();
        let compiled = |e: &Engine| e.compiler.as_ref().unwrap().stats().compiled;
        let warm = eng.preparer().unwrap();
        warm.warm(&some);
        let ahead = compiled(&eng);
        assert!(ahead > 0, "compiled ahead");
        warm.warm(&some);
        assert_eq!(compiled(&eng), ahead, "a shape is compiled ahead once");
        let ems: Vec<Emitted> = some.iter().map(|c| emit(c).unwrap()).collect();
        assert!(ems.iter().all(|e| !eng.kernels.contains_key(&e.shape_key)));
        eng.compile(&ems.iter().collect::<Vec<_>>());
        assert!(ems.iter().all(|e| eng.kernels.contains_key(&e.shape_key)));
        assert_eq!(compiled(&eng), ahead, "nothing compiled again");
        assert!(eng.times.compile_ahead > Duration::ZERO);
    }

    #[test]
    fn module_sizes_share_new_shapes_across_cores() {
        use kernels::{module_sizes, AHEAD_MODULES_PER_CORE, BATCH_MODULES_PER_CORE};
        let count = |sizes: &[usize], per: &[usize]| -> usize {
            sizes.iter().zip(per).map(|(n, p)| n.div_ceil(*p)).sum()
        };
        // A fuzz block's 315 shapes over three architectures on 16 cores: a batch's own
        // compile makes about three modules per core (47, of at most 7 kernels), not one per
        // architecture and core.
        let sizes = [120, 82, 113];
        let per = module_sizes(&sizes, 16, BATCH_MODULES_PER_CORE);
        assert_eq!(count(&sizes, &per), 47, "{per:?}");
        assert!(per.iter().all(|&p| p <= 7), "{per:?}");
        // Parts of a group are equal to within one kernel.
        assert_eq!(per[0], 7);
        assert_eq!(per[1], 7);
        // A compile ahead makes about one a core.
        let ahead = module_sizes(&sizes, 16, AHEAD_MODULES_PER_CORE);
        assert_eq!(count(&sizes, &ahead), 17, "{ahead:?}");
        assert!(ahead.iter().all(|&p| p <= 20), "{ahead:?}");
        // A big corpus group is cut at MODULE_KERNELS; one shape is one module.
        assert_eq!(module_sizes(&[10_000], 16, 3), vec![64]);
        assert_eq!(module_sizes(&[1000], 16, 3), vec![21]);
        assert_eq!(module_sizes(&[1], 16, 3), vec![1]);
        assert_eq!(module_sizes(&[0, 3], 1, 3), vec![1, 1]);
        assert_eq!(module_sizes(&[5], 4, 0), vec![2], "no division by zero");
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
