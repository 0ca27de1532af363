//! A fixed-size byte chunk read front to back, one byte per choice; zeros past its end. Every
//! choice comes from a single byte so that a flipped byte changes one choice.

pub struct Chunk<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Chunk<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Chunk { bytes, at: 0 }
    }
    pub fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    /// A value in `0..n` (`n` ≥ 1; 0 when `n` is 0).
    pub fn below(&mut self, n: u32) -> u32 {
        let b = self.byte() as u32;
        if n == 0 {
            0
        } else {
            b % n
        }
    }
    /// A value in `lo..=hi`.
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }
    /// True with probability `num/256`.
    pub fn chance(&mut self, num: u32) -> bool {
        (self.byte() as u32) < num
    }
    pub fn bit(&mut self) -> bool {
        self.byte() & 1 == 1
    }
    /// One element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u32) as usize]
    }
    /// A 16-bit value from two bytes.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }
}
