//! Several GPU engines as one backend: every device of a host (or a device twice), each with its
//! own worker. In the core's pipeline each engine is a lane ([`Backend::lanes`]) that takes
//! whole steps of a batch and prepares its own; a batch observed at once is cut into chunks the
//! engines pull from a shared counter. Either way a slower device, or one stuck isolating traps,
//! does not hold the others back.

use super::{warm_alike, Engine, Settings};
use ptxconform_core::differential::{decoded, Backend, Decode, Prepare, Prepared, Run};
use ptxconform_core::result::RunInfo;
use ptxconform_reference::case::Case;
use ptxconform_reference::sem::exec::Execution;
use ptxconform_reference::target::Target;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The runs of the chunk of a batch that starts at this case.
type Chunk = (usize, Vec<Run>);

pub struct Fleet {
    pub engines: Vec<Engine>,
}

/// Cases an engine takes at a time: two chunks per engine and batch balance the devices; larger
/// chunks keep launches full and let an engine link many new shapes into one module (with a
/// chunk of 32 fuzz programs, modules of one or two kernels made two engines on one device
/// slower than one: 229 against 355 programs/s on an H100).
fn chunk_len(cases: usize, engines: usize) -> usize {
    cases.div_ceil(engines * 2).clamp(64, 1024)
}

impl Fleet {
    /// Where each engine's time went, a line each.
    pub fn breakdown(&self) -> String {
        self.engines
            .iter()
            .map(|e| format!("{}: {}", e.label, e.breakdown()))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Backend for Fleet {
    fn info(&self) -> RunInfo {
        let mut info = self.engines[0].info.clone();
        let mut names: Vec<&str> = self
            .engines
            .iter()
            .map(|e| e.info.device.as_str())
            .collect();
        names.dedup();
        info.device = match (self.engines.len(), names.len()) {
            (1, _) => info.device,
            (n, 1) => format!("{n}× {}", names[0]),
            _ => names.join(" + "),
        };
        info
    }
    fn runs(&self, t: Target) -> bool {
        self.engines.iter().all(|e| e.runs(t))
    }
    fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
        if let [one] = self.engines.as_mut_slice() {
            return one.observe(cases);
        }
        let len = chunk_len(cases.len(), self.engines.len());
        self.steal(cases, len, |eng, _, part| eng.observe(part))
    }
    fn host_time(&mut self, reference: Duration, judge: Duration) {
        self.engines[0].host_time(reference, judge);
    }
    /// One engine prepares as it would alone. Several prepare their steps as lanes
    /// ([`Backend::lanes`]); the fleet's own preparer only compiles ahead, for every engine.
    fn preparer(&self) -> Option<Arc<dyn Prepare>> {
        match self.engines.as_slice() {
            [one] => one.preparer(),
            many => Some(Arc::new(EveryEngine(
                many.iter()
                    .filter(|e| e.preparer().is_some())
                    .map(Engine::settings)
                    .collect(),
            ))),
        }
    }
    fn observe_prepared(
        &mut self,
        cases: &[(&Case, &Execution)],
        prepared: Prepared,
    ) -> Result<Vec<Run>, String> {
        match self.engines.as_mut_slice() {
            [one] => one.observe_prepared(cases, prepared),
            _ => self.observe(cases),
        }
    }
    fn run_prepared(
        &mut self,
        cases: &[(&Case, &Execution)],
        prepared: Prepared,
    ) -> Result<Decode, String> {
        match self.engines.as_mut_slice() {
            [one] => one.run_prepared(cases, prepared),
            _ => Ok(decoded(self.observe(cases)?)),
        }
    }
    /// Every engine, when there are several: the pipeline gives each whole steps, so that the
    /// steps' preparation, launches and judgement run side by side instead of the devices
    /// sharing each step (two H200s of one host ran 0.83× one when they shared each step,
    /// 1.08–1.30× as lanes; `reports/bench/README.md`, h200x2-2026-11-29h).
    fn lanes(&mut self) -> Vec<&mut (dyn Backend + Send)> {
        if self.engines.len() < 2 {
            return Vec::new();
        }
        self.engines
            .iter_mut()
            .map(|e| e as &mut (dyn Backend + Send))
            .collect()
    }
}

impl Fleet {
    /// `cases` in chunks of `len`, each engine on a thread of its own taking the next chunk
    /// (`run(engine, chunk index, chunk)`) until none is left: a slower device, or one stuck
    /// isolating traps, does not hold the others back. The runs in case order.
    fn steal<F>(
        &mut self,
        cases: &[(&Case, &Execution)],
        len: usize,
        run: F,
    ) -> Result<Vec<Run>, String>
    where
        F: Fn(&mut Engine, usize, &[(&Case, &Execution)]) -> Result<Vec<Run>, String> + Sync,
    {
        let chunks = cases.len().div_ceil(len.max(1));
        let next = AtomicUsize::new(0);
        let per_engine: Vec<Result<Vec<Chunk>, String>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .engines
                .iter_mut()
                .map(|eng| {
                    let (next, run) = (&next, &run);
                    s.spawn(move || {
                        let mut got = Vec::new();
                        loop {
                            let c = next.fetch_add(1, Ordering::Relaxed);
                            if c >= chunks {
                                return Ok(got);
                            }
                            let at = c * len;
                            let part = &cases[at..(at + len).min(cases.len())];
                            got.push((at, run(eng, c, part)?));
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("a device thread panicked".into()))
                })
                .collect()
        });
        let mut out: Vec<Option<Run>> = vec![None; cases.len()];
        for got in per_engine {
            for (at, runs) in got? {
                for (k, r) in runs.into_iter().enumerate() {
                    out[at + k] = Some(r);
                }
            }
        }
        out.into_iter()
            .map(|r| r.ok_or_else(|| "a chunk of the batch was not run".to_string()))
            .collect()
    }
}

/// A fleet's preparer: its engines prepare their own steps as lanes, so this prepares nothing
/// itself. It warms every engine: engines that compile alike share one compile (each shape
/// through ptxas once, its modules loaded by each).
struct EveryEngine(Vec<Settings>);

impl Prepare for EveryEngine {
    fn prepare(&self, _cases: &[(&Case, &Execution)]) -> Prepared {
        Prepared::new(())
    }
    /// Each group of engines that compile alike at once, so that no group's batches reach its
    /// shapes before they are marked as compiling while another group's compile runs.
    fn warm(&self, cases: &[&Case]) {
        let mut groups: Vec<Vec<&Settings>> = Vec::new();
        let mut left: Vec<&Settings> = self.0.iter().collect();
        while let Some(&first) = left.first() {
            let (alike, rest) = left.into_iter().partition(|s| first.compiles_like(s));
            groups.push(alike);
            left = rest;
        }
        // On the caller's pool (a campaign warms on its compile pool, below the batch's
        // priority, and ptxas inherits it).
        rayon::scope(|s| {
            for g in &groups {
                s.spawn(move |_| warm_alike(g, cases));
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Engines that compile alike share one compile ahead: the first's ptxas runs, the others'
    /// compilers run nothing, and every engine gets the modules (its batches then compile
    /// none of these shapes).
    #[test]
    fn a_fleet_warms_every_engine_and_compiles_once() {
        let Some(p) = crate::ptxas::for_tests() else {
            return;
        };
        let dir = std::env::temp_dir().join(format!("ptxconform-warm-{}", std::process::id()));
        let engine = || {
            let c = crate::compile::Compiler::new(p.clone(), Some(dir.clone())).unwrap();
            let sup = crate::engine::supervisor(0, 10, true).unwrap();
            Engine::new(sup, (9, 0), Some(c))
        };
        let fleet = Fleet {
            engines: vec![engine(), engine()],
        };
        let file =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/cp_async/copy.yaml");
        let cases = ptxconform_reference::case::load_file(&file).unwrap();
        let some: Vec<&Case> = cases[..3].iter().collect();
        fleet.preparer().unwrap().warm(&some);
        let stats: Vec<_> = fleet
            .engines
            .iter()
            .map(|e| e.compiler.as_ref().unwrap().stats())
            .collect();
        assert!(stats[0].compiled > 0, "{:?}", stats[0]);
        assert_eq!((stats[1].compiled, stats[1].disk_hits), (0, 0));
        let ready: Vec<Vec<Vec<u64>>> = fleet
            .engines
            .iter()
            .map(|e| {
                let mut shapes: Vec<Vec<u64>> =
                    e.ahead.take().0.iter().map(|m| m.shapes()).collect();
                shapes.sort();
                shapes
            })
            .collect();
        assert!(!ready[0].is_empty());
        assert_eq!(ready[0], ready[1]);
        // An engine that forgot its kernels gets them again; the other, which kept them, gets
        // no module twice.
        fleet.engines[1].ahead.forget();
        fleet.preparer().unwrap().warm(&some);
        let again: Vec<usize> = fleet
            .engines
            .iter()
            .map(|e| e.ahead.take().0.len())
            .collect();
        assert_eq!(again, [0, ready[1].len()]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A fleet of several engines offers each as a lane; a fleet of one observes alone.
    #[test]
    fn every_engine_of_a_fleet_is_a_lane() {
        let engine = || {
            Engine::new(
                crate::engine::supervisor(0, 10, true).unwrap(),
                (9, 0),
                None,
            )
        };
        let mut two = Fleet {
            engines: vec![engine(), engine()],
        };
        assert_eq!(two.lanes().len(), 2);
        let mut one = Fleet {
            engines: vec![engine()],
        };
        assert!(one.lanes().is_empty());
    }

    #[test]
    fn chunks_balance_a_batch() {
        assert_eq!(super::chunk_len(1024, 2), 256);
        assert_eq!(super::chunk_len(10, 2), 64);
        assert_eq!(super::chunk_len(1 << 20, 2), 1024);
    }
}
