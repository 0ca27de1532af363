//! The dump buffer a case kernel writes at its end, and the parameter-block header.

use std::ops::Range;

/// Parameter-block (`pblock`, an array of u64) header slots. After the header come the base
/// addresses of the global regions (declaration order), then every operand value in emission
/// order. The host fills the slots marked "host" before the launch.
pub mod pb {
    /// Timeout budget of each `wait_parity` step, in %globaltimer nanoseconds.
    pub const TIMEOUT_NS: usize = 0;
    /// Bytes of each CTA's shared image (`Layout::shared_bytes`, a multiple of 16).
    pub const IMAGE_BYTES: usize = 1;
    /// host: device address of the initial shared image (`Emitted::shared_init`, global memory).
    pub const SHARED_INIT: usize = 2;
    /// Byte offsets in the dump buffer of its parity / timeout / reached-end sections.
    pub const PARITY_AT: usize = 3;
    pub const TIMEOUTS_AT: usize = 4;
    pub const REACHED_AT: usize = 5;
    /// First global-region base slot (host fills `HEADER + i` for global region `i`).
    pub const HEADER: usize = 6;
}

/// `wait_parity` budget of an emitted program run alone (200 ms); a launch replaces it with
/// its own bound (`engine::batch::wait_bound_ns`).
pub const DEFAULT_TIMEOUT_NS: u64 = 200_000_000;

/// Where the kernel writes its observations in the dump buffer (the host allocates
/// `total_bytes`, zero-filled, 16-byte aligned, and passes it as the `dump` parameter).
///
/// ```text
/// [ CTA 0 shared image | CTA 1 shared image | ... ]        ctas * image_bytes
/// [ parity word u32 per (cta, mbarrier) ]                  bit 0: test_wait.parity 0 reports the
///                                                          phase complete; bit 1: parity 1
/// [ timeout flag u32 per (step, cta) ]                     1 = that wait_parity step timed out
/// [ reached-end word u32 per cta ]                         1 = the CTA finished the epilogue
/// [ Tensor Memory u32 per (cta, checked tmem, lane, col) ]  lane-major 128 x columns cells of
///                                                          each checked allocation (tcgen05.ld
///                                                          .32x32b, warp w reads lanes 32w..)
/// ```
/// CTA numbers are those of [`super::Emitted`]'s module doc (cluster-major when clustered).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpLayout {
    pub ctas: u32,
    /// Bytes of one CTA's shared image (= `Layout::shared_bytes`).
    pub image_bytes: u64,
    /// Mbarrier names in the order of the parity words (declaration order).
    pub mbarriers: Vec<String>,
    /// Number of program steps (timeout flags exist for every step; only waits set them).
    pub steps: usize,
    pub parity_at: u64,
    pub timeouts_at: u64,
    pub reached_at: u64,
    /// Checked Tensor Memory allocations (name, columns) in declaration order, and where their
    /// cells start ([`DumpLayout::with_tmem`]).
    pub tmem: Vec<(String, u32)>,
    pub tmem_at: u64,
    pub total_bytes: u64,
}

/// A decoded dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpView {
    /// Shared image of each CTA.
    pub images: Vec<Vec<u8>>,
    /// `parity[cta][m]`: (parity 0 complete, parity 1 complete) for mbarrier `m`.
    pub parity: Vec<Vec<(bool, bool)>>,
    /// `timeouts[step][cta]`.
    pub timeouts: Vec<Vec<bool>>,
    pub reached_end: Vec<bool>,
    /// `tmem[cta][k]`: cells of checked allocation `k`, lane-major (`lane * columns + column`).
    pub tmem: Vec<Vec<Vec<u32>>>,
}

impl DumpLayout {
    pub fn new(ctas: u32, image_bytes: u64, mbarriers: Vec<String>, steps: usize) -> Self {
        let c = ctas as u64;
        let parity_at = c * image_bytes;
        let timeouts_at = parity_at + c * mbarriers.len() as u64 * 4;
        let reached_at = timeouts_at + steps as u64 * c * 4;
        let total_bytes = (reached_at + c * 4).div_ceil(16) * 16;
        DumpLayout {
            ctas,
            image_bytes,
            mbarriers,
            steps,
            parity_at,
            timeouts_at,
            reached_at,
            tmem: Vec::new(),
            tmem_at: total_bytes,
            total_bytes,
        }
    }

    /// Appends the Tensor Memory section for checked allocations `(name, columns)`.
    pub fn with_tmem(mut self, tmem: Vec<(String, u32)>) -> Self {
        self.tmem_at = (self.reached_at + self.ctas as u64 * 4).div_ceil(16) * 16;
        let cells: u64 = tmem.iter().map(|(_, c)| 128 * *c as u64).sum();
        self.total_bytes = self.tmem_at + self.ctas as u64 * cells * 4;
        self.tmem = tmem;
        self
    }
    /// Byte offset of cell (lane, column) of checked allocation `k` in `cta`.
    fn tmem_cell(&self, cta: u32, k: usize, lane: u32, column: u32) -> usize {
        let per_cta: u64 = self.tmem.iter().map(|(_, c)| 128 * *c as u64).sum();
        let before: u64 = self.tmem[..k].iter().map(|(_, c)| 128 * *c as u64).sum();
        let cols = self.tmem[k].1 as u64;
        (self.tmem_at + (cta as u64 * per_cta + before + lane as u64 * cols + column as u64) * 4)
            as usize
    }
    pub fn image(&self, cta: u32) -> Range<usize> {
        let s = (cta as u64 * self.image_bytes) as usize;
        s..s + self.image_bytes as usize
    }
    pub fn parity_word(&self, cta: u32, mbar: usize) -> usize {
        (self.parity_at + (cta as u64 * self.mbarriers.len() as u64 + mbar as u64) * 4) as usize
    }
    pub fn timeout_flag(&self, step: usize, cta: u32) -> usize {
        (self.timeouts_at + (step as u64 * self.ctas as u64 + cta as u64) * 4) as usize
    }
    pub fn reached(&self, cta: u32) -> usize {
        (self.reached_at + cta as u64 * 4) as usize
    }

    /// Decode a dump read back from the device.
    pub fn decode(&self, bytes: &[u8]) -> Result<DumpView, String> {
        if (bytes.len() as u64) < self.total_bytes {
            return Err(format!(
                "dump has {} bytes; the layout needs {}",
                bytes.len(),
                self.total_bytes
            ));
        }
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let ctas = 0..self.ctas;
        Ok(DumpView {
            images: ctas
                .clone()
                .map(|c| bytes[self.image(c)].to_vec())
                .collect(),
            parity: ctas
                .clone()
                .map(|c| {
                    (0..self.mbarriers.len())
                        .map(|m| {
                            let w = word(self.parity_word(c, m));
                            (w & 1 != 0, w & 2 != 0)
                        })
                        .collect()
                })
                .collect(),
            timeouts: (0..self.steps)
                .map(|s| {
                    ctas.clone()
                        .map(|c| word(self.timeout_flag(s, c)) != 0)
                        .collect()
                })
                .collect(),
            reached_end: ctas.clone().map(|c| word(self.reached(c)) == 1).collect(),
            tmem: ctas
                .map(|c| {
                    self.tmem
                        .iter()
                        .enumerate()
                        .map(|(k, (_, cols))| {
                            (0..128 * cols)
                                .map(|i| word(self.tmem_cell(c, k, i / cols, i % cols)))
                                .collect()
                        })
                        .collect()
                })
                .collect(),
        })
    }
}
