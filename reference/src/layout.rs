//! Where a case's named regions live: global buffers (each its own allocation, surrounded by
//! canary bytes on the GPU) and the per-CTA shared-memory image (shared regions and mbarrier
//! objects at fixed offsets). The reference and the GPU harness both use this one layout, so an
//! address such as `[buf+16]` means the same byte in both.

use crate::case_model::{Case, Region};
use std::collections::BTreeMap;
use std::fmt;

/// Bytes of canary placed before and after every global buffer on the GPU.
pub const CANARY: u64 = 256;
/// The canary byte value.
pub const CANARY_BYTE: u8 = 0xCD;
/// Size and alignment of an mbarrier object (§9.7.13.15.1: 8 bytes, 8-byte aligned).
pub const MBARRIER_BYTES: u64 = 8;
/// The shared word holding a Tensor Memory address (`tcgen05.alloc` writes a `.b32`, §9.7.16.7.1).
pub const TMEM_WORD_BYTES: u64 = 4;

/// What a name refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Global region number `index` (its own buffer).
    Global { index: usize, size: u64 },
    /// A shared region at `offset` in every CTA's shared image.
    Shared { offset: u64, size: u64 },
    /// An mbarrier object at `offset` in every CTA's shared image.
    Mbarrier { offset: u64 },
}

impl Place {
    pub fn size(&self) -> u64 {
        match *self {
            Place::Global { size, .. } | Place::Shared { size, .. } => size,
            Place::Mbarrier { .. } => MBARRIER_BYTES,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutError(pub String);

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The resolved layout of a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub places: BTreeMap<String, Place>,
    /// Global regions in declaration order (index = `Place::Global::index`).
    pub globals: Vec<String>,
    /// Size of each CTA's shared image (what is initialized and read back).
    pub shared_bytes: u64,
    /// Bytes of dynamic shared memory each CTA is launched with (`memory.shared_allocation`, at
    /// least `shared_bytes`; the emitter allocates exactly this).
    pub shared_allocation: u64,
    /// Alignment the shared image base must have for the offsets to keep their alignment.
    pub shared_base_align: u64,
}

fn align_up(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

/// Where a shared region goes after `at` bytes: its alignment, plus `misalign`.
fn shared_offset(at: u64, r: &Region) -> u64 {
    align_up(at, r.align) + r.misalign
}

/// Bytes the shared regions take, placed as [`Layout::of`] places them (valid regions: `align`
/// a power of two, see `check_region`).
pub fn shared_regions_end(regions: &[Region]) -> u64 {
    regions
        .iter()
        .fold(0, |at, r| shared_offset(at, r) + r.size)
}

impl Layout {
    /// Shared regions first in declaration order (each at its alignment plus `misalign`), then
    /// mbarriers, 8-byte aligned, then one 4-byte word per `memory.tmem` allocation.
    pub fn of(case: &Case) -> Result<Layout, LayoutError> {
        let mut places = BTreeMap::new();
        let mut insert = |name: &str, p: Place| -> Result<(), LayoutError> {
            if places.insert(name.to_string(), p).is_some() {
                return Err(LayoutError(format!("name `{name}` is declared twice")));
            }
            Ok(())
        };
        let mut globals = Vec::new();
        for (i, r) in case.memory.global.iter().enumerate() {
            check_region(r)?;
            insert(
                &r.name,
                Place::Global {
                    index: i,
                    size: r.size,
                },
            )?;
            globals.push(r.name.clone());
        }
        let mut at = 0u64;
        let mut base_align = 16u64;
        for r in &case.memory.shared {
            check_region(r)?;
            at = shared_offset(at, r);
            base_align = base_align.max(r.align);
            insert(
                &r.name,
                Place::Shared {
                    offset: at,
                    size: r.size,
                },
            )?;
            at += r.size;
        }
        for m in &case.memory.mbarriers {
            at = align_up(at, MBARRIER_BYTES);
            insert(&m.name, Place::Mbarrier { offset: at })?;
            at += MBARRIER_BYTES;
        }
        // A-EXEC-TCGEN05-WORD: a Tensor Memory allocation `t` is named by the shared word that
        // `tcgen05.alloc [t], n` writes its address into (§9.7.16.7.1); as a taddr operand the
        // name stands for the value of that word.
        for t in &case.memory.tmem {
            at = align_up(at, TMEM_WORD_BYTES);
            insert(
                &t.name,
                Place::Shared {
                    offset: at,
                    size: TMEM_WORD_BYTES,
                },
            )?;
            at += TMEM_WORD_BYTES;
        }
        for t in &case.memory.tensor_maps {
            insert(
                &t.name,
                Place::Global {
                    index: usize::MAX,
                    size: 128,
                },
            )
            .map_err(|e| LayoutError(e.0))?;
        }
        let shared_bytes = align_up(at.max(16), 16);
        let shared_allocation = match case.memory.shared_allocation {
            None => shared_bytes,
            Some(n) if n >= shared_bytes => n,
            Some(n) => {
                return Err(LayoutError(format!(
                    "shared_allocation {n} is less than the {shared_bytes} bytes the shared \
                     regions, mbarriers and Tensor Memory words take (rounded up to 16)"
                )))
            }
        };
        Ok(Layout {
            places,
            globals,
            shared_bytes,
            shared_allocation,
            shared_base_align: base_align,
        })
    }

    pub fn get(&self, name: &str) -> Option<Place> {
        self.places.get(name).copied()
    }
}

fn check_region(r: &Region) -> Result<(), LayoutError> {
    if r.size == 0 {
        return Err(LayoutError(format!("region `{}` has size 0", r.name)));
    }
    if !r.align.is_power_of_two() {
        return Err(LayoutError(format!(
            "region `{}`: align {} is not a power of two",
            r.name, r.align
        )));
    }
    if r.size > (1 << 32) {
        return Err(LayoutError(format!(
            "region `{}`: size {} is larger than 4 GiB",
            r.name, r.size
        )));
    }
    Ok(())
}
