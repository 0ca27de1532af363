//! Undefined behaviour as data: every rule the model knows has an id, the spec section it comes
//! from and a one-line summary. Semantic operations return [`Ub`] instead of executing, so a case
//! that hits one is classified (and a corpus can assert that every rule in [`CATALOGUE`] is covered).

use std::fmt;

/// One undefined-behaviour rule of the spec (or of a named model position, marked `assumption`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UbRule {
    pub id: &'static str,
    pub section: &'static str,
    pub summary: &'static str,
    /// True where the spec says "must"/"valid only" without saying "undefined": the model's
    /// position is to classify the violation as UB.
    pub assumption: bool,
    /// Who classifies it: a `sem` mechanism, or the executor (needs addresses/instructions).
    pub layer: Layer,
}

/// Where a rule is detected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layer {
    /// Returned by `sem::mbarrier` operations.
    Mbarrier,
    /// Needs addresses, instruction operands or memory queries: the executor's job
    /// (the `sem::memory` queries `in_flight_overlapping` / `holds_overlapping` support it).
    Executor,
    /// Returned by the `sem::tcgen05` mechanisms (Tensor Memory, descriptors, tcgen05.cp, commit)
    /// or by the executor's tcgen05 steps.
    Tcgen05,
}

/// A classified occurrence of undefined behaviour.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ub {
    pub rule: &'static str,
    pub section: &'static str,
    pub detail: String,
    /// A situation of the rule in which sm_90 silicon does other than the rule's default
    /// (`exec::predict::SILICON`): the prediction is the situation's.
    pub situation: Option<Situation>,
    /// Where in its CTA's shared memory an access that left its shared region lay, for the
    /// hardware prediction (inside or outside the CTA's allocation).
    pub shared_access: Option<SharedAccess>,
    /// The phase a wait that can never return waited on, as the model left it: silicon's
    /// outcome depends on it where the text's does not (`exec::predict::overshot`).
    pub phase: Option<PhaseLeft>,
    /// Another rule the same instruction breaks that sm_90 silicon checks before this one: the
    /// outcome it predicts is that rule's (`exec::predict::CHECKED_FIRST`).
    pub checked_first: Option<&'static str>,
    /// How a phase completed with complete-tx still to land on it ([`MBAR_TX_RACE`]).
    pub tx_race: Option<TxRace>,
}

/// Situations of a rule whose sm_90 outcome is not the rule's (each a named silicon position;
/// `exec::predict` gives the outcomes and the runs behind them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Situation {
    /// Silicon traps (launch failed) where the rule's other situations complete
    /// ([`silicon_traps_when`]).
    Traps,
    /// `mbarrier.not_initialized` on a location no object was ever initialized at (the harness
    /// zeroes it): traps or completes (A-MB-NEVER-INIT-HW).
    NeverInitialized,
    /// `address.misaligned` of a cp.async source in the form with a src-size operand (any size)
    /// or with ignore-src true: completes (A-CP-ASYNC-SRC-SIZE-FORM-HW).
    SrcSizeForm,
    /// `bulk.cluster_dst_is_executing_cta` in a cluster launch: the copy completes as into
    /// another CTA, and the rest of the program decides (A-BULK-SELF-CLUSTER-LAUNCH-HW).
    ClusterLaunch,
    /// The same rule met by a reduction (`cp.reduce.async.bulk.shared::cluster`) in a cluster
    /// launch: traps IllegalInstruction, completes or hangs (A-BULK-SELF-CLUSTER-LAUNCH-HW).
    ReduceClusterLaunch,
    /// `mbarrier.complete_tx_race` whose arrival completed the phase before im2col tensor
    /// loads alone signalled it: completes (A-TX-RACE-HW).
    Im2colArrivalFirst,
    /// `mbarrier.pending_count_range` of an arrive-on on a phase whose arrivals are all in and
    /// that copies in flight still owe complete-tx: traps, or the copies complete the phase
    /// first and the rest of the program decides (A-MB-COPIES-FIRST-HW).
    CopiesOwed,
}

/// The two ways the model's run completes a phase that a copy it tracks has still to signal
/// ([`MBAR_TX_RACE`]); in the other order of the same program the phase does not complete there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TxRace {
    /// An arrival (or expect-tx) brought the phase to completion with the copy's complete-tx
    /// still to come: landed first, the copy leaves the tx-count below zero at the arrival.
    ArrivalFirst,
    /// One piece of a copy's complete-tx brought the tx-count to exactly zero with other pieces
    /// (of it or another copy) still to land: in another piece order the count skips zero.
    PieceReachedZero,
}

/// An mbarrier phase as a failed wait left it: arrivals still pending and the tx-count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PhaseLeft {
    pub pending: u32,
    pub tx_count: i32,
}

/// A shared-memory access, in bytes from the start of the CTA's shared image (the case's
/// dynamic shared memory), the 32-bit shared address wrapped as silicon wraps it: `[start,
/// end)`, with the bytes the CTA was launched with (`Layout::shared_allocation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SharedAccess {
    pub start: i64,
    pub end: i64,
    pub allocation: u64,
}

impl Ub {
    pub fn new(rule: &UbRule, detail: impl Into<String>) -> Ub {
        Ub {
            rule: rule.id,
            section: rule.section,
            detail: detail.into(),
            situation: None,
            shared_access: None,
            phase: None,
            checked_first: None,
            tx_race: None,
        }
    }

    /// [`MBAR_TX_RACE`] in situation `how`.
    pub fn tx_race(how: TxRace, detail: impl Into<String>) -> Ub {
        Ub {
            tx_race: Some(how),
            ..Ub::new(&MBAR_TX_RACE, detail)
        }
    }

    /// A situation of `rule` in which sm_90 silicon traps ([`silicon_traps_when`]).
    pub fn trapping(rule: &UbRule, detail: impl Into<String>) -> Ub {
        Ub::new(rule, detail).in_situation(Situation::Traps)
    }

    /// This UB in situation `s`.
    pub fn in_situation(self, s: Situation) -> Ub {
        Ub {
            situation: Some(s),
            ..self
        }
    }
}

/// The situations of a rule in which H100 silicon trapped (the corpus baseline of 2026-11-25,
/// `cases/ub/mbarrier.yaml`; CUDA error 719, launch failed) while the rule's other situations
/// completed on H100 and H200 (a never-initialized mbarrier also completed once on an H200:
/// undecided, `exec::predict::NEVER_INITIALIZED`; H200 trapped so on bulk copies into
/// .shared::cluster off the granule, `exec::predict::GRANULE_CLUSTER`).
pub fn silicon_traps_when(id: &str) -> Option<&'static str> {
    Some(match id {
        "mbarrier.not_initialized" => {
            "a location never initialized, or completes there: undecided (A-MB-NEVER-INIT-HW); \
             after mbarrier.inval it runs on the object inval left (A-MB-INVAL-KEEPS-HW)"
        }
        "bulk.size_not_multiple_of_16" => {
            "a copy from global into .shared::cluster, or does what its size rounded down does \
             there: undecided (A-BULK-GRANULE-CLUSTER-HW)"
        }
        "mbarrier.arrive_count_range" => {
            "a count above 2^20-1 (1 of 1); count 0 completes (2 of 2)"
        }
        "mbarrier.expected_count_range" => {
            "an arrive-on after an arrive_drop of every expected arrival, which leaves nothing \
             expected (5 of 5); the drop itself completes its phase (A-MB-ARRIVE-COUNTS-HW)"
        }
        "mbarrier.tx_count_range" => {
            "a tx-count below -(2^20-1) (1 of 1) or above 2^20 (10 of 10); at exactly 2^20 it \
             completes (3 of 3, A-TX-RANGE-HW)"
        }
        _ => return None,
    })
}

impl fmt::Display for Ub {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "undefined behaviour [{}] (§{}): {}",
            self.rule, self.section, self.detail
        )
    }
}

impl std::error::Error for Ub {}

macro_rules! rules {
    ($($name:ident = ($id:literal, $sec:literal, $assume:literal, $layer:ident, $summary:literal);)*) => {
        $(pub const $name: UbRule = UbRule { id: $id, section: $sec, summary: $summary, assumption: $assume, layer: Layer::$layer };)*
        /// Every rule the model knows, in declaration order.
        pub const CATALOGUE: &[UbRule] = &[$($name),*];
    };
}

rules! {
    // --- mbarrier object (§9.7.13.15) ---
    MBAR_NOT_INITIALIZED = ("mbarrier.not_initialized", "9.7.13.15", false, Mbarrier,
        "mbarrier operation other than init on a location without a valid mbarrier object");
    MBAR_INIT_ON_VALID = ("mbarrier.init_on_valid", "9.7.13.15.9", false, Mbarrier,
        "mbarrier.init on a location that holds a valid mbarrier object (inval first)");
    MBAR_NON_MBARRIER_ACCESS = ("mbarrier.non_mbarrier_access", "9.7.13.15", false, Executor,
        "non-mbarrier operation on the memory of an initialized mbarrier object");
    MBAR_INIT_COUNT_RANGE = ("mbarrier.init_count_range", "9.7.13.15.9", false, Mbarrier,
        "mbarrier.init count outside [1, 2^20-1]");
    MBAR_ARRIVE_COUNT_RANGE = ("mbarrier.arrive_count_range", "9.7.13.15.13", false, Mbarrier,
        "arrive/arrive_drop count operand outside [1, 2^20-1]");
    MBAR_PENDING_RANGE = ("mbarrier.pending_count_range", "9.7.13.15.2", false, Mbarrier,
        "pending arrival count would leave [0, 2^20-1] (more arrivals than pending)");
    MBAR_EXPECTED_RANGE = ("mbarrier.expected_count_range", "9.7.13.15.2", false, Mbarrier,
        "expected arrival count would leave [1, 2^20-1] (arrive_drop below 1)");
    MBAR_TX_RANGE = ("mbarrier.tx_count_range", "9.7.13.15.2", false, Mbarrier,
        "tx-count would leave [-(2^20-1), 2^20-1]");
    MBAR_CP_ASYNC_INC_OVERFLOW = ("mbarrier.cp_async_arrive_overflow", "9.7.13.15.15", false, Mbarrier,
        "cp.async.mbarrier.arrive (without .noinc) increments pending count beyond 2^20-1");
    MBAR_NOCOMPLETE_COMPLETES = ("mbarrier.nocomplete_completes", "9.7.13.15.13", false, Mbarrier,
        "arrive{_drop}.noComplete causes the current phase to complete");
    MBAR_PENDING_COUNT_STATE = ("mbarrier.pending_count_state", "9.7.13.15.17", false, Mbarrier,
        "mbarrier.pending_count on a state not produced by arrive{_drop}.noComplete");
    MBAR_WAIT_FOREIGN_STATE = ("mbarrier.wait_foreign_state", "9.7.13.15.16", true, Mbarrier,
        "test_wait/try_wait with a state not returned by arrive on this mbarrier object");
    MBAR_WAIT_STALE_STATE = ("mbarrier.wait_stale_state", "9.7.13.15.16", true, Mbarrier,
        "test_wait/try_wait state is neither the current nor the immediately preceding phase");
    MBAR_PARITY_VALUE = ("mbarrier.parity_value", "9.7.13.15.16", true, Mbarrier,
        "phaseParity operand other than 0 or 1");
    MBAR_ARRIVE_BEFORE_WAIT = ("mbarrier.arrive_before_wait", "9.7.13.15.4", true, Mbarrier,
        "arrive-on in a phase before any test_wait/try_wait returned True for the preceding phase");
    MBAR_PARITY_WAIT_RACE = ("mbarrier.parity_wait_race", "9.7.13.15.16", true, Executor,
        "a parity wait sees the phase it names complete while what signals the object (copies' complete-tx, cp.async.mbarrier.arrive arrive-ons) is still in flight and, landed first, would complete the current phase: the parity then names the new current phase and the wait does not complete; which phase it names depends on an order the text leaves open (A-WAIT-PARITY-RACE)");
    MBAR_TX_RACE = ("mbarrier.complete_tx_race", "9.7.13.15.5", true, Executor,
        "a phase completes while an issued copy's complete-tx it tracks is still to land: in another allowed order of that complete-tx the phase does not complete there (the expect-tx did not count the copy's bytes; A-TX-RACE)");
    MBAR_ADDRESS_WINDOW = ("mbarrier.address_window", "9.7.13.15.9", false, Executor,
        "mbarrier address outside the .shared::cta (or .shared::cluster where allowed) window");
    MBAR_MISALIGNED = ("mbarrier.misaligned", "9.7.13.15.1", false, Executor,
        "mbarrier object address not 8-byte aligned");
    // --- async copy completion (§9.7.9.25.1) ---
    ASYNC_SRC_MODIFIED = ("async.src_modified_before_completion", "9.7.9.25.1", false, Executor,
        "source memory modified before the asynchronous copy read it (completed)");
    ASYNC_DST_READ = ("async.dst_read_before_completion", "9.7.9.25.1", false, Executor,
        "destination memory read before the asynchronous copy completed");
    // --- cp.async (§9.7.9.25.3) ---
    CP_ASYNC_SRC_SIZE = ("cp.async.src_size_gt_cp_size", "9.7.9.25.3.1", false, Executor,
        "cp.async src-size larger than cp-size");
    CP_ASYNC_SAME_DST_IN_GROUP = ("cp.async.same_dst_in_group", "9.7.9.25.3.2", false, Executor,
        "two cp.async operations of one cp.async-group write the same location");
    // --- cp.async.bulk / cp.reduce.async.bulk (§9.7.9.25.4) ---
    BULK_SIZE_MULTIPLE_16 = ("bulk.size_not_multiple_of_16", "9.7.9.25.4.1", false, Executor,
        "bulk copy/reduce size not a multiple of 16");
    BULK_RANGE_OVERFLOW = ("bulk.range_overflow", "9.7.9.25.4.1", false, Executor,
        "[mem, mem+size-1] overflows the source or destination memory space");
    BULK_DST_NOT_OWN_CTA = ("bulk.dst_not_executing_cta", "9.7.9.25.4.1", false, Executor,
        ".shared::cta destination not in the executing CTA's shared memory");
    BULK_IGNORE_OOB_RANGE = ("bulk.ignore_oob_range", "9.7.9.25.4.1", false, Executor,
        "ignoreBytesLeft/ignoreBytesRight outside [0, 15]");
    BULK_MULTICAST_OUTSIDE_CLUSTER = ("bulk.multicast_cta_outside_cluster", "9.7.9.25.4.1", true, Executor,
        "ctaMask bit set for a CTA rank outside the cluster");
    BULK_CLUSTER_DST_OWN_CTA = ("bulk.cluster_dst_is_executing_cta", "9.7.9.25.4.1", true, Executor,
        ".shared::cluster destination of a .shared::cta source is in the executing CTA (must be a different CTA)");
    // --- waits (§9.7.13.15.16) ---
    WAIT_NEVER_COMPLETES = ("wait.never_completes", "9.7.13.15.16", true, Executor,
        "a blocking wait on a phase that can never complete (nothing left that could complete it)");
    // --- plain accesses racing async operations (§9.7.9.25.1) ---
    ASYNC_DST_WRITTEN = ("async.dst_written_before_completion", "9.7.9.25.1", true, Executor,
        "plain write to the destination of an asynchronous operation before it completed");
    // --- addresses (§6.4.1) ---
    ADDRESS_MISALIGNED = ("address.misaligned", "6.4.1", false, Executor,
        "memory operand not aligned as the instruction requires");
    ADDRESS_OUT_OF_REGION = ("address.out_of_region", "6.4.1", true, Executor,
        "access leaves the declared region (or state space) its address names");
    // --- tensor copies (§9.7.9.25.5; sem::exec::tensor). The first two are families: a case's
    // rule id is `family:<rule>` with the tensor model's rule id ([`rule`] resolves it). ---
    TENSORMAP_ENCODE_REJECTED = ("tensormap.encode_rejected", "5.5.2", true, Executor,
        "the tensor map breaks a cuTensorMapEncode* / tensor-map rule (id suffix: the validator's rule)");
    TENSOR_COPY_RULE = ("tensor.copy", "9.7.9.25.5.2", true, Executor,
        "a tensor copy breaks a per-copy rule of its map and mode (id suffix: the copy rule)");
    TENSOR_REDUCE_TYPE_ILLEGAL = ("tensor.reduce_type_illegal", "9.7.9.25.5.3", true, Executor,
        "cp.reduce.async.bulk.tensor .redOp not allowed for the tensor map's element type");
    TENSOR_REDUCE_ADD_UNLISTED_FLOAT = ("tensor.reduce_add_unlisted_float", "9.7.9.25.5.3", true, Executor,
        "cp.reduce.async.bulk.tensor .add over a FLOAT64 or TFLOAT32 map (no .f64 / tf32 add in the type table)");
    TENSOR_DST_NOT_OWN_CTA = ("tensor.dst_not_executing_cta", "9.7.9.25.5.2", false, Executor,
        "tensor load's .shared::cta destination not in the executing CTA's shared memory");
    TENSOR_MBAR_CTA_GROUP = ("tensor.mbar_cta_group", "9.7.9.25.5.2", true, Executor,
        "tensor load mbarrier outside the destination CTA (.cta_group::1) or its CTA pair (.cta_group::2)");
    // --- Tensor Memory and tcgen05 (§9.7.16), detected by sem::tcgen05 or the executor ---
    TCGEN05_ALLOC_NCOLS = ("tcgen05.alloc.ncols_invalid", "9.7.16.7.1", true, Tcgen05,
        "nCols of alloc/dealloc not a power of 2 within [32, 512]");
    TCGEN05_ALLOC_NCOLS_INCREASING = ("tcgen05.alloc.ncols_increasing", "9.7.16.7.1", true, Tcgen05,
        "an allocation larger than the CTA's previous one (nCols must not increase)");
    TCGEN05_ALLOC_AFTER_RELINQUISH = ("tcgen05.alloc.after_relinquish", "9.7.16.7.1", true, Tcgen05,
        "tcgen05.alloc after the CTA executed tcgen05.relinquish_alloc_permit (\"illegal\")");
    TCGEN05_ALLOC_PLACEMENT = ("tcgen05.alloc.placement", "9.7.16.1.2", true, Tcgen05,
        "device-reported allocation is not a free, 32-column-aligned run at lane 0 (model consistency)");
    TCGEN05_ALLOC_LEAK = ("tcgen05.alloc.not_deallocated_at_exit", "9.7.16.7.1", true, Tcgen05,
        "Tensor Memory still allocated when the kernel exits");
    TCGEN05_DEALLOC_NOT_ALLOCATED = ("tcgen05.dealloc.not_allocated", "9.7.16.7.1", true, Tcgen05,
        "dealloc taddr does not start a live allocation (double dealloc, never allocated)");
    TCGEN05_DEALLOC_NCOLS_MISMATCH = ("tcgen05.dealloc.ncols_mismatch", "9.7.16.7.1", true, Tcgen05,
        "dealloc nCols differs from the allocation's (partial dealloc; model position)");
    TCGEN05_WARP_OPERAND_NOT_UNIFORM = ("tcgen05.warp_operand_not_uniform", "9.7.16.7.1", false, Tcgen05,
        "threads of the warp disagree on nCols (alloc/dealloc) or taddr (ld/st)");
    TCGEN05_TMEM_OUT_OF_RANGE = ("tcgen05.tmem.out_of_range", "9.7.16.1", true, Tcgen05,
        "Tensor Memory cell outside 128 lanes x 512 columns");
    TCGEN05_TMEM_UNALLOCATED = ("tcgen05.tmem.unallocated", "9.7.16.1.2", true, Tcgen05,
        "access to a Tensor Memory column that is not allocated (model position)");
    TCGEN05_LDST_LANE_ACCESS = ("tcgen05.ldst.lane_access", "9.7.16.8.1", true, Tcgen05,
        "tcgen05.ld/st by warp w touches lanes outside 32*(w%4) .. +31");
    TCGEN05_DESC_FIXED_46_48 = ("tcgen05.desc.fixed_46_48", "9.7.16.4.1", true, Tcgen05,
        "descriptor bits 46-48 are not the fixed constant 0b001");
    TCGEN05_DESC_FIXED_53_60 = ("tcgen05.desc.fixed_53_60", "9.7.16.4.1", true, Tcgen05,
        "descriptor bits 53-60 are not the fixed constant 0");
    TCGEN05_DESC_RESERVED = ("tcgen05.desc.reserved_bits", "9.7.16.4.1", true, Tcgen05,
        "descriptor reserved bits 14-15 / 30-31 set (model position)");
    TCGEN05_DESC_SWIZZLE_INVALID = ("tcgen05.desc.swizzle_invalid", "9.7.16.4.1", true, Tcgen05,
        "descriptor swizzle mode 3, 5 or 7");
    TCGEN05_DESC_START_MISALIGNED = ("tcgen05.desc.start_misaligned", "9.7.16.4.1", true, Tcgen05,
        "start address not 32-byte aligned with 128B/32B-atom swizzling (model position)");
    TCGEN05_DESC_LBO_ABSOLUTE_SWIZZLE = ("tcgen05.desc.lbo_absolute_swizzle", "9.7.16.3.1.2.1", true, Tcgen05,
        "absolute leading-dimension mode without 128B (16B-atom) swizzling");
    TCGEN05_DESC_LBO_ABSOLUTE_BASE_OFFSET = ("tcgen05.desc.lbo_absolute_base_offset", "9.7.16.3.1.2.1", true, Tcgen05,
        "absolute leading-dimension mode with a non-zero base offset");
    TCGEN05_DESC_LBO_ABSOLUTE_TARGET = ("tcgen05.desc.lbo_absolute_target", "9.7.16.4.1.1", true, Tcgen05,
        "absolute leading-dimension mode on a target other than sm_103a");
    TCGEN05_CP_SHAPE_MULTICAST = ("tcgen05.cp.shape_multicast", "9.7.16.9.2", true, Tcgen05,
        "cp shape with a .multicast it does not take (statically rejected by the syntax model)");
    TCGEN05_CP_MULTICAST_LANE = ("tcgen05.cp.multicast_lane", "9.7.16.9.2", true, Tcgen05,
        "multicast cp (.64x128b/.32x128b) with taddr lane not 0 (model position)");
    TCGEN05_CP_LANE_RANGE = ("tcgen05.cp.lane_range", "9.7.16.9.2", true, Tcgen05,
        "cp destination lanes reach beyond lane 127");
    TCGEN05_CP_COLUMN_RANGE = ("tcgen05.cp.column_range", "9.7.16.9.2", true, Tcgen05,
        "cp destination columns reach beyond column 511");
    TCGEN05_CP_SMEM_RANGE = ("tcgen05.cp.smem_range", "9.7.16.4.1", true, Tcgen05,
        "cp source bytes outside the shared-memory window");
    TCGEN05_CP_PEER_INACTIVE = ("tcgen05.cp.peer_inactive", "9.7.16.5", true, Tcgen05,
        "cta_group::2 operation while the peer CTA is not active");
    TCGEN05_CTA_GROUP_MIXED = ("tcgen05.cta_group_mixed", "9.7.16.9.2", true, Tcgen05,
        "tcgen05 instructions of one kernel with different .cta_group");
}

/// Rules no case program can reach, so the corpus cannot cover them: `tcgen05.alloc.placement`
/// checks a *device-reported* allocation address (the reference places allocations itself), and
/// `tcgen05.cp.shape_multicast` is rejected by the syntax model before execution.
pub const NOT_PROGRAM_REACHABLE: &[&str] =
    &[TCGEN05_ALLOC_PLACEMENT.id, TCGEN05_CP_SHAPE_MULTICAST.id];

/// Rules of one layer.
pub fn of_layer(layer: Layer) -> impl Iterator<Item = &'static UbRule> {
    CATALOGUE.iter().filter(move |r| r.layer == layer)
}

/// Look a rule up by id; `family:detail` ids (the tensor families) resolve to their family.
pub fn rule(id: &str) -> Option<&'static UbRule> {
    CATALOGUE.iter().find(|r| r.id == id).or_else(|| {
        let (family, detail) = id.split_once(':')?;
        [&TENSORMAP_ENCODE_REJECTED, &TENSOR_COPY_RULE]
            .into_iter()
            .find(|r| r.id == family && !detail.is_empty())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_unique_and_sections_present() {
        let mut seen = HashSet::new();
        for r in CATALOGUE {
            assert!(seen.insert(r.id), "duplicate id {}", r.id);
            assert!(!r.section.is_empty() && r.section.chars().next().unwrap().is_ascii_digit());
        }
        assert_eq!(rule("mbarrier.tx_count_range"), Some(&MBAR_TX_RANGE));
        assert_eq!(rule("nope"), None);
        assert_eq!(rule("tensor.copy:smem-alignment"), Some(&TENSOR_COPY_RULE));
        assert_eq!(rule("tensor.copy:"), None);
        assert_eq!(
            rule("address.misaligned:x"),
            None,
            "only the tensor families take a suffix"
        );
    }

    #[test]
    fn tcgen05_layer_is_the_tcgen05_rules() {
        let t: Vec<_> = of_layer(Layer::Tcgen05).collect();
        assert_eq!(t.len(), 26);
        for r in &t {
            assert!(
                r.id.starts_with("tcgen05.") && r.section.starts_with("9.7.16"),
                "{}",
                r.id
            );
        }
        assert!(CATALOGUE
            .iter()
            .filter(|r| r.id.starts_with("tcgen05."))
            .all(|r| r.layer == Layer::Tcgen05));
    }

    #[test]
    fn ub_carries_rule_and_section() {
        let u = Ub::new(&MBAR_INIT_COUNT_RANGE, "count 0");
        assert_eq!(u.rule, "mbarrier.init_count_range");
        assert_eq!(u.section, "9.7.13.15.9");
        assert!(u.to_string().contains("count 0"));
    }
}
