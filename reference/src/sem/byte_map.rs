//! A map keyed by byte offset within one region, for the per-byte state [`super::memory`] keeps
//! (uncertain values, unfenced writes).
//!
//! Every byte an operation touches is looked up, so the lookup is an index, not a hash: the
//! region is cut into blocks of [`BLOCK`] bytes, and a block's slots exist only once one of its
//! bytes has an entry. A region with no entries costs an empty `Vec`; one with entries costs a
//! pointer per block of the region plus the touched blocks.

/// Bytes per block.
const BLOCK: usize = 64;

#[derive(Clone, Debug)]
struct Block<V> {
    slots: [Option<V>; BLOCK],
    used: usize,
}

#[derive(Clone, Debug)]
pub(crate) struct ByteMap<V> {
    blocks: Vec<Option<Box<Block<V>>>>,
    len: usize,
}

impl<V> Default for ByteMap<V> {
    fn default() -> Self {
        ByteMap {
            blocks: Vec::new(),
            len: 0,
        }
    }
}

fn split(off: u64) -> (usize, usize) {
    let off = off as usize;
    (off / BLOCK, off % BLOCK)
}

impl<V> ByteMap<V> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, off: u64) -> Option<&V> {
        let (b, i) = split(off);
        self.blocks.get(b)?.as_ref()?.slots[i].as_ref()
    }

    pub fn contains(&self, off: u64) -> bool {
        self.get(off).is_some()
    }

    /// The offsets in `[start, end)` with an entry, ascending; blocks without one are skipped.
    pub fn offsets_in(&self, start: u64, end: u64) -> impl Iterator<Item = u64> + '_ {
        let first = (start as usize) / BLOCK;
        let last = (end as usize).div_ceil(BLOCK).min(self.blocks.len());
        (first..last.max(first))
            .filter_map(move |b| Some((b, self.blocks[b].as_ref()?)))
            .flat_map(|(b, block)| {
                block
                    .slots
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.is_some())
                    .map(move |(i, _)| (b * BLOCK + i) as u64)
            })
            .filter(move |o| (start..end).contains(o))
    }

    /// Whether any byte of `[start, end)` has an entry.
    pub fn any_in(&self, start: u64, end: u64) -> bool {
        if self.is_empty() {
            return false;
        }
        (start..end).any(|o| self.contains(o))
    }

    pub fn insert(&mut self, off: u64, v: V) {
        let (b, i) = split(off);
        if b >= self.blocks.len() {
            self.blocks.resize_with(b + 1, || None);
        }
        let block = self.blocks[b].get_or_insert_with(|| {
            Box::new(Block {
                slots: std::array::from_fn(|_| None),
                used: 0,
            })
        });
        if block.slots[i].replace(v).is_none() {
            block.used += 1;
            self.len += 1;
        }
    }

    pub fn remove(&mut self, off: u64) -> Option<V> {
        let (b, i) = split(off);
        let slot = self.blocks.get_mut(b)?;
        let block = slot.as_mut()?;
        let v = block.slots[i].take()?;
        block.used -= 1;
        self.len -= 1;
        if block.used == 0 {
            *slot = None;
        }
        Some(v)
    }

    /// Keeps the entries `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&V) -> bool) {
        for slot in &mut self.blocks {
            let Some(block) = slot else { continue };
            for s in &mut block.slots {
                if s.as_ref().is_some_and(|v| !keep(v)) {
                    *s = None;
                    block.used -= 1;
                    self.len -= 1;
                }
            }
            if block.used == 0 {
                *slot = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[derive(Clone, Debug)]
    enum Op {
        Insert(u64, u8),
        Remove(u64),
        RetainEven,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u64..300, any::<u8>()).prop_map(|(o, v)| Op::Insert(o, v)),
            (0u64..300).prop_map(Op::Remove),
            Just(Op::RetainEven),
        ]
    }

    proptest! {
        /// Behaves as an ordered map of offsets, across block edges and emptied blocks.
        #[test]
        fn agrees_with_a_plain_map(ops in proptest::collection::vec(op(), 0..200)) {
            let (mut m, mut model) = (ByteMap::default(), BTreeMap::new());
            for o in ops {
                match o {
                    Op::Insert(k, v) => {
                        m.insert(k, v);
                        model.insert(k, v);
                    }
                    Op::Remove(k) => prop_assert_eq!(m.remove(k), model.remove(&k)),
                    Op::RetainEven => {
                        m.retain(|v| v % 2 == 0);
                        model.retain(|_, v| *v % 2 == 0);
                    }
                }
                prop_assert_eq!(m.len(), model.len());
            }
            for k in 0..320 {
                prop_assert_eq!(m.get(k), model.get(&k));
            }
            prop_assert_eq!(m.any_in(0, 320), !model.is_empty());
            prop_assert_eq!(m.any_in(64, 128), model.range(64..128).next().is_some());
        }
    }
}
