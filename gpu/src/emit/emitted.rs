//! What emission gives the host: the kernel's PTX and everything needed to run an instance of
//! it (parameter block, shared image, dump layout, launch shape, tensor maps), and the linking of
//! several shapes' kernels into one module.

use super::dump::pb;
use super::{tmap_slots, DumpLayout};
use ptxconform_reference::target::{PtxVersion, Target};
use std::ops::Range;

/// Launch dimensions of a case kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchDims {
    pub grid: [u32; 3],
    pub cluster: [u32; 3],
    pub block: [u32; 3],
}

/// A tensor map the host encodes and passes in the `tmaps` parameter (`param` names its slot).
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMapParam {
    pub param: String,
    pub name: String,
    /// Global region whose base is the tensor's global address.
    pub global: String,
    /// Global region index (the `pblock` slot `pb::HEADER + global_index` holds its base).
    pub global_index: usize,
    /// The encode parameters (`globalAddress` is the region's base, set by the host).
    pub map: ptxconform_reference::sem::tensor::TensorMapParams,
}

/// PTX lines (1-based, inclusive start, exclusive end) of one program step. The first step of a
/// guard run ([`super::Guards`]) holds the barrier before the run and its guard, the last the
/// run's skip label; under [`super::Guards::PerStep`] every step is a run of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepLines {
    pub step: usize,
    pub lines: Range<usize>,
}

/// The emitted program of a case and everything the host needs to run it.
#[derive(Clone, Debug)]
pub struct Emitted {
    /// Shared: a batch's instances of one program carry the same text.
    pub ptx: std::sync::Arc<str>,
    /// FNV-1a hash of `ptx`: equal keys, one compiled module.
    pub shape_key: u64,
    pub entry: &'static str,
    pub target: Target,
    pub version: PtxVersion,
    /// The parameter block; global-base and `SHARED_INIT` slots are 0 until the host sets them.
    pub pblock: Vec<u64>,
    /// Number of global regions (slots `pb::HEADER..pb::HEADER + globals`).
    pub globals: usize,
    pub dump_layout: DumpLayout,
    pub dyn_smem_bytes: u64,
    /// Initial bytes of every CTA's shared image (regions' `init`, zero elsewhere and in mbarriers).
    pub shared_init: Vec<u8>,
    pub launch: LaunchDims,
    pub tensor_maps: Vec<TensorMapParam>,
    pub step_map: Vec<StepLines>,
}

impl Emitted {
    pub fn set_global_base(&mut self, region: usize, addr: u64) {
        if region < self.globals {
            self.pblock[pb::HEADER + region] = addr;
        }
    }
    pub fn set_shared_init(&mut self, addr: u64) {
        self.pblock[pb::SHARED_INIT] = addr;
    }
    /// Whether the pinned ptxas / driver can take the program at all: a case whose instructions
    /// need a newer PTX ISA than [`PtxVersion::MAX_SUPPORTED`] runs on the reference only.
    pub fn assemblable(&self) -> bool {
        self.version <= PtxVersion::MAX_SUPPORTED
    }

    /// The module text before the `.entry` (directives and module-scope declarations): shapes
    /// with the same preamble can share a module ([`link`]).
    pub fn preamble(&self) -> &str {
        &self.ptx[..self.entry_at()]
    }

    fn entry_at(&self) -> usize {
        self.ptx.find("\n.visible .entry ").map_or(0, |i| i + 1)
    }

    /// The kernel's entry name inside a linked module (unique per shape).
    pub fn linked_entry(&self) -> String {
        format!("{}_{:016x}", self.entry, self.shape_key)
    }

    /// How many instances of this kernel one launch can hold (tensor-map slots, grid extent).
    pub fn max_instances(&self) -> usize {
        let by_grid = (i32::MAX as u32 / self.launch.grid[0].max(1)) as usize;
        match self.tensor_maps.len() {
            0 => by_grid,
            m => (tmap_slots(self.version) / m).min(by_grid),
        }
    }

    /// The pblock as little-endian bytes, for upload.
    pub fn pblock_bytes(&self) -> Vec<u8> {
        self.pblock.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

/// One module holding the kernels of several shapes of one [`Emitted::preamble`], each entry
/// renamed to its [`Emitted::linked_entry`]: one ptxas run and one module load serve them all.
pub fn link(ems: &[&Emitted]) -> String {
    let mut out = ems.first().map_or("", |e| e.preamble()).to_string();
    for em in ems {
        let body = &em.ptx[em.entry_at()..];
        let from = format!(".entry {}(", em.entry);
        out.push_str(&body.replacen(&from, &format!(".entry {}(", em.linked_entry()), 1));
        out.push('\n');
    }
    out
}
