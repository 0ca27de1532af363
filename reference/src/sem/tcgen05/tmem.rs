//! One CTA's Tensor Memory (§9.7.16.1): 128 lanes × 512 columns of 32-bit cells, dynamically
//! allocated in columns (§9.7.16.1.2, §9.7.16.7.1), cells undefined until written.

use std::collections::HashMap;

use foldhash::fast::FixedState;

use crate::sem::ub::Ub;
use crate::sem::ub::{
    TCGEN05_ALLOC_AFTER_RELINQUISH, TCGEN05_ALLOC_LEAK, TCGEN05_ALLOC_NCOLS,
    TCGEN05_ALLOC_NCOLS_INCREASING, TCGEN05_ALLOC_PLACEMENT, TCGEN05_DEALLOC_NCOLS_MISMATCH,
    TCGEN05_DEALLOC_NOT_ALLOCATED, TCGEN05_LDST_LANE_ACCESS, TCGEN05_TMEM_OUT_OF_RANGE,
    TCGEN05_TMEM_UNALLOCATED, TCGEN05_WARP_OPERAND_NOT_UNIFORM,
};

/// §9.7.16.1: 128 rows (lanes) per CTA on sm_100a/sm_100f.
pub const LANES: u32 = 128;
/// §9.7.16.1: 512 columns per CTA.
pub const COLUMNS: u32 = 512;
/// §9.7.16.1.2: "The unit of allocation is 32 columns".
pub const ALLOC_UNIT: u32 = 32;

/// Positions this module takes where the manual is silent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Assumption {
    /// `tcgen05.dealloc` must name exactly a live allocation: `taddr` its start (lane 0) and
    /// `nCols` its size. The manual says only "taddr must point to a previous Tensor Memory
    /// allocation"; partial deallocation is treated as UB.
    DeallocWholeAllocation,
    /// Where `tcgen05.alloc` places columns is the hardware's choice. The model proposes the lowest
    /// free run aligned to `nCols` ([`Tmem::alloc`]) and accepts any legal placement the device
    /// reports ([`Tmem::alloc_at`]); the address written has lane 0.
    AllocPlacementFirstFitAligned,
    /// Accessing (ld/st/cp) a column that is not allocated is UB. The manual does not say so
    /// explicitly; it only requires allocation before use.
    AccessUnallocatedIsUb,
    /// A fresh allocation's cells are undefined (not zero), whatever they held before.
    FreshAllocationUndefined,
    /// `tcgen05.relinquish_alloc_permit` twice, or dealloc after relinquishing, is well defined:
    /// only a later *alloc* is illegal.
    RelinquishIdempotent,
}

/// A 32-bit Tensor Memory cell. `Unwritten` covers both "never written since allocation" and
/// "written from undefined source bytes".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Cell {
    #[default]
    Unwritten,
    Known(u32),
}

impl Cell {
    /// Whether a device observation is consistent with the model: an undefined cell accepts any value.
    pub fn accepts(self, observed: u32) -> bool {
        match self {
            Cell::Unwritten => true,
            Cell::Known(v) => v == observed,
        }
    }
}

/// A Tensor Memory address: lane in bits 31..16, column in bits 15..0 (§9.7.16.1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TAddr {
    pub lane: u32,
    pub column: u32,
}

impl TAddr {
    pub fn from_u32(a: u32) -> TAddr {
        TAddr {
            lane: a >> 16,
            column: a & 0xFFFF,
        }
    }
    pub fn to_u32(self) -> u32 {
        (self.lane << 16) | (self.column & 0xFFFF)
    }
    pub fn in_range(self) -> bool {
        self.lane < LANES && self.column < COLUMNS
    }
}

/// One cell written by an operation (what the executor applies / reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellWrite {
    pub lane: u32,
    pub column: u32,
    pub value: Cell,
}

/// §9.7.16.8.1: warp `w` of a warpgroup (w = warp id % 4) may access lanes 32·w .. 32·w+31 only.
pub fn accessible_lanes(warp_id: u32) -> std::ops::Range<u32> {
    let w = warp_id % 4;
    32 * w..32 * w + 32
}

/// The warp-collective operand rule: "The behavior of the instruction is undefined if all the
/// threads in the warp do not use the same values of nCols" (§9.7.16.7.1; likewise `taddr` of
/// tcgen05.ld/st, §9.7.16.8.3/4). `values` holds one value per active thread.
pub fn warp_uniform(values: &[u32], operand: &str) -> Result<u32, Ub> {
    match values.split_first() {
        None => Err(Ub::new(
            &TCGEN05_WARP_OPERAND_NOT_UNIFORM,
            format!("no thread supplied {operand}"),
        )),
        Some((&v, rest)) => match rest.iter().find(|&&x| x != v) {
            None => Ok(v),
            Some(&x) => Err(Ub::new(
                &TCGEN05_WARP_OPERAND_NOT_UNIFORM,
                format!("threads of the warp disagree on {operand}: {v:#x} and {x:#x}"),
            )),
        },
    }
}

/// Per-CTA Tensor Memory with its allocation state.
#[derive(Clone, Debug)]
pub struct Tmem {
    /// The cells holding a known value, by `lane * COLUMNS + column`; every other cell is
    /// [`Cell::Unwritten`]. Sparse: a program writes a few thousand of the 65,536 cells, and a
    /// dense image cost a zeroed half megabyte per CTA of every tcgen05 program. Hashed, not
    /// ordered: nothing reads the cells in order, and a copy writes hundreds of them.
    cells: HashMap<u32, u32, FixedState>,
    /// Live allocations as (first column, nCols), sorted by column.
    allocs: Vec<(u32, u32)>,
    /// §9.7.16.7.1: "The number of columns allocated should not increase between any two
    /// allocations": the last alloc's nCols.
    last_ncols: Option<u32>,
    relinquished: bool,
}

impl Default for Tmem {
    fn default() -> Self {
        Tmem::new()
    }
}

impl Tmem {
    pub fn new() -> Tmem {
        Tmem {
            cells: HashMap::default(),
            allocs: Vec::new(),
            last_ncols: None,
            relinquished: false,
        }
    }

    pub fn allocations(&self) -> &[(u32, u32)] {
        &self.allocs
    }
    pub fn relinquished(&self) -> bool {
        self.relinquished
    }

    /// §9.7.16.1.2, §9.7.16.7.1: nCols a power of two in [32, 512].
    fn check_ncols(ncols: u32, what: &str) -> Result<(), Ub> {
        if !(ALLOC_UNIT..=COLUMNS).contains(&ncols) || !ncols.is_power_of_two() {
            return Err(Ub::new(
                &TCGEN05_ALLOC_NCOLS,
                format!("{what} nCols = {ncols}: must be a power of 2 within [32, 512]"),
            ));
        }
        Ok(())
    }

    fn is_free(&self, start: u32, ncols: u32) -> bool {
        self.allocs
            .iter()
            .all(|&(s, n)| start + ncols <= s || s + n <= start)
    }

    /// The rules every allocation obeys before a placement is chosen.
    fn check_alloc(&self, ncols: u32) -> Result<(), Ub> {
        Self::check_ncols(ncols, "tcgen05.alloc")?;
        // §9.7.16.7.1: "it is illegal for a CTA to perform tcgen05.alloc after any of its
        // constituent threads execute tcgen05.relinquish_alloc_permit".
        if self.relinquished {
            return Err(Ub::new(
                &TCGEN05_ALLOC_AFTER_RELINQUISH,
                "tcgen05.alloc after tcgen05.relinquish_alloc_permit",
            ));
        }
        // §9.7.16.7.1: "The number of columns allocated should not increase between any two allocations".
        if let Some(prev) = self.last_ncols {
            if ncols > prev {
                return Err(Ub::new(&TCGEN05_ALLOC_NCOLS_INCREASING, format!("tcgen05.alloc of {ncols} columns after an allocation of {prev}: nCols must not increase"),
                ));
            }
        }
        Ok(())
    }

    /// `tcgen05.alloc` of `ncols` columns: `Ok(Some(taddr))` where the model places it
    /// ([`Assumption::AllocPlacementFirstFitAligned`]), `Ok(None)` when it would block (not enough
    /// free columns: "blocks ... unblocks as soon as the requested amount ... becomes available").
    pub fn alloc(&mut self, ncols: u32) -> Result<Option<u32>, Ub> {
        self.check_alloc(ncols)?;
        let start = (0..COLUMNS)
            .step_by(ncols as usize)
            .find(|&s| self.is_free(s, ncols));
        match start {
            Some(s) => {
                self.take(s, ncols);
                Ok(Some(TAddr { lane: 0, column: s }.to_u32()))
            }
            None => Ok(None),
        }
    }

    /// `tcgen05.alloc` whose result the device reported as `taddr`: checks that such a placement
    /// was possible (lane 0, in range, free), then records it.
    pub fn alloc_at(&mut self, taddr: u32, ncols: u32) -> Result<(), Ub> {
        self.check_alloc(ncols)?;
        let a = TAddr::from_u32(taddr);
        if a.lane != 0
            || a.column + ncols > COLUMNS
            || !a.column.is_multiple_of(ALLOC_UNIT)
            || !self.is_free(a.column, ncols)
        {
            return Err(Ub::new(&TCGEN05_ALLOC_PLACEMENT, format!("reported allocation {taddr:#x} of {ncols} columns is not a free, unit-aligned run at lane 0"),
            ));
        }
        self.take(a.column, ncols);
        Ok(())
    }

    fn take(&mut self, start: u32, ncols: u32) {
        self.allocs.push((start, ncols));
        self.allocs.sort();
        self.last_ncols = Some(ncols);
        // Assumption::FreshAllocationUndefined
        self.cells
            .retain(|&i, _| !(start..start + ncols).contains(&(i % COLUMNS)));
    }

    /// `tcgen05.dealloc taddr, nCols` ([`Assumption::DeallocWholeAllocation`]).
    pub fn dealloc(&mut self, taddr: u32, ncols: u32) -> Result<(), Ub> {
        Self::check_ncols(ncols, "tcgen05.dealloc")?;
        let a = TAddr::from_u32(taddr);
        // §9.7.16.7.1: "The operand taddr must point to a previous Tensor Memory allocation."
        let i = self.allocs.iter().position(|&(s, _)| a.lane == 0 && s == a.column).ok_or_else(|| {
            Ub::new(&TCGEN05_DEALLOC_NOT_ALLOCATED, format!("tcgen05.dealloc of {taddr:#x}: no live allocation starts there (double dealloc or never allocated)"),
            )
        })?;
        let (_, n) = self.allocs[i];
        if n != ncols {
            return Err(Ub::new(&TCGEN05_DEALLOC_NCOLS_MISMATCH, format!("tcgen05.dealloc of {ncols} columns at {taddr:#x}, which was allocated with {n}"),
            ));
        }
        self.allocs.remove(i);
        Ok(())
    }

    /// `tcgen05.relinquish_alloc_permit` ([`Assumption::RelinquishIdempotent`]).
    pub fn relinquish(&mut self) {
        self.relinquished = true;
    }

    /// At kernel exit: §9.7.16.7.1 "All of the Tensor Memory that was allocated ... must be
    /// explicitly deallocated using tcgen05.dealloc before the kernel exits."
    pub fn check_exit(&self) -> Result<(), Ub> {
        match self.allocs.first() {
            None => Ok(()),
            Some(&(s, n)) => Err(Ub::new(
                &TCGEN05_ALLOC_LEAK,
                format!(
                    "kernel exits with {} live allocation(s), first {n} columns at column {s}",
                    self.allocs.len()
                ),
            )),
        }
    }

    pub fn is_allocated(&self, column: u32) -> bool {
        self.allocs
            .iter()
            .any(|&(s, n)| (s..s + n).contains(&column))
    }

    /// Checks that a cell may be touched by any Tensor Memory access (range, allocation).
    pub fn check_cell(&self, lane: u32, column: u32) -> Result<(), Ub> {
        if lane >= LANES || column >= COLUMNS {
            return Err(Ub::new(&TCGEN05_TMEM_OUT_OF_RANGE, format!("Tensor Memory cell (lane {lane}, column {column}) outside 128 lanes × 512 columns"),
            ));
        }
        // Assumption::AccessUnallocatedIsUb
        if !self.is_allocated(column) {
            return Err(Ub::new(
                &TCGEN05_TMEM_UNALLOCATED,
                format!("column {column} (lane {lane}) is not allocated"),
            ));
        }
        Ok(())
    }

    /// Checks a tcgen05.ld/st by warp `warp_id` touching `lanes` × `columns`: the lane-access rule
    /// (§9.7.16.8.1) and [`Tmem::check_cell`] for the range's corners.
    pub fn check_warp_access(
        &self,
        warp_id: u32,
        lanes: std::ops::Range<u32>,
        columns: std::ops::Range<u32>,
    ) -> Result<(), Ub> {
        let ok = accessible_lanes(warp_id);
        if lanes.start < ok.start || lanes.end > ok.end {
            return Err(Ub::new(
                &TCGEN05_LDST_LANE_ACCESS,
                format!(
                    "warp {} of its warpgroup may access lanes {}..={} only, not {}..={}",
                    warp_id % 4,
                    ok.start,
                    ok.end - 1,
                    lanes.start,
                    lanes.end.saturating_sub(1)
                ),
            ));
        }
        for lane in lanes.clone() {
            for c in columns.clone() {
                self.check_cell(lane, c)?;
            }
        }
        Ok(())
    }

    /// The cell at (lane, column); out-of-range cells read as undefined.
    pub fn read(&self, lane: u32, column: u32) -> Cell {
        if lane < LANES && column < COLUMNS {
            self.cells
                .get(&(lane * COLUMNS + column))
                .map_or(Cell::Unwritten, |&v| Cell::Known(v))
        } else {
            Cell::Unwritten
        }
    }

    /// Writes one cell after [`Tmem::check_cell`].
    pub fn write(&mut self, lane: u32, column: u32, value: Cell) -> Result<(), Ub> {
        self.check_cell(lane, column)?;
        self.set(lane * COLUMNS + column, value);
        Ok(())
    }

    /// Applies a batch of writes all-or-nothing: every cell is checked first.
    pub fn apply(&mut self, writes: &[CellWrite]) -> Result<(), Ub> {
        for w in writes {
            self.check_cell(w.lane, w.column)?;
        }
        for w in writes {
            self.set(w.lane * COLUMNS + w.column, w.value);
        }
        Ok(())
    }

    fn set(&mut self, index: u32, value: Cell) {
        match value {
            Cell::Known(v) => self.cells.insert(index, v),
            Cell::Unwritten => self.cells.remove(&index),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Random alloc/dealloc sequences: live allocations stay disjoint, in range, aligned to
        /// their size; a blocked alloc really had no free aligned run; UB only for the named rules.
        #[test]
        fn allocator_invariants(ops in prop::collection::vec((any::<bool>(), 0u32..5, 0usize..8), 1..40)) {
            let mut t = Tmem::new();
            for (is_alloc, k, pick) in ops {
                let ncols = 32 << k;
                if is_alloc {
                    match t.alloc(ncols) {
                        Ok(Some(a)) => prop_assert_eq!(TAddr::from_u32(a).column % ncols, 0),
                        Ok(None) => {
                            let free = (0..COLUMNS).step_by(ncols as usize).any(|s| t.is_free(s, ncols));
                            prop_assert!(!free);
                        }
                        Err(e) => prop_assert_eq!(e.rule, "tcgen05.alloc.ncols_increasing"),
                    }
                } else if !t.allocations().is_empty() {
                    let (s, n) = t.allocations()[pick % t.allocations().len()];
                    t.dealloc(s, n).unwrap();
                    prop_assert!(!t.is_allocated(s));
                }
                let a = t.allocations();
                for w in a.windows(2) {
                    prop_assert!(w[0].0 + w[0].1 <= w[1].0);
                }
                prop_assert!(a.iter().all(|&(s, n)| s + n <= COLUMNS));
            }
        }
    }

    #[test]
    fn taddr_layout() {
        let a = TAddr::from_u32(0x0040_0020);
        assert_eq!(
            a,
            TAddr {
                lane: 64,
                column: 32
            }
        );
        assert_eq!(a.to_u32(), 0x0040_0020);
    }

    #[test]
    fn warp_uniform_operands() {
        assert_eq!(warp_uniform(&[64; 32], "nCols"), Ok(64));
        let mut v = [64u32; 32];
        v[17] = 32;
        assert_eq!(
            warp_uniform(&v, "nCols").unwrap_err().rule,
            "tcgen05.warp_operand_not_uniform"
        );
        assert!(warp_uniform(&[], "nCols").is_err());
    }

    #[test]
    fn cell_unwritten_accepts_anything() {
        assert!(Cell::Unwritten.accepts(0xdead_beef));
        assert!(Cell::Known(5).accepts(5));
        assert!(!Cell::Known(5).accepts(6));
    }

    #[test]
    fn ncols_rules() {
        for bad in [0, 16, 31, 48, 96, 1024, 513] {
            assert_eq!(
                Tmem::new().alloc(bad).unwrap_err().rule,
                "tcgen05.alloc.ncols_invalid",
                "{bad}"
            );
        }
        for good in [32, 64, 128, 256, 512] {
            assert_eq!(Tmem::new().alloc(good).unwrap(), Some(0));
        }
    }

    #[test]
    fn first_fit_aligned_and_blocking() {
        let mut t = Tmem::new();
        assert_eq!(t.alloc(256).unwrap(), Some(0));
        assert_eq!(t.alloc(128).unwrap(), Some(256));
        assert_eq!(t.alloc(64).unwrap(), Some(384));
        assert_eq!(t.alloc(64).unwrap(), Some(448));
        // full: blocks rather than UB
        assert_eq!(t.alloc(32).unwrap(), None);
        t.dealloc(256, 128).unwrap();
        assert_eq!(t.alloc(32).unwrap(), Some(256));
    }

    #[test]
    fn increasing_ncols_is_ub() {
        let mut t = Tmem::new();
        t.alloc(64).unwrap();
        assert_eq!(
            t.alloc(128).unwrap_err().rule,
            "tcgen05.alloc.ncols_increasing"
        );
        // equal or smaller is fine, even after a dealloc
        t.dealloc(0, 64).unwrap();
        assert!(t.alloc(64).is_ok());
        assert!(t.alloc(32).is_ok());
    }

    #[test]
    fn alloc_after_relinquish_is_ub_dealloc_is_not() {
        let mut t = Tmem::new();
        t.alloc(32).unwrap();
        t.relinquish();
        t.relinquish();
        assert_eq!(
            t.alloc(32).unwrap_err().rule,
            "tcgen05.alloc.after_relinquish"
        );
        assert_eq!(
            t.alloc_at(32, 32).unwrap_err().rule,
            "tcgen05.alloc.after_relinquish"
        );
        assert!(t.dealloc(0, 32).is_ok());
        assert!(t.check_exit().is_ok());
    }

    #[test]
    fn dealloc_rules() {
        let mut t = Tmem::new();
        t.alloc(64).unwrap();
        assert_eq!(
            t.dealloc(32, 32).unwrap_err().rule,
            "tcgen05.dealloc.not_allocated"
        );
        assert_eq!(
            t.dealloc(0, 32).unwrap_err().rule,
            "tcgen05.dealloc.ncols_mismatch"
        );
        assert_eq!(
            t.dealloc(0x10000, 64).unwrap_err().rule,
            "tcgen05.dealloc.not_allocated"
        );
        assert_eq!(
            t.dealloc(0, 48).unwrap_err().rule,
            "tcgen05.alloc.ncols_invalid"
        );
        t.dealloc(0, 64).unwrap();
        assert_eq!(
            t.dealloc(0, 64).unwrap_err().rule,
            "tcgen05.dealloc.not_allocated"
        );
    }

    #[test]
    fn leak_at_exit() {
        let mut t = Tmem::new();
        t.alloc(32).unwrap();
        assert_eq!(
            t.check_exit().unwrap_err().rule,
            "tcgen05.alloc.not_deallocated_at_exit"
        );
    }

    #[test]
    fn alloc_at_checks_placement() {
        let mut t = Tmem::new();
        assert_eq!(
            t.alloc_at(16, 32).unwrap_err().rule,
            "tcgen05.alloc.placement"
        );
        assert_eq!(
            t.alloc_at(0x10000, 32).unwrap_err().rule,
            "tcgen05.alloc.placement"
        );
        assert_eq!(
            t.alloc_at(496, 32).unwrap_err().rule,
            "tcgen05.alloc.placement"
        );
        t.alloc_at(96, 32).unwrap();
        assert_eq!(
            t.alloc_at(96, 32).unwrap_err().rule,
            "tcgen05.alloc.placement"
        );
        assert!(t.is_allocated(127) && !t.is_allocated(128) && !t.is_allocated(95));
    }

    #[test]
    fn cells_undefined_until_written_and_after_realloc() {
        let mut t = Tmem::new();
        t.alloc(32).unwrap();
        assert_eq!(t.read(3, 4), Cell::Unwritten);
        t.write(3, 4, Cell::Known(7)).unwrap();
        assert_eq!(t.read(3, 4), Cell::Known(7));
        assert_eq!(
            t.write(3, 32, Cell::Known(1)).unwrap_err().rule,
            "tcgen05.tmem.unallocated"
        );
        assert_eq!(
            t.write(128, 0, Cell::Known(1)).unwrap_err().rule,
            "tcgen05.tmem.out_of_range"
        );
        t.dealloc(0, 32).unwrap();
        t.alloc(32).unwrap();
        assert_eq!(t.read(3, 4), Cell::Unwritten);
    }

    #[test]
    fn apply_is_all_or_nothing() {
        let mut t = Tmem::new();
        t.alloc(32).unwrap();
        let w = [
            CellWrite {
                lane: 0,
                column: 0,
                value: Cell::Known(1),
            },
            CellWrite {
                lane: 0,
                column: 40,
                value: Cell::Known(2),
            },
        ];
        assert!(t.apply(&w).is_err());
        assert_eq!(t.read(0, 0), Cell::Unwritten);
    }

    #[test]
    fn lane_access_per_warp() {
        let mut t = Tmem::new();
        t.alloc(32).unwrap();
        for w in 0..8u32 {
            let base = 32 * (w % 4);
            assert!(
                t.check_warp_access(w, base..base + 32, 0..4).is_ok(),
                "warp {w}"
            );
            let other = 32 * ((w + 1) % 4);
            assert_eq!(
                t.check_warp_access(w, other..other + 16, 0..1)
                    .unwrap_err()
                    .rule,
                "tcgen05.ldst.lane_access"
            );
        }
        // straddling the boundary
        assert!(t.check_warp_access(0, 16..48, 0..1).is_err());
        // columns still need allocation
        assert_eq!(
            t.check_warp_access(1, 32..64, 30..34).unwrap_err().rule,
            "tcgen05.tmem.unallocated"
        );
    }
}
