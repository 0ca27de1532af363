//! The mutation schema (issue 33): semantic mutants of the reference, each one plausible
//! modelling mistake in one named rule. A mutant is a parameter of one execution
//! ([`crate::sem::exec::ExecOptions::mutant`]): the executor installs it for the duration of that
//! execution on its own thread ([`Scope`]), and the rule it breaks asks [`on`] whether to
//! misbehave, so leaf rules (a swizzle, a reduction's arithmetic) need no extra parameter. The
//! corpus replay (`ptxconform mutants`) judges every recorded observation under each mutant; a
//! mutant whose verdicts never change is a gap of the corpus (or an argued equivalence).
//!
//! Zero cost without the `mutants` feature: [`on`] is `const false`, every mutated branch is
//! dead code, and [`Scope`] holds nothing.

/// The rule family a mutant belongs to (the list, plus the tensor box's own rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Swizzle,
    OobFill,
    SrcSizeFill,
    BulkGranule,
    Multicast,
    TxAccounting,
    PhaseParity,
    GroupQueues,
    Reduce,
    Im2col,
    ElementStrides,
    Interleave,
    TensorBox,
    TensorMapEncode,
    Tcgen05,
}

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Family::Swizzle => "swizzle",
            Family::OobFill => "oob-fill",
            Family::SrcSizeFill => "src-size-fill",
            Family::BulkGranule => "bulk-granule",
            Family::Multicast => "multicast",
            Family::TxAccounting => "tx-accounting",
            Family::PhaseParity => "phase-parity",
            Family::GroupQueues => "group-queues",
            Family::Reduce => "reduce",
            Family::Im2col => "im2col",
            Family::ElementStrides => "element-strides",
            Family::Interleave => "interleave",
            Family::TensorBox => "tensor-box",
            Family::TensorMapEncode => "tensor-map-encode",
            Family::Tcgen05 => "tcgen05",
        }
    }
}

/// Declares the mutants: variant, id, family, the rule (spec section or model assumption) it
/// breaks, whether it is subtle (fires only at one rank, type, boundary value or OOB
/// situation), and what it does.
macro_rules! mutants {
    ($($v:ident: $id:literal, $fam:ident, $rule:literal, $subtle:literal, $desc:literal;)*) => {
        /// One semantic mutant of the reference (see the module documentation).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Mutant {
            $($v,)*
        }

        impl Mutant {
            pub const ALL: &'static [Mutant] = &[$(Mutant::$v,)*];

            pub fn id(self) -> &'static str {
                match self {
                    $(Mutant::$v => $id,)*
                }
            }
            pub fn family(self) -> Family {
                match self {
                    $(Mutant::$v => Family::$fam,)*
                }
            }
            /// The rule it breaks: a spec section or the model's named assumption.
            pub fn rule(self) -> &'static str {
                match self {
                    $(Mutant::$v => $rule,)*
                }
            }
            pub fn subtle(self) -> bool {
                match self {
                    $(Mutant::$v => $subtle,)*
                }
            }
            pub fn description(self) -> &'static str {
                match self {
                    $(Mutant::$v => $desc,)*
                }
            }
        }
    };
}

/// Why a mutant of an sm_90 rule cannot be told apart on the sm_90a silicon and the pinned
/// toolchain (ptxas 13.0) here; such a mutant is counted apart from the kill rate, as tcgen05's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "why", content = "argument")]
pub enum Unobservable {
    /// It changes only what sm_100 instructions or forms do.
    NeedsSm100,
    /// It changes only an instruction of a PTX ISA newer than ptxas 13.0 takes.
    NeedsNewerPtx,
    /// Argued equivalent on sm_90 silicon: no run there can tell it from the model.
    ArguedEquivalent(&'static str),
}

impl Mutant {
    /// Whether this mutant can be told apart on sm_90a silicon with ptxas 13.0, and why not.
    pub fn unobservable_on_sm90(self) -> Option<Unobservable> {
        use Unobservable::*;
        Some(match self {
            // The 128B_ATOM swizzles, `.cp_mask`, the packed types and im2col::w are sm_100.
            Mutant::SwizzleAtom32AsPlain128B
            | Mutant::SwizzleFlip8BEvenLines
            | Mutant::CpMaskReversed
            | Mutant::TxTensorGlobalBytes
            | Mutant::Im2colWideOffsetIgnored => NeedsSm100,
            // `.ignore_oob` is PTX ISA 9.2.
            Mutant::IgnoreOobSwapped => NeedsNewerPtx,
            Mutant::NoCompleteNotChecked => ArguedEquivalent(
                "the text calls the situation undefined; H100 and H200 complete the phase \
                 exactly as the mutant predicts",
            ),
            Mutant::EncodeStrideCoversSkipped => ArguedEquivalent(
                "the driver accepts the map either way, and the bytes the mutant predicts are \
                 those of the map as encoded",
            ),
            _ => return None,
        })
    }
}

mutants! {
    // Swizzle bits and base offsets (§5.5.7).
    Swizzle128BTwoBits: "swizzle.128b-two-line-bits", Swizzle, "§5.5.7 128B table", false,
        "the 128B pattern XORs only two line-index bits into the chunk index (the 64B pattern)";
    Swizzle64BThreeBits: "swizzle.64b-three-line-bits", Swizzle, "§5.5.7 64B table", false,
        "the 64B pattern XORs three line-index bits (the 128B pattern)";
    Swizzle32BLineBit8: "swizzle.32b-line-bit-8", Swizzle, "§5.5.7 32B table", false,
        "the 32B pattern takes its XOR bit from address bit 8 instead of 7 (rows of 256 B)";
    SwizzleOnBoxOffset: "swizzle.on-box-offset", Swizzle, "§5.5.7 base offset", true,
        "the swizzle is applied to the offset from dstMem, not the shared address (base offset ignored)";
    SwizzleAtom32AsPlain128B: "swizzle.atom32-as-128b", Swizzle, "§5.5.7 128B_ATOM_32B", true,
        "the 32-byte atomicity of 128B_ATOM_32B is ignored: it swizzles as plain 128B";
    SwizzleFlip8BEvenLines: "swizzle.flip-8b-even-lines", Swizzle, "Assumption::Flip8BOnOddLines", true,
        "the 8-byte flip of 128B_ATOM_32B_FLIP_8B happens on even lines instead of odd ones";
    SwizzleRowsDense: "swizzle.rows-dense", Swizzle, "Assumption::SwizzleRowPitchIsSpan", true,
        "swizzled box rows narrower than the span are packed densely instead of one per span line";
    // OOB fill (§5.5.3.2, oobFill).
    OobNanFillsZero: "oob.nan-request-fills-zero", OobFill, "oobFill NAN_REQUEST_ZERO_FMA", false,
        "OOB elements of a NaN-fill map are filled with zeros";
    OobNanF32Canonical: "oob.nan-f32-canonical", OobFill, "Assumption::OobNanAllOnes", true,
        "f32 maps fill OOB elements with the canonical quiet NaN 0x7FC00000, not the observed 0x7FF77FF7";
    OobUpperBoundInclusive: "oob.upper-bound-inclusive", OobFill, "§5.5.3.2 bounds", true,
        "an element at coordinate globalDim (one past the end) counts as in bounds";
    OobOnlyDim0: "oob.only-dimension-0", OobFill, "§5.5.3.2 bounds", true,
        "only dimension 0 is bounds-checked: rows beyond the tensor read real memory";
    OobNegativeInBounds: "oob.negative-coords-in-bounds", OobFill, "§5.5.3.2 bounds", true,
        "negative coordinates are not OOB (the check tests only the upper bound)";
    StoreClipsAtElement: "oob.store-clips-at-element", OobFill, "Assumption::StoreClips16ByteGranules", true,
        "a store clips dimension 0 at the element, not at the 16-byte granule past it";
    // src-size / ignore-src fill (§9.7.9.25.3.1).
    SrcSizeIgnored: "cp-async.src-size-ignored", SrcSizeFill, "§9.7.9.25.3.1 src-size", false,
        "src-size is ignored: cp-size bytes are read";
    SrcSizeEqualIsUb: "cp-async.src-size-equal-ub", SrcSizeFill, "§9.7.9.25.3.1 src-size", true,
        "src-size equal to cp-size is classified undefined (>= instead of >)";
    SrcSizeZeroReadsAll: "cp-async.src-size-zero-reads-all", SrcSizeFill, "§9.7.9.25.3.1 src-size", true,
        "src-size 0 is read as 'no src-size': the whole cp-size is copied";
    IgnoreSrcInverted: "cp-async.ignore-src-inverted", SrcSizeFill, "§9.7.9.25.3.1 ignore-src", false,
        "the ignore-src predicate is read inverted";
    ZeroFillSkipped: "cp-async.zero-fill-skipped", SrcSizeFill, "§9.7.9.25.3.1 zero fill", false,
        "bytes past src-size (or all with ignore-src) keep their old value instead of zero";
    // Bulk size granule (§9.7.9.25.4.1).
    BulkGranule8: "bulk.granule-8", BulkGranule, "§9.7.9.25.4.1 size multiple of 16", true,
        "a bulk size that is a multiple of 8 (not 16) is well defined";
    BulkRoundsUp: "bulk.silicon-rounds-up", BulkGranule, "A-BULK-SIZE-ROUNDS-DOWN", true,
        "silicon's reading rounds an off-granule size up to 16 instead of down";
    BulkAlign8: "bulk.align-8", BulkGranule, "§9.7.9.25.4.1 16-byte alignment", true,
        "bulk addresses need only 8-byte alignment";
    CpMaskReversed: "bulk.cp-mask-msb-first", BulkGranule, "§9.7.9.25.4.1 .cp_mask", false,
        "byteMask bit i selects byte 15 − i of each 16-byte chunk";
    IgnoreOobSwapped: "bulk.ignore-oob-swapped", BulkGranule, "§9.7.9.25.4.1 .ignore_oob", true,
        "the left and right .ignore_oob byte counts are swapped";
    // Multicast bit order (§9.7.9.25.4.1 ctaMask).
    MulticastMaskReversed: "multicast.mask-msb-first", Multicast, "§9.7.9.25.4.1 ctaMask", false,
        "ctaMask bit b names cluster rank (clusterSize − 1 − b)";
    MulticastBitIsCtaId: "multicast.bit-is-cta-id", Multicast, "§9.7.9.25.4.1 ctaMask", true,
        "ctaMask bit b names CTA b of the grid, not rank b of the issuer's cluster";
    MulticastSkipsIssuer: "multicast.skips-issuer", Multicast, "§9.7.9.25.4.1 ctaMask", false,
        "the issuing CTA never receives its own multicast copy";
    MulticastSignalsIssuer: "multicast.signals-issuer", Multicast, "A-EXEC-MBAR-IN-DST", false,
        "every destination's complete-tx goes to the issuer's mbarrier, not the destination CTA's";
    // tx accounting (§9.7.13.15.5).
    TxIgnoredForPhase: "tx.ignored-for-phase", TxAccounting, "§9.7.13.15.6 phase completion", false,
        "a phase completes on pending count 0 whatever the tx-count";
    TxArriveBeforeExpect: "tx.arrive-before-expect", TxAccounting, "§9.7.13.15.13 .expect_tx", false,
        "arrive.expect_tx arrives before it raises the tx-count (the phase may complete early)";
    TxTensorInBoundsOnly: "tx.tensor-in-bounds-only", TxAccounting, "Assumption::CompleteTxCountsWholeBox", true,
        "a tensor load's complete-tx counts only its in-bound elements, not the whole box";
    TxTensorGlobalBytes: "tx.tensor-global-bytes", TxAccounting, "Assumption::CompleteTxCountsWholeBox", true,
        "a tensor load's complete-tx counts global bytes, not shared bytes (padded types)";
    TxNegativeIsUb: "tx.negative-is-ub", TxAccounting, "§9.7.13.15.5 tx-count range", true,
        "a tx-count below zero (complete-tx before expect-tx) is classified undefined";
    // Phase and parity (§9.7.13.15).
    ParityInverted: "phase.parity-inverted", PhaseParity, "§9.7.13.15.16 .parity", false,
        "a parity wait completes on the current phase's parity instead of the preceding one's";
    ParityPreinitIncomplete: "phase.preinit-parity-incomplete", PhaseParity, "A-MB-PARITY-PREINIT", true,
        "parity 1 on a fresh mbarrier (phase −1) reads incomplete";
    ArriveDropKeepsExpected: "phase.arrive-drop-keeps-expected", PhaseParity, "§9.7.13.15.14 arrive_drop", true,
        "arrive_drop does not lower the expected count of later phases";
    NoCompleteNotChecked: "phase.nocomplete-unchecked", PhaseParity, "§9.7.13.15.13 .noComplete", true,
        "an arrive.noComplete that completes the phase is not classified undefined";
    ArriveCountIgnored: "phase.arrive-count-ignored", PhaseParity, "§9.7.13.15.13 arrive count", false,
        "mbarrier.arrive with a count operand arrives once";
    CpAsyncArriveNoincInverted: "phase.cp-async-arrive-noinc-inverted", PhaseParity, "§9.7.13.15.15 .noinc", false,
        "cp.async.mbarrier.arrive increments the pending count with .noinc and not without";
    ExpectTxNeverCompletes: "tx.expect-tx-never-completes", TxAccounting, "§9.7.13.15.6 phase completion", true,
        "mbarrier.expect_tx never completes the phase, even when it brings a negative tx-count to zero";
    // Async-group queues (§9.7.9.25.3.3, §9.7.9.25.6).
    WaitGroupKeepsOneMore: "group.wait-group-keeps-n-plus-1", GroupQueues, "§9.7.9.25.3.3 wait_group N", false,
        "wait_group N leaves the N + 1 most recent groups pending";
    WaitGroupZeroWaitsNothing: "group.wait-group-0-waits-nothing", GroupQueues, "§9.7.9.25.3.3 wait_group 0", true,
        "wait_group 0 is read as 'no limit' and completes nothing";
    WaitAllSkipsUncommitted: "group.wait-all-skips-uncommitted", GroupQueues, "§9.7.9.25.3.3 wait_all", true,
        "cp.async.wait_all does not commit first: uncommitted copies stay in flight";
    EmptyGroupNotCounted: "group.empty-group-not-counted", GroupQueues, "A-GRP-EMPTY-COUNTS", true,
        "committing no operations creates no group position";
    WaitReadCompletesWrites: "group.wait-read-completes-writes", GroupQueues, "A-GRP-READ", true,
        "cp.async.bulk.wait_group.read also completes the destination writes";
    // Reduction per op × type (§9.7.9.25.4.2).
    RedMinMaxS32Unsigned: "reduce.minmax-s32-unsigned", Reduce, "§9.7.9.25.4.2 .s32 min/max", true,
        "min/max .s32 compare as unsigned";
    RedMinMaxS64Unsigned: "reduce.minmax-s64-unsigned", Reduce, "§9.7.9.25.4.2 .s64 min/max", true,
        "min/max .s64 compare as unsigned";
    RedIncInclusive: "reduce.inc-wraps-past-bound", Reduce, "A-RED-INCDEC", true,
        "inc wraps to 0 only when the old value exceeds the bound (> instead of >=)";
    RedDecZeroStays: "reduce.dec-zero-stays", Reduce, "A-RED-INCDEC", true,
        "dec of 0 stays 0 instead of wrapping to the bound";
    RedXorAsOr: "reduce.xor-as-or", Reduce, "§9.7.9.25.4.2 .xor", false,
        "xor is computed as or";
    RedAddU64Carry32: "reduce.add-u64-wraps-32", Reduce, "§9.7.9.25.4.2 .u64 add", true,
        "u64 add wraps at 32 bits (the carry out of the low word is lost)";
    RedF32FlushOnSilicon: "reduce.f32-flush-on-sm90", Reduce, "P-RED-F32-SUBNORMALS", true,
        "the sm_90 reading of f32 add flushes subnormals (the text's reading)";
    RedF32NanPayload: "reduce.f32-nan-keeps-payload", Reduce, "A-RED-NAN", true,
        "an f32 add's NaN result keeps the operands' NaN instead of the canonical NaN";
    RedF64NanCanonical: "reduce.f64-nan-canonical", Reduce, "P-RED-F64-NAN-OPERAND", true,
        "the sm_90 reading of f64 add returns the canonical NaN for a NaN operand";
    RedHalfAddTruncates: "reduce.half-add-truncates", Reduce, "§9.7.9.25.4.2 .rn", true,
        "f16/bf16 add rounds toward zero instead of to nearest even";
    RedHalfAddFlushes: "reduce.half-add-flushes", Reduce, "§9.7.9.25.4.2 .noftz", true,
        "f16/bf16 add flushes subnormal results to zero";
    RedHalfMinMaxNanPropagates: "reduce.half-minmax-nan-propagates", Reduce, "§9.7.9.25.4.2 min/max NaN", true,
        "f16/bf16 min/max with one NaN operand returns the canonical NaN, not the number";
    RedMinMaxZeroFirst: "reduce.minmax-signed-zero-first", Reduce, "A-RED-MINMAX-ZERO", true,
        "f16/bf16 min/max of +0 and −0 returns the destination operand";
    // im2col (§5.5.4, §5.5.5).
    Im2colOffsetsReversed: "im2col.offsets-reversed", Im2col, "§5.5.4.1 im2col offsets", true,
        "the im2col offsets are applied D first instead of W first";
    Im2colUpperCornerExclusive: "im2col.upper-corner-exclusive", Im2col, "§5.5.4.1 bounding box", false,
        "the box's upper corner is exclusive: the traversal wraps one pixel early";
    Im2colNStepsByOne: "im2col.n-steps-by-one", Im2col, "Assumption::Im2colNStride", true,
        "N advances by 1 whatever its traversal stride";
    Im2colOffsetLimitLoose: "im2col.offset-limit-rank3-for-all", Im2col, "§5.5.4.1 offset range", true,
        "every rank takes rank 3's offset limit (2^16)";
    Im2colWideOffsetIgnored: "im2col.w-offset-ignored", Im2col, "§5.5.5.4 wOffset", false,
        "im2col::w does not move W by wOffset";
    Im2colPixelsPerColumnOffByOne: "im2col.pixels-per-column-plus-one", Im2col, "§5.5.4 pixelsPerColumn", false,
        "an im2col load gathers pixelsPerColumn + 1 pixels";
    // elementStrides (spec/09 traversal strides).
    ElemStrideDim0Honoured: "element-strides.dim0-honoured", ElementStrides, "Assumption::ElementStrideDim0", true,
        "elementStrides[0] > 1 strides dimension 0 without interleave";
    ElemStrideBoxFloor: "element-strides.box-floor", ElementStrides, "spec/09 ceil(boxDim / elementStrides)", true,
        "a box holds floor(boxDim / elementStrides) elements instead of ceil";
    ElemStrideIgnored: "element-strides.ignored", ElementStrides, "spec/09 elementStrides", false,
        "tile traversal steps by 1 whatever elementStrides says";
    Im2colSpatialStrideIgnored: "element-strides.im2col-spatial-ignored", ElementStrides, "§5.5.4 traversal stride", true,
        "im2col steps W/H/D by 1 whatever their traversal strides";
    // Interleave (§5.5.6).
    InterleaveKeepsDimRankMinus2: "interleave.keeps-dim-rank-2", Interleave, "Assumption::InterleaveDropsDimRankMinus2", false,
        "an interleaved box traverses dimension rank − 2 like any other";
    Interleave32BAs16B: "interleave.32b-granule-16", Interleave, "§5.5.6 NC/16HWC16", true,
        "the 32B interleave moves 16-byte granules";
    InterleaveUnitIsElement: "interleave.unit-is-element", Interleave, "Assumption::InterleaveGranuleUnits", false,
        "an interleaved coordinate counts elements, not granules";
    // The tensor box's own rules (§5.5.3.1, §5.5.1).
    BoxStartUnchecked: "tensor.box-start-unchecked", TensorBox, "§5.5.3.1 box start 16-byte aligned", true,
        "a box start not 16-byte aligned is well defined";
    Tf32Truncates: "tensor.tf32-truncates", TensorBox, "§5.5.1 .tf32 rounding", true,
        "tf32 loads truncate the mantissa instead of rounding to nearest even";
    SmemAlign16: "tensor.smem-align-16", TensorBox, "Assumption::SharedAlign128", true,
        "a tensor copy's shared address needs only the text's 16-byte alignment";
    // Tensor-map encode rules (spec/09, cuTensorMapEncode*).
    EncodeBoxDim257: "encode.box-dim-257", TensorMapEncode, "spec/09 boxDim <= 256", true,
        "boxDim up to 257 is accepted";
    EncodeSwizzleSpanStrict: "encode.swizzle-span-strict", TensorMapEncode, "spec/09 inner box <= swizzle span", true,
        "an inner box exactly as wide as the swizzle span is refused";
    EncodeElemStride16: "encode.element-stride-16", TensorMapEncode, "spec/09 elementStrides <= 8", true,
        "elementStrides up to 16 are accepted";
    EncodeStride8: "encode.stride-8", TensorMapEncode, "spec/09 globalStrides multiple of 16", true,
        "globalStrides need only be multiples of 8";
    EncodeNanFillIntegers: "encode.nan-fill-integers", TensorMapEncode, "spec/09 oobFill float only", true,
        "OOB NaN fill is accepted for integer types";
    EncodeStrideCoversSkipped: "encode.stride-covers-skipped", TensorMapEncode, "spec/09 strides cover lower dimensions", false,
        "a stride smaller than the extent of the lower dimensions is accepted";
    EncodeCornerLimitRank3: "encode.corner-limit-rank3-for-all", TensorMapEncode, "§5.5.4.1 corner range", true,
        "im2col corners of every rank take rank 3's range";
    // tcgen05.cp shape decode (§9.7.16.9.2); no sm_100 silicon here: reported apart.
    Tcgen05MulticastPairsSwapped: "tcgen05.warpx2-pairs-swapped", Tcgen05, "§9.7.16.9.2 .warpx2", true,
        "the .warpx2::02_13 and ::01_23 lane groups are swapped";
    Tcgen05WideShapeOneChunk: "tcgen05.256b-one-chunk", Tcgen05, "§9.7.16.9.2 .128x256b", false,
        "the 256-bit shapes copy one 16-byte chunk per row";
    Tcgen05SwizzleBaseOffsetIgnored: "tcgen05.base-offset-ignored", Tcgen05, "Assumption::SwizzlePhaseFromAddressMinusBaseOffset", true,
        "the descriptor's base offset does not correct the swizzle phase";
    Tcgen05LboSboSwapped: "tcgen05.lbo-sbo-swapped", Tcgen05, "§9.7.16.3.3 K-major no-swizzle layout", false,
        "the no-swizzle K-major layout steps rows by LBO and chunks by SBO";
}

#[cfg(feature = "mutants")]
mod active {
    use super::Mutant;
    use std::cell::{Cell, RefCell};

    thread_local! {
        /// The mutant of the execution running on this thread.
        static ACTIVE: Cell<Option<Mutant>> = const { Cell::new(None) };
        /// Mutants whose rule was consulted while recording ([`super::reached`]).
        static REACHED: RefCell<Option<Vec<bool>>> = const { RefCell::new(None) };
    }

    pub fn on(m: Mutant) -> bool {
        REACHED.with(|r| {
            if let Some(seen) = r.borrow_mut().as_mut() {
                seen[m as usize] = true;
            }
        });
        ACTIVE.with(|a| a.get() == Some(m))
    }

    pub struct Scope(Option<Mutant>);

    impl Scope {
        pub fn enter(m: Option<Mutant>) -> Scope {
            Scope(ACTIVE.with(|a| a.replace(m)))
        }
    }

    impl Drop for Scope {
        fn drop(&mut self) {
            ACTIVE.with(|a| a.set(self.0));
        }
    }

    pub fn reached<R>(f: impl FnOnce() -> R) -> (R, Vec<Mutant>) {
        let prev = REACHED.with(|r| r.replace(Some(vec![false; Mutant::ALL.len()])));
        let out = f();
        let seen = REACHED.with(|r| r.replace(prev)).unwrap_or_default();
        let hit = Mutant::ALL
            .iter()
            .copied()
            .filter(|m| seen[*m as usize])
            .collect();
        (out, hit)
    }
}

/// Does the running execution have mutant `m`? Only the rule `m` names asks.
#[cfg(feature = "mutants")]
#[inline]
pub fn on(m: Mutant) -> bool {
    active::on(m)
}

/// Without the `mutants` feature no mutant is ever on: every hook is dead code.
#[cfg(not(feature = "mutants"))]
#[inline(always)]
pub const fn on(_: Mutant) -> bool {
    false
}

/// Runs `f` and returns the mutants whose rule it consulted (on this thread). A mutant not among
/// them cannot change what `f` did: until its rule is first asked, a run under it is the same
/// run. The corpus replay re-executes only the cases that reach a mutant.
#[cfg(feature = "mutants")]
pub fn reached<R>(f: impl FnOnce() -> R) -> (R, Vec<Mutant>) {
    active::reached(f)
}

/// The mutant of one execution, installed on its thread until dropped (the previous one is
/// restored, so nested executions keep theirs).
#[cfg(feature = "mutants")]
pub use active::Scope;

#[cfg(not(feature = "mutants"))]
pub struct Scope;

#[cfg(not(feature = "mutants"))]
impl Scope {
    #[inline(always)]
    pub fn enter(_: Option<Mutant>) -> Scope {
        Scope
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_the_schema_is_large_enough() {
        let mut ids: Vec<&str> = Mutant::ALL.iter().map(|m| m.id()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), Mutant::ALL.len());
        assert!(Mutant::ALL.len() >= 60);
        let subtle = Mutant::ALL.iter().filter(|m| m.subtle()).count();
        assert!(3 * subtle >= Mutant::ALL.len(), "{subtle} subtle");
    }
}
