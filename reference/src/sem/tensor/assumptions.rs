//! Positions this model takes where the documentation is silent or figure-only. Each is a
//! question for hardware (listed in reports/tensor-open-questions.md); the code that depends on
//! one names it.

/// A named modelling assumption.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Assumption {
    /// OOB-NaN's bit pattern is not documented (§5.5.3.3 only says "a special NaN"). OBSERVED on
    /// H100 (driver 13.0): the 16-bit pattern 0x7FF7 repeated: f16 and bf16 0x7FF7, f32
    /// 0x7FF77FF7. ASSUMED for f64 (not probed): 0x7FF77FF77FF77FF7; for tf32 / f32.ftz the f32 one.
    OobNanAllOnes,
    /// complete-tx counts "amount of data copied in bytes". OBSERVED on H100: the box's element
    /// bytes, OOB-filled elements included (16×8 f32 box, 4 columns and 6 rows OOB: expect-tx 512
    /// completes, 528 does not) and swizzle row padding excluded (a 16×8 f32 box under 128B swizzle
    /// spans 1024 bytes of shared memory and completes with 512). ASSUMED: sub-byte padding counts.
    CompleteTxCountsWholeBox,
    /// A tensor store whose box crosses the tensor's edge: §5.5 states no behaviour. OBSERVED on
    /// H100: dimension 0 is clipped at the tensor's inner extent rounded up to 16 bytes (an f32
    /// tensor of width 18 with stride 80 gets elements 18 and 19 — the row padding — written too);
    /// the other dimensions at the element. ASSUMED: loads stay element-exact (OOB fill from
    /// `globalDim[0]` on; not probed with an inner extent that is not a multiple of 16 bytes).
    StoreClips16ByteGranules,
    /// Data conversion in transit. OBSERVED on H100: tf32 loads round each value to tf32 (low 13
    /// mantissa bits cleared; §5.5.1 says round to nearest even, which the model uses — the probe
    /// values cannot tell RNE from truncation). ASSUMED: every other type, f32.ftz included, and
    /// every store is bit-exact (no denormal flush).
    BitExactTransit,
    /// RESOLVED (kept for the record): an inner coordinate whose byte offset is not a multiple of
    /// 16 traps on H100 (CUDA_ERROR_ILLEGAL_INSTRUCTION for an f32 tile load at x = 1), matching
    /// §5.5.3.1; the model rejects it (copy rule `box-start-16b-aligned`).
    UnalignedInnerCoordAccepted,
    /// `elementStrides[0]`: the driver ignores it without interleave (spec/09), §5.5.3.2 says it
    /// "must always be 1". Position: without interleave it is treated as 1; with interleave it
    /// strides dimension 0 like any other dimension.
    ElementStrideDim0,
    /// im2col traversal order (figures only). Position: pixels advance W fastest, then H, then D,
    /// then N; a spatial dimension wraps from past its box end (upper corner) back to the box
    /// start (lower corner) stepping by its traversal stride, carrying into the next dimension;
    /// past the last image N the pixels are OOB. Each pixel is one shared-memory row of
    /// channelsPerPixel elements.
    Im2colTraversal,
    /// im2col bounding box extent: spatial dimension s spans base positions
    /// `[lower[s], globalDim[s] − 1 + upper[s]]` (the CUTLASS convolution convention: corners −1/−1
    /// give W positions for a 3-wide filter with padding 1). The §5.5.4 examples satisfy
    /// "filter base within the box" under this reading only if their coordinate lists are read
    /// outermost first ((7, 7, 4, 0) = N 7, H 7, W 4, C 0); read innermost first, C = 7 of f16 is
    /// a 14-byte box start, which traps on H100.
    Im2colBoxEnd,
    /// im2col::w halo placement. Position: the wHalo halo pixels continue the W sequence of the
    /// pixels just loaded (same traversal stride) and occupy the rows right after them; in
    /// w::128 that is after each group of 32.
    Im2colWHalo,
    /// An im2col pixel is OOB when any of its coordinates is outside the tensor (the bounding
    /// box only bounds the filter base positions, it does not clip the pixels).
    Im2colOobIsTensorBound,
    /// im2col traversal into N: past the last spatial position N advances by its own traversal
    /// stride (elementStrides[rank−1]), as §5.5.4.2 has D, H and W strided by theirs. OBSERVED
    /// on H100 (sweep of 2026-11-25, seed 2): every im2col load and store with
    /// elementStrides[rank−1] > 1 whose pixels wrapped past the box end continued at
    /// N + elementStrides[rank−1], e.g. strides (1, 3, 2) from N 687 wrote N 689, 691, ...
    Im2colNStride,
    /// Shared-memory layout of a swizzled box whose inner dimension is narrower than the swizzle
    /// span. OBSERVED on H100 for SWIZZLE_128B (16×f32 rows): every row starts a new 128-byte
    /// line (pitch = span), the XOR pattern applies to that address, the rest of the line is not
    /// written. ASSUMED the same for 32B / 64B (pitch 32 / 64), the 128B atomicity modes, gather4
    /// rows and im2col pixels; with interleave rows stay dense.
    SwizzleRowPitchIsSpan,
    /// The swizzle XOR is a function of the absolute shared-memory address (so a `dstMem` that
    /// is not pattern-aligned starts mid-pattern, matching the base-offset formulas).
    SwizzleOnAbsoluteAddress,
    /// 32B-atomicity + 8B flip: which lines flip (Figure 36 only). Position: odd 128-byte lines.
    Flip8BOnOddLines,
    /// 96B swizzle: Figure 31 only; the table text equals the 32B table. Position: bit 4 ^= bit 7.
    Swizzle96BAsTable,
    /// Sub-byte types are addressed in units: 16U4_ALIGN8B in bytes (2 values, dimension-0
    /// coordinates even), 16U4_ALIGN16B / 16U6_ALIGN16B in 16-value groups (8 / 12 bytes in
    /// global memory, 16 in shared memory, the rest of the 16 bytes padding).
    SubByteUnits,
    /// `.b6p2x16` store packing: value i (the low 6 bits of shared byte i) goes to bits
    /// 6i..6i+5 of the 12-byte little-endian global group.
    B6PackLsbFirst,
    /// REFUTED (kept for the record): "interleave changes only validation, the layout is the
    /// dense box". 43 traps, 4 hangs and 13 wrong tiles on H100 (finding H9); replaced by
    /// [`Assumption::InterleaveGranuleUnits`] and [`Assumption::InterleaveDropsDimRankMinus2`].
    InterleaveIsDescriptive,
    /// OBSERVED on H200 (probes cases/probes/interleave*.yaml, 356 copies): with interleave
    /// 16B / 32B, dimension 0 counts whole 16 / 32-byte granules whatever the data type:
    /// `globalDim[0]` (bounds), `boxDim[0]`, the dimension-0 coordinate and `elementStrides[0]`
    /// are in granules, a granule's global address is `base + x0·G + Σ x_i·globalStrides[i-1]`,
    /// and shared-memory rows are `ceil(boxDim[0]/elementStrides[0])·G` bytes, dense (no span
    /// padding under a swizzle; the XOR applies to the address). complete-tx counts those bytes.
    /// OBSERVED for tile stores too (18 corpus stores pass on H200); im2col maps: see
    /// [`Assumption::Im2colInterleaveStepsDim0`].
    InterleaveGranuleUnits,
    /// OBSERVED on H200 (same probes): an interleaved box does not traverse dimension rank−2
    /// (its coordinate is used, its box extent is taken as 1): 3D boxes iterate dimensions 0
    /// and 2, 4D boxes 0, 1 and 3, 5D boxes 0, 1, 2 and 4.
    InterleaveDropsDimRankMinus2,
    /// OBSERVED on H200 (cases/tensor/gen/load_im2col_interleave.yaml, 18 loads, rank 3–5, 16B /
    /// 32B) and on H100 (sweep of 2026-11-25, seed 2: the byte sources of all interleaved im2col
    /// loads and stores): with interleave the im2col roles move one dimension down. Dimension
    /// 0's granules are the W pixels, dimensions 1..rank−3 are H and D, dimension rank−2 is not
    /// traversed (its coordinate is used, as in an interleaved tile box) and rank−1 is N; corners,
    /// im2col offsets and traversal strides (elementStrides[0] included) index them in that order.
    /// Each pixel is one granule whatever channelsPerPixel (one G-byte shared row); complete-tx
    /// counts pixelsPerColumn granules. E.g. rank 4, 16B, corners lower (0, 0) upper (0, −1),
    /// globalDim (7, 3, ..), start (1, 0, 6, 4): granules 1..6 of W 0, 0..6 of W 1, then N 5.
    Im2colInterleaveStepsDim0,
    /// The shared-memory address of a tensor copy. §5.5.3.1 asks 16 bytes (32 / 64 for the 128B
    /// atomicity modes, §5.5.7). OBSERVED on H200 (finding H10, cases/probes/smem_align.yaml):
    /// loads and stores trap (MisalignedAddress) at 16, 32 and 64 bytes past a 1024-byte
    /// boundary and work at 128, 256 and 512, with every swizzle mode and without; the model
    /// requires [`super::SMEM_ALIGN_BYTES`] = 128. ASSUMED the same on sm_100.
    SharedAlign128,
}

impl Assumption {
    pub const ALL: [Assumption; 22] = [
        Assumption::OobNanAllOnes,
        Assumption::CompleteTxCountsWholeBox,
        Assumption::StoreClips16ByteGranules,
        Assumption::BitExactTransit,
        Assumption::UnalignedInnerCoordAccepted,
        Assumption::ElementStrideDim0,
        Assumption::Im2colTraversal,
        Assumption::Im2colBoxEnd,
        Assumption::Im2colWHalo,
        Assumption::Im2colOobIsTensorBound,
        Assumption::Im2colNStride,
        Assumption::SwizzleRowPitchIsSpan,
        Assumption::SwizzleOnAbsoluteAddress,
        Assumption::Flip8BOnOddLines,
        Assumption::Swizzle96BAsTable,
        Assumption::SubByteUnits,
        Assumption::B6PackLsbFirst,
        Assumption::InterleaveIsDescriptive,
        Assumption::InterleaveGranuleUnits,
        Assumption::InterleaveDropsDimRankMinus2,
        Assumption::Im2colInterleaveStepsDim0,
        Assumption::SharedAlign128,
    ];
}

/// OOB-NaN for 16-bit floats (f16 and bf16 alike), observed on H100, see [`Assumption::OobNanAllOnes`].
pub const OOB_NAN_F16: u16 = 0x7FF7;
/// OOB-NaN for f32 (observed), f32.ftz, tf32, tf32.ftz (assumed).
pub const OOB_NAN_F32: u32 = 0x7FF7_7FF7;
/// OOB-NaN for f64 (assumed: the 16-bit pattern repeated).
pub const OOB_NAN_F64: u64 = 0x7FF7_7FF7_7FF7_7FF7;
