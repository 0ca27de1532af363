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

use std::sync::atomic::{AtomicUsize, Ordering};
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

/// How much lower a stage working ahead of need is scheduled than the process's main thread
/// (nice value added; `PTXCONFORM_BACKGROUND_NICE` overrides it, 0 or less turns it off). Ten:
/// its threads then get about a tenth of a contended core's time each against the batch's.
pub const BACKGROUND_NICE: i32 = 10;

/// The nice value added to stages working ahead of need: [`BACKGROUND_NICE`] unless
/// `PTXCONFORM_BACKGROUND_NICE` is set to an integer, within 0..=39 (the whole nice range).
pub fn background_nice() -> i32 {
    std::env::var("PTXCONFORM_BACKGROUND_NICE")
        .ok()
        .and_then(|v| v.trim().parse::<i32>().ok())
        .unwrap_or(BACKGROUND_NICE)
        .clamp(0, 39)
}

/// The nice value `stage`'s threads run at: the main thread's plus the stage's share of `by`,
/// at most 19. Set absolutely, not added to the building thread's own: a pool is built by
/// whichever thread first needs it, and a thread inherits its creator's nice value (the Compile
/// pool is first needed on a thread the Generate pool's started, already lowered).
fn nice_of(stage: Stage, main: i32, by: i32) -> i32 {
    if stage.ahead_of_need() {
        lowered(main, by)
    } else {
        main
    }
}

/// `by` below the nice value `main`, within the range a nice value has.
fn lowered(main: i32, by: i32) -> i32 {
    main.saturating_add(by).min(19)
}

/// The process's main thread's nice value (on Linux the nice value is per thread and the
/// process id names the main thread), where it can be read.
fn main_nice() -> Option<i32> {
    #[cfg(target_os = "linux")]
    {
        rustix::process::getpriority_process(Some(rustix::process::getpid())).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Set the calling thread's nice value to `nice` where it differs (Linux only). A failure (a
/// thread raised above its creator's priority without the privilege to) leaves it as it was:
/// it costs speed only.
fn set_this_thread(nice: i32) {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{getpriority_process, setpriority_process};
        let me = Some(rustix::thread::gettid());
        if getpriority_process(me).is_ok_and(|now| now != nice) {
            let _ = setpriority_process(me, nice);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
}

/// Most threads rayon's global pool, and so each stage's pool, gets unless told otherwise
/// (`RAYON_NUM_THREADS`, `legality --jobs`). Each stage has a pool as large as the global one,
/// and their idle threads look for work before they sleep: past 32 a pool, a busy host spends
/// more on that than the threads add. `fuzz --config legal` on a 64-core host with four H200s,
/// 20 s: one GPU 20,766 programs/s with 64 threads a pool, 31,548 and 29,987 with 32 (350,000
/// context switches a second against 90,000-100,000); two GPUs 30,448 against 35,095 and
/// 35,159. On a 16-core H200, 12 and 8 threads ran 14,676 and 11,428 against 15,285 with 16
/// (`reports/bench/README.md`, h200x4-2026-11-29i).
pub const MAX_DEFAULT_THREADS: usize = 32;

/// The global pool's size: `explicit` if given, else none to set when `RAYON_NUM_THREADS` holds
/// a count (rayon reads it), else the host's `cpus` up to `most`.
pub fn global_threads(
    explicit: Option<usize>,
    env: Option<&str>,
    cpus: usize,
    most: usize,
) -> Option<usize> {
    if let Some(n) = explicit {
        return Some(n.max(1));
    }
    if env.is_some_and(|v| v.trim().parse::<usize>().is_ok_and(|n| n > 0)) {
        return None;
    }
    Some(cpus.clamp(1, most.max(1)))
}

/// The CPUs this process may run on (1 where the system does not say).
pub fn host_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Size rayon's global pool as [`global_threads`] says for this process (`most`:
/// [`MAX_DEFAULT_THREADS`], or `usize::MAX` for work that ptxas processes bound); call before
/// any parallel work (the pool is built once).
pub fn size_global(explicit: Option<usize>, most: usize) -> Result<(), String> {
    let env = std::env::var("RAYON_NUM_THREADS").ok();
    let cpus = host_cpus();
    // Named like the stages' pools, so that a per-thread profile tells the pools apart.
    let mut b = rayon::ThreadPoolBuilder::new().thread_name(|i| format!("global-{i}"));
    if let Some(n) = global_threads(explicit, env.as_deref(), cpus, most) {
        b = b.num_threads(n);
    }
    b.build_global().map_err(|e| e.to_string())
}

/// A pool builder for `stage`: as many threads as the global pool, named for the stage, each
/// starting at the stage's nice value.
fn builder(stage: Stage, name: &'static str) -> rayon::ThreadPoolBuilder {
    let nice = main_nice().map(|m| nice_of(stage, m, background_nice()));
    rayon::ThreadPoolBuilder::new()
        .num_threads(rayon::current_num_threads())
        .thread_name(move |i| format!("{name}-{i}"))
        .start_handler(move |_| {
            if let Some(n) = nice {
                set_this_thread(n);
            }
        })
}

/// Free `v` on a thread of its own, below the main thread's priority as the stages working
/// ahead of need are: a batch's results, cases and executions take seconds to free one by one,
/// and neither the thread that observes the next step nor the one that hands a campaign's next
/// block to the device should wait for that. At most [`FREEING_AT_MOST`] are freed so at once;
/// beyond that the caller frees `v` itself, so that freeing which falls behind slows what makes
/// more instead of holding memory.
pub fn drop_apart<T: Send + 'static>(v: T) {
    static FREEING: AtomicUsize = AtomicUsize::new(0);
    drop_apart_within(v, &FREEING, FREEING_AT_MOST);
}

/// Most values [`drop_apart`] frees on threads of their own at once: a bound against freeing
/// that falls ever further behind, not a tuned figure (a fuzz campaign hands it a step's
/// executions about every 0.15 s and a block's results about every 1.2 s on an H200 host).
pub const FREEING_AT_MOST: usize = 16;

/// [`drop_apart`] with `freeing` counting the threads at work, at most `most`.
fn drop_apart_within<T: Send + 'static>(v: T, freeing: &'static AtomicUsize, most: usize) {
    if freeing.fetch_add(1, Ordering::SeqCst) >= most {
        freeing.fetch_sub(1, Ordering::SeqCst);
        drop(v);
        return;
    }
    /// One thread at work, until it ends or never starts.
    struct Freeing(&'static AtomicUsize);
    impl Drop for Freeing {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::SeqCst);
        }
    }
    let at_work = Freeing(freeing);
    let nice = main_nice().map(|m| lowered(m, background_nice()));
    // Where no thread can start, `v` is freed here with the refused closure.
    let _ = std::thread::Builder::new()
        .name("drop".into())
        .spawn(move || {
            let _at_work = at_work;
            if let Some(n) = nice {
                set_this_thread(n);
            }
            drop(v)
        });
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
    slot.get_or_init(|| builder(stage, name).build().ok())
        .as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values are freed on threads of their own, at most so many at once; beyond that the
    /// caller frees its own, and once a thread is done the next goes apart again.
    #[test]
    fn freeing_apart_is_bounded() {
        use std::sync::{Arc, Condvar, Mutex};
        type Gate = Arc<(Mutex<bool>, Condvar)>;
        struct Value {
            gate: Option<Gate>,
            freed_on: Arc<Mutex<Vec<String>>>,
        }
        impl Drop for Value {
            fn drop(&mut self) {
                if let Some(g) = &self.gate {
                    let mut open = g.0.lock().unwrap();
                    while !*open {
                        open = g.1.wait(open).unwrap();
                    }
                }
                let me = std::thread::current().name().unwrap_or("").to_string();
                self.freed_on.lock().unwrap().push(me);
            }
        }
        static FREEING: AtomicUsize = AtomicUsize::new(0);
        let gate: Gate = Arc::new((Mutex::new(false), Condvar::new()));
        let freed_on = Arc::new(Mutex::new(Vec::new()));
        let value = |gate: Option<&Gate>| Value {
            gate: gate.cloned(),
            freed_on: freed_on.clone(),
        };
        for _ in 0..2 {
            drop_apart_within(value(Some(&gate)), &FREEING, 2);
        }
        // Both threads wait at the gate: the third value is freed here.
        drop_apart_within(value(None), &FREEING, 2);
        let here = std::thread::current().name().unwrap_or("").to_string();
        assert_eq!(*freed_on.lock().unwrap(), [here.as_str()]);
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        let t = std::time::Instant::now();
        while FREEING.load(Ordering::SeqCst) > 0 && t.elapsed().as_secs() < 30 {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        drop_apart_within(value(None), &FREEING, 2);
        while freed_on.lock().unwrap().len() < 4 && t.elapsed().as_secs() < 30 {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(
            *freed_on.lock().unwrap(),
            [here.as_str(), "drop", "drop", "drop"]
        );
    }

    /// An explicit count wins; a count in `RAYON_NUM_THREADS` is left to rayon; otherwise every
    /// CPU up to 32.
    #[test]
    fn the_global_pool_takes_every_cpu_up_to_the_cap() {
        assert_eq!(
            global_threads(None, None, 16, MAX_DEFAULT_THREADS),
            Some(16)
        );
        assert_eq!(
            global_threads(None, None, 64, MAX_DEFAULT_THREADS),
            Some(MAX_DEFAULT_THREADS)
        );
        assert_eq!(global_threads(None, None, 0, MAX_DEFAULT_THREADS), Some(1));
        assert_eq!(
            global_threads(Some(64), None, 16, MAX_DEFAULT_THREADS),
            Some(64)
        );
        assert_eq!(
            global_threads(Some(0), Some("8"), 16, MAX_DEFAULT_THREADS),
            Some(1)
        );
        assert_eq!(
            global_threads(None, Some("48"), 64, MAX_DEFAULT_THREADS),
            None
        );
        // Without a cap (legality), every CPU.
        assert_eq!(global_threads(None, None, 64, usize::MAX), Some(64));
        // A value rayon would not take as a count does not turn the cap off.
        assert_eq!(
            global_threads(None, Some("lots"), 64, MAX_DEFAULT_THREADS),
            Some(MAX_DEFAULT_THREADS)
        );
        assert_eq!(
            global_threads(None, Some("0"), 64, MAX_DEFAULT_THREADS),
            Some(MAX_DEFAULT_THREADS)
        );
    }

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

    /// The stages working ahead of need run below the main thread's priority by the
    /// background nice value (at most 19), the batch's stage at the main thread's own, whichever
    /// thread builds the pool (one already lowered included); their child processes start at
    /// their priority.
    #[cfg(target_os = "linux")]
    #[test]
    fn stages_ahead_of_need_run_at_a_lower_priority() {
        let nice = || rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap();
        let main = main_nice().expect("the main thread's nice value");
        let by = background_nice();
        for stage in [Stage::Reference, Stage::Generate, Stage::Compile] {
            let want = nice_of(stage, main, by);
            // A pool of the stage built on a thread already lowered, as the Compile pool is.
            let pool = std::thread::spawn(move || {
                set_this_thread((main + 5).min(19));
                builder(stage, "test").build().unwrap()
            })
            .join()
            .unwrap();
            for p in [&pool, super::pool(stage).unwrap()] {
                let got: Vec<i32> = p.install(|| {
                    use rayon::prelude::*;
                    (0..64).into_par_iter().map(|_| nice()).collect()
                });
                let raised = want < (main + 5).min(19);
                // Raising a thread above its creator's priority needs a privilege: a
                // Reference pool built on a lowered thread may stay where it started.
                assert!(
                    got.iter()
                        .all(|&n| n == want || raised && std::ptr::eq(p, &pool)),
                    "{stage:?}: {got:?}, want {want}"
                );
            }
            // A process spawned from the stage's thread starts at its priority: field 19 of
            // its /proc/self/stat, counted after the command name's closing parenthesis.
            let child = install(stage, || {
                std::process::Command::new("cat")
                    .arg("/proc/self/stat")
                    .output()
            })
            .expect("cat /proc/self/stat");
            let out = String::from_utf8_lossy(&child.stdout);
            let (_, after) = out.rsplit_once(')').expect("a stat line");
            let got: i32 = after.split_whitespace().nth(16).unwrap().parse().unwrap();
            assert_eq!(got, want, "{stage:?}: a child's nice value");
        }
        assert_eq!(nice_of(Stage::Compile, 15, 10), 19);
        assert_eq!(nice_of(Stage::Generate, 0, 39), 19);
        assert_eq!(nice_of(Stage::Reference, 3, 10), 3);
    }
}
