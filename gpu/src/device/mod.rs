//! GPU execution: run PTX kernels on a real device, one job at a time, in a worker process.
//!
//! **Why a worker process.** A device fault (illegal instruction, misaligned or illegal address,
//! hardware stack error, ...) is a *sticky* error: it poisons the CUDA context, and every later
//! call in that process fails. A hang cannot be interrupted from inside the process at all. So
//! the harness never touches CUDA contexts itself: a [`Supervisor`] spawns
//! `ptxconform __worker --device N` (see [`worker_main`]) and talks to it over pipes.
//!
//! **Protocol** ([`protocol`]): line-delimited JSON. The parent writes `{"run":{"jobs":[…]}}`
//! (or `"shutdown"`) lines to the worker's stdin. The worker writes, on stdout, lines prefixed by
//! `PTXC1 `: first `ready` (device info) or `init_failed`, then for each job `started{id}` and
//! `done{result}`, and `batch_done` after the batch. Byte payloads travel raw beside the JSON
//! ([`frame`]), in memory both processes map ([`arena`]) when the system has anonymous memory
//! files, else through the pipe. A job allocates `cuMemAlloc` buffers (aligned, filled,
//! initialised), encodes tensor maps, optionally JIT-loads PTX and launches one kernel (cluster
//! launch when a cluster shape is given), waits for it, and reads back the requested buffers;
//! everything is freed before the next job.
//!
//! **Guarantees.**
//! - Every job gets exactly one [`JobResult`], in input order, whatever other jobs do.
//! - Each job is synchronised before the next starts, so a trap surfaces in the job that caused
//!   it; the worker reports it and exits (the context is poisoned).
//! - A host watchdog kills a worker that stays silent longer than `job_timeout` while a job runs.
//! - A trap, timeout or crash is reported for a job only after it failed *alone in a fresh
//!   worker*; the jobs after it are re-run in a fresh worker, and jobs that finished before it
//!   keep their results. Failures that no job can be blamed for (the worker dying between jobs,
//!   corrupt output) are isolated by bisecting the unfinished jobs. With
//!   `SupervisorConfig::confirm_failures = false` the confirmation re-run is skipped (one restart
//!   per trap instead of two, for fuzzing where traps are expected).
//!
//! **Wiring.** `main` must dispatch the hidden subcommand before argument parsing:
//! `if args[1] == WORKER_SUBCOMMAND { std::process::exit(gpu::worker_main(&args[2..])) }`; the
//! parent uses `Supervisor::new(SupervisorConfig::new(WorkerCommand::current_exe(device)?))`.
//! - Nothing here panics when no driver is installed: [`gpu_available`] returns
//!   `Err("no CUDA driver found")`, and a worker reports `init_failed`, which `Supervisor::run`
//!   turns into `SupervisorError::WorkerStart`.

pub mod arena;
pub mod driver;
pub mod frame;
pub mod map_request;
mod packed;
pub mod protocol;
pub mod supervisor;
pub mod tensormap;
pub mod worker;

#[cfg(test)]
mod device_tests;

pub use driver::{DeviceInfo, DriverError, LaunchDims, TrapKind};
pub use protocol::{
    Address, BufferSpec, Encode, EncodeOutcome, Job, JobResult, KernelLaunch, KernelParam, Outcome,
    Patch, Phases, Piece, ReadBack, TensorMapRequest,
};
pub use supervisor::{Supervisor, SupervisorConfig, SupervisorError, WorkerCommand};
pub use tensormap::{EncodeCommon, EncodeError};
pub use worker::{worker_main, Executor};

/// The hidden subcommand that starts a worker: `ptxconform __worker [--device N]`.
pub const WORKER_SUBCOMMAND: &str = "__worker";

/// The hidden subcommand that writes the driver JIT's cubin of the PTX on standard input to
/// standard output: `ptxconform __jit-cubin DEVICE LEVEL` (a process of its own, like a worker,
/// so that no run's context is touched).
pub const JIT_CUBIN_SUBCOMMAND: &str = "__jit-cubin";

/// Entry point of [`JIT_CUBIN_SUBCOMMAND`]; the exit status (2 with a message on failure).
pub fn jit_cubin_main(args: &[String]) -> i32 {
    use std::io::{Read, Write};
    let run = || -> Result<Vec<u8>, String> {
        let [dev, level] = args else {
            return Err("usage: __jit-cubin DEVICE LEVEL".into());
        };
        let dev: i32 = dev.parse().map_err(|_| format!("bad device {dev:?}"))?;
        let level: u8 = level.parse().map_err(|_| format!("bad level {level:?}"))?;
        let mut ptx = String::new();
        std::io::stdin()
            .read_to_string(&mut ptx)
            .map_err(|e| e.to_string())?;
        std::panic::catch_unwind(|| {
            let d = driver::Driver::load()?;
            let ctx = d
                .device(dev)
                .and_then(|x| x.context())
                .map_err(|e| e.to_string())?;
            ctx.jit_cubin(&ptx, level).map_err(|e| format!("{e:?}"))
        })
        .unwrap_or_else(|_| Err("the CUDA driver could not be loaded".into()))
    };
    match run() {
        Ok(cubin) => match std::io::stdout().write_all(&cubin) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("{e}");
                2
            }
        },
        Err(e) => {
            eprintln!("{e}");
            2
        }
    }
}

/// Query device `0` in this process without creating a context. Never panics: a missing driver,
/// a failing `cuInit` (no device, driver/library mismatch) or a missing symbol become `Err`.
pub fn gpu_available() -> Result<DeviceInfo, String> {
    device_info(0)
}

/// Like [`gpu_available`] for another device ordinal.
pub fn device_info(ordinal: i32) -> Result<DeviceInfo, String> {
    // cudarc's loader panics on a missing symbol; keep that from escaping.
    std::panic::catch_unwind(|| {
        let d = driver::Driver::load()?;
        let dev = d.device(ordinal).map_err(|e| e.to_string())?;
        dev.info(&d).map_err(|e| e.to_string())
    })
    .unwrap_or_else(|_| Err("CUDA driver is missing a required entry point".into()))
}

/// Which devices a command uses: every one the process sees, or a list of ordinals (an ordinal
/// may repeat: two workers on one device).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Devices {
    All,
    List(Vec<i32>),
}

impl std::str::FromStr for Devices {
    type Err = String;
    /// `all` or `0,2,…`.
    fn from_str(s: &str) -> Result<Devices, String> {
        if s == "all" {
            return Ok(Devices::All);
        }
        s.split(',')
            .map(|x| {
                x.trim()
                    .parse::<i32>()
                    .ok()
                    .filter(|&d| d >= 0)
                    .ok_or_else(|| format!("--devices {s:?}: `{x}` is not a device ordinal"))
            })
            .collect::<Result<Vec<i32>, String>>()
            .map(Devices::List)
    }
}

/// The devices a command runs on: empty when told to stay on the reference or when there is no
/// usable GPU (said in one line, with what the command does `instead`).
pub fn devices_unless(reference_only: bool, which: &Devices, instead: &str) -> Vec<DeviceInfo> {
    if reference_only {
        return vec![];
    }
    let ordinals = match which {
        Devices::List(l) => Ok(l.clone()),
        Devices::All => std::panic::catch_unwind(|| {
            let d = driver::Driver::load()?;
            d.device_count().map_err(|e| e.to_string())
        })
        .unwrap_or_else(|_| Err("CUDA driver is missing a required entry point".into()))
        .map(|n| (0..n).collect()),
    };
    let found = ordinals.and_then(|os| {
        if os.is_empty() {
            return Err("no CUDA device".to_string());
        }
        os.into_iter()
            .map(device_info)
            .collect::<Result<Vec<_>, _>>()
    });
    match found {
        Ok(ds) => ds,
        Err(why) => {
            // A message, on stderr: stdout may be a JSON document (`run --format json`).
            eprintln!("no GPU ({why}): {instead}");
            vec![]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_lists_parse() {
        assert_eq!("all".parse::<Devices>(), Ok(Devices::All));
        assert_eq!("0,0,2".parse::<Devices>(), Ok(Devices::List(vec![0, 0, 2])));
        assert!("0,x".parse::<Devices>().unwrap_err().contains("`x`"));
        // Without a driver, no device and no panic.
        if gpu_available().is_err() {
            assert!(devices_unless(false, &Devices::All, "test").is_empty());
        }
        assert!(devices_unless(true, &Devices::All, "test").is_empty());
    }

    #[test]
    fn gpu_available_does_not_panic() {
        // On this GPU-less build machine the driver is absent; on a GPU machine it must succeed.
        // SAFETY-free check of which case we are in: the same probe `Driver::load` uses.
        match gpu_available() {
            Err(e) => assert!(e.contains("CUDA"), "{e}"),
            Ok(info) => assert!(info.compute_capability.0 > 0 && !info.name.is_empty()),
        }
    }

    #[test]
    fn worker_reports_init_failure_without_a_driver() {
        if gpu_available().is_ok() {
            return; // only meaningful without a driver
        }
        assert_eq!(
            worker_main(&["--device".into(), "x".into()]),
            worker::EXIT_INIT_FAILED
        );
        assert_eq!(worker_main(&[]), worker::EXIT_INIT_FAILED);
    }
}
