//! The parent side of process isolation: spawning workers, the watchdog, restarts, and the
//! policy that pins a trap, hang or crash on the job that caused it.

use std::collections::{HashMap, VecDeque};
use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::arena::{Arena, Ends, Outbox, ARENA_ENV};
use super::driver::DeviceInfo;
use super::protocol::*;

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

enum Event {
    Msg(FromWorker),
    Corrupt(String),
    Eof,
}

/// A running worker process, killed on drop.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    events: Receiver<Event>,
    device: DeviceInfo,
    /// Jobs this worker has finished.
    ran: usize,
    /// Modules sent to this worker (it keeps them).
    has: std::collections::HashSet<u64>,
    /// Where requests' payloads go, when the worker mapped the arena.
    outbox: Option<Outbox>,
}

impl Worker {
    fn spawn(cfg: &SupervisorConfig) -> Result<Worker, String> {
        let c = &cfg.command;
        // Without an arena (not Linux, no memory files) payloads go through the pipes.
        let arena = Arena::create().ok();
        let ends = arena.as_ref().and_then(|a| Ends::supervisor(a).ok());
        let mut command = Command::new(&c.program);
        if let (Some(a), Some(_)) = (&arena, &ends) {
            command.env(ARENA_ENV, a.path_for_child());
        }
        let mut child = command
            .args(&c.args)
            .envs(c.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("spawn {}: {e}", c.program.display()))?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("worker pipes missing".into());
            }
        };
        let (outbox, inbox) = match ends {
            Some(Ends { outbox, inbox }) => (Some(outbox), Some(inbox)),
            None => (None, None),
        };
        let (tx, events) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Ok(Some(f)) = super::frame::read_via(&mut r, inbox.as_ref()) {
                let ev = match FromWorker::parse_frame(f) {
                    None => continue, // not ours (library chatter, test harness output)
                    Some(Ok(m)) => Event::Msg(m),
                    Some(Err(e)) => Event::Corrupt(e),
                };
                if tx.send(ev).is_err() {
                    return;
                }
            }
            let _ = tx.send(Event::Eof);
        });
        let mut w = Worker {
            child,
            stdin,
            events,
            device: placeholder_device(),
            ran: 0,
            has: Default::default(),
            outbox: None,
        };
        let ready = w.events.recv_timeout(cfg.start_timeout);
        // The worker has opened the arena (or given up on it) by now; the mappings stay.
        drop(arena);
        match ready {
            Ok(Event::Msg(FromWorker::Ready { device, shared })) => {
                w.device = device;
                w.outbox = outbox.filter(|_| shared);
                Ok(w)
            }
            Ok(Event::Msg(FromWorker::InitFailed { message })) => Err(message),
            Ok(Event::Msg(_)) | Ok(Event::Corrupt(_)) => Err("worker spoke before Ready".into()),
            Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                Err(format!("worker exited during start-up ({})", w.status()))
            }
            Err(RecvTimeoutError::Timeout) => {
                Err(format!("worker not ready after {:?}", cfg.start_timeout))
            }
        }
    }

    fn status(&mut self) -> String {
        match self.child.wait() {
            Ok(s) => s.to_string(),
            Err(e) => format!("wait: {e}"),
        }
    }

    fn kill(&mut self) {
        // Only our own child, by its handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = writeln!(
            self.stdin,
            "{}",
            serde_json::to_string(&ToWorker::Shutdown).unwrap_or_default()
        );
        let _ = self.stdin.flush();
        // Give a healthy worker a moment to exit on its own, then kill.
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.kill();
    }
}

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

/// How a group run ended early.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Failure {
    /// The worker reported a poisoning result for this job.
    Trapped(usize, Box<JobResult>),
    /// The watchdog fired; `Some(i)` if job `i` had started and not finished.
    Timeout(Option<usize>, Duration),
    /// The worker died or broke protocol; `Some(i)` if job `i` had started and not finished.
    Died(Option<usize>, String),
}

/// What to do with a group after a failure: jobs to settle now, groups to run next.
#[derive(Debug, PartialEq, Eq)]
struct Plan {
    settled: Vec<(usize, Outcome)>,
    /// The trapping job's own result (kept whole: it may carry encoded tensor maps).
    settled_result: Option<(usize, Box<JobResult>)>,
    next: Vec<Vec<usize>>,
}

/// The isolation policy. `group` is the jobs sent; `done` those that finished before the failure
/// (their results stand: they completed in a healthy context).
///
/// - A failure attributable to one job (`Started` without `Done`, or a trap result) is final if
///   that job ran alone or first in a fresh worker (the caller then passes `confirm` off);
///   otherwise it is re-run alone (confirmation, so a job is never blamed for state left by an
///   earlier one) and the jobs after it form a new group.
///   With `confirm` off, an attributed failure is final at once (cheaper when many jobs are
///   expected to trap, at the risk of blaming a job for an earlier job's leftover state).
/// - An unattributable failure (worker died between jobs, corrupt output) bisects the unfinished
///   jobs; a single unfinished job that fails this way is final.
fn plan(group: &[usize], done: &[usize], failure: Failure, confirm: bool) -> Plan {
    let unfinished: Vec<usize> = group
        .iter()
        .copied()
        .filter(|i| !done.contains(i))
        .collect();
    let mut p = Plan {
        settled: vec![],
        settled_result: None,
        next: vec![],
    };
    let culprit = match &failure {
        Failure::Trapped(i, _) => Some(*i),
        Failure::Timeout(c, _) | Failure::Died(c, _) => *c,
    };
    let rest =
        |c: usize| -> Vec<usize> { unfinished.iter().copied().filter(|&i| i != c).collect() };
    match culprit {
        Some(c) if group.len() == 1 || !confirm => {
            let rest = rest(c);
            if !rest.is_empty() {
                p.next.push(rest);
            }
            match failure {
                Failure::Trapped(_, r) => p.settled_result = Some((c, r)),
                Failure::Timeout(_, t) => p.settled.push((
                    c,
                    Outcome::Timeout {
                        after_ms: t.as_millis() as u64,
                    },
                )),
                Failure::Died(_, d) => p.settled.push((c, Outcome::WorkerCrashed { detail: d })),
            }
        }
        Some(c) => {
            p.next.push(vec![c]);
            let rest = rest(c);
            if !rest.is_empty() {
                p.next.push(rest);
            }
        }
        None => match unfinished.len() {
            0 => {}
            1 => {
                let detail = match failure {
                    Failure::Timeout(_, t) => format!("worker silent for {t:?} between jobs"),
                    Failure::Died(_, d) => d,
                    // Cannot happen (a trap names its job); described rather than panicking.
                    Failure::Trapped(_, r) => format!("{:?}", r.outcome),
                };
                p.settled
                    .push((unfinished[0], Outcome::WorkerCrashed { detail }));
            }
            n => {
                p.next.push(unfinished[..n / 2].to_vec());
                p.next.push(unfinished[n / 2..].to_vec());
            }
        },
    }
    p
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
}

impl Supervisor {
    pub fn new(cfg: SupervisorConfig) -> Supervisor {
        Supervisor {
            cfg,
            worker: None,
            modules: HashMap::new(),
            spawned: 0,
            spawn_wall: Duration::ZERO,
        }
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
            let (done, failure) = self.run_group(jobs, &group)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::driver;
    use crate::gpu::worker::tests::{job, FAKE_ENV};

    fn fake_supervisor(job_timeout_ms: u64) -> Supervisor {
        let program = std::env::current_exe().unwrap();
        let args = [
            "gpu::worker::tests::fake_worker_process",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ];
        let command = WorkerCommand {
            program,
            args: args.iter().map(|s| s.to_string()).collect(),
            env: vec![(FAKE_ENV.into(), "1".into())],
        };
        let mut cfg = SupervisorConfig::new(command);
        cfg.job_timeout = Duration::from_millis(job_timeout_ms);
        cfg.start_timeout = Duration::from_secs(30);
        Supervisor::new(cfg)
    }

    fn assert_ok(r: &JobResult, id: u64) {
        assert_eq!(r.id, id);
        assert_eq!(r.outcome, Outcome::Ok, "job {id}");
        assert_eq!(r.read_back, vec![ReadBack::whole(0, vec![0xab, id as u8])]);
    }

    /// On Linux the worker maps the supervisor's arena, and payloads of several batches travel
    /// through it intact in both directions (the fake answers with buffer 0's bytes).
    #[test]
    #[cfg(target_os = "linux")]
    fn payloads_travel_through_the_arena() {
        let mut s = fake_supervisor(5_000);
        s.device().unwrap();
        assert_eq!(s.shares_arena(), Some(true));
        for round in 0..3u8 {
            let jobs: Vec<Job> = (0..4u8)
                .map(|i| {
                    let mut j = job(i as u64, "ok");
                    j.buffers[0].init = (0..100_000u32).map(|x| (x as u8) ^ i ^ round).collect();
                    j
                })
                .collect();
            for (j, r) in jobs.iter().zip(s.run(&jobs).unwrap()) {
                let mut want = j.buffers[0].init.clone();
                want.push(j.id as u8);
                assert_eq!(r.read_back[0].data, want, "round {round} job {}", j.id);
            }
        }
    }

    #[test]
    fn all_ok_batch_uses_one_worker_and_keeps_order() {
        let mut s = fake_supervisor(5_000);
        assert_eq!(s.device().unwrap().name, "fake");
        let jobs: Vec<Job> = (10..20).rev().map(|i| job(i, "ok")).collect();
        let rs = s.run(&jobs).unwrap();
        assert_eq!(rs.len(), 10);
        for (j, r) in jobs.iter().zip(&rs) {
            assert_ok(r, j.id);
        }
        // A second run reuses the same worker.
        let rs = s.run(&[job(1, "ok")]).unwrap();
        assert_ok(&rs[0], 1);
        assert_eq!(s.spawned, 1);
    }

    #[test]
    fn planted_trap_is_isolated_and_others_get_results() {
        let mut s = fake_supervisor(5_000);
        let jobs: Vec<Job> = (0..8)
            .map(|i| job(i, if i == 5 { "trap" } else { "ok" }))
            .collect();
        let rs = s.run(&jobs).unwrap();
        for (i, r) in rs.iter().enumerate() {
            if i == 5 {
                assert_eq!(
                    r.outcome,
                    Outcome::Trap {
                        kind: driver::TrapKind::IllegalInstruction,
                        code: 715
                    }
                );
            } else {
                assert_ok(r, i as u64);
            }
        }
        // First worker traps at 5; the confirmation run of 5 alone traps again; 6..8 need a third.
        assert_eq!(s.spawned, 3);
    }

    #[test]
    fn traps_first_in_fresh_workers_are_final_later_ones_confirmed() {
        let mut s = fake_supervisor(5_000);
        let kernels = ["trap", "ok", "trap", "trap", "ok", "ok", "trap", "ok"];
        let jobs: Vec<Job> = (0..8).map(|i| job(i, kernels[i as usize])).collect();
        let rs = s.run(&jobs).unwrap();
        for (i, r) in rs.iter().enumerate() {
            match kernels[i] {
                "trap" => assert!(matches!(r.outcome, Outcome::Trap { .. }), "job {i}"),
                _ => assert_ok(r, i as u64),
            }
        }
        // Workers: [0 traps first: final] [1 ok, 2 traps] [2 confirmed alone] [3 first: final]
        // [4, 5 ok, 6 traps] [6 confirmed alone] [7].
        assert_eq!(s.spawned, 7);
    }

    #[test]
    fn a_trap_first_in_a_fresh_worker_needs_no_confirmation() {
        let mut s = fake_supervisor(5_000);
        let jobs: Vec<Job> = (0..4)
            .map(|i| job(i, if i == 0 { "trap" } else { "ok" }))
            .collect();
        let rs = s.run(&jobs).unwrap();
        assert!(matches!(rs[0].outcome, Outcome::Trap { .. }));
        for (i, r) in rs.iter().enumerate().skip(1) {
            assert_ok(r, i as u64);
        }
        assert_eq!(s.spawned, 2);
    }

    #[test]
    fn modules_go_to_every_worker_that_needs_them() {
        let mut s = fake_supervisor(5_000);
        let key = s.add_module(Arc::new(vec![0x7f, b'E', b'L', b'F']));
        let by_key = |id: u64, k: &str| {
            let mut j = job(id, k);
            if let Some(l) = &mut j.launch {
                l.module = key;
            }
            j
        };
        let jobs = vec![by_key(0, "ok"), by_key(1, "trap"), by_key(2, "ok")];
        let rs = s.run(&jobs).unwrap();
        assert_ok(&rs[0], 0);
        assert!(matches!(rs[1].outcome, Outcome::Trap { .. }));
        // Job 2 runs in a fresh worker, which must have been sent the module again.
        assert_ok(&rs[2], 2);
        let rs = s.run(&[by_key(3, "ok")]).unwrap();
        assert_ok(&rs[0], 3);
        let mut unknown = job(4, "ok");
        if let Some(l) = &mut unknown.launch {
            l.module = key ^ 1;
        }
        let rs = s.run(&[unknown]).unwrap();
        assert!(matches!(rs[0].outcome, Outcome::Setup { .. }));
    }

    #[test]
    fn planted_hang_is_isolated_by_the_watchdog() {
        let mut s = fake_supervisor(1_000);
        let jobs: Vec<Job> = (0..5)
            .map(|i| job(i, if i == 2 { "hang" } else { "ok" }))
            .collect();
        let rs = s.run(&jobs).unwrap();
        for (i, r) in rs.iter().enumerate() {
            if i == 2 {
                assert_eq!(r.outcome, Outcome::Timeout { after_ms: 1_000 });
            } else {
                assert_ok(r, i as u64);
            }
        }
    }

    #[test]
    fn trap_caused_by_an_earlier_job_is_not_blamed_on_the_victim() {
        let mut s = fake_supervisor(5_000);
        let jobs = vec![
            job(0, "ok"),
            job(1, "poison_next"),
            job(2, "victim"),
            job(3, "ok"),
        ];
        let rs = s.run(&jobs).unwrap();
        // Job 2 trapped only because of job 1's leftover state; alone it succeeds.
        for (i, r) in rs.iter().enumerate() {
            assert_ok(r, i as u64);
        }
    }

    #[test]
    fn without_confirmation_a_trap_costs_one_restart() {
        let mut s = fake_supervisor(5_000);
        s.cfg.confirm_failures = false;
        let jobs: Vec<Job> = (0..6)
            .map(|i| job(i, if i == 2 { "trap" } else { "ok" }))
            .collect();
        let rs = s.run(&jobs).unwrap();
        assert!(matches!(rs[2].outcome, Outcome::Trap { .. }));
        for i in [0, 1, 3, 4, 5] {
            assert_ok(&rs[i], i as u64);
        }
        assert_eq!(s.spawned, 2);
    }

    #[test]
    fn several_failures_in_one_batch_each_isolated() {
        let mut s = fake_supervisor(1_000);
        let kinds = ["trap", "ok", "die", "ok", "hang", "trap", "ok"];
        let jobs: Vec<Job> = kinds
            .iter()
            .enumerate()
            .map(|(i, k)| job(i as u64, k))
            .collect();
        let rs = s.run(&jobs).unwrap();
        for (i, (k, r)) in kinds.iter().zip(&rs).enumerate() {
            match *k {
                "trap" => assert!(
                    matches!(r.outcome, Outcome::Trap { .. }),
                    "{i}: {:?}",
                    r.outcome
                ),
                "die" => assert!(
                    matches!(&r.outcome, Outcome::WorkerCrashed { detail } if detail.contains("exit")),
                    "{:?}",
                    r.outcome
                ),
                "hang" => assert!(matches!(r.outcome, Outcome::Timeout { .. })),
                _ => assert_ok(r, i as u64),
            }
        }
    }

    #[test]
    fn duplicate_ids_and_bad_worker_are_run_errors() {
        let mut s = fake_supervisor(1_000);
        assert_eq!(
            s.run(&[job(1, "ok"), job(1, "ok")]),
            Err(SupervisorError::DuplicateJobId(1))
        );
        let mut cfg = SupervisorConfig::new(WorkerCommand {
            program: "/nonexistent/ptxc".into(),
            args: vec![],
            env: vec![],
        });
        cfg.start_timeout = Duration::from_secs(1);
        let mut s = Supervisor::new(cfg);
        assert!(matches!(
            s.run(&[job(1, "ok")]),
            Err(SupervisorError::WorkerStart(_))
        ));
        // A worker that exits without a Ready line.
        let cfg = SupervisorConfig::new(WorkerCommand {
            program: "/bin/true".into(),
            args: vec![],
            env: vec![],
        });
        assert!(
            matches!(Supervisor::new(cfg).device(), Err(SupervisorError::WorkerStart(m)) if m.contains("start-up"))
        );
    }

    #[test]
    fn plan_bisects_unattributed_failures_and_confirms_attributed_ones() {
        let died = |c| Failure::Died(c, "x".into());
        // Unattributed: halves of the unfinished jobs.
        let p = plan(&[0, 1, 2, 3, 4, 5], &[0, 1], died(None), true);
        assert_eq!(p.next, vec![vec![2, 3], vec![4, 5]]);
        assert!(p.settled.is_empty());
        // Single unfinished job, unattributed: final crash.
        let p = plan(&[3, 4], &[3], died(None), true);
        assert_eq!(
            p.settled,
            vec![(4, Outcome::WorkerCrashed { detail: "x".into() })]
        );
        // Attributed in a group: confirm alone, the rest regrouped.
        let p = plan(&[0, 1, 2, 3], &[0], died(Some(1)), true);
        assert_eq!(p.next, vec![vec![1], vec![2, 3]]);
        // Without confirmation: final at once, the rest regrouped.
        let p = plan(&[0, 1, 2, 3], &[0], died(Some(1)), false);
        assert_eq!(p.next, vec![vec![2, 3]]);
        assert_eq!(
            p.settled,
            vec![(1, Outcome::WorkerCrashed { detail: "x".into() })]
        );
        // Attributed and alone: final.
        let p = plan(
            &[7],
            &[],
            Failure::Timeout(Some(7), Duration::from_millis(5)),
            true,
        );
        assert_eq!(p.settled, vec![(7, Outcome::Timeout { after_ms: 5 })]);
        let r = Box::new(JobResult::bare(
            9,
            Outcome::Trap {
                kind: driver::TrapKind::MisalignedAddress,
                code: 716,
            },
        ));
        let p = plan(&[7], &[], Failure::Trapped(7, r.clone()), true);
        assert_eq!(p.settled_result, Some((7, r)));
        // Nothing unfinished: nothing to do.
        assert_eq!(
            plan(&[1, 2], &[1, 2], died(None), true).next,
            Vec::<Vec<usize>>::new()
        );
    }
}
