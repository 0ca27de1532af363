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

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::target::Target;

/// One conformance case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The `.target` the program is assembled for; the GPU must support it to run the case.
    pub target: Target,
    /// PTX ISA version of the program; default: the least the program's instructions need.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptx_version: Option<String>,
    #[serde(default)]
    pub launch: Launch,
    #[serde(default)]
    pub memory: Memory,
    /// Named register values (`.b32` unless written as `{ value: .., type: b64 }`); the harness
    /// passes them through the per-case parameter block.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, Param>,
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
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Launch {
    #[serde(default = "one3")]
    pub grid: [u32; 3],
    #[serde(default = "one3")]
    pub cluster: [u32; 3],
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

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub global: Vec<Region>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared: Vec<Region>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mbarriers: Vec<MbarrierDecl>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tensor_maps: Vec<TensorMapDecl>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tmem: Vec<TmemDecl>,
}

/// A byte region in global memory or in every CTA's shared memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Region {
    pub name: String,
    pub size: u64,
    /// Alignment of the region's start (bytes, power of two). Default 128 (enough for every
    /// bulk / tensor copy except 1024-byte swizzle atoms, which need `align: 1024`).
    #[serde(default = "default_align")]
    pub align: u64,
    /// Extra offset added after aligning, to place a region deliberately off alignment.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub misalign: u64,
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Init {
    /// Every byte the same.
    Fill(u8),
    /// A deterministic pseudo-random pattern from this seed (splitmix64; see `case::init::pattern`).
    Pattern(u64),
    /// Explicit bytes; the rest of the region is zero.
    Bytes(Vec<u8>),
    /// Little-endian elements of a type, e.g. `{ values: { type: f32, data: [1.0, -0.0] } }`.
    Values(TypedValues),
}

impl Default for Init {
    fn default() -> Self {
        Init::Fill(0)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypedValues {
    #[serde(rename = "type")]
    pub ty: String,
    pub data: Vec<f64>,
}

/// An mbarrier object (8 bytes, 8-byte aligned) in the shared memory of every CTA. It is
/// initialised by the program (`mbarrier.init`), not by the declaration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MbarrierDecl {
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorMapDecl {
    pub name: String,
    /// The global region holding the tensor.
    pub global: String,
    /// The encode parameters (typed: unknown fields and bad enum values are load errors).
    pub map: crate::sem::tensor::TensorMapParams,
}

/// A Tensor Memory allocation (`tcgen05.alloc`), in columns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TmemDecl {
    pub name: String,
    pub columns: u32,
}

/// A named register value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Param {
    Int(i64),
    Typed {
        value: i64,
        #[serde(rename = "type")]
        ty: String,
    },
    /// The `.shared::cluster` address of shared region / mbarrier `mapa` in the CTA of cluster
    /// rank `cta`, as PTX `mapa` gives it (a 32-bit register). Must stay after `Typed`: the enum
    /// is untagged and tried in order.
    Mapa {
        mapa: String,
        cta: u32,
    },
}

/// Who executes a step: default CTA 0, thread 0. `cta: all` runs it in every CTA.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Ctas {
    One(u32),
    Named(AllCtas),
    List(Vec<u32>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AllCtas {
    All,
}

impl Default for Ctas {
    fn default() -> Self {
        Ctas::One(0)
    }
}

/// One step of the program. Steps run in the order listed; the harness separates steps run by
/// different threads or CTAs with a CTA or cluster barrier, so the order is the same on silicon.
/// Asynchronous operations started by a step still complete only through their mechanism.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(default, skip_serializing_if = "is_default_ctas")]
    pub cta: Ctas,
    #[serde(default, skip_serializing_if = "is_zero32")]
    pub thread: u32,
    #[serde(flatten)]
    pub op: StepOp,
}

fn is_default_ctas(c: &Ctas) -> bool {
    *c == Ctas::One(0)
}
fn is_zero32(v: &u32) -> bool {
    *v == 0
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum StepOp {
    /// One PTX instruction of the modelled families, parsed by `ptx::Statement`.
    Ptx(String),
    /// Spin on `mbarrier.try_wait.parity` until the phase with this parity completes (bounded by
    /// a timeout on silicon; a phase that can never complete is a classified outcome).
    WaitParity { mbar: String, parity: u32 },
    /// A plain (generic-proxy) store of bytes into a region, e.g. to dirty a buffer mid-program.
    Store { at: String, bytes: Vec<u8> },
}

/// What the case asserts about its outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Expect {
    /// The reference must find the case well defined and the hardware must match it.
    Pass,
    /// The reference must classify the case as undefined by this rule.
    Undefined(String),
    /// The hardware is expected to trap (the reference classifies the UB that makes it trap).
    Trap,
    /// The hardware is expected to time out in a wait.
    Timeout,
}

/// A recorded hardware run of a case: what the device showed, typed. A live run produces one for
/// every case it executes and judges it ([`Observation`] is all the judge sees of the hardware),
/// so replaying a recorded one checks exactly what the live run checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Observation {
    pub device: String,
    pub driver: String,
    pub date: String,
    pub outcome: Ending,
    /// Every global region by name and shared region as `name@ctaN`, the bytes read back (hex).
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        with = "crate::hex::bytes_map"
    )]
    pub regions: BTreeMap<String, Vec<u8>>,
    /// What `mbarrier.test_wait.parity` said of each mbarrier (`name@ctaN`) at the end.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mbarriers: BTreeMap<String, Parity>,
    /// Checked Tensor Memory (`name@ctaN`): 32-bit cells, lane-major (hex of little-endian words).
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        with = "crate::hex::words_map"
    )]
    pub tmem: BTreeMap<String, Vec<u32>>,
    /// Global regions whose canary bytes (around the region) were overwritten.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub canaries_broken: Vec<String>,
    /// CTAs that did not reach the end of the program.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_reached: Vec<u32>,
}

/// How a hardware run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Ending {
    /// Every CTA ran to the end; the observation's state was read back.
    Completed,
    /// These wait steps hit the kernel's own bound (the CTAs finished; the state was read back).
    /// Empty: which steps was not recorded.
    Timeout(Vec<usize>),
    /// The launch trapped with a sticky CUDA error (its kind, e.g. `IllegalInstruction`, and
    /// code); nothing read back.
    Trap { kind: String, code: i32 },
    /// The host watchdog killed the run after this many milliseconds; nothing read back.
    Watchdog(u64),
    /// The driver refused a tensor map of the case (its message); no kernel ran.
    Rejected(String),
}

impl Ending {
    /// Did the device's state come back (regions, mbarriers, Tensor Memory)?
    pub fn read_back(&self) -> bool {
        matches!(self, Ending::Completed | Ending::Timeout(_))
    }
}

/// The two answers of `mbarrier.test_wait.parity` at the end of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parity {
    pub parity0_done: bool,
    pub parity1_done: bool,
}
