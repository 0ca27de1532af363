//! Messages between the supervisor and a worker process: one JSON object per line.
//!
//! Parent → worker (stdin): [`ToWorker`] lines. Worker → parent (stdout): [`FromWorker`] lines,
//! each prefixed by [`LINE_PREFIX`]; other stdout lines (e.g. from a library) and any text before the prefix are ignored. Byte
//! payloads travel raw beside the JSON ([`super::frame`]).

use serde::{Deserialize, Serialize};

pub use super::driver::{DeviceInfo, DriverError, LaunchDims, TrapKind};
pub use super::tensormap::{EncodeCommon, EncodeError};

/// Marks a protocol line on the worker's stdout; the digit is the protocol version.
pub const LINE_PREFIX: &str = "PTXC1 ";

/// One unit of GPU work: allocate buffers, encode tensor maps, optionally launch one kernel, read
/// buffers back. Everything a job allocates is freed before the next job starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Caller-chosen, unique within one `Supervisor::run` call.
    pub id: u64,
    #[serde(default)]
    pub buffers: Vec<BufferSpec>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        with = "super::packed::tensor_maps"
    )]
    pub tensor_maps: Vec<TensorMapRequest>,
    /// `None`: only encode tensor maps (to compare the driver's encode validation with ours).
    #[serde(default)]
    pub launch: Option<KernelLaunch>,
    /// Indices into `buffers` to copy back after the kernel completes.
    #[serde(default)]
    pub read_back: Vec<usize>,
}

/// A global-memory buffer. The worker over-allocates so that the buffer's start is aligned to
/// `align`; `init` is written at its start over a background of `fill` (or, with `pieces`, piece
/// by piece).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferSpec {
    pub size: u64,
    #[serde(default = "default_align")]
    pub align: u64,
    #[serde(default)]
    pub fill: u8,
    #[serde(default, with = "super::frame::bytes")]
    pub init: Vec<u8>,
    /// Where `init`'s bytes go, in order (empty: all at the start). A buffer given by pieces is
    /// also read back by pieces: only the blocks that differ from its uploaded image
    /// ([`changes`]), so a large buffer of mostly `fill` (a batch's regions between canaries)
    /// crosses between the processes as what it holds, both ways.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        with = "super::packed::pieces"
    )]
    pub pieces: Vec<Piece>,
    /// Device addresses written into this buffer (u64, little-endian) once every buffer of the
    /// job is allocated: how a parameter block holds pointers to the job's other buffers.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        with = "super::packed::patches"
    )]
    pub patches: Vec<Patch>,
}

/// `len` bytes at offset `at` of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub at: u64,
    pub len: u64,
}

impl BufferSpec {
    /// The buffer's bytes as uploaded, before address patches and stored tensor maps.
    pub fn image(&self) -> Result<Vec<u8>, String> {
        let size = usize::try_from(self.size).map_err(|_| "size too large".to_string())?;
        let mut img = vec![self.fill; size];
        place(&mut img, &self.init, &self.pieces)?;
        Ok(img)
    }
}

/// Write `data` into `img`: all at its start when `pieces` is empty, else piece by piece.
pub fn place(img: &mut [u8], data: &[u8], pieces: &[Piece]) -> Result<(), String> {
    let whole = [Piece {
        at: 0,
        len: data.len() as u64,
    }];
    let pieces = if pieces.is_empty() {
        &whole[..]
    } else {
        pieces
    };
    let mut from = 0usize;
    for p in pieces {
        let span = |at: u64| {
            let at = usize::try_from(at).ok()?;
            Some(at..at.checked_add(usize::try_from(p.len).ok()?)?)
        };
        let src = span(from as u64)
            .and_then(|r| data.get(r))
            .ok_or("pieces hold more bytes than given")?;
        let dst = span(p.at)
            .and_then(|r| img.get_mut(r))
            .ok_or_else(|| format!("{} bytes at {} leave the buffer", p.len, p.at))?;
        dst.copy_from_slice(src);
        from += src.len();
    }
    if from != data.len() {
        return Err(format!("{} bytes given, pieces hold {from}", data.len()));
    }
    Ok(())
}

/// Block size of [`changes`].
const CHANGE_BLOCK: usize = 64;

/// The blocks of `now` that differ from `before` (of equal length), adjacent ones merged: their
/// bytes in order, and where each run lies.
pub fn changes(before: &[u8], now: &[u8]) -> (Vec<u8>, Vec<Piece>) {
    let (mut data, mut pieces) = (Vec::new(), Vec::<Piece>::new());
    for (k, (b, n)) in before
        .chunks(CHANGE_BLOCK)
        .zip(now.chunks(CHANGE_BLOCK))
        .enumerate()
    {
        if b == n {
            continue;
        }
        let at = (k * CHANGE_BLOCK) as u64;
        match pieces.last_mut() {
            Some(p) if p.at + p.len == at => p.len += n.len() as u64,
            _ => pieces.push(Piece {
                at,
                len: n.len() as u64,
            }),
        }
        data.extend_from_slice(n);
    }
    (data, pieces)
}

/// Write the device address `address` at byte `offset` of the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Patch {
    pub offset: u64,
    pub address: Address,
}

fn default_align() -> u64 {
    256
}

/// Largest buffer alignment a job may request (keeps over-allocation bounded).
pub const MAX_BUFFER_ALIGN: u64 = 1 << 20;

/// A device address: inside a job buffer, or a raw value (e.g. 0 or an odd address, to test the
/// driver's checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Address {
    Buffer { index: usize, offset: u64 },
    Raw(u64),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TensorMapRequest {
    pub global: Address,
    pub encode: Encode,
    /// Also copy the encoded map into global memory here (for kernels taking a `.global` tensor
    /// map pointer instead of a `.param` one).
    #[serde(default)]
    pub store: Option<Address>,
}

/// Which `cuTensorMapEncode*` to call, with its specific parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encode {
    Tiled {
        common: EncodeCommon,
        box_dim: Vec<u32>,
    },
    Im2col {
        common: EncodeCommon,
        lower_corner: Vec<i32>,
        upper_corner: Vec<i32>,
        channels_per_pixel: u32,
        pixels_per_column: u32,
    },
    Im2colWide {
        common: EncodeCommon,
        lower_corner_width: i32,
        upper_corner_width: i32,
        channels_per_pixel: u32,
        pixels_per_column: u32,
        mode: u32,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelLaunch {
    /// Complete PTX module text; JIT-compiled by the driver for the worker's device unless
    /// `cubin` is given.
    pub ptx: String,
    /// The module compiled offline (ptxas) from `ptx`; empty: the driver JIT compiles `ptx`.
    /// Workers keep loaded modules by content, so a kernel loads once per worker.
    #[serde(
        default,
        with = "super::frame::bytes",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub cubin: Vec<u8>,
    /// The `.entry` name.
    pub kernel: String,
    /// A module sent separately ([`ToWorker::Run`]'s `modules`), by key, when `ptx` and
    /// `cubin` are empty; 0 otherwise.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub module: u64,
    pub dims: LaunchDims,
    /// Kernel parameters in declaration order.
    #[serde(default)]
    pub params: Vec<KernelParam>,
    /// `CU_JIT_OPTIMIZATION_LEVEL` when the driver JIT compiles `ptx` (`None`: its default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jit_level: Option<u8>,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// [`ToWorker::Run`] over borrowed jobs: the same message without copying the jobs' buffers.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunRef<'a> {
    Run {
        jobs: Vec<&'a Job>,
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        modules: &'a [ModuleBytes],
    },
}

/// A compiled module sent to a worker once, for the launches that name it by `key`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleBytes {
    pub key: u64,
    #[serde(with = "super::frame::bytes")]
    pub cubin: Vec<u8>,
}

/// The module key of a cubin (distinct from the key of PTX with the same bytes).
pub fn module_key_of_cubin(cubin: &[u8]) -> u64 {
    ptxconform_core::hash::fnv1a64(cubin) ^ 0x9e37_79b9_7f4a_7c15
}

impl KernelLaunch {
    /// Identifies the module a worker loads for this launch: `module` if set, else the content
    /// hash of the cubin, else of the PTX.
    pub fn module_key(&self) -> u64 {
        if self.module != 0 {
            self.module
        } else if !self.cubin.is_empty() {
            module_key_of_cubin(&self.cubin)
        } else {
            // The same PTX JIT-compiled at another level is another module.
            ptxconform_core::hash::fnv1a64(self.ptx.as_bytes())
                ^ u64::from(self.jit_level.unwrap_or(0xff))
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KernelParam {
    /// A 64-bit device address.
    Pointer(Address),
    U32(u32),
    U64(u64),
    /// The 128-byte map produced by `tensor_maps[i]`, passed by value (`.param .align 64 .b8 [128]`).
    TensorMap(usize),
    /// The maps `tensor_maps[first..first + count]` back to back, zero-padded to `slots` maps
    /// (`.param .align 64 .b8 [128 * slots]`): the per-instance maps of a batched launch.
    TensorMapArray {
        first: usize,
        count: usize,
        slots: usize,
    },
    /// Arbitrary bytes, for parameter kinds not covered above.
    Bytes(#[serde(with = "super::frame::bytes")] Vec<u8>),
}

/// What happened to a job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Kernel (if any) completed; `read_back` holds the requested buffers.
    Ok,
    /// A sticky device error. Reported only after the job trapped when run alone in a fresh
    /// worker (see `Supervisor`).
    Trap { kind: TrapKind, code: i32 },
    /// The driver's JIT rejected the PTX.
    JitError { error: DriverError, log: String },
    /// A non-sticky error from the launch path (function lookup, attribute, launch, sync).
    LaunchError { error: DriverError },
    /// The job itself is malformed or could not be set up (bad index, alloc failure). No kernel
    /// ran.
    Setup { message: String },
    /// A kernel parameter names `tensor_maps[map]`, whose encoding failed (the reason is that
    /// map's [`EncodeOutcome::Err`]). No kernel ran. Apart from `Setup`: a refused map is a fact
    /// about the program the job stands for, not a harness failure.
    MapNotEncoded { map: usize },
    /// The host watchdog killed the worker while this job ran alone.
    Timeout { after_ms: u64 },
    /// The worker process died while this job ran alone, without reporting a result.
    WorkerCrashed { detail: String },
}

impl Outcome {
    /// Whether the worker must stop after reporting this (its CUDA context is unusable).
    pub fn poisons_context(&self) -> bool {
        matches!(self, Outcome::Trap { .. })
    }
}

/// Result of one `tensor_maps[i]` request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EncodeOutcome {
    Ok(#[serde(with = "super::frame::bytes")] Vec<u8>),
    Err(EncodeError),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadBack {
    pub index: usize,
    #[serde(with = "super::frame::bytes")]
    pub data: Vec<u8>,
    /// For a buffer given by pieces: where `data`'s bytes lie, the blocks that differ from the
    /// buffer's [`BufferSpec::image`]. Else empty, and `data` is the whole buffer.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        with = "super::packed::pieces"
    )]
    pub pieces: Vec<Piece>,
}

impl ReadBack {
    /// A whole buffer's bytes.
    pub fn whole(index: usize, data: Vec<u8>) -> ReadBack {
        ReadBack {
            index,
            data,
            pieces: vec![],
        }
    }

    /// The whole of buffer `spec` as read back.
    pub fn whole_of(&self, spec: &BufferSpec) -> Result<std::borrow::Cow<'_, [u8]>, String> {
        if spec.pieces.is_empty() {
            return Ok(std::borrow::Cow::Borrowed(&self.data));
        }
        let mut image = spec.image()?;
        place(&mut image, &self.data, &self.pieces)?;
        Ok(std::borrow::Cow::Owned(image))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobResult {
    pub id: u64,
    pub outcome: Outcome,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        with = "super::packed::encode_outcomes"
    )]
    pub tensor_maps: Vec<EncodeOutcome>,
    #[serde(default)]
    pub read_back: Vec<ReadBack>,
    /// JIT info log (warnings), empty when none.
    #[serde(default)]
    pub jit_info_log: String,
    /// Wall time of the job inside the worker, microseconds.
    #[serde(default)]
    pub wall_us: u64,
    /// Where that time went.
    #[serde(default)]
    pub phases: Phases,
}

impl std::ops::AddAssign for Phases {
    fn add_assign(&mut self, o: Phases) {
        self.setup_us += o.setup_us;
        self.upload_us += o.upload_us;
        self.module_us += o.module_us;
        self.kernel_us += o.kernel_us;
        self.read_back_us += o.read_back_us;
    }
}

/// Where a job's time went inside the worker, microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Phases {
    /// Allocation, host images, address patches, tensor-map encoding.
    pub setup_us: u64,
    pub upload_us: u64,
    /// Module load (cached per worker) and JIT when no cubin is given.
    pub module_us: u64,
    /// Launch and synchronisation.
    pub kernel_us: u64,
    pub read_back_us: u64,
}

impl JobResult {
    pub fn bare(id: u64, outcome: Outcome) -> JobResult {
        JobResult {
            id,
            outcome,
            tensor_maps: vec![],
            read_back: vec![],
            jit_info_log: String::new(),
            wall_us: 0,
            phases: Phases::default(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToWorker {
    /// Run these jobs in order; answer `Started`/`Done` per job, then `BatchDone`. `modules`:
    /// compiled modules the jobs name by key ([`KernelLaunch::module`]) that the worker has
    /// not been sent before; it keeps them for later requests.
    Run {
        jobs: Vec<Job>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        modules: Vec<ModuleBytes>,
    },
    /// Exit cleanly.
    Shutdown,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FromWorker {
    /// First line after start-up: the context is ready. `shared`: the worker mapped the
    /// supervisor's arena ([`super::arena`]) and takes payloads from it.
    Ready {
        device: DeviceInfo,
        #[serde(default)]
        shared: bool,
    },
    /// Start-up failed (no driver, no device, context creation failed); the worker exits.
    InitFailed {
        message: String,
    },
    Started {
        id: u64,
    },
    Done {
        result: Box<JobResult>,
    },
    BatchDone,
}

impl FromWorker {
    /// The message as a frame on the worker's stdout ([`super::frame`]).
    pub fn to_frame(&self) -> Vec<u8> {
        self.to_frame_via(None)
    }

    /// [`FromWorker::to_frame`], with its payloads in the arena's `shared` half if they fit.
    pub fn to_frame_via(&self, shared: Option<&mut super::arena::Outbox>) -> Vec<u8> {
        super::frame::encode_via(LINE_PREFIX, self, shared)
    }

    /// `None` for lines that are not protocol lines; `Some(Err)` for corrupt protocol lines.
    /// Text before the prefix is ignored: another writer may have left a line unterminated.
    pub fn parse_frame(f: super::frame::Frame) -> Option<Result<FromWorker, String>> {
        let body = &f.line[f.line.find(LINE_PREFIX)? + LINE_PREFIX.len()..];
        Some(super::frame::decode(body, f.blobs).map_err(|e| format!("bad worker line: {e}")))
    }

    /// [`FromWorker::parse_frame`] of a line without payloads.
    pub fn parse_line(line: &str) -> Option<Result<FromWorker, String>> {
        Self::parse_frame(super::frame::Frame {
            line: line.to_string(),
            blobs: vec![],
        })
    }
}

#[cfg(test)]
mod tests;
