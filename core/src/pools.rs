//! Host thread pools of their own for the stages of a process that run at the same time. On
//! rayon's one global pool a thread takes injected work only once the tasks it split are done,
//! so a stage's short tasks (the device path's splitting and judging) waited behind another
//! stage's long ones (drawing a block of programs, ptxas runs of 20–40 ms each).
//!
//! Stages that work ahead of need (a campaign's next block, compiling ahead) run at a lower
//! scheduling priority (a higher nice value, [`BACKGROUND_NICE`]) than the batch the device
//! waits for: on a host whose CPU bounds a campaign they otherwise took an equal share of every
//! core from the step the device needed next. Their ptxas processes inherit it (a child takes
//! the nice value of the thread that spawns it). Idle cores still go to them.

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

impl Stage {
    /// Whether the stage works ahead of need, so that it yields the CPU to the batch the device
    /// waits for.
    pub fn ahead_of_need(self) -> bool {
        match self {
            Stage::Reference => false,
            Stage::Generate | Stage::Compile => true,
        }
    }
}

/// How much lower a stage working ahead of need is scheduled than the process (nice value
/// added; `PTXCONFORM_BACKGROUND_NICE` overrides it, 0 turns it off). Ten: its threads then get
/// about a tenth of a contended core's time each against the batch's.
pub const BACKGROUND_NICE: i32 = 10;

/// The nice value added to stages working ahead of need ([`BACKGROUND_NICE`] unless
/// `PTXCONFORM_BACKGROUND_NICE` is set to an integer).
pub fn background_nice() -> i32 {
    std::env::var("PTXCONFORM_BACKGROUND_NICE")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(BACKGROUND_NICE)
}

/// Lower the calling thread's scheduling priority by `by` (on Linux, where the nice value is
/// per thread; elsewhere nothing). A failure leaves the priority as it was: it costs speed only.
fn lower_this_thread(by: i32) {
    #[cfg(target_os = "linux")]
    if by > 0 {
        use rustix::process::{getpriority_process, setpriority_process};
        let me = Some(rustix::thread::gettid());
        if let Ok(now) = getpriority_process(me) {
            let _ = setpriority_process(me, (now + by).min(19));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = by;
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
        let lower = if stage.ahead_of_need() {
            background_nice()
        } else {
            0
        };
        rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .thread_name(move |i| format!("{name}-{i}"))
            .start_handler(move |_| lower_this_thread(lower))
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

    /// The stages working ahead of need run below the process's priority by the background
    /// nice value (capped at 19), the batch's stage at the process's own; their child processes
    /// inherit it.
    #[cfg(target_os = "linux")]
    #[test]
    fn stages_ahead_of_need_run_at_a_lower_priority() {
        use rustix::process::getpriority_process;
        let nice = || getpriority_process(Some(rustix::thread::gettid())).unwrap();
        let base = nice();
        let by = background_nice();
        for stage in [Stage::Reference, Stage::Generate, Stage::Compile] {
            let want = if stage.ahead_of_need() && by > 0 {
                (base + by).min(19)
            } else {
                base
            };
            let got: Vec<i32> = install(stage, || {
                use rayon::prelude::*;
                (0..64).into_par_iter().map(|_| nice()).collect()
            });
            assert!(
                got.iter().all(|&n| n == want),
                "{stage:?}: {got:?}, want {want}"
            );
            // A process spawned from the stage's thread starts at its priority.
            let child = install(stage, || {
                std::process::Command::new("sh")
                    .args(["-c", "cut -d' ' -f19 /proc/self/stat"])
                    .output()
            });
            if let Ok(out) = child {
                let got: i32 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
                assert_eq!(got, want, "{stage:?}: a child's nice value");
            }
        }
        // The main thread is untouched.
        assert_eq!(nice(), base);
    }
}
