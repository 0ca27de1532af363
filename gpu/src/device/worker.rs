//! The worker side of process isolation (`worker_main`, `serve`, the CUDA [`Executor`]): a child
//! process that owns one CUDA context and runs jobs until one poisons it. The parent side is
//! [`super::supervisor`].

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::time::Instant;

use super::arena::Ends;
use super::driver::{
    self, Context, DeviceBuffer, Driver, DriverError, Module, ModuleError, ParamImage,
    PinnedBuffer, SyncError,
};
use super::protocol::*;
use super::tensormap;

/// Runs jobs inside a worker process. The CUDA implementation is [`CudaExecutor`]; tests use a
/// fake. `execute` must not panic on bad input: malformed jobs yield `Outcome::Setup`.
pub trait Executor {
    fn device(&self) -> DeviceInfo;
    fn execute(&mut self, job: &Job) -> JobResult;
    /// Keep a module that later launches name by key (loaded when first used).
    fn add_module(&mut self, _m: ModuleBytes) {}
}

/// How `serve` ended.
#[derive(Debug, PartialEq, Eq)]
pub enum ServeEnd {
    /// Shutdown request or EOF on stdin.
    Finished,
    /// A job trapped; the context is poisoned, the process must exit.
    Poisoned,
    /// stdin/stdout broke or carried something unparseable.
    ProtocolError(String),
}

/// Exit status of a worker that stopped after a trap.
const EXIT_POISONED: i32 = 3;
/// Exit status of a worker whose start-up failed (after sending `InitFailed`).
pub const EXIT_INIT_FAILED: i32 = 4;
/// Exit status on a protocol error.
const EXIT_PROTOCOL: i32 = 5;

/// The worker's request loop: announce the device, then run batches until told to stop.
/// Payloads come and go through `arena` when the supervisor shared one, else through the pipes.
pub fn serve<E: Executor>(
    exec: &mut E,
    mut input: impl BufRead,
    mut output: impl Write,
    mut arena: Option<Ends>,
) -> ServeEnd {
    let mut send = |m: FromWorker, arena: &mut Option<Ends>| -> Result<(), String> {
        output
            .write_all(&m.to_frame_via(arena.as_mut().map(|a| &mut a.outbox)))
            .and_then(|_| output.flush())
            .map_err(|e| format!("stdout: {e}"))
    };
    let ready = FromWorker::Ready {
        device: exec.device(),
        shared: arena.is_some(),
    };
    if let Err(e) = send(ready, &mut arena) {
        return ServeEnd::ProtocolError(e);
    }
    loop {
        let f = match super::frame::read_via(&mut input, arena.as_ref().map(|a| &a.inbox)) {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(e) => return ServeEnd::ProtocolError(format!("stdin: {e}")),
        };
        if f.line.trim().is_empty() {
            continue;
        }
        // The supervisor has read every earlier answer before it sent this request.
        if let Some(a) = &mut arena {
            a.outbox.reset();
        }
        let jobs = match super::frame::decode::<ToWorker>(&f.line, f.blobs) {
            Ok(ToWorker::Run { jobs, modules }) => {
                for m in modules {
                    exec.add_module(m);
                }
                jobs
            }
            Ok(ToWorker::Shutdown) => return ServeEnd::Finished,
            Err(e) => return ServeEnd::ProtocolError(format!("bad request: {e}")),
        };
        for job in &jobs {
            if let Err(e) = send(FromWorker::Started { id: job.id }, &mut arena) {
                return ServeEnd::ProtocolError(e);
            }
            let result = exec.execute(job);
            let poisoned = result.outcome.poisons_context();
            let done = FromWorker::Done {
                result: Box::new(result),
            };
            if let Err(e) = send(done, &mut arena) {
                return ServeEnd::ProtocolError(e);
            }
            if poisoned {
                return ServeEnd::Poisoned;
            }
        }
        if let Err(e) = send(FromWorker::BatchDone, &mut arena) {
            return ServeEnd::ProtocolError(e);
        }
    }
    ServeEnd::Finished
}

/// Entry point of the hidden `__worker` subcommand: `ptxconform __worker [--device N]`.
/// Returns the process exit status. Never panics on a missing driver.
pub fn worker_main(args: &[String]) -> i32 {
    let ordinal = match args {
        [] => 0,
        [flag, n] if flag == "--device" => match n.parse() {
            Ok(n) => n,
            Err(_) => return init_failed(format!("bad device ordinal {n:?}")),
        },
        other => return init_failed(format!("unexpected worker arguments {other:?}")),
    };
    let mut exec = match CudaExecutor::new(ordinal) {
        Ok(e) => e,
        Err(m) => return init_failed(m),
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let arena = Ends::worker_from_env();
    exit_status(serve(&mut exec, stdin.lock(), stdout.lock(), arena))
}

fn exit_status(end: ServeEnd) -> i32 {
    match end {
        ServeEnd::Finished => 0,
        ServeEnd::Poisoned => EXIT_POISONED,
        ServeEnd::ProtocolError(e) => {
            eprintln!("ptxconform worker: {e}");
            EXIT_PROTOCOL
        }
    }
}

fn init_failed(message: String) -> i32 {
    let _ = std::io::stdout().write_all(&FromWorker::InitFailed { message }.to_frame());
    EXIT_INIT_FAILED
}

/// Executes jobs on a real device through `driver`.
pub struct CudaExecutor {
    driver: Driver,
    info: DeviceInfo,
    /// Leaked: the worker keeps its context until the process exits, and cached modules borrow it.
    ctx: &'static Context,
    /// Loaded modules by [`KernelLaunch::module_key`], with their JIT log.
    modules: HashMap<u64, Module<'static>>,
    /// Modules sent by key and not loaded yet.
    sent: HashMap<u64, Vec<u8>>,
    /// Allocations of finished jobs, for the next jobs' buffers: the steps of a batch have
    /// buffers of about the same sizes, and every byte a job reads is uploaded first.
    spare: Vec<DeviceBuffer<'static>>,
    /// Page-locked memory that buffers are read back through, grown to the largest.
    staging: Option<PinnedBuffer<'static>>,
}

/// Most allocations [`CudaExecutor::spare`] keeps.
const SPARE_BUFFERS: usize = 8;

impl CudaExecutor {
    /// An allocation of at least `size` bytes: the smallest spare one that fits, or a new one.
    fn buffer(&mut self, size: usize) -> Result<DeviceBuffer<'static>, DriverError> {
        let fits = (0..self.spare.len())
            .filter(|&i| self.spare[i].len() >= size)
            .min_by_key(|&i| self.spare[i].len());
        match fits {
            Some(i) => Ok(self.spare.swap_remove(i)),
            // Where the spares hold the memory a new allocation needs, they go first.
            None => self.ctx.alloc(size).or_else(|_| {
                self.spare.clear();
                self.ctx.alloc(size)
            }),
        }
    }

    /// Keeps a finished job's allocations for the next (the largest, up to [`SPARE_BUFFERS`]).
    fn keep(&mut self, buffers: Vec<JobBuffer<'static>>) {
        self.spare.extend(buffers.into_iter().map(|b| b.mem));
        if self.spare.len() > SPARE_BUFFERS {
            self.spare.sort_by_key(|b| std::cmp::Reverse(b.len()));
            self.spare.truncate(SPARE_BUFFERS);
        }
    }

    /// Page-locked memory of at least `size` bytes.
    fn staging(&mut self, size: usize) -> Result<&mut PinnedBuffer<'static>, DriverError> {
        if self.staging.as_ref().is_none_or(|s| s.len() < size) {
            self.staging = None;
            self.staging = Some(self.ctx.alloc_host(size)?);
        }
        Ok(self.staging.as_mut().expect("just made"))
    }
}

impl CudaExecutor {
    pub fn new(ordinal: i32) -> Result<CudaExecutor, String> {
        let driver = Driver::load()?;
        let dev = driver.device(ordinal).map_err(|e| e.to_string())?;
        let info = dev.info(&driver).map_err(|e| e.to_string())?;
        let ctx = Box::leak(Box::new(dev.context().map_err(|e| e.to_string())?));
        Ok(CudaExecutor {
            driver,
            info,
            ctx,
            modules: HashMap::new(),
            sent: HashMap::new(),
            spare: Vec::new(),
            staging: None,
        })
    }
}

impl Executor for CudaExecutor {
    fn device(&self) -> DeviceInfo {
        self.info.clone()
    }

    fn add_module(&mut self, m: ModuleBytes) {
        if !self.modules.contains_key(&m.key) {
            self.sent.insert(m.key, m.cubin);
        }
    }

    fn execute(&mut self, job: &Job) -> JobResult {
        let start = Instant::now();
        let mut r = JobResult::bare(job.id, Outcome::Ok);
        r.outcome = run_on_device(self, job, &mut r).unwrap_or_else(|o| o);
        r.wall_us = start.elapsed().as_micros() as u64;
        r
    }
}

/// A job buffer: the allocation and the offset of its aligned start inside it.
struct JobBuffer<'c> {
    mem: DeviceBuffer<'c>,
    start: usize,
    size: usize,
}

fn setup(message: impl Into<String>) -> Outcome {
    Outcome::Setup {
        message: message.into(),
    }
}

/// The bytes of encoded map `i` for a kernel parameter. A map that failed to encode is its own
/// outcome, so that readers tell the driver's refusal from a malformed job by its type.
fn map_param(maps: &[EncodeOutcome], i: usize) -> Result<&[u8], Outcome> {
    match maps.get(i) {
        Some(EncodeOutcome::Ok(m)) => Ok(m.as_slice()),
        Some(EncodeOutcome::Err(_)) => Err(Outcome::MapNotEncoded { map: i }),
        None => Err(setup(format!("no tensor map {i}"))),
    }
}

fn resolve(buffers: &[JobBuffer<'_>], a: Address) -> Result<u64, Outcome> {
    match a {
        Address::Raw(v) => Ok(v),
        Address::Buffer { index, offset } => {
            let b = buffers
                .get(index)
                .ok_or_else(|| setup(format!("no buffer {index}")))?;
            Ok(b.mem.addr() + b.start as u64 + offset)
        }
    }
}

fn encode(d: &Driver, addr: u64, e: &Encode) -> Result<[u8; 128], tensormap::EncodeError> {
    match e {
        Encode::Tiled { common, box_dim } => tensormap::encode_tiled(d, addr, common, box_dim),
        Encode::Im2col {
            common,
            lower_corner,
            upper_corner,
            channels_per_pixel,
            pixels_per_column,
        } => tensormap::encode_im2col(
            d,
            addr,
            common,
            lower_corner,
            upper_corner,
            *channels_per_pixel,
            *pixels_per_column,
        ),
        Encode::Im2colWide {
            common,
            lower_corner_width,
            upper_corner_width,
            channels_per_pixel,
            pixels_per_column,
            mode,
        } => tensormap::encode_im2col_wide(
            d,
            addr,
            common,
            *lower_corner_width,
            *upper_corner_width,
            *channels_per_pixel,
            *pixels_per_column,
            *mode,
        ),
    }
}

/// Runs one job; `Err` carries the outcome of an early stop. Fills `r`'s maps, logs, read-backs.
/// A buffer the host gives bytes to (init, patched addresses, stored tensor maps) is composed on
/// the host and uploaded with one copy: a batched job has one large buffer, not many small
/// writes. A buffer given none is set to its fill on the device.
fn run_on_device(ex: &mut CudaExecutor, job: &Job, r: &mut JobResult) -> Result<Outcome, Outcome> {
    let mut buffers = Vec::with_capacity(job.buffers.len());
    let out = run_in(ex, job, r, &mut buffers);
    ex.keep(buffers);
    out
}

/// [`run_on_device`] with the job's allocations made into `buffers`.
fn run_in(
    ex: &mut CudaExecutor,
    job: &Job,
    r: &mut JobResult,
    buffers: &mut Vec<JobBuffer<'static>>,
) -> Result<Outcome, Outcome> {
    let mut t = Instant::now();
    let mut lap = || {
        let us = t.elapsed().as_micros() as u64;
        t = Instant::now();
        us
    };
    for (i, spec) in job.buffers.iter().enumerate() {
        if !spec.align.is_power_of_two() || spec.align > MAX_BUFFER_ALIGN {
            return Err(setup(format!(
                "buffer {i}: align {} is not a power of two ≤ {MAX_BUFFER_ALIGN}",
                spec.align
            )));
        }
        let size =
            usize::try_from(spec.size).map_err(|_| setup(format!("buffer {i}: size too large")))?;
        let align = spec.align as usize;
        let total = size
            .checked_add(align - 1)
            .ok_or_else(|| setup(format!("buffer {i}: size too large")))?;
        let mem = ex
            .buffer(total)
            .map_err(|e| setup(format!("buffer {i}: {e}")))?;
        let start = (mem.addr() as usize).next_multiple_of(align) - mem.addr() as usize;
        buffers.push(JobBuffer { mem, start, size });
    }
    // Host images of the buffers the host gives bytes to (contents, patched addresses, stored
    // maps), from their aligned start (the over-allocated head stays unset). A buffer given none
    // is its fill, set on the device: a batch's dumps (zeros, about half of its bytes) would
    // otherwise be built on the host and copied to the device.
    let stored = |i: usize| {
        job.tensor_maps
            .iter()
            .any(|m| matches!(m.store, Some(Address::Buffer { index, .. }) if index == i))
    };
    let given = |i: usize, spec: &BufferSpec| {
        !spec.init.is_empty() || !spec.pieces.is_empty() || !spec.patches.is_empty() || stored(i)
    };
    let mut images: Vec<Option<Vec<u8>>> = job
        .buffers
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            given(i, spec)
                .then(|| spec.image().map_err(|e| setup(format!("buffer {i}: {e}"))))
                .transpose()
        })
        .collect::<Result<_, _>>()?;
    for (i, spec) in job.buffers.iter().enumerate() {
        for p in &spec.patches {
            if p.offset.checked_add(8).is_none_or(|end| end > spec.size) {
                return Err(setup(format!(
                    "buffer {i}: patch at {} leaves the buffer",
                    p.offset
                )));
            }
            let addr = resolve(buffers, p.address)?;
            let at = p.offset as usize;
            if let Some(img) = &mut images[i] {
                img[at..at + 8].copy_from_slice(&addr.to_le_bytes());
            }
        }
    }
    for (i, req) in job.tensor_maps.iter().enumerate() {
        let addr = resolve(buffers, req.global)?;
        match encode(&ex.driver, addr, &req.encode) {
            Ok(map) => {
                match req.store {
                    Some(Address::Buffer { index, offset }) => {
                        let img = images
                            .get_mut(index)
                            .and_then(Option::as_mut)
                            .ok_or_else(|| setup(format!("tensor map {i}: no buffer {index}")))?;
                        let at = usize::try_from(offset)
                            .ok()
                            .filter(|o| o + 128 <= img.len())
                            .ok_or_else(|| {
                                setup(format!(
                                    "tensor map {i}: store offset {offset} outside buffer"
                                ))
                            })?;
                        img[at..at + 128].copy_from_slice(&map);
                    }
                    Some(Address::Raw(_)) => {
                        return Err(setup(format!(
                            "tensor map {i}: can only store into a job buffer"
                        )))
                    }
                    None => {}
                }
                r.tensor_maps.push(EncodeOutcome::Ok(map.to_vec()));
            }
            Err(e) => r.tensor_maps.push(EncodeOutcome::Err(e)),
        }
    }
    r.phases.setup_us = lap();
    for (i, (b, img)) in buffers.iter_mut().zip(&images).enumerate() {
        match img {
            Some(img) => b.mem.write(b.start, img),
            // The whole allocation (its head and a reused spare's extra length included): a
            // memset on the device costs next to nothing, and nothing reads outside the buffer.
            None => b.mem.fill(job.buffers[i].fill),
        }
        .map_err(|e| setup(format!("buffer {i}: {e}")))?;
    }
    // What a buffer read back by pieces is compared with: its image as given, which is the
    // uploaded one where no address or map was written into it.
    let mut bases: Vec<Option<Vec<u8>>> = images
        .into_iter()
        .zip(&job.buffers)
        .enumerate()
        .map(|(i, (img, spec))| {
            img.filter(|_| !spec.pieces.is_empty() && spec.patches.is_empty() && !stored(i))
        })
        .collect();
    r.phases.upload_us = lap();

    if let Some(l) = &job.launch {
        let map_bytes = |i: usize| map_param(&r.tensor_maps, i);
        let mut params = Vec::with_capacity(l.params.len());
        for p in &l.params {
            params.push(match p {
                KernelParam::Pointer(a) => {
                    ParamImage::from_bytes(&resolve(buffers, *a)?.to_le_bytes())
                }
                KernelParam::U32(v) => ParamImage::from_bytes(&v.to_le_bytes()),
                KernelParam::U64(v) => ParamImage::from_bytes(&v.to_le_bytes()),
                KernelParam::Bytes(b) => ParamImage::from_bytes(b),
                KernelParam::TensorMap(i) => ParamImage::from_bytes(map_bytes(*i)?),
                KernelParam::TensorMapArray {
                    first,
                    count,
                    slots,
                } => {
                    if count > slots {
                        return Err(setup(format!("{count} tensor maps in {slots} slots")));
                    }
                    let mut img = vec![0u8; 128 * slots];
                    for k in 0..*count {
                        img[128 * k..128 * (k + 1)].copy_from_slice(map_bytes(first + k)?);
                    }
                    ParamImage::from_bytes(&img)
                }
            });
        }
        let module = match ex.modules.entry(l.module_key()) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                let loaded = if !l.cubin.is_empty() {
                    ex.ctx.load_cubin(&l.cubin)
                } else if !l.ptx.is_empty() {
                    ex.ctx.load_module_at(&l.ptx, l.jit_level)
                } else {
                    match ex.sent.get(&l.module) {
                        Some(cubin) => ex.ctx.load_cubin(cubin),
                        None => {
                            return Err(setup(format!(
                                "module {:016x} was never sent to this worker",
                                l.module
                            )))
                        }
                    }
                };
                match loaded {
                    Ok(m) => {
                        ex.sent.remove(&l.module);
                        v.insert(m)
                    }
                    Err(ModuleError::InteriorNul) => {
                        return Err(setup("PTX text contains a NUL byte"))
                    }
                    Err(ModuleError::Jit { error, log }) => {
                        return Err(Outcome::JitError { error, log })
                    }
                }
            }
        };
        r.jit_info_log = module.info_log.clone();
        r.phases.module_us = lap();
        let f = module
            .function(&l.kernel)
            .map_err(|error| Outcome::LaunchError { error })?;
        if let Err(error) = ex.ctx.launch(&f, &l.dims, &mut params) {
            // A launch call can itself report a sticky error; treat it as the trap it is.
            return Err(match driver::sticky(error.code) {
                Some(kind) => Outcome::Trap {
                    kind,
                    code: error.code,
                },
                None => Outcome::LaunchError { error },
            });
        }
        match ex.ctx.synchronize() {
            Ok(()) => {}
            Err(SyncError::Trap(kind)) => {
                return Err(Outcome::Trap {
                    kind,
                    code: kind.code(),
                })
            }
            Err(SyncError::Other(error)) => return Err(Outcome::LaunchError { error }),
        }
    }

    r.phases.kernel_us = lap();
    for &index in &job.read_back {
        let b = buffers
            .get(index)
            .ok_or_else(|| setup(format!("read_back: no buffer {index}")))?;
        let staging = ex
            .staging(b.size)
            .map_err(|error| Outcome::LaunchError { error })?;
        let data = &mut staging.as_mut_slice()[..b.size];
        b.mem
            .read_into(b.start, data)
            .map_err(|error| Outcome::LaunchError { error })?;
        let spec = &job.buffers[index];
        r.read_back.push(if spec.pieces.is_empty() {
            ReadBack::whole(index, data.to_vec())
        } else {
            // Against the image before patches and stored maps: the reader's own image with
            // these changes is exactly what the device holds.
            let base = match bases.get_mut(index).and_then(Option::take) {
                Some(base) => base,
                None => spec
                    .image()
                    .map_err(|e| setup(format!("buffer {index}: {e}")))?,
            };
            let (data, pieces) = changes(&base, data);
            ReadBack {
                index,
                data,
                pieces,
            }
        });
    }
    r.phases.read_back_us = lap();
    Ok(Outcome::Ok)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::device::supervisor::placeholder_device;
    use std::time::Duration;

    pub(crate) fn job(id: u64, kernel: &str) -> Job {
        Job {
            id,
            buffers: vec![BufferSpec {
                size: 4,
                align: 256,
                fill: 0,
                init: vec![0xab],
                patches: vec![],
                pieces: vec![],
            }],
            tensor_maps: vec![],
            launch: Some(KernelLaunch {
                ptx: String::new(),
                cubin: vec![],
                kernel: kernel.into(),
                module: 0,
                dims: LaunchDims {
                    grid: [1; 3],
                    block: [1; 3],
                    cluster: None,
                    dynamic_smem: 0,
                },
                params: vec![],
                jit_level: None,
            }),
            read_back: vec![0],
        }
    }

    /// Fake executor for supervisor tests. Behaviour is chosen by the job's kernel name:
    /// "trap" → illegal-instruction trap; "hang" → never returns; "die" → process exits without a
    /// result; "poison_next" → succeeds but makes the next job in the same process trap;
    /// anything else (or no launch) → Ok with buffer 0 read back as its `init` bytes + job id byte.
    struct Fake {
        poisoned: bool,
        /// Modules received (a launch naming another one fails, like the real worker).
        modules: std::collections::HashSet<u64>,
    }

    impl Fake {
        fn new() -> Fake {
            Fake {
                poisoned: false,
                modules: Default::default(),
            }
        }
    }

    impl Executor for Fake {
        fn device(&self) -> DeviceInfo {
            DeviceInfo {
                name: "fake".into(),
                ..placeholder_device()
            }
        }

        fn add_module(&mut self, m: ModuleBytes) {
            self.modules.insert(m.key);
        }

        fn execute(&mut self, job: &Job) -> JobResult {
            let trap = || {
                JobResult::bare(
                    job.id,
                    Outcome::Trap {
                        kind: driver::TrapKind::IllegalInstruction,
                        code: 715,
                    },
                )
            };
            if self.poisoned {
                return trap();
            }
            if let Some(l) = job.launch.as_ref().filter(|l| l.module != 0) {
                if !self.modules.contains(&l.module) {
                    return JobResult::bare(
                        job.id,
                        Outcome::Setup {
                            message: "module never sent".into(),
                        },
                    );
                }
            }
            match job.launch.as_ref().map(|l| l.kernel.as_str()) {
                Some("trap") => return trap(),
                Some("hang") => loop {
                    std::thread::sleep(Duration::from_secs(3600));
                },
                Some("die") => std::process::exit(9),
                Some("poison_next") => self.poisoned = true,
                _ => {}
            }
            let mut r = JobResult::bare(job.id, Outcome::Ok);
            let mut data = job
                .buffers
                .first()
                .map(|b| b.init.clone())
                .unwrap_or_default();
            data.push(job.id as u8);
            r.read_back.push(ReadBack::whole(0, data));
            r
        }
    }

    /// A parameter on a map that failed to encode is its own outcome (the engine reads it as the
    /// driver's refusal); a missing map stays a malformed job.
    #[test]
    fn a_parameter_on_a_failed_map_is_typed() {
        let refused = tensormap::EncodeError::Driver {
            code: 1,
            name: "CUDA_ERROR_INVALID_VALUE".into(),
        };
        let maps = [EncodeOutcome::Ok(vec![7; 128]), EncodeOutcome::Err(refused)];
        assert_eq!(map_param(&maps, 0), Ok(&[7u8; 128][..]));
        assert_eq!(map_param(&maps, 1), Err(Outcome::MapNotEncoded { map: 1 }));
        assert!(matches!(map_param(&maps, 2), Err(Outcome::Setup { .. })));
    }

    pub(crate) const FAKE_ENV: &str = "PTXCONFORM_FAKE_WORKER";

    /// Not a test: the body of the fake worker process. The supervisor tests spawn this test
    /// binary filtered to this function with `FAKE_ENV` set; libtest's own stdout lines carry no
    /// protocol prefix and are ignored by the parent.
    #[test]
    fn fake_worker_process() {
        if std::env::var_os(FAKE_ENV).is_none() {
            return;
        }
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        let arena = Ends::worker_from_env();
        let end = serve(&mut Fake::new(), stdin.lock(), stdout.lock(), arena);
        std::process::exit(exit_status(end));
    }

    #[test]
    fn serve_stops_after_a_trap_and_answers_in_order() {
        let req = |ks: &[&str]| {
            serde_json::to_string(&ToWorker::Run {
                jobs: ks
                    .iter()
                    .enumerate()
                    .map(|(i, k)| job(i as u64, k))
                    .collect(),
                modules: vec![],
            })
            .unwrap()
        };
        let input = format!("{}\n{}\n", req(&["ok", "trap", "ok"]), req(&["ok"]));
        let mut out = Vec::new();
        let end = serve(&mut Fake::new(), input.as_bytes(), &mut out, None);
        assert_eq!(end, ServeEnd::Poisoned);
        let mut r = &out[..];
        let mut msgs: Vec<FromWorker> = Vec::new();
        while let Some(f) = crate::device::frame::read(&mut r).unwrap() {
            msgs.push(FromWorker::parse_frame(f).unwrap().unwrap());
        }
        let tags: Vec<&str> = msgs
            .iter()
            .map(|m| match m {
                FromWorker::Ready { .. } => "ready",
                FromWorker::Started { .. } => "started",
                FromWorker::Done { .. } => "done",
                FromWorker::BatchDone => "batch_done",
                FromWorker::InitFailed { .. } => "init_failed",
            })
            .collect();
        assert_eq!(tags, ["ready", "started", "done", "started", "done"]);
        let mut out = Vec::new();
        let input = format!("{}\n\"shutdown\"\n{}\n", req(&["ok"]), req(&["ok"]));
        assert_eq!(
            serve(&mut Fake::new(), input.as_bytes(), &mut out, None),
            ServeEnd::Finished
        );
        let mut r = &out[..];
        let mut n = 0;
        while crate::device::frame::read(&mut r).unwrap().is_some() {
            n += 1;
        }
        assert_eq!(
            n, 4,
            "ready, started, done, batch_done; nothing after shutdown"
        );
        assert!(matches!(
            serve(&mut Fake::new(), "{bad\n".as_bytes(), Vec::new(), None),
            ServeEnd::ProtocolError(_)
        ));
    }
}
