//! A fixed-size byte chunk read front to back, one byte per choice; zeros past its end. Every
//! choice comes from a single byte so that a flipped byte changes one choice.
//!
//! A chunk has two kinds of choice. *Shape* choices (`byte`, `below`, `range`, …) decide what
//! the emitted kernel's text holds: instructions, qualifiers, who runs a step, which region an
//! operand names. *Value* choices (`value_*`) decide what the kernel reads from its parameter
//! block or its regions: sizes, offsets, src-size, predicates, byte masks, tx counts, region
//! contents. A chunk built with [`Chunk::with_values`] draws value choices from a second byte
//! stream through the value set's [`ValueClasses`], so one shape stream with many value streams
//! gives programs of one kernel text; a plain chunk draws both kinds from its one stream (the
//! generator's single-stream layout, which the cargo-fuzz targets and proptest shrink).
//!
//! A value choice never steers a shape choice: the generator may branch on a value only to
//! compute other values (`gpu/tests/suite/emit_generated.rs` checks the emitted kernel text).

/// How a value set places a value in its legal range `lo..=hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueClass {
    /// `lo` (zero where the range starts at zero).
    Least,
    /// `lo + 1`: one off the lower limit.
    AboveLeast,
    /// `hi - 1`: one off the upper limit.
    BelowGreatest,
    /// `hi`: the maximum the rule allows.
    Greatest,
    /// The middle of the range.
    Middle,
    /// Uniform in the range.
    Random,
}

impl ValueClass {
    pub const ALL: [ValueClass; 6] = [
        ValueClass::Least,
        ValueClass::AboveLeast,
        ValueClass::BelowGreatest,
        ValueClass::Greatest,
        ValueClass::Middle,
        ValueClass::Random,
    ];
    fn bit(self) -> u8 {
        1 << (self as u8)
    }
    /// The value of this class in `lo..=hi` (`lo` ≤ `hi`), `b` a random byte pair.
    fn place(self, lo: u32, hi: u32, b: u16) -> u32 {
        let span = hi.saturating_sub(lo);
        match self {
            ValueClass::Least => lo,
            ValueClass::AboveLeast => lo + span.min(1),
            ValueClass::BelowGreatest => hi - span.min(1),
            ValueClass::Greatest => hi,
            ValueClass::Middle => lo + span / 2,
            ValueClass::Random => lo + (b as u32) % (span + 1),
        }
    }
}

/// The value classes one value set draws from (a swarm over [`ValueClass`]; never empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueClasses(u8);

impl ValueClasses {
    /// Every class.
    pub const ALL: ValueClasses = ValueClasses(0b11_1111);
    /// The classes whose bits `b` sets (all of them when it sets none).
    pub fn from_byte(b: u8) -> ValueClasses {
        let m = b & Self::ALL.0;
        ValueClasses(if m == 0 { Self::ALL.0 } else { m })
    }
    pub fn contains(self, c: ValueClass) -> bool {
        self.0 & c.bit() != 0
    }
    fn pick(self, b: u8) -> ValueClass {
        let on: Vec<ValueClass> = ValueClass::ALL
            .into_iter()
            .filter(|c| self.contains(*c))
            .collect();
        on.get(b as usize % on.len().max(1))
            .copied()
            .unwrap_or(ValueClass::Random)
    }
}

/// The second stream of a chunk built [`Chunk::with_values`].
struct Values<'a> {
    bytes: &'a [u8],
    at: usize,
    classes: ValueClasses,
}

impl Values<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
}

pub struct Chunk<'a> {
    bytes: &'a [u8],
    at: usize,
    values: Option<Values<'a>>,
}

impl<'a> Chunk<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Chunk {
            bytes,
            at: 0,
            values: None,
        }
    }
    /// Shape choices from `bytes`, value choices from `values` placed by `classes`.
    pub fn with_values(bytes: &'a [u8], values: &'a [u8], classes: ValueClasses) -> Self {
        Chunk {
            bytes,
            at: 0,
            values: Some(Values {
                bytes: values,
                at: 0,
                classes,
            }),
        }
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

    /// Does this chunk draw values from a value set of its own ([`Chunk::with_values`])?
    pub fn has_values(&self) -> bool {
        self.values.is_some()
    }
    /// A value (see the module doc) in `lo..=hi`: in a single-stream chunk, [`Chunk::range`];
    /// else placed by a class of the value set.
    pub fn value_range(&mut self, lo: u32, hi: u32) -> u32 {
        let hi = hi.max(lo);
        match self.values.as_mut() {
            None => self.range(lo, hi),
            Some(v) => {
                let class = v.classes.pick(v.byte());
                let b = u16::from_le_bytes([v.byte(), v.byte()]);
                class.place(lo, hi, b)
            }
        }
    }
    /// A value in `0..n` (0 when `n` is 0).
    pub fn value_below(&mut self, n: u32) -> u32 {
        match self.values {
            None => self.below(n),
            Some(_) => self.value_range(0, n.saturating_sub(1)),
        }
    }
    /// A value bit.
    pub fn value_bit(&mut self) -> bool {
        match self.values.as_mut() {
            None => self.bit(),
            Some(v) => v.byte() & 1 == 1,
        }
    }
    /// A raw value byte (region contents, stored bytes: no limit to be off by one from).
    pub fn value_byte(&mut self) -> u8 {
        match self.values.as_mut() {
            None => self.byte(),
            Some(v) => v.byte(),
        }
    }
    /// A 16-bit value (masks): in a value set placed by a class in `0..=0xffff` (no bit, one,
    /// all bits, …).
    pub fn value_u16(&mut self) -> u16 {
        match self.values {
            None => self.u16(),
            Some(_) => self.value_range(0, u16::MAX as u32) as u16,
        }
    }
}
