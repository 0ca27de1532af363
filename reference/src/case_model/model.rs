//! The YAML case schema. A file holds one case (a mapping) or many (a sequence of mappings).
//!
//! ```yaml
//! name: cp_async.ca.4
//! target: sm_90a                 # the program's .target (also the least GPU it runs on)
//! launch: { grid: [1,1,1], cluster: [1,1,1], threads: 32 }
//! memory:
//!   global:
//!     - { name: src, size: 64, init: { pattern: 7 } }
//!     - { name: out, size: 64 }                 # default init: fill 0
//!   shared:                                     # per CTA, same layout in every CTA
//!     - { name: buf, size: 64, align: 16, init: { fill: 0xAA } }
//!   mbarriers: [ { name: bar } ]                # 8-byte objects in shared memory of every CTA
//! program:
//!   - ptx: cp.async.ca.shared.global [buf], [src+4], 4
//!   - ptx: cp.async.commit_group
//!   - ptx: cp.async.wait_group 0
//! check: [buf]                                  # default: every region
//! ```
//!
//! Operands name regions: `[buf+16]` is 16 bytes into `buf` (of the executing CTA for shared
//! memory), `[bar]` an mbarrier. Register operands are immediates or names bound in `params`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use crate::target::Target;

/// One conformance case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// The case's name, unique within its file (runs report cases by file and name).
    pub name: String,
    /// Free text: what the case shows.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The `.target` the program is assembled for; the GPU must support it to run the case.
    pub target: Target,
    /// PTX ISA version of the program; default: the least the program's instructions need.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptx_version: Option<String>,
    /// The launch shape: grid, cluster and threads per CTA.
    #[serde(default)]
    pub launch: Launch,
    /// The regions, mbarriers, tensor maps and Tensor Memory the program uses.
    #[serde(default)]
    pub memory: Memory,
    /// Named register values (`.b32` unless written as `{ value: .., type: b64 }`); the harness
    /// passes them through the per-case parameter block.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, Param>,
    /// The steps, run in the order listed.
    pub program: Vec<Step>,
    /// Regions (and mbarriers) compared against hardware; empty = all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub check: Vec<String>,
    /// What the case asserts beyond the reference's own verdict (e.g. that a case is UB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
    /// Recorded hardware observations (CI replays the reference against them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observed: Vec<Observation>,
    /// The parse of its steps, once made: never written, and a clone starts without it.
    #[serde(skip)]
    #[schemars(skip)]
    pub parsed: super::names::StepsMemo,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
/// The launch shape.
pub struct Launch {
    /// CTAs in x, y, z.
    #[serde(default = "one3")]
    pub grid: [u32; 3],
    /// CTAs of a cluster in x, y, z (each must divide the grid's).
    #[serde(default = "one3")]
    pub cluster: [u32; 3],
    /// Threads per CTA.
    #[serde(default = "warp")]
    pub threads: u32,
}

fn one3() -> [u32; 3] {
    [1, 1, 1]
}
fn warp() -> u32 {
    32
}

impl Default for Launch {
    fn default() -> Self {
        Launch {
            grid: one3(),
            cluster: one3(),
            threads: warp(),
        }
    }
}

impl Launch {
    pub fn ctas(&self) -> u32 {
        self.grid.iter().product()
    }
    pub fn cluster_size(&self) -> u32 {
        self.cluster.iter().product()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
/// What the program's operands name, declared by name.
pub struct Memory {
    /// Regions of global memory.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub global: Vec<Region>,
    /// Regions of shared memory, the same layout in every CTA.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared: Vec<Region>,
    /// mbarrier objects in every CTA's shared memory.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mbarriers: Vec<MbarrierDecl>,
    /// Tensor maps (for `cp.async.bulk.tensor`), each over a global region.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tensor_maps: Vec<TensorMapDecl>,
    /// Tensor Memory allocations (for `tcgen05`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tmem: Vec<TmemDecl>,
    /// Bytes of dynamic shared memory each CTA is launched with: at least what the shared
    /// regions, mbarriers and Tensor Memory words take (the default). Silicon runs a shared access
    /// past its region that stays inside the allocation; one that leaves it traps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_allocation: Option<u64>,
}

/// A byte region in global memory or in every CTA's shared memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Region {
    /// The name operands use (`[buf+16]`).
    pub name: String,
    /// Bytes.
    pub size: u64,
    /// Alignment of the region's start (bytes, power of two). Default 128 (enough for every
    /// bulk / tensor copy except 1024-byte swizzle atoms, which need `align: 1024`).
    #[serde(default = "default_align")]
    pub align: u64,
    /// Extra offset added after aligning, to place a region deliberately off alignment.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub misalign: u64,
    /// Initial contents (default: every byte 0).
    #[serde(default)]
    pub init: Init,
}

fn default_align() -> u64 {
    128
}
fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Initial contents of a region.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Init {
    /// Every byte the same.
    Fill(u8),
    /// A deterministic pseudo-random pattern from this seed (splitmix64; see `case::init::pattern`).
    Pattern(u64),
    /// Explicit bytes; the rest of the region is zero.
    Bytes(Vec<u8>),
    /// Explicit bytes as hex text (two digits a byte, whitespace skipped); the rest of the
    /// region is zero. One YAML scalar however long: the form for megabytes of data.
    Hex(
        #[serde(with = "crate::hex::bytes")]
        #[schemars(with = "crate::hex::schema::Hex")]
        Vec<u8>,
    ),
    /// Procedural contents: byte `i` is a keyed hash of (`KEY`, `i`) (see `case::init::hash`),
    /// so a tensor of any size needs no data and any byte can be computed alone.
    Hash(u64),
    /// Little-endian elements of a type, e.g. `{ values: { type: f32, data: [1.0, -0.0] } }`.
    Values(TypedValues),
}

impl Default for Init {
    fn default() -> Self {
        Init::Fill(0)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
/// Elements of a type, stored little-endian from the region's start.
pub struct TypedValues {
    /// The element type: `u8`..`u64`, `s8`..`s64`, `f16`, `bf16`, `f32`, `f64`.
    #[serde(rename = "type")]
    pub ty: String,
    /// The values, in order.
    #[schemars(with = "Vec<YamlFloat>")]
    pub data: Vec<f64>,
}

/// An mbarrier object (8 bytes, 8-byte aligned) in the shared memory of every CTA. It is
/// initialised by the program (`mbarrier.init`), not by the declaration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MbarrierDecl {
    /// The name operands use (`[bar]`).
    pub name: String,
}

/// A tensor map given by its `cuTensorMapEncode*` parameters (see `sem::tensor::tensormap`):
///
/// ```yaml
/// tensor_maps:
///   - name: tm
///     global: src                     # the global region holding the tensor
///     map: { encode: tiled, tensor_data_type: float32, global_dim: [64, 8], global_strides: [256],
///            box_dim: [16, 4], swizzle: 128b }
/// ```
///
/// `map.global_address` must be left out: the executor puts the region's address there (so the
/// region's `align` / `misalign` decide the address rules). A map the validator rejects is a
/// classified outcome of the first instruction that uses it (`tensormap.encode_rejected:<rule>`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TensorMapDecl {
    /// The name tensor operands use (`[tm, {x, y}]`).
    pub name: String,
    /// The global region holding the tensor.
    pub global: String,
    /// The encode parameters (typed: unknown fields and bad enum values are load errors).
    pub map: crate::tensor_map::TensorMapParams,
}

/// A Tensor Memory allocation (`tcgen05.alloc`), in columns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TmemDecl {
    /// The name tcgen05 operands use.
    pub name: String,
    /// Columns allocated (a power of two, 32 to 512).
    pub columns: u32,
}

/// A named register value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
// `expecting`: serde's own message for an untagged enum names the Rust type.
#[serde(
    untagged,
    expecting = "expected an integer, or `{ value: INTEGER, type: REGISTER-TYPE }`"
)]
pub enum Param {
    /// A `.b32` value.
    Int(i64),
    /// A value of a register type.
    Typed {
        /// The value.
        value: i64,
        /// The register type: `b32` or `b64`.
        #[serde(rename = "type")]
        ty: String,
    },
    /// The `.shared::cluster` address of shared region / mbarrier `mapa` in the CTA of cluster
    /// rank `cta`, as PTX `mapa` gives it (a 32-bit register). Must stay after `Typed`: the enum
    /// is untagged and tried in order.
    Mapa {
        /// The shared region or mbarrier.
        mapa: String,
        /// The cluster rank of the CTA whose copy is addressed.
        cta: u32,
    },
}

/// Who executes a step: default CTA 0, thread 0. `cta: all` runs it in every CTA.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(
    untagged,
    expecting = "expected a CTA index, `all`, or a list of CTA indices"
)]
pub enum Ctas {
    /// One CTA (its linear index in the grid).
    One(u32),
    /// `all`: every CTA, in order.
    Named(AllCtas),
    /// These CTAs, in the order listed.
    List(Vec<u32>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
/// Every CTA of the grid.
pub enum AllCtas {
    /// Every CTA.
    All,
}

impl Default for Ctas {
    fn default() -> Self {
        Ctas::One(0)
    }
}

/// One step of the program. Steps run in the order listed; the harness separates steps run by
/// different threads or CTAs with a CTA or cluster barrier, so the order is the same on silicon,
/// except between the steps of one `concurrent` group.
/// Asynchronous operations started by a step still complete only through their mechanism.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
// `flatten` of the op loses `deny_unknown_fields` in the schema; this restores it.
#[schemars(extend("unevaluatedProperties" = false))]
pub struct Step {
    /// The CTA(s) that run the step: an index, a list, or `all` (default CTA 0).
    #[serde(default, skip_serializing_if = "is_default_ctas")]
    pub cta: Ctas,
    /// The thread (index within its CTA) that runs the step.
    #[serde(default, skip_serializing_if = "is_zero32")]
    pub thread: u32,
    /// Names the concurrent group the step belongs to: consecutive steps with the same name run
    /// at once (no barrier between them), so the reference allows every interleaving of them
    /// that keeps each thread's own steps in order (A-EXEC-CONCURRENT-INTERLEAVINGS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrent: Option<String>,
    /// What the step does: one of `ptx`, `wait_parity`, `store`.
    #[serde(flatten)]
    pub op: StepOp,
}

fn is_default_ctas(c: &Ctas) -> bool {
    *c == Ctas::One(0)
}
fn is_zero32(v: &u32) -> bool {
    *v == 0
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
/// What a step does.
pub enum StepOp {
    /// One PTX instruction of the modelled families, parsed by `ptx::Statement`.
    Ptx(String),
    /// Spin on `mbarrier.try_wait.parity` until the phase with this parity completes (bounded by
    /// a timeout on silicon; a phase that can never complete is a classified outcome).
    WaitParity {
        /// The mbarrier waited on.
        mbar: String,
        /// The parity (0 or 1) of the phase waited for.
        parity: u32,
    },
    /// A plain (generic-proxy) store of bytes into a region, e.g. to dirty a buffer mid-program.
    Store {
        /// The region stored into (global, or shared of the executing CTA).
        at: String,
        /// The bytes stored, from the region's first byte.
        bytes: Vec<u8>,
    },
}

impl StepOp {
    /// The instruction's text of a `ptx:` step; `None` for a step of another kind.
    pub fn ptx(&self) -> Option<&str> {
        match self {
            StepOp::Ptx(text) => Some(text),
            _ => None,
        }
    }
}

/// What the case asserts about its outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Expect {
    /// The reference must find the case well defined and the hardware must match it.
    Pass,
    /// The reference must classify the case as undefined by this rule.
    Undefined(String),
    /// The program must be illegal on its target by this restriction (as `ptxconform check` and
    /// an illegal case's result name it, e.g. `cp.async.bulk` or "`.cg` requires cp-size 16"):
    /// ptxas refuses it, so it never runs. Any step breaking it will do.
    Illegal(String),
    /// The hardware is expected to trap (the reference classifies the UB that makes it trap).
    Trap,
    /// The hardware is expected to time out in a wait.
    Timeout,
    /// The driver refuses a tensor map of the case, so no kernel runs: the reference's driver
    /// model (`sem::tensor::predict_driver`) must refuse one, and a hardware run must end
    /// `rejected`.
    DriverRejects,
    /// The reference must find the case well defined and leave these bytes at the end (no GPU
    /// needed): region name (`name@ctaN` for shared memory) → expected bytes. A byte the model
    /// leaves uncertain meets an expected value only if that is its single allowed value.
    Bytes(BTreeMap<String, crate::hex::Pattern>),
}

/// A region as observations, reports and `expect: { bytes: .. }` name it: a global region by its
/// name, a shared region (also an mbarrier or Tensor Memory) of CTA `cta` as `name@ctaN`.
pub fn region_key(name: &str, cta: usize) -> String {
    format!("{name}@cta{cta}")
}

/// The inverse of [`region_key`]: the name, and the CTA text after `@cta` for a shared region.
pub fn split_region_key(key: &str) -> (&str, Option<&str>) {
    match key.rsplit_once("@cta") {
        Some((name, cta)) => (name, Some(cta)),
        None => (key, None),
    }
}

/// A recorded hardware run of a case: what the device showed, typed. A live run produces one for
/// every case it executes and judges it ([`Observation`] is all the judge sees of the hardware),
/// so replaying a recorded one checks exactly what the live run checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Observation {
    /// The GPU's name, as the driver gives it.
    pub device: String,
    /// The driver's CUDA version (`CUDA 13.0`).
    pub driver: String,
    /// The day of the run (`"2026-11-21"`).
    pub date: String,
    /// The build that made the kernel (`ptxas-13.0-O3`; absent in recordings that predate it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<crate::build::Codegen>,
    /// How the run ended.
    pub outcome: Ending,
    /// Every global region by name and shared region as `name@ctaN`, the bytes read back (hex).
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        with = "crate::hex::bytes_map"
    )]
    #[schemars(with = "BTreeMap<String, crate::hex::schema::Hex>")]
    pub regions: BTreeMap<String, Vec<u8>>,
    /// Regions of which only a range was read back (named as in `regions`, and not also there):
    /// the judge compares that range alone and says the rest was not observed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub partial: BTreeMap<String, PartialBytes>,
    /// What `mbarrier.test_wait.parity` said of each mbarrier (`name@ctaN`) at the end.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mbarriers: BTreeMap<String, Parity>,
    /// Checked Tensor Memory (`name@ctaN`): 32-bit cells, lane-major (hex of little-endian words).
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        with = "crate::hex::words_map"
    )]
    #[schemars(with = "BTreeMap<String, crate::hex::schema::Hex>")]
    pub tmem: BTreeMap<String, Vec<u32>>,
    /// Global regions whose canary bytes (around the region) were overwritten.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub canaries_broken: Vec<String>,
    /// CTAs that did not reach the end of the program.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_reached: Vec<u32>,
}

/// Bytes read back from part of a region: `{ offset: 4096, bytes: "0102.." }`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PartialBytes {
    /// The region offset of the first byte.
    pub offset: u64,
    /// The bytes from `offset` on (hex).
    #[serde(with = "crate::hex::bytes")]
    #[schemars(with = "crate::hex::schema::Hex")]
    pub bytes: Vec<u8>,
}

impl PartialBytes {
    /// The region offsets covered, or `None` past `u64`.
    pub fn range(&self) -> Option<std::ops::Range<u64>> {
        let end = self.offset.checked_add(self.bytes.len() as u64)?;
        Some(self.offset..end)
    }
}

/// How a hardware run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Ending {
    /// Every CTA ran to the end; the observation's state was read back.
    Completed,
    /// These wait steps hit the kernel's own bound (the CTAs finished; the state was read back).
    /// Empty: which steps was not recorded.
    Timeout(Vec<usize>),
    /// The launch trapped with a sticky CUDA error (its kind, e.g. `IllegalInstruction`, and
    /// code); nothing read back.
    Trap {
        /// The CUDA error's kind (named as recorded: `IllegalInstruction`, `Other(800)`).
        kind: TrapKind,
        /// The CUDA error's code.
        code: i32,
    },
    /// The host watchdog killed the run after this many milliseconds; nothing read back.
    Watchdog(u64),
    /// The driver refused a tensor map of the case (its message); no kernel ran.
    Rejected(String),
}

/// The sticky CUDA error a trapped launch reports (codes of `cudaError_enum`, CUDA 13.0): what
/// predictions and the judge decide on. Written in case files by name, as the harness names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TrapKind {
    /// 700: an access outside any allocation (e.g. past the CTA's shared memory).
    IllegalAddress,
    /// 702.
    LaunchTimeout,
    /// 710.
    Assert,
    /// 714.
    HardwareStackError,
    /// 715: the trap of most instruction-level violations on sm_90.
    IllegalInstruction,
    /// 716.
    MisalignedAddress,
    /// 717.
    InvalidAddressSpace,
    /// 718.
    InvalidPc,
    /// 719: an unspecified launch failure (the mbarrier counters' traps).
    LaunchFailed,
    /// 721.
    TensorMemoryLeak,
    /// Any other code.
    Other(i32),
}

impl TrapKind {
    const NAMED: [(i32, TrapKind, &'static str); 10] = [
        (700, TrapKind::IllegalAddress, "IllegalAddress"),
        (702, TrapKind::LaunchTimeout, "LaunchTimeout"),
        (710, TrapKind::Assert, "Assert"),
        (714, TrapKind::HardwareStackError, "HardwareStackError"),
        (715, TrapKind::IllegalInstruction, "IllegalInstruction"),
        (716, TrapKind::MisalignedAddress, "MisalignedAddress"),
        (717, TrapKind::InvalidAddressSpace, "InvalidAddressSpace"),
        (718, TrapKind::InvalidPc, "InvalidPc"),
        (719, TrapKind::LaunchFailed, "LaunchFailed"),
        (721, TrapKind::TensorMemoryLeak, "TensorMemoryLeak"),
    ];

    /// The kind of CUDA error `code`.
    pub fn from_code(code: i32) -> TrapKind {
        Self::NAMED
            .iter()
            .find(|(c, _, _)| *c == code)
            .map_or(TrapKind::Other(code), |(_, k, _)| *k)
    }

    /// Its CUDA error code.
    pub fn code(self) -> i32 {
        match self {
            TrapKind::Other(c) => c,
            k => Self::NAMED
                .iter()
                .find(|(_, n, _)| *n == k)
                .map_or(0, |(c, _, _)| *c),
        }
    }
}

impl fmt::Display for TrapKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrapKind::Other(c) => write!(f, "Other({c})"),
            k => {
                let name = Self::NAMED.iter().find(|(_, n, _)| n == k).map(|e| e.2);
                f.write_str(name.unwrap_or("Other"))
            }
        }
    }
}

impl FromStr for TrapKind {
    type Err = String;
    fn from_str(s: &str) -> Result<TrapKind, String> {
        if let Some((_, k, _)) = Self::NAMED.iter().find(|(_, _, n)| *n == s) {
            return Ok(*k);
        }
        s.strip_prefix("Other(")
            .and_then(|r| r.strip_suffix(')'))
            .and_then(|c| c.parse().ok())
            .map(TrapKind::Other)
            .ok_or_else(|| format!("unknown trap kind `{s}` (a CUDA error name such as IllegalInstruction, or Other(CODE))"))
    }
}

impl Serialize for TrapKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TrapKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TrapKind, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for TrapKind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TrapKind".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^(IllegalAddress|LaunchTimeout|Assert|HardwareStackError|IllegalInstruction|MisalignedAddress|InvalidAddressSpace|InvalidPc|LaunchFailed|TensorMemoryLeak|Other\\(-?[0-9]+\\))$",
            "description": "The CUDA error a trapped launch reported, by name (`Other(CODE)` for the rest)."
        })
    }
}

impl Ending {
    /// A trap with CUDA error `code`.
    pub fn trap(code: i32) -> Ending {
        Ending::Trap {
            kind: TrapKind::from_code(code),
            code,
        }
    }

    /// Did the device's state come back (regions, mbarriers, Tensor Memory)?
    pub fn read_back(&self) -> bool {
        matches!(self, Ending::Completed | Ending::Timeout(_))
    }
}

/// The two answers of `mbarrier.test_wait.parity` at the end of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Parity {
    /// `mbarrier.test_wait.parity` with parity 0 succeeded.
    pub parity0_done: bool,
    /// `mbarrier.test_wait.parity` with parity 1 succeeded.
    pub parity1_done: bool,
}

/// `target` is written as its name (`sm_90a`); see [`Target`]'s `FromStr`.
impl JsonSchema for Target {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Target".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^sm_[0-9]+[af]?$",
            "description": "A PTX target: `sm_80`, `sm_90`, `sm_90a`, `sm_100a`, `sm_100f`, ... (`a`: that architecture only, `f`: its family)."
        })
    }
}

/// A float as YAML writes it: a number, or one of YAML's non-finite scalars (JSON has none).
struct YamlFloat;

impl JsonSchema for YamlFloat {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "YamlFloat".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "anyOf": [
                { "type": "number" },
                { "enum": [".inf", "+.inf", "-.inf", ".nan", ".Inf", "+.Inf", "-.Inf", ".NaN",
                           ".INF", "+.INF", "-.INF", ".NAN"] }
            ],
            "description": "A number, or a YAML non-finite float (`.inf`, `-.inf`, `.nan`)."
        })
    }
}

/// The JSON Schema of a case file (one case, or a sequence of cases), generated from these
/// types: what `ptxconform schema` prints and `docs/case.schema.json` holds. The root chooses by
/// the document's type (`if`/`then`/`else`, not `anyOf`) so a validator's errors point into the
/// case rather than at the root.
pub fn json_schema() -> serde_json::Value {
    let mut case = schemars::schema_for!(Case).to_value();
    let case = case.as_object_mut().expect("a schema object");
    let dialect = case.remove("$schema");
    let mut defs = case.remove("$defs").unwrap_or_default();
    defs["Case"] = serde_json::Value::Object(case.clone());
    serde_json::json!({
        "$schema": dialect,
        "title": "ptxconform case file",
        "description": "One case (a mapping) or a sequence of cases. See docs/case-format.md.",
        "if": { "type": "object" },
        "then": { "$ref": "#/$defs/Case" },
        "else": { "type": "array", "items": { "$ref": "#/$defs/Case" } },
        "$defs": defs
    })
}
