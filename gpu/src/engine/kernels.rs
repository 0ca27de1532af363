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

/// Compile `ems` (new shapes, each once) with `c` for a device of compute capability `cc`.
/// Shapes of one preamble are linked into one text, and the texts of one architecture into
/// modules of several kernels, about `per_core` a core: one ptxas run (its files, one a
/// preamble) and one module load each, the modules compiled in parallel. A module that does
/// not compile is split into its shapes, so that an error belongs to one shape; a shape that
/// does not compile offline gets no module (the driver's JIT then reports its own error for
/// the case).
fn build_modules(c: &Compiler, cc: (i32, i32), ems: &[&Emitted], per_core: usize) -> Vec<Module> {
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
    let mut modules: Vec<(Target, Vec<&Emitted>)> = Vec::new();
    for ((t, members), per) in
        groups
            .into_iter()
            .zip(module_sizes(&sizes, rayon::current_num_threads(), per_core))
    {
        modules.extend(members.chunks(per).map(|m| (t, m.to_vec())));
    }
    // Largest first: the parallel compile then ends about when its longest module does.
    modules.sort_by_key(|(_, m)| std::cmp::Reverse(m.len()));
    let texts: Vec<Vec<String>> = modules
        .iter()
        .map(|(_, m)| {
            m.chunk_by(|a, b| a.preamble() == b.preamble())
                .map(link)
                .collect()
        })
        .collect();
    let jobs: Vec<(Vec<&str>, Target)> = texts
        .iter()
        .zip(&modules)
        .map(|(files, (t, _))| (files.iter().map(String::as_str).collect(), *t))
        .collect();
    let mut out = Vec::new();
    let mut alone: Vec<(&str, Target, &Emitted)> = Vec::new();
    for ((t, members), r) in modules.iter().zip(c.compile_files_many(&jobs)) {
        match r {
            Ok(cubin) => out.push(Module {
                cubin,
                kernels: members
                    .iter()
                    .map(|em| (em.shape_key, em.linked_entry()))
                    .collect(),
            }),
            Err(_) if members.len() > 1 => {
                alone.extend(members.iter().map(|em| (&*em.ptx, *t, *em)))
            }
            Err(_) => {}
        }
    }
    let jobs: Vec<(&str, Target)> = alone.iter().map(|(p, t, _)| (*p, *t)).collect();
    for ((_, _, em), r) in alone.iter().zip(c.compile_many(&jobs)) {
        if let Ok(cubin) = r {
            out.push(Module {
                cubin,
                kernels: vec![(em.shape_key, em.entry.to_string())],
            });
        }
    }
    out
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
    /// batches wait for those shapes instead of compiling them again. The compile's wall time
    /// counts for the first.
    pub(super) fn compile_for(aheads: &[&Ahead], c: &Compiler, cc: (i32, i32), ems: &[&Emitted]) {
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
        let t = Instant::now();
        let modules = build_modules(c, cc, &new, AHEAD_MODULES_PER_CORE);
        let wall = t.elapsed();
        // Each gets the modules holding a shape it started here: one that had the others
        // already would load a module again for kernels it keeps (a module per shape after an
        // engine forgot its kernels and the others had not).
        for (i, (a, ending)) in aheads.iter().zip(&endings).enumerate() {
            let mine: HashSet<u64> = ending.shapes.iter().copied().collect();
            let mut st = a.state();
            st.ready.extend(
                modules
                    .iter()
                    .filter(|m| m.kernels.iter().any(|(k, _)| mine.contains(k)))
                    .cloned(),
            );
            if i == 0 {
                st.wall += wall;
            }
        }
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
