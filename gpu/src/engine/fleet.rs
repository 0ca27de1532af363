//! Several GPU engines as one backend: every device of a host (or a device twice), each with its
//! own worker, pulling chunks of a batch from a shared counter (work stealing), so that a slower
//! device or one stuck isolating traps does not hold the others back.

use super::Engine;
use ptxconform_core::differential::{Backend, Prepare, Prepared, Run};
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
    /// One engine prepares as it would alone. Engines that prepare alike
    /// ([`Engine::prepares_like`]) share one preparation: the batch is emitted and composed
    /// ahead in chunks, and each engine takes prepared chunks as it frees up. Otherwise each
    /// engine emits the chunks it takes itself, and ahead of the batch only the kernels are
    /// compiled (for every engine).
    fn preparer(&self) -> Option<Arc<dyn Prepare>> {
        let many = match self.engines.as_slice() {
            [one] => return one.preparer(),
            many => many,
        };
        let each: Vec<Arc<dyn Prepare>> = many.iter().filter_map(|e| e.preparer()).collect();
        let alike = each.len() == many.len() && many.iter().all(|e| many[0].prepares_like(e));
        Some(Arc::new(InChunks {
            shared: alike.then(|| each[0].clone()),
            each,
        }))
    }
    fn observe_prepared(
        &mut self,
        cases: &[(&Case, &Execution)],
        prepared: Prepared,
    ) -> Result<Vec<Run>, String> {
        if let [one] = self.engines.as_mut_slice() {
            return one.observe_prepared(cases, prepared);
        }
        let Some(Chunks { len, chunks }) = prepared.take::<Chunks>() else {
            return self.observe(cases);
        };
        // Each chunk index is taken once (`steal`); the lock only lets the threads share them.
        let chunks: Vec<std::sync::Mutex<Option<Prepared>>> = chunks
            .into_iter()
            .map(|c| std::sync::Mutex::new(Some(c)))
            .collect();
        self.steal(cases, len, |eng, c, part| {
            let taken = chunks[c].lock().ok().and_then(|mut p| p.take());
            match taken {
                Some(p) => eng.observe_prepared(part, p),
                None => eng.observe(part),
            }
        })
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

/// A batch prepared ahead for a fleet: chunks of `len` cases, each as any of its engines would
/// have prepared it.
struct Chunks {
    len: usize,
    chunks: Vec<Prepared>,
}

/// The fleet's preparer: `shared` (when the engines prepare alike) prepares the chunks; every
/// engine (one preparer each in `each`) compiles ahead.
struct InChunks {
    shared: Option<Arc<dyn Prepare>>,
    each: Vec<Arc<dyn Prepare>>,
}

impl Prepare for InChunks {
    fn prepare(&self, cases: &[(&Case, &Execution)]) -> Prepared {
        let Some(p) = &self.shared else {
            return Prepared::new(());
        };
        let len = chunk_len(cases.len(), self.each.len());
        Prepared::new(Chunks {
            len,
            chunks: cases.chunks(len).map(|part| p.prepare(part)).collect(),
        })
    }
    fn warm(&self, cases: &[&Case]) {
        for p in &self.each {
            p.warm(cases);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Several engines warm each: the first runs ptxas, the others read its cubins from the
    /// shared disk cache.
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
        assert_eq!(stats[1].compiled, 0, "{:?}", stats[1]);
        assert_eq!(stats[1].disk_hits, stats[0].compiled);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Engines that prepare alike share one preparation, in the chunks they will take; an
    /// engine with other launch limits prepares its own.
    #[test]
    fn alike_engines_share_a_prepared_batch_in_chunks() {
        let engine = || {
            Engine::new(
                crate::engine::supervisor(0, 10, true).unwrap(),
                (9, 0),
                None,
            )
        };
        let file =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/cp_async/copy.yaml");
        let cases = ptxconform_reference::case::load_file(&file).unwrap();
        let many: Vec<&Case> = cases.iter().cycle().take(300).collect();
        let exs: Vec<Execution> = many
            .iter()
            .map(|c| ptxconform_reference::sem::exec::execute(c).unwrap())
            .collect();
        let pairs: Vec<(&Case, &Execution)> = many.iter().copied().zip(&exs).collect();
        let mut fleet = Fleet {
            engines: vec![engine(), engine()],
        };
        let prepared = fleet.preparer().unwrap().prepare(&pairs);
        let chunks = prepared
            .take::<Chunks>()
            .expect("alike engines share the preparation");
        assert_eq!(chunks.len, chunk_len(300, 2));
        assert_eq!(chunks.chunks.len(), 300usize.div_ceil(chunks.len));
        fleet.engines[1].limits.instances = 7;
        let apart = fleet.preparer().unwrap().prepare(&pairs);
        assert!(apart.take::<Chunks>().is_none());
    }

    #[test]
    fn chunks_balance_a_batch() {
        assert_eq!(super::chunk_len(1024, 2), 256);
        assert_eq!(super::chunk_len(10, 2), 64);
        assert_eq!(super::chunk_len(1 << 20, 2), 1024);
    }
}
