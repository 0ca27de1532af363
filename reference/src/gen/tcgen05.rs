//! tcgen05 episodes (§9.7.16): Tensor Memory allocation, a shared-memory matrix copied into it
//! by `tcgen05.cp` through a shared-memory descriptor, completion by `tcgen05.commit` to an
//! mbarrier and a wait, then either `tcgen05.dealloc` (and sometimes
//! `tcgen05.relinquish_alloc_permit`) or a *checked* allocation that the harness epilogue reads and
//! frees (A-EXEC-TCGEN05-EPILOGUE in `sem::exec::tcgen05`).
//!
//! Each episode gets its own `memory.tmem` word `tmem{k}` and its own 1024-byte-aligned shared
//! source region `tsrc{k}` with a pattern; the descriptor is relative to the shared image
//! (A-EXEC-TCGEN05-DESC-RELATIVE), so the region's image offset is computed the way
//! `crate::layout` places shared regions (declaration order, each at its alignment).
//!
//! Kernel-wide rules the episodes keep ([`TcState`]): one `.cta_group` per kernel (§9.7.16.9.2);
//! per CTA, nCols never increases between allocations and nothing is allocated after
//! relinquish_alloc_permit (§9.7.16.7.1); allocations fit the 512 columns (first fit on nCols
//! boundaries, the model's `tmem::Assumption::AllocPlacementFirstFitAligned`); a checked
//! allocation exists in every CTA (the epilogue reads each CTA's) and needs 128 threads.
//!
//! The chunk has 23 bytes after the family byte; an episode needs more choices, so once they are
//! used up further choices come from a splitmix64 stream seeded by those bytes ([`Bits`]): the
//! episode still reads only its own chunk.

use super::bytes::Chunk;
use super::world::World;
use super::{store, Deviation, Intent, BLOCK};
use crate::case::model::{Init, Param, Region, TmemDecl};
use crate::ptx::common::CtaGroup;
use crate::ptx::operand::{Address, Value};
use crate::ptx::tcgen05::{
    Alloc, Commit, Cp, CpShape, Dealloc, FenceKind, Multicast, Relinquish, Shift, SrcFmt,
    Tcgen05Op, TmemRef,
};
use crate::ptx::Instruction;
use crate::sem::tcgen05::desc::{LboMode, RawDesc, SmemDesc, Swizzle};
use crate::sem::tcgen05::tmem::COLUMNS;
use crate::sem::ub;
use crate::target::{PtxVersion, Verdict};

/// Source region and Tensor Memory word names of episode `k`.
pub const TSRC: &str = "tsrc";
pub const TMEM: &str = "tmem";
/// Shared bytes kept free after a source region for later mbarriers and TMEM address words.
const SHARED_SLACK: u64 = 4096;

/// The Tensor Memory state of one CTA as the generator tracks it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct CtaTmem {
    /// Live allocations (start column, nCols).
    allocs: Vec<(u32, u32)>,
    /// nCols of the last allocation (§9.7.16.7.1: must not increase).
    last: Option<u32>,
    relinquished: bool,
}

impl CtaTmem {
    fn free(&self, start: u32, n: u32) -> bool {
        self.allocs
            .iter()
            .all(|&(s, m)| start + n <= s || s + m <= start)
    }
    /// Where an allocation of `n` columns goes (the model's first fit on `n` boundaries), if it is
    /// allowed and fits.
    fn place(&self, n: u32) -> Option<u32> {
        if self.relinquished || self.last.is_some_and(|l| n > l) {
            return None;
        }
        (0..COLUMNS).step_by(n as usize).find(|&s| self.free(s, n))
    }
    fn is_allocated(&self, col: u32) -> bool {
        self.allocs.iter().any(|&(s, m)| (s..s + m).contains(&col))
    }
}

/// Kernel-wide tcgen05 bookkeeping (in [`World`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TcState {
    /// The kernel's `.cta_group`, fixed by its first tcgen05 episode.
    group: Option<CtaGroup>,
    ctas: Vec<CtaTmem>,
}

/// Choices of an episode: chunk bytes first, then a splitmix64 stream seeded by them.
struct Bits<'c, 'a> {
    c: &'c mut Chunk<'a>,
    used: usize,
    h: u64,
}

impl<'c, 'a> Bits<'c, 'a> {
    fn new(c: &'c mut Chunk<'a>) -> Self {
        Bits {
            c,
            used: 0,
            h: 0x243f_6a88_85a3_08d3,
        }
    }
    fn byte(&mut self) -> u8 {
        // The family byte was read before the episode.
        if self.used < BLOCK - 1 {
            self.used += 1;
            let b = self.c.byte();
            self.h = (self.h ^ b as u64).wrapping_mul(0x100_0000_01b3);
            b
        } else {
            let mut g = crate::case::init::SplitMix64(self.h);
            let z = g.next_u64();
            self.h = g.0;
            (z >> 56) as u8
        }
    }
    fn below(&mut self, n: u32) -> u32 {
        let b = self.byte() as u32;
        if n == 0 {
            0
        } else {
            b % n
        }
    }
    fn bit(&mut self) -> bool {
        self.byte() & 1 == 1
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u32) as usize]
    }
}

fn tc(op: Tcgen05Op) -> Instruction {
    Instruction::Tcgen05(op)
}

/// Legal on the program's target at the pinned PTX ISA?
fn legal(w: &World, i: &Instruction) -> bool {
    i.requirement().verdict(w.target, PtxVersion::MAX_SUPPORTED) == Verdict::Legal
}

/// Image offset the next shared region of alignment `align` gets (`crate::layout` order).
fn next_shared_offset(w: &World, align: u64) -> u64 {
    crate::layout::shared_regions_end(&w.memory.shared).div_ceil(align) * align
}

/// A valid K-major source layout for `rows` × `chunks` 16-byte chunks starting `soff` bytes into a
/// region at image offset `base` (§9.7.16.3.3, §9.7.16.4.1): no swizzle with core matrices (8 rows
/// × 16 B) LBO / SBO apart, chunk-inner or row-group-inner, 128-byte multiples with optional gaps;
/// or a swizzle mode with SBO a multiple of the 8-row atom (LBO unused by K-major swizzled
/// layouts: 16). Base offset: the Table 41 value for the start, or any (the model accepts 0..7).
fn layout(r: &mut Bits<'_, '_>, base: u64, rows: u32, chunks: u32) -> SmemDesc {
    let swizzle = r.pick(&Swizzle::ALL);
    let groups = rows.div_ceil(8);
    let (lbo, sbo, soff) = match swizzle {
        Swizzle::None => {
            let (lbo, sbo) = if r.bit() {
                let lbo = 128 * (1 + r.below(2));
                (lbo, lbo * chunks + 128 * r.below(2))
            } else {
                let sbo = 128 * (1 + r.below(2));
                (sbo * groups + 128 * r.below(2), sbo)
            };
            (lbo, sbo, 16 * r.below(8))
        }
        // 128-byte start steps keep mode 1's 32-byte alignment (desc::Assumption::Swizzle128B32BStartAligned32).
        s => (16, 8 * s.row_bytes() * (1 + r.below(2)), 128 * r.below(8)),
    };
    let start = (base + soff as u64) as u32;
    let base_offset = if swizzle != Swizzle::None && r.bit() {
        ((start >> 7) & 7) as u8
    } else {
        r.below(8) as u8
    };
    SmemDesc {
        start,
        lbo,
        sbo,
        base_offset,
        lbo_mode: LboMode::Relative,
        swizzle,
    }
}

/// Bytes from `base` that the copy reads (rounded up to 128: swizzling permutes within a 128-byte row).
fn extent(d: &SmemDesc, base: u64, rows: u32, chunks: u32) -> u64 {
    let mut end = 0u64;
    for row in 0..rows {
        for chunk in 0..chunks {
            if let Some(a) = d.kmajor_chunk_addr(row, chunk) {
                end = end.max(a as u64 + 16);
            }
        }
    }
    (end - base).div_ceil(128) * 128
}

/// How the deviating episode is undefined (a `sem::ub` rule of the Tcgen05 layer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ub {
    /// Descriptor bits: invalid swizzle, fixed fields, reserved bits, misaligned 32B-atom start.
    Desc,
    /// The matrix lies beyond the shared-memory window.
    SmemRange,
    /// Rows past lane 127, or a multicast shape at a non-zero lane.
    Lanes,
    /// Columns past 511.
    Columns,
    /// Columns just past the allocation, unallocated.
    Unallocated,
    /// nCols larger than the previous allocation's.
    Increasing,
    /// dealloc with another nCols.
    DeallocMismatch,
    /// No dealloc (and not checked): live at exit.
    Leak,
}

pub fn episode(w: &mut World, c: &mut Chunk<'_>, dev: Option<Deviation>) -> Option<Intent> {
    let mut r = Bits::new(c);
    let (ctas, cs, threads) = (w.ctas(), w.cluster_size(), w.launch.threads);
    w.tc.ctas.resize(ctas as usize, CtaTmem::default());
    // One cluster is the whole grid (World): a CTA's `.cta_group::2` peer is rank ^ 1.
    let pairs = cs >= 2 && cs.is_multiple_of(2);
    let group = match w.tc.group {
        Some(g) => g,
        None if pairs && r.below(3) == 0 => CtaGroup::Two,
        None => CtaGroup::One,
    };
    if group == CtaGroup::Two && !pairs {
        return fallback(w, r);
    }
    let issuer = r.below(ctas);
    let thread = r.below(threads);
    let want_check = threads >= 128 && r.below(3) == 0;
    let everyone = want_check || r.below(4) == 0;
    let unit: Vec<u32> = match group {
        CtaGroup::One => vec![issuer],
        CtaGroup::Two => vec![issuer & !1, issuer | 1],
    };
    let all: Vec<u32> = (0..ctas).collect();
    let ok = |w: &World, s: &[u32]| s.iter().all(|&k| !w.tc.ctas[k as usize].relinquished);
    let (set, mut checked) = if everyone && ok(w, &all) {
        (all, want_check)
    } else {
        (unit, false)
    };
    if !ok(w, &set) {
        return fallback(w, r);
    }

    // The copy: shape, multicast, decompression.
    let shape = r.pick(&CpShape::ALL);
    let multicast = r.pick(shape.legal_multicasts());
    let decompress = [None, Some(SrcFmt::B6x16P32), Some(SrcFmt::B4x16P64)][r.below(3) as usize];
    let mut cp = Cp {
        cta: group,
        shape,
        multicast,
        decompress,
        taddr: TmemRef::reg("_"),
        sdesc: Value::Imm(0),
    };
    let form = crate::sem::tcgen05::cp::CpForm::of(&cp);
    let (rows, chunks) = (form.rows(), form.chunks());

    // Deviation chosen up front (it constrains the allocation).
    let undefined = match dev {
        Some(Deviation::Undefined) => {
            let last = set.iter().filter_map(|&k| w.tc.ctas[k as usize].last).min();
            let mut opts = vec![
                Ub::Desc,
                Ub::SmemRange,
                Ub::Lanes,
                Ub::Columns,
                Ub::Unallocated,
                Ub::DeallocMismatch,
                Ub::Leak,
            ];
            if last.is_some_and(|l| l < COLUMNS) {
                opts.push(Ub::Increasing);
            }
            Some(r.pick(&opts))
        }
        _ => None,
    };
    if matches!(undefined, Some(Ub::DeallocMismatch | Ub::Leak)) {
        checked = false;
    }

    // nCols: a power of two in [32, 512] every CTA of the set can allocate.
    let sizes: Vec<u32> = (5..=9)
        .map(|p| 1u32 << p)
        .filter(|&n| {
            set.iter()
                .all(|&k| w.tc.ctas[k as usize].place(n).is_some())
        })
        .collect();
    let ncols = match undefined {
        Some(Ub::Increasing) => {
            2 * set
                .iter()
                .filter_map(|&k| w.tc.ctas[k as usize].last)
                .min()
                .unwrap_or(256)
        }
        _ if sizes.is_empty() => return fallback(w, r),
        _ => r.pick(&sizes),
    };
    let k = w.memory.tmem.len();
    let name = format!("{TMEM}{k}");
    let alloc = Alloc {
        cta: group,
        shared_cta: r.bit(),
        dst: Address::reg(&name),
        ncols: Value::Imm(ncols as i64),
    };
    if !legal(w, &tc(Tcgen05Op::Alloc(alloc.clone()))) && dev != Some(Deviation::Illegal) {
        // Not a tcgen05 target (a config without sm_100a/f among sm_100+ targets).
        return fallback(w, r);
    }

    // Source region and descriptor.
    let base = next_shared_offset(w, 1024);
    let desc = layout(&mut r, base, rows, chunks);
    let size = extent(&desc, base, rows, chunks);
    // The CTA's shared memory must still hold this source, the mbarriers and words declared
    // after it (found by the yaml_roundtrip fuzz target: eight episodes overflowed 227 KB).
    if base + size + SHARED_SLACK > crate::case::validate::MAX_SHARED_BYTES {
        return fallback(w, r);
    }
    let seed = u64::from(r.byte()) << 8 | u64::from(r.byte());
    let src = format!("{TSRC}{k}");
    w.memory.shared.push(Region {
        name: src,
        size,
        align: 1024,
        misalign: 0,
        init: Init::Pattern(seed),
    });
    w.memory.tmem.push(TmemDecl {
        name: name.clone(),
        columns: ncols,
    });

    // Destination: lane and column inside the allocation (4-column steps).
    let mut lane = if multicast.is_some() {
        0
    } else {
        4 * r.below((128 - rows) / 4 + 1)
    };
    let mut col = 4 * r.below((ncols - 4 * chunks) / 4 + 1);
    let mut sdesc = desc.encode();
    let mut intent = None;
    if let Some(u) = undefined {
        let start = w.tc.ctas[issuer as usize]
            .place(ncols.min(512))
            .unwrap_or(0);
        let rule = match u {
            Ub::Desc => {
                let mut raw = RawDesc::decode(sdesc);
                let rule = match r.below(5) {
                    0 => {
                        raw.swizzle = r.pick(&[3, 5, 7]);
                        ub::TCGEN05_DESC_SWIZZLE_INVALID.id
                    }
                    1 => {
                        raw.fixed_46 = r.pick(&[0, 2, 3, 5, 7]);
                        ub::TCGEN05_DESC_FIXED_46_48.id
                    }
                    2 => {
                        raw.fixed_53 = 1 << r.below(8);
                        ub::TCGEN05_DESC_FIXED_53_60.id
                    }
                    3 => {
                        if r.bit() {
                            raw.reserved_14 = 1 + r.below(3) as u8;
                        } else {
                            raw.reserved_30 = 1 + r.below(3) as u8;
                        }
                        ub::TCGEN05_DESC_RESERVED.id
                    }
                    _ => {
                        // Mode 1 needs a 32-byte-aligned start (desc::Assumption::Swizzle128B32BStartAligned32).
                        raw.swizzle = Swizzle::B128Atom32.code();
                        raw.start |= 1;
                        ub::TCGEN05_DESC_START_MISALIGNED.id
                    }
                };
                sdesc = raw.encode();
                rule
            }
            Ub::SmemRange => {
                // §9.7.16.4.1: the matrix must lie in shared memory; the image is below 227 KiB.
                sdesc = SmemDesc {
                    start: 0x3ff00,
                    ..desc
                }
                .encode();
                ub::TCGEN05_CP_SMEM_RANGE.id
            }
            Ub::Lanes if multicast.is_some() => {
                lane = 32 * (1 + r.below(3));
                ub::TCGEN05_CP_MULTICAST_LANE.id
            }
            Ub::Lanes => {
                lane = 128 - rows + 4 * (1 + r.below(rows.min(124) / 4));
                ub::TCGEN05_CP_LANE_RANGE.id
            }
            Ub::Unallocated
                if start + ncols + 4 * chunks <= COLUMNS
                    && set.iter().all(|&k| {
                        !(0..4 * chunks)
                            .any(|j| w.tc.ctas[k as usize].is_allocated(start + ncols + j))
                    }) =>
            {
                col = ncols;
                ub::TCGEN05_TMEM_UNALLOCATED.id
            }
            Ub::Unallocated | Ub::Columns => {
                col = COLUMNS - 2;
                ub::TCGEN05_CP_COLUMN_RANGE.id
            }
            Ub::Increasing => ub::TCGEN05_ALLOC_NCOLS_INCREASING.id,
            Ub::DeallocMismatch => ub::TCGEN05_DEALLOC_NCOLS_MISMATCH.id,
            Ub::Leak => ub::TCGEN05_ALLOC_LEAK.id,
        };
        intent = Some(Intent::Undefined { rule });
    }
    let illegal = if dev == Some(Deviation::Illegal) {
        Some(r.below(3))
    } else {
        None
    };

    // Commit: to the issuer's mbarrier, or multicast to a mask of the cluster's CTAs.
    let b = r.below(w.bars.len() as u32) as usize;
    let mask: Option<u16> = if cs > 1 && w.swarm.features.multicast && r.bit() {
        let m = (u32::from(r.byte()) | u32::from(r.byte()) << 8) & ((1 << cs) - 1);
        Some(if m == 0 { 1 << (issuer % cs) } else { m as u16 })
    } else {
        None
    };
    let dests = w.destinations(issuer, mask.map(u32::from));
    w.ensure_bar(b, &dests, thread, 1);

    // alloc
    let at_set = w.who(&set, thread);
    let at = w.who(&[issuer], thread);
    let mut alloc = alloc;
    if w.swarm.features.reg_operands && r.bit() && illegal != Some(1) {
        alloc.ncols = w.param("size", Param::Int(ncols as i64));
    }
    let mut illegal_step = None;
    if illegal == Some(1) {
        // §9.7.16.7.1: nCols a power of 2 in [32, 512] (ptxas checks immediates).
        alloc.ncols = Value::Imm(r.pick(&[0, 16, 48, 96, 1024]));
        illegal_step = Some((
            w.steps.len(),
            "tcgen05.alloc nCols not a power of 2 in [32, 512]",
        ));
    }
    w.ptx(&at_set, tc(Tcgen05Op::Alloc(alloc)));
    let mut placed = Vec::new();
    for &q in &set {
        let t = &mut w.tc.ctas[q as usize];
        if let Some(s) = t.place(ncols) {
            t.allocs.push((s, ncols));
            placed.push((q, s));
        }
        t.last = Some(ncols);
    }

    // cp
    cp.taddr = TmemRef {
        base: Value::reg(&name),
        offset: i64::from(lane << 16 | col),
    };
    cp.sdesc = w.param(
        "sdesc",
        Param::Typed {
            value: sdesc as i64,
            ty: "b64".into(),
        },
    );
    if illegal == Some(0)
        || illegal == Some(2)
            && legal(
                w,
                &tc(Tcgen05Op::Shift(Shift {
                    cta: group,
                    taddr: TmemRef::reg(&name),
                })),
            )
    {
        // §9.7.16.9.2: `.64x128b` needs `.warpx2::*`, `.32x128b` needs `.warpx4`, others take none.
        cp.multicast = match shape.takes() {
            crate::ptx::tcgen05::Takes::Nothing => Some(r.pick(&Multicast::ALL)),
            _ => None,
        };
        illegal_step = Some((
            w.steps.len(),
            "tcgen05.cp shape without its multicast (or with one it does not take)",
        ));
    }
    w.ptx(&at, tc(Tcgen05Op::Cp(cp)));

    // commit + wait
    let cta_mask = mask.map(|m| {
        w.param(
            "mask",
            Param::Typed {
                value: m as i64,
                ty: "b16".into(),
            },
        )
    });
    let commit = Commit {
        cta: group,
        shared_cluster: r.bit(),
        mbar: World::bar_addr(b),
        cta_mask,
    };
    w.ptx(&at, tc(Tcgen05Op::Commit(commit)));
    w.wait_phase(b, &dests, thread);
    if r.bit() {
        w.ptx(&at, tc(Tcgen05Op::Fence(FenceKind::AfterThreadSync)));
    }
    if illegal == Some(2) && illegal_step.is_none() {
        // tcgen05.shift exists on sm_100a / sm_103a / sm_110a only, not on the family targets.
        illegal_step = Some((w.steps.len(), "tcgen05.shift on a family target"));
        w.ptx(
            &at,
            tc(Tcgen05Op::Shift(Shift {
                cta: group,
                taddr: TmemRef::reg(&name),
            })),
        );
    }

    // dealloc (or checked: the epilogue frees it), sometimes relinquish.
    if checked {
        w.check.push(name);
    } else if undefined != Some(Ub::Leak) {
        let n = match undefined {
            Some(Ub::DeallocMismatch) if ncols > 32 && r.bit() || ncols == 512 => ncols / 2,
            Some(Ub::DeallocMismatch) => ncols * 2,
            _ => ncols,
        };
        let ncols_v = if w.swarm.features.reg_operands && r.bit() {
            w.param("size", Param::Int(n as i64))
        } else {
            Value::Imm(n as i64)
        };
        w.ptx(
            &at_set,
            tc(Tcgen05Op::Dealloc(Dealloc {
                cta: group,
                taddr: Value::reg(&name),
                ncols: ncols_v,
            })),
        );
        for &(q, s) in &placed {
            w.tc.ctas[q as usize].allocs.retain(|&a| a != (s, ncols));
        }
        if r.below(8) == 0 {
            w.ptx(
                &at_set,
                tc(Tcgen05Op::Relinquish(Relinquish { cta: group })),
            );
            for &q in &set {
                w.tc.ctas[q as usize].relinquished = true;
            }
        }
    }
    w.tc.group = Some(group);
    if let Some((step, why)) = illegal_step {
        return Some(Intent::Illegal {
            step,
            why: why.into(),
        });
    }
    intent
}

/// No legal tcgen05 episode fits the state (every CTA relinquished, columns exhausted, ...): a
/// plain store instead.
fn fallback(w: &mut World, r: Bits<'_, '_>) -> Option<Intent> {
    store::plain(w, r.c);
    None
}

#[cfg(test)]
mod tests {
    use super::super::oracle::check_cpu;
    use super::super::swarm::{Families, Family};
    use super::super::{generate_bytes, GenConfig, Generated, Intent, HEADER};
    use super::*;
    use crate::case::model::StepOp;
    use crate::target::Target;
    use std::collections::BTreeSet;

    fn bytes(seed: u64, episodes: usize) -> Vec<u8> {
        let mut h = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5555;
        (0..HEADER + episodes * BLOCK)
            .map(|_| {
                h = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let z = (h ^ (h >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                (z >> 40) as u8
            })
            .collect()
    }

    fn cfg(illegal: u8, undefined: u8) -> GenConfig {
        GenConfig {
            targets: vec![Target::SM_100A, Target::SM_100F],
            families: Families::of(&[Family::Tcgen05]),
            illegal_per_256: illegal,
            undefined_per_256: undefined,
            ..GenConfig::default()
        }
    }

    /// Programs of seeds `0..n` with `episodes` chunks each, every one through the CPU oracles.
    fn checked(n: u64, episodes: usize, cfg: &GenConfig) -> Vec<Generated> {
        (0..n)
            .map(|seed| {
                let g = generate_bytes(&bytes(seed, episodes), cfg);
                if let Err(v) = check_cpu(&g) {
                    panic!(
                        "{v}\n{}",
                        crate::case::load::to_yaml(std::slice::from_ref(&g.case))
                    );
                }
                g
            })
            .collect()
    }

    fn tc_ops(g: &Generated) -> Vec<Tcgen05Op> {
        crate::case::validate::parse_steps(&g.case)
            .into_iter()
            .filter_map(|(_, st)| match st.map(|s| s.instr) {
                Ok(Instruction::Tcgen05(op)) => Some(op),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn well_defined_programs_validate_print_parse_and_run() {
        let gs = checked(300, 6, &cfg(0, 0));
        assert!(gs.iter().all(|g| g.intent == Intent::WellDefined));
        let with_cp = gs
            .iter()
            .filter(|g| tc_ops(g).iter().any(|o| matches!(o, Tcgen05Op::Cp(_))))
            .count();
        assert!(with_cp > 250, "{with_cp}");
    }

    #[test]
    fn swarm_covers_every_cp_form() {
        let (mut forms, mut decomp, mut groups, mut swz) = (
            BTreeSet::new(),
            BTreeSet::new(),
            BTreeSet::new(),
            BTreeSet::new(),
        );
        let (mut checked, mut relinquish, mut mcast_commit, mut dealloc) = (0, 0, 0, 0);
        for seed in 0..400 {
            let g = generate_bytes(&bytes(seed, 8), &cfg(0, 0));
            checked += usize::from(!g.case.check.is_empty());
            for op in tc_ops(&g) {
                match op {
                    Tcgen05Op::Cp(cp) => {
                        forms.insert(format!(
                            "{}{:?}",
                            cp.shape.ptx(),
                            cp.multicast.map(Multicast::ptx)
                        ));
                        decomp.insert(format!("{:?}", cp.decompress));
                        groups.insert(cp.cta.ptx());
                        if let Value::Reg(n) = &cp.sdesc {
                            if let Some(Param::Typed { value, .. }) = g.case.params.get(n) {
                                swz.insert(RawDesc::decode(*value as u64).swizzle);
                            }
                        }
                    }
                    Tcgen05Op::Relinquish(_) => relinquish += 1,
                    Tcgen05Op::Dealloc(_) => dealloc += 1,
                    Tcgen05Op::Commit(c) => mcast_commit += usize::from(c.cta_mask.is_some()),
                    _ => {}
                }
            }
        }
        assert_eq!(forms.len(), 6, "{forms:?}");
        assert_eq!(decomp.len(), 3, "{decomp:?}");
        assert_eq!(groups.len(), 2, "{groups:?}");
        assert_eq!(swz.len(), 5, "{swz:?}");
        assert!(
            checked > 20 && relinquish > 5 && mcast_commit > 20 && dealloc > 100,
            "{checked} {relinquish} {mcast_commit} {dealloc}"
        );
    }

    #[test]
    fn undefined_programs_hit_their_rule() {
        let rules: BTreeSet<&str> = checked(600, 4, &cfg(0, 255))
            .into_iter()
            .filter_map(|g| match g.intent {
                Intent::Undefined { rule } => Some(rule),
                _ => None,
            })
            .collect();
        let want = [
            ub::TCGEN05_DESC_SWIZZLE_INVALID.id,
            ub::TCGEN05_DESC_FIXED_46_48.id,
            ub::TCGEN05_DESC_FIXED_53_60.id,
            ub::TCGEN05_DESC_RESERVED.id,
            ub::TCGEN05_DESC_START_MISALIGNED.id,
            ub::TCGEN05_CP_SMEM_RANGE.id,
            ub::TCGEN05_CP_LANE_RANGE.id,
            ub::TCGEN05_CP_MULTICAST_LANE.id,
            ub::TCGEN05_CP_COLUMN_RANGE.id,
            ub::TCGEN05_TMEM_UNALLOCATED.id,
            ub::TCGEN05_ALLOC_NCOLS_INCREASING.id,
            ub::TCGEN05_DEALLOC_NCOLS_MISMATCH.id,
            ub::TCGEN05_ALLOC_LEAK.id,
        ];
        for r in want {
            assert!(rules.contains(r), "{r} never generated: {rules:?}");
        }
    }

    #[test]
    fn illegal_programs_name_an_illegal_tcgen05_step() {
        let mut whys = BTreeSet::new();
        for g in checked(300, 4, &cfg(255, 0)) {
            if let Intent::Illegal { step, why } = &g.intent {
                assert!(
                    matches!(&g.case.program[*step].op, StepOp::Ptx(t) if t.starts_with("tcgen05.")),
                    "{g:?}"
                );
                whys.insert(why.clone());
            }
        }
        assert_eq!(whys.len(), 3, "{whys:?}");
    }

    #[test]
    fn mixed_with_every_family() {
        let cfg = GenConfig {
            targets: vec![Target::SM_100A, Target::SM_100F],
            ..GenConfig::mixed()
        };
        let tc = checked(300, 6, &cfg)
            .iter()
            .filter(|g| !tc_ops(g).is_empty())
            .count();
        assert!(tc > 50, "{tc}");
    }
}
