//! The engine's compiled kernels: shapes linked into modules and compiled offline, either when
//! their batch runs or ahead of it ([`Ahead`]), while the device is busy with an earlier batch.

use super::batch::Kernel;
use crate::compile::Compiler;
use crate::device::Supervisor;
use crate::emit::{link, Emitted};
use ptxconform_reference::target::{Suffix, Target};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A compiled module and the kernels in it: (shape key, entry name).
#[derive(Clone)]
pub(super) struct Module {
    cubin: Arc<Vec<u8>>,
    kernels: Vec<(u64, String)>,
}

impl Module {
    /// How many kernels the module holds.
    pub(super) fn kernel_count(&self) -> usize {
        self.kernels.len()
    }
}

#[cfg(test)]
impl Module {
    /// The shapes whose kernels the module holds.
    pub(super) fn shapes(&self) -> Vec<u64> {
        self.kernels.iter().map(|k| k.0).collect()
    }
}

/// The modules that `ems` (new shapes, each once) compile into for a device of compute
/// capability `cc`. Shapes of one preamble are linked into one text, and the texts of one
/// architecture into modules of several kernels, about `per_core` a core: one ptxas run (its
/// files, one a preamble) and one module load each. Largest first: compiled in parallel, they
/// then end about when the longest does.
fn plan_modules(cc: (i32, i32), ems: &[&Emitted], per_core: usize) -> Vec<ModuleJob> {
    let dev = (cc.0 * 10 + cc.1) as u32;
    // A cubin runs only on its own architecture: PTX for an older target (sm_80 on an sm_90
    // device) is compiled for the device, as the driver's JIT would.
    let arch = |em: &Emitted| {
        if em.target.sm == dev {
            em.target
        } else {
            Target::new(dev, Suffix::None)
        }
    };
    // An architecture's shapes in preamble order, so that a module's members of one preamble
    // are adjacent and link into one file.
    let mut groups: BTreeMap<Target, BTreeMap<&str, Vec<&Emitted>>> = BTreeMap::new();
    for em in ems {
        groups
            .entry(arch(em))
            .or_default()
            .entry(em.preamble())
            .or_default()
            .push(em);
    }
    let groups: Vec<(Target, Vec<&Emitted>)> = groups
        .into_iter()
        .map(|(t, by_preamble)| (t, by_preamble.into_values().flatten().collect()))
        .collect();
    let sizes: Vec<usize> = groups.iter().map(|(_, m)| m.len()).collect();
    let mut modules: Vec<ModuleJob> = Vec::new();
    for ((t, members), per) in
        groups
            .into_iter()
            .zip(module_sizes(&sizes, rayon::current_num_threads(), per_core))
    {
        modules.extend(members.chunks(per).map(|m| ModuleJob::of(t, m)));
    }
    modules.sort_by_key(|m| std::cmp::Reverse(m.kernels.len()));
    modules
}

/// One module's compile, owning what it needs (it may run on another thread): the linked texts,
/// the architecture, the kernels, and each member's own text for when the module does not
/// compile.
struct ModuleJob {
    target: Target,
    files: Vec<String>,
    /// (shape key, entry name in the module).
    kernels: Vec<(u64, String)>,
    /// (shape key, entry name, text) of each member alone.
    alone: Vec<(u64, &'static str, Arc<str>)>,
}

impl ModuleJob {
    fn of(target: Target, members: &[&Emitted]) -> ModuleJob {
        ModuleJob {
            target,
            files: members
                .chunk_by(|a, b| a.preamble() == b.preamble())
                .map(link)
                .collect(),
            kernels: members
                .iter()
                .map(|em| (em.shape_key, em.linked_entry()))
                .collect(),
            alone: members
                .iter()
                .map(|em| (em.shape_key, em.entry, Arc::clone(&em.ptx)))
                .collect(),
        }
    }

    /// The shapes the module holds.
    fn shapes(&self) -> impl Iterator<Item = u64> + '_ {
        self.kernels.iter().map(|k| k.0)
    }

    /// Compile with `c` on this thread. A module that does not compile is split into its
    /// shapes, so that an error belongs to one shape; a shape that does not compile offline
    /// gets no module (the driver's JIT then reports its own error for the case).
    fn compile(self, c: &Compiler) -> Vec<Module> {
        let files: Vec<&str> = self.files.iter().map(String::as_str).collect();
        match c.compile_files_one(&files, self.target) {
            Ok(cubin) => vec![Module {
                cubin,
                kernels: self.kernels,
            }],
            Err(_) if self.alone.len() > 1 => self
                .alone
                .iter()
                .filter_map(|(shape, entry, ptx)| {
                    let cubin = c.compile_files_one(&[ptx], self.target).ok()?;
                    Some(Module {
                        cubin,
                        kernels: vec![(*shape, entry.to_string())],
                    })
                })
                .collect(),
            Err(_) => Vec::new(),
        }
    }
}

/// Compile `ems` (new shapes, each once) with `c` for a device of compute capability `cc`, the
/// modules ([`plan_modules`]) in parallel on the calling pool.
fn build_modules(c: &Compiler, cc: (i32, i32), ems: &[&Emitted], per_core: usize) -> Vec<Module> {
    use rayon::prelude::*;
    plan_modules(cc, ems, per_core)
        .into_par_iter()
        .flat_map_iter(|m| m.compile(c))
        .collect()
}

/// Register `modules` with `sup` and their kernels in `kernels` (a shape already there keeps
/// its kernel).
pub(super) fn register(
    modules: Vec<Module>,
    kernels: &mut HashMap<u64, Kernel>,
    sup: &mut Supervisor,
) {
    for m in modules {
        let module = sup.add_module(m.cubin);
        for (shape, entry) in m.kernels {
            kernels.entry(shape).or_insert(Kernel { module, entry });
        }
    }
}

/// Compile every shape of `ems` that `kernels` lacks with `c` for a device of compute
/// capability `cc`, registering the modules with `sup`.
pub(super) fn compile_with(
    c: &Compiler,
    cc: (i32, i32),
    kernels: &mut HashMap<u64, Kernel>,
    sup: &mut Supervisor,
    ems: &[&Emitted],
) {
    let mut seen = HashSet::new();
    let new: Vec<&Emitted> = ems
        .iter()
        .copied()
        .filter(|em| !kernels.contains_key(&em.shape_key) && seen.insert(em.shape_key))
        .collect();
    register(
        build_modules(c, cc, &new, BATCH_MODULES_PER_CORE),
        kernels,
        sup,
    );
}

/// Most kernels linked into one module.
const MODULE_KERNELS: usize = 64;

/// Modules per core a batch's own compile cuts its new shapes into: the batch waits for the
/// last module, and with several a core that finishes early takes another instead of idling
/// while the largest compiles (a 15 s fuzz campaign on 16 cores, when every block compiled
/// its shapes itself: 363 programs/s with one module per core, 422 with about three).
pub(super) const BATCH_MODULES_PER_CORE: usize = 3;

/// Modules per core of a compile ahead of need: nothing waits for it while it runs beside the
/// block before, so the fewest ptxas starts serve best (a start costs about a small kernel's
/// compile).
pub(super) const AHEAD_MODULES_PER_CORE: usize = 1;

/// Kernels per module for groups of `sizes` new shapes (one group per architecture), compiled on
/// `threads` cores: about `per_core` modules per core in all, so that a batch of many small
/// groups does not start one ptxas per group and core. Each group is cut into equal parts of
/// at most [`MODULE_KERNELS`].
pub(super) fn module_sizes(sizes: &[usize], threads: usize, per_core: usize) -> Vec<usize> {
    let total: usize = sizes.iter().sum();
    let share = total
        .div_ceil(threads.max(1) * per_core.max(1))
        .clamp(1, MODULE_KERNELS);
    sizes
        .iter()
        .map(|&n| n.div_ceil(n.div_ceil(share).max(1)).max(1))
        .collect()
}

/// Compiled kernels an engine keeps before starting over (bounds a long campaign's memory).
pub(super) const MAX_KERNELS: usize = 65_536;

/// Kernels compiled ahead of their batch, on the caller's threads: a campaign hands the shapes
/// of its next block over as soon as it has generated them, and the engine registers what was
/// compiled when a batch needs it. A batch that needs a shape still being compiled here waits
/// for it ([`Ahead::wait_for`]) rather than run ptxas on it a second time; a batch still
/// compiles whatever is missing itself (a shape forgotten with the engine's kernels, or one its
/// batch reached before the caller handed it over).
#[derive(Default)]
pub(super) struct Ahead {
    state: Mutex<AheadState>,
    /// Signalled whenever a compile here ends.
    finished: Condvar,
}

#[derive(Default)]
struct AheadState {
    /// Shapes compiled or being compiled here since the engine last forgot its kernels.
    started: HashSet<u64>,
    /// Of those, the shapes whose compile has not ended yet.
    compiling: HashSet<u64>,
    /// Compiled modules the engine has not registered yet.
    ready: Vec<Module>,
    /// Wall time spent compiling here (summed over calls).
    wall: Duration,
}

impl Ahead {
    fn state(&self) -> std::sync::MutexGuard<'_, AheadState> {
        // A panic elsewhere cannot leave the state half-changed: every change is one statement.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Compile the shapes of `ems` that any of `aheads` has not started yet with `c`, for a
    /// device of compute capability `cc`, once: every one of `aheads` (one engine's, or those of
    /// a fleet's engines whose devices and builds match) gets the modules, and each one's
    /// batches wait for those shapes instead of compiling them again. The modules go to the
    /// [`queue`] and each is handed over as it compiles; this returns when the last has. The
    /// compile's wall time counts for the first.
    pub(super) fn compile_for(
        aheads: &[&Ahead],
        c: &Arc<Compiler>,
        cc: (i32, i32),
        ems: &[&Emitted],
    ) {
        let started: Vec<Vec<u64>> = aheads
            .iter()
            .map(|a| {
                let mut st = a.state();
                let new: Vec<u64> = ems
                    .iter()
                    .map(|em| em.shape_key)
                    .filter(|&k| st.started.insert(k))
                    .collect();
                st.compiling.extend(new.iter().copied());
                new
            })
            .collect();
        let wanted: HashSet<u64> = started.iter().flatten().copied().collect();
        let mut seen = HashSet::new();
        let new: Vec<&Emitted> = ems
            .iter()
            .copied()
            .filter(|em| wanted.contains(&em.shape_key) && seen.insert(em.shape_key))
            .collect();
        if new.is_empty() {
            return;
        }
        // Ends the compile however it ends: a panic in ptxas's handling must not leave a batch
        // waiting for these shapes forever (it then compiles them itself).
        let endings: Vec<Ending<'_>> = aheads
            .iter()
            .zip(started)
            .map(|(ahead, shapes)| Ending { ahead, shapes })
            .collect();
        let mine: Vec<HashSet<u64>> = endings
            .iter()
            .map(|e| e.shapes.iter().copied().collect())
            .collect();
        let t = Instant::now();
        let (done, compiled) = std::sync::mpsc::channel();
        for job in plan_modules(cc, &new, AHEAD_MODULES_PER_CORE) {
            let (c, done) = (Arc::clone(c), done.clone());
            queue(Box::new(move || {
                let shapes: Vec<u64> = job.shapes().collect();
                // A panic loses the module's kernels, not the worker: the batch compiles them.
                let modules =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.compile(&c)))
                        .unwrap_or_default();
                let _ = done.send((shapes, modules));
            }));
        }
        drop(done);
        for (shapes, modules) in compiled {
            for (a, mine) in aheads.iter().zip(&mine) {
                a.hand_over(mine, &shapes, &modules);
            }
        }
        aheads[0].state().wall += t.elapsed();
    }

    /// A module job of a compile that started the shapes `mine` here ended: `shapes` are no
    /// longer compiling, and `modules` (what they compiled to) are ready, those that hold one of
    /// `mine`. One holding only others' would load a module again for kernels the engine keeps
    /// (a module per shape after an engine forgot its kernels and the others had not).
    fn hand_over(&self, mine: &HashSet<u64>, shapes: &[u64], modules: &[Module]) {
        let mut st = self.state();
        st.ready.extend(
            modules
                .iter()
                .filter(|m| m.kernels.iter().any(|(k, _)| mine.contains(k)))
                .cloned(),
        );
        for s in shapes.iter().filter(|s| mine.contains(s)) {
            st.compiling.remove(s);
        }
        drop(st);
        self.finished.notify_all();
    }

    /// Wait until no shape of `shapes` is still being compiled here (a caller on another
    /// thread: `Prepare::warm` beside the batch).
    pub(super) fn wait_for(&self, shapes: impl IntoIterator<Item = u64> + Clone) {
        let mut st = self.state();
        while shapes
            .clone()
            .into_iter()
            .any(|s| st.compiling.contains(&s))
        {
            st = self.finished.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The modules compiled since the last call, and the wall time spent on them.
    pub(super) fn take(&self) -> (Vec<Module>, Duration) {
        let mut st = self.state();
        (std::mem::take(&mut st.ready), std::mem::take(&mut st.wall))
    }

    /// The engine dropped its kernels: shapes compiled here before must be compiled again.
    pub(super) fn forget(&self) {
        let mut st = self.state();
        // A compile still running adds its modules when it ends, registered as any other.
        st.started.clear();
        st.ready.clear();
    }
}

/// A compile to run ahead of need.
type Job = Box<dyn FnOnce() + Send>;

/// Run `job` on the queue of compiles ahead of need: first come, first served, on threads of
/// their own (one a core of the global pool, at the priority of work ahead of need, which their
/// ptxas processes inherit). A block's modules queue behind the block before's, and a thread
/// that is done with the one takes the next block's while the block before's last modules
/// compile. Compiled one block after another, each block's last ptxas runs left cores idle: on
/// an H200 a block's 16 runs ended between 0.4 and 0.8 s (h200-2026-12-01y, call 31's trace).
/// Where no thread could start, `job` runs here.
fn queue(job: Job) {
    struct Queue {
        jobs: Mutex<std::collections::VecDeque<Job>>,
        more: Condvar,
    }
    static QUEUE: std::sync::OnceLock<Option<&'static Queue>> = std::sync::OnceLock::new();
    let q = QUEUE.get_or_init(|| {
        let q: &'static Queue = Box::leak(Box::new(Queue {
            jobs: Mutex::default(),
            more: Condvar::new(),
        }));
        let worker = move || {
            ptxconform_core::pools::lower_this_thread();
            loop {
                let mut jobs = q.jobs.lock().unwrap_or_else(|e| e.into_inner());
                let job = loop {
                    match jobs.pop_front() {
                        Some(j) => break j,
                        None => jobs = q.more.wait(jobs).unwrap_or_else(|e| e.into_inner()),
                    }
                };
                drop(jobs);
                job();
            }
        };
        let started = (0..rayon::current_num_threads())
            .filter(|i| {
                std::thread::Builder::new()
                    .name(format!("ptxas-ahead-{i}"))
                    .spawn(worker)
                    .is_ok()
            })
            .count();
        (started > 0).then_some(q)
    });
    match q {
        Some(q) => {
            q.jobs
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push_back(job);
            q.more.notify_one();
        }
        None => job(),
    }
}

/// The end of a compile in [`Ahead::compile_for`], on drop: its shapes are no longer compiling, and
/// the batches waiting for them are woken.
struct Ending<'a> {
    ahead: &'a Ahead,
    shapes: Vec<u64>,
}

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        let mut st = self.ahead.state();
        for s in &self.shapes {
            st.compiling.remove(s);
        }
        drop(st);
        self.ahead.finished.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch waits for the shapes it needs that are still compiling ahead, and only for those.
    #[test]
    fn a_batch_waits_for_its_shapes_still_compiling_ahead() {
        let ahead = Arc::new(Ahead::default());
        ahead.state().compiling.insert(7);
        let waiting = Arc::clone(&ahead);
        let batch = std::thread::spawn(move || {
            waiting.wait_for([7u64]);
            waiting.state().compiling.contains(&7)
        });
        // Another shape is not waited for.
        ahead.wait_for([8u64]);
        std::thread::sleep(Duration::from_millis(50));
        assert!(!batch.is_finished(), "shape 7 is still compiling");
        ahead.state().compiling.remove(&7);
        ahead.finished.notify_all();
        assert_eq!(
            batch.join().ok(),
            Some(false),
            "it returned once shape 7 was done"
        );
    }

    /// A module compiled ahead is handed over as it compiles: its shapes stop compiling and a
    /// batch waiting for them goes on, while the shapes of the compile's other modules still
    /// compile; a module holding only shapes another compile started is not handed over.
    #[test]
    fn each_module_is_handed_over_as_it_compiles() {
        let ahead = Ahead::default();
        ahead.state().compiling.extend([1u64, 2, 3]);
        let module = |shapes: &[u64]| Module {
            cubin: Arc::new(Vec::new()),
            kernels: shapes.iter().map(|&s| (s, format!("k{s}"))).collect(),
        };
        let mine = HashSet::from([1u64, 2]);
        ahead.hand_over(&mine, &[1], &[module(&[1])]);
        ahead.wait_for([1u64]);
        assert_eq!(ahead.state().compiling, HashSet::from([2u64, 3]));
        ahead.hand_over(&mine, &[3], &[module(&[3])]);
        assert_eq!(
            ahead.state().compiling,
            HashSet::from([2u64, 3]),
            "shape 3 is another compile's"
        );
        let (ready, _) = ahead.take();
        assert_eq!(
            ready.iter().map(Module::shapes).collect::<Vec<_>>(),
            [vec![1u64]]
        );
    }

    /// A compile that ends early (a panic) still ends its shapes' compiling and wakes the
    /// batches waiting for them.
    #[test]
    fn an_unwound_compile_still_releases_its_shapes() {
        let ahead = Ahead::default();
        ahead.state().compiling.extend([7u64, 8]);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ending = Ending {
                ahead: &ahead,
                shapes: vec![7],
            };
            panic!("ptxas's handling failed");
        }));
        assert!(r.is_err());
        assert_eq!(ahead.state().compiling, HashSet::from([8u64]));
    }
}
