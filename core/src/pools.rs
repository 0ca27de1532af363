//! Host thread pools of their own for the stages of a process that run at the same time. On
//! rayon's one global pool a thread takes injected work only once the tasks it split are done,
//! so a stage's short tasks (the device path's splitting and judging) waited behind another
//! stage's long ones (drawing a block of programs, ptxas runs of 20–40 ms each).

use std::sync::OnceLock;

/// A stage with a pool of its own; everything else runs on rayon's global pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The next step of a batch: the reference's side, then the backend's preparation (after
    /// it, not beside it: beside it, emission took about ten times as long;
    /// `reports/bench/README.md`, h100-2026-11-26).
    Reference,
    /// A fuzz campaign drawing and checking its next block.
    Generate,
    /// Offline compilation ahead of the batch that needs it (threads mostly wait for ptxas).
    Compile,
}

/// Run `f` on `stage`'s pool (its parallel iterators there too), or here where the pool could
/// not be built.
pub fn install<R: Send>(stage: Stage, f: impl FnOnce() -> R + Send) -> R {
    match pool(stage) {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// `stage`'s pool, as many threads as the global pool, built on first use.
fn pool(stage: Stage) -> Option<&'static rayon::ThreadPool> {
    static POOLS: [OnceLock<Option<rayon::ThreadPool>>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let (slot, name) = match stage {
        Stage::Reference => (&POOLS[0], "reference"),
        Stage::Generate => (&POOLS[1], "generate"),
        Stage::Compile => (&POOLS[2], "compile"),
    };
    slot.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .thread_name(move |i| format!("{name}-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stage's work, its parallel iterators included, runs on that stage's own threads, never
    /// on the global pool's or another stage's.
    #[test]
    fn each_stage_runs_on_threads_of_its_own() {
        use rayon::prelude::*;
        for (stage, name) in [
            (Stage::Reference, "reference-"),
            (Stage::Generate, "generate-"),
            (Stage::Compile, "compile-"),
        ] {
            let names: Vec<String> = install(stage, || {
                (0..64)
                    .into_par_iter()
                    .map(|_| std::thread::current().name().unwrap_or("").to_string())
                    .collect()
            });
            assert!(
                names.iter().all(|n| n.starts_with(name)),
                "{stage:?}: {names:?}"
            );
        }
    }
}
