//! The parent side of process isolation: spawning workers, the watchdog, restarts, and the
//! policy that pins a trap, hang or crash on the job that caused it.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::driver::DeviceInfo;
use super::protocol::*;

mod isolation;
mod process;
#[cfg(test)]
mod tests;

use isolation::{plan, Failure};
use process::{Event, Worker};

/// How to start a worker process.
#[derive(Clone, Debug)]
pub struct WorkerCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

impl WorkerCommand {
    /// `current_exe() __worker --device N`.
    pub fn current_exe(device: i32) -> Result<WorkerCommand, String> {
        let program = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
        Ok(WorkerCommand {
            program,
            args: vec!["__worker".into(), "--device".into(), device.to_string()],
            env: vec![],
        })
    }
}

#[derive(Clone, Debug)]
pub struct SupervisorConfig {
    pub command: WorkerCommand,
    /// Longest silence allowed while a job runs (between its `Started` and `Done`, including
    /// JIT compilation); beyond it the watchdog kills the worker.
    pub job_timeout: Duration,
    /// Longest wait for `Ready` after spawning (driver init + context creation).
    pub start_timeout: Duration,
    /// Jobs sent per request line.
    pub batch_size: usize,
    /// Re-run a failing job alone in a fresh worker before reporting its failure (default on).
    pub confirm_failures: bool,
}

impl SupervisorConfig {
    pub fn new(command: WorkerCommand) -> SupervisorConfig {
        SupervisorConfig {
            command,
            job_timeout: Duration::from_secs(10),
            start_timeout: Duration::from_secs(60),
            batch_size: 64,
            confirm_failures: true,
        }
    }
}

/// Errors that stop a whole run (per-job failures are `Outcome`s instead).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SupervisorError {
    /// A worker could not be started or did not become ready.
    WorkerStart(String),
    DuplicateJobId(u64),
}

impl std::fmt::Display for SupervisorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SupervisorError::WorkerStart(m) => write!(f, "GPU worker did not start: {m}"),
            SupervisorError::DuplicateJobId(id) => write!(f, "duplicate job id {id}"),
        }
    }
}

impl std::error::Error for SupervisorError {}

pub(crate) fn placeholder_device() -> DeviceInfo {
    DeviceInfo {
        ordinal: -1,
        name: String::new(),
        compute_capability: (0, 0),
        driver_version: 0,
        sm_count: 0,
        max_shared_per_block_optin: 0,
        cluster_launch: false,
    }
}

/// Modules a worker may hold before the supervisor replaces it with a fresh one.
const MAX_MODULES: usize = 1024;

/// Parent-side owner of the worker process: runs jobs, keeps every non-failing job's result, and
/// isolates traps, hangs and crashes to the job that caused them.
pub struct Supervisor {
    cfg: SupervisorConfig,
    worker: Option<Worker>,
    /// Registered modules by key ([`Supervisor::add_module`]); jobs name them by key.
    modules: HashMap<u64, Arc<Vec<u8>>>,
    /// Workers put to use so far (for reports and tests).
    pub spawned: usize,
    /// Time spent waiting for a worker to become ready (for the timing breakdown).
    pub spawn_wall: Duration,
    /// Jobs that trapped, and the wall time of the requests they ended (from sending the
    /// request to the trap's report; mostly the fault being reported).
    pub traps: usize,
    pub trap_wall: Duration,
    /// Jobs run apart ([`Supervisor::run_apart`]), and the time their workers took to become
    /// ready, summed over workers (they start in parallel: more than the wall time).
    pub apart: usize,
    pub apart_spawn: Duration,
}

impl Supervisor {
    pub fn new(cfg: SupervisorConfig) -> Supervisor {
        Supervisor {
            cfg,
            worker: None,
            modules: HashMap::new(),
            spawned: 0,
            spawn_wall: Duration::ZERO,
            traps: 0,
            trap_wall: Duration::ZERO,
            apart: 0,
            apart_spawn: Duration::ZERO,
        }
    }

    /// Run every job of `jobs` in a worker of its own (driver, context, the one job, exit),
    /// `workers` of them at a time, apart from this supervisor's worker: for jobs expected to
    /// trap, whose worker is lost anyway. The workers' driver and context creation overlap each
    /// other instead of following one trap after another; a trap or hang is still the outcome
    /// of its own job only. Results in the order of `jobs`.
    pub fn run_apart(
        &mut self,
        jobs: &[Job],
        workers: usize,
    ) -> Result<Vec<JobResult>, SupervisorError> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Mutex;
        let cfg = SupervisorConfig {
            confirm_failures: false,
            ..self.cfg.clone()
        };
        let next = AtomicUsize::new(0);
        let slots: Mutex<Vec<Option<Result<JobResult, SupervisorError>>>> =
            Mutex::new(vec![None; jobs.len()]);
        let totals = Mutex::new((0usize, Duration::ZERO, 0usize, Duration::ZERO));
        let modules = &self.modules;
        std::thread::scope(|scope| {
            for _ in 0..workers.clamp(1, jobs.len().max(1)) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let mut one = Supervisor::new(cfg.clone());
                    one.modules = modules.clone();
                    let r = one.run(std::slice::from_ref(job)).and_then(|mut rs| {
                        rs.pop()
                            .ok_or_else(|| SupervisorError::WorkerStart("no result".into()))
                    });
                    one.retire_worker();
                    if let Ok(mut t) = totals.lock() {
                        t.0 += one.spawned;
                        t.1 += one.spawn_wall;
                        t.2 += one.traps;
                        t.3 += one.trap_wall;
                    }
                    if let Ok(mut s) = slots.lock() {
                        s[i] = Some(r);
                    }
                });
            }
        });
        let (spawned, spawn, traps, trap_wall) = totals.into_inner().unwrap_or_default();
        self.spawned += spawned;
        self.apart_spawn += spawn;
        self.apart += jobs.len();
        self.traps += traps;
        self.trap_wall += trap_wall;
        slots
            .into_inner()
            .unwrap_or_default()
            .into_iter()
            .zip(jobs)
            .map(|(r, j)| {
                r.unwrap_or_else(|| {
                    Ok(JobResult::bare(
                        j.id,
                        Outcome::WorkerCrashed {
                            detail: "no result".into(),
                        },
                    ))
                })
            })
            .collect()
    }

    /// Whether a failing job in a group is re-run alone to confirm it (see [`SupervisorConfig`]).
    pub fn confirm_failures(&self) -> bool {
        self.cfg.confirm_failures
    }
    pub fn set_confirm_failures(&mut self, on: bool) {
        self.cfg.confirm_failures = on;
    }

    /// Register a compiled module; a launch names it by the returned key (`module`, with no
    /// `ptx` or `cubin`) and the supervisor sends its bytes once to each worker that needs it.
    pub fn add_module(&mut self, cubin: Arc<Vec<u8>>) -> u64 {
        let key = super::protocol::module_key_of_cubin(&cubin);
        self.modules.insert(key, cubin);
        key
    }

    /// Forget every registered module (their jobs are done).
    pub fn clear_modules(&mut self) {
        self.modules.clear();
    }

    /// Whether the live worker takes payloads through the shared arena (none: no live worker).
    pub fn shares_arena(&self) -> Option<bool> {
        self.worker.as_ref().map(|w| w.outbox.is_some())
    }

    /// Start the worker now (instead of on the first `run`) and return its device.
    pub fn device(&mut self) -> Result<DeviceInfo, SupervisorError> {
        Ok(self.live_worker()?.device.clone())
    }

    fn live_worker(&mut self) -> Result<&mut Worker, SupervisorError> {
        if self.worker.is_none() {
            self.spawned += 1;
            let t = Instant::now();
            let w = Worker::spawn(&self.cfg);
            self.spawn_wall += t.elapsed();
            self.worker = Some(w.map_err(SupervisorError::WorkerStart)?);
        }
        // Just ensured Some.
        self.worker
            .as_mut()
            .ok_or_else(|| SupervisorError::WorkerStart("unreachable".into()))
    }

    /// Drop the current worker (killed if still alive) on a background thread: a worker whose
    /// context trapped takes tens of milliseconds to exit.
    fn retire_worker(&mut self) {
        if let Some(w) = self.worker.take() {
            std::thread::spawn(move || drop(w));
        }
    }

    /// Run `jobs`; results come back in the order of `jobs`, one per job.
    pub fn run(&mut self, jobs: &[Job]) -> Result<Vec<JobResult>, SupervisorError> {
        let mut seen = std::collections::HashSet::new();
        for j in jobs {
            if !seen.insert(j.id) {
                return Err(SupervisorError::DuplicateJobId(j.id));
            }
        }
        let mut results: Vec<Option<JobResult>> = vec![None; jobs.len()];
        let all: Vec<usize> = (0..jobs.len()).collect();
        let mut queue: VecDeque<Vec<usize>> = all
            .chunks(self.cfg.batch_size.max(1))
            .map(|c| c.to_vec())
            .collect();
        while let Some(group) = queue.pop_front() {
            let fresh = self.worker.as_ref().is_none_or(|w| w.ran == 0);
            let (t, spawning) = (Instant::now(), self.spawn_wall);
            let (done, failure) = self.run_group(jobs, &group)?;
            if matches!(failure, Some(Failure::Trapped(..))) {
                // The request's time but the worker's start, which is counted apart.
                self.traps += 1;
                self.trap_wall += t.elapsed().saturating_sub(self.spawn_wall - spawning);
            }
            if let Some(w) = &mut self.worker {
                w.ran += done.len();
            }
            let done_idx: Vec<usize> = done.iter().map(|(i, _)| *i).collect();
            // The culprit of a failure was the first job of a fresh worker: nothing else can
            // have left state behind, so no confirmation run is needed.
            let first = fresh && done_idx.is_empty();
            for (i, r) in done {
                results[i] = Some(r);
            }
            if let Some(f) = failure {
                self.retire_worker();
                let p = plan(&group, &done_idx, f, self.cfg.confirm_failures && !first);
                for (i, o) in p.settled {
                    results[i] = Some(JobResult::bare(jobs[i].id, o));
                }
                if let Some((i, r)) = p.settled_result {
                    results[i] = Some(*r);
                }
                for g in p.next.into_iter().rev() {
                    queue.push_front(g);
                }
            }
        }
        Ok(results
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                r.unwrap_or_else(|| {
                    JobResult::bare(
                        jobs[i].id,
                        Outcome::WorkerCrashed {
                            detail: "no result".into(),
                        },
                    )
                })
            })
            .collect())
    }

    /// Send one group; collect results until `BatchDone` or a failure. A trap result is returned
    /// as the failure, not in `done`.
    #[allow(clippy::type_complexity)]
    fn run_group(
        &mut self,
        jobs: &[Job],
        group: &[usize],
    ) -> Result<(Vec<(usize, JobResult)>, Option<Failure>), SupervisorError> {
        let job_timeout = self.cfg.job_timeout;
        if self
            .worker
            .as_ref()
            .is_some_and(|w| w.has.len() > MAX_MODULES)
        {
            // Loaded modules hold device memory: a long campaign starts over in a fresh worker.
            self.retire_worker();
        }
        self.live_worker()?;
        let Supervisor {
            worker: Some(w),
            modules,
            ..
        } = self
        else {
            return Err(SupervisorError::WorkerStart("no worker".into()));
        };
        // A module goes to a worker once, with the first request that needs it.
        let batch: Vec<&Job> = group.iter().map(|&i| &jobs[i]).collect();
        let mut send = Vec::new();
        for l in batch.iter().filter_map(|j| j.launch.as_ref()) {
            if l.module != 0 && !w.has.contains(&l.module) {
                if let Some(c) = modules.get(&l.module) {
                    w.has.insert(l.module);
                    send.push(ModuleBytes {
                        key: l.module,
                        cubin: c.to_vec(),
                    });
                }
            }
        }
        let by_id = |id: u64| group.iter().copied().find(|&i| jobs[i].id == id);
        let mut done = Vec::new();
        // Every answer to the last request has been read: the arena's half starts over.
        if let Some(o) = &mut w.outbox {
            o.reset();
        }
        let frame = super::frame::encode_via(
            "",
            &RunRef::Run {
                jobs: batch,
                modules: &send,
            },
            w.outbox.as_mut(),
        );
        if let Err(e) = w.stdin.write_all(&frame).and_then(|_| w.stdin.flush()) {
            let status = w.status();
            return Ok((
                done,
                Some(Failure::Died(
                    None,
                    format!("worker stdin closed ({e}); exit {status}"),
                )),
            ));
        }
        let mut running: Option<usize> = None;
        loop {
            let ev = match w.events.recv_timeout(job_timeout) {
                Ok(ev) => ev,
                Err(RecvTimeoutError::Timeout) => {
                    w.kill();
                    return Ok((done, Some(Failure::Timeout(running, job_timeout))));
                }
                Err(RecvTimeoutError::Disconnected) => Event::Eof,
            };
            match ev {
                Event::Msg(FromWorker::Started { id }) => match by_id(id) {
                    Some(i) => running = Some(i),
                    None => {
                        return Ok((
                            done,
                            Some(Failure::Died(
                                running,
                                format!("worker started unknown job {id}"),
                            )),
                        ))
                    }
                },
                Event::Msg(FromWorker::Done { result }) => match by_id(result.id) {
                    Some(i) if result.outcome.poisons_context() => {
                        return Ok((done, Some(Failure::Trapped(i, result))))
                    }
                    Some(i) => {
                        running = None;
                        done.push((i, *result));
                    }
                    None => {
                        return Ok((
                            done,
                            Some(Failure::Died(
                                running,
                                format!("worker finished unknown job {}", result.id),
                            )),
                        ))
                    }
                },
                Event::Msg(FromWorker::BatchDone) => {
                    if done.len() == group.len() {
                        return Ok((done, None));
                    }
                    return Ok((
                        done,
                        Some(Failure::Died(None, "batch ended with jobs missing".into())),
                    ));
                }
                Event::Msg(m @ (FromWorker::Ready { .. } | FromWorker::InitFailed { .. })) => {
                    return Ok((
                        done,
                        Some(Failure::Died(running, format!("unexpected {m:?}"))),
                    ));
                }
                Event::Corrupt(e) => return Ok((done, Some(Failure::Died(running, e)))),
                Event::Eof => {
                    let status = w.status();
                    return Ok((
                        done,
                        Some(Failure::Died(running, format!("worker exited: {status}"))),
                    ));
                }
            }
        }
    }
}
