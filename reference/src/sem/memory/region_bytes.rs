//! A region's bytes as an execution ends with them, kept as the machine keeps them: a value per
//! byte, and the few uncertain bytes apart. As `Vec<Byte>` every byte took 40 bytes, and building
//! the final state of a program's regions that way (fresh pages the kernel had to zero) was the
//! largest part of a fuzz program's host time.

use super::Byte;
use std::ops::Index;

/// `Byte::Known(v)` for every `v`, so that a known byte can be lent out by reference.
static KNOWN: [Byte; 256] = {
    let mut t = [Byte::Known(0); 256];
    let mut i = 0;
    while i < 256 {
        t[i] = Byte::Known(i as u8);
        i += 1;
    }
    t
};

/// A region's final bytes: index, iterate and compare them as a `[Byte]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegionBytes {
    /// Every byte's value where it is known (0 where it is not, so that equal contents compare
    /// equal).
    known: Vec<u8>,
    /// The uncertain bytes (each `Byte::OneOf`) by offset, ascending.
    uncertain: Vec<(u32, Byte)>,
}

impl RegionBytes {
    /// Bytes all known.
    pub fn known(values: Vec<u8>) -> RegionBytes {
        RegionBytes {
            known: values,
            uncertain: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.known.len()
    }

    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<&Byte> {
        let v = self.known.get(i)?;
        Some(match self.uncertain_at(i) {
            Ok(k) => &self.uncertain[k].1,
            Err(_) => &KNOWN[*v as usize],
        })
    }

    fn uncertain_at(&self, i: usize) -> Result<usize, usize> {
        self.uncertain
            .binary_search_by_key(&(i as u32), |(at, _)| *at)
    }

    /// Byte `i` becomes `b`. Panics if `i` is out of range, as a slice does.
    pub fn set(&mut self, i: usize, b: Byte) {
        assert!(i < self.known.len(), "byte {i} of {}", self.known.len());
        match (b, self.uncertain_at(i)) {
            (Byte::Known(v), Ok(k)) => {
                self.uncertain.remove(k);
                self.known[i] = v;
            }
            (Byte::Known(v), Err(_)) => self.known[i] = v,
            (Byte::OneOf(_), Ok(k)) => self.uncertain[k].1 = b,
            (Byte::OneOf(_), Err(k)) => {
                self.known[i] = 0;
                self.uncertain.insert(k, (i as u32, b));
            }
        }
    }

    pub fn iter(&self) -> Iter<'_> {
        Iter {
            bytes: self,
            at: 0,
            next_uncertain: 0,
        }
    }

    /// The first offset whose byte does not allow `observed`'s there (offsets past the shorter
    /// of the two are not compared). The known runs between uncertain bytes are compared as
    /// slices: byte by byte, judging a program's regions was most of the judge's time.
    pub fn first_disallowed(&self, observed: &[u8]) -> Option<usize> {
        let n = self.len().min(observed.len());
        let first_difference = |from: usize, to: usize| {
            let (known, seen) = (&self.known[from..to], &observed[from..to]);
            (known != seen)
                .then(|| known.iter().zip(seen).position(|(k, v)| k != v))
                .flatten()
                .map(|k| from + k)
        };
        let mut at = 0;
        for (i, b) in self.uncertain.iter().take_while(|(i, _)| (*i as usize) < n) {
            let i = *i as usize;
            if let Some(k) = first_difference(at, i) {
                return Some(k);
            }
            if !b.allows(observed[i]) {
                return Some(i);
            }
            at = i + 1;
        }
        first_difference(at, n)
    }

    pub fn to_vec(&self) -> Vec<Byte> {
        self.iter().copied().collect()
    }
}

impl FromIterator<Byte> for RegionBytes {
    fn from_iter<I: IntoIterator<Item = Byte>>(iter: I) -> RegionBytes {
        let iter = iter.into_iter();
        let mut out = RegionBytes::default();
        out.known.reserve(iter.size_hint().0);
        for b in iter {
            match b {
                Byte::Known(v) => out.known.push(v),
                Byte::OneOf(_) => {
                    out.uncertain.push((out.known.len() as u32, b));
                    out.known.push(0);
                }
            }
        }
        out
    }
}

impl From<Vec<Byte>> for RegionBytes {
    fn from(v: Vec<Byte>) -> RegionBytes {
        v.into_iter().collect()
    }
}

impl Index<usize> for RegionBytes {
    type Output = Byte;
    fn index(&self, i: usize) -> &Byte {
        match self.get(i) {
            Some(b) => b,
            None => panic!("byte {i} of {}", self.len()),
        }
    }
}

impl PartialEq<[Byte]> for RegionBytes {
    fn eq(&self, o: &[Byte]) -> bool {
        self.len() == o.len() && self.iter().eq(o.iter())
    }
}

impl PartialEq<Vec<Byte>> for RegionBytes {
    fn eq(&self, o: &Vec<Byte>) -> bool {
        *self == *o.as_slice()
    }
}

impl<'a> IntoIterator for &'a RegionBytes {
    type Item = &'a Byte;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The bytes of a [`RegionBytes`] in order.
#[derive(Clone)]
pub struct Iter<'a> {
    bytes: &'a RegionBytes,
    at: usize,
    next_uncertain: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Byte;
    fn next(&mut self) -> Option<&'a Byte> {
        let v = *self.bytes.known.get(self.at)?;
        let here = self.at as u32;
        self.at += 1;
        match self.bytes.uncertain.get(self.next_uncertain) {
            Some((at, b)) if *at == here => {
                self.next_uncertain += 1;
                Some(b)
            }
            _ => Some(&KNOWN[v as usize]),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.bytes.len() - self.at;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sem::memory::ByteSet;

    fn two(a: u8, b: u8) -> Byte {
        let mut s = ByteSet::single(a);
        s.insert(b);
        Byte::from_set(s)
    }

    #[test]
    fn reads_back_what_it_was_built_from() {
        let v = vec![
            Byte::Known(7),
            two(1, 2),
            Byte::Known(0),
            two(3, 4),
            Byte::Known(255),
        ];
        let r = RegionBytes::from(v.clone());
        assert_eq!(r.len(), 5);
        assert_eq!(r.to_vec(), v);
        assert_eq!(r, v);
        assert_eq!(r[1], two(1, 2));
        assert_eq!(r[4], Byte::Known(255));
        assert_eq!(r.get(5), None);
        assert_eq!(r.iter().len(), 5);
    }

    #[test]
    fn set_keeps_one_form_for_equal_contents() {
        let mut r = RegionBytes::known(vec![9, 9, 9]);
        r.set(1, two(5, 6));
        assert_eq!(r, vec![Byte::Known(9), two(5, 6), Byte::Known(9)]);
        r.set(1, Byte::Known(9));
        assert_eq!(r, RegionBytes::known(vec![9, 9, 9]), "back to all known");
        r.set(2, two(1, 2));
        r.set(0, two(3, 4));
        assert_eq!(r.to_vec(), vec![two(3, 4), Byte::Known(9), two(1, 2)]);
    }

    proptest::proptest! {
        /// The slice comparison finds the byte the byte-by-byte one finds, uncertain bytes
        /// anywhere (first, last, adjacent) and lengths that differ included.
        #[test]
        fn first_disallowed_is_the_first_byte_not_allowed(
            bytes in proptest::collection::vec((0u8..4, proptest::bool::ANY), 0..24),
            seen in proptest::collection::vec(0u8..4, 0..24),
        ) {
            let r: RegionBytes = bytes
                .iter()
                .map(|&(v, uncertain)| if uncertain { two(v, v + 1) } else { Byte::Known(v) })
                .collect();
            let naive = r.iter().zip(&seen).position(|(b, v)| !b.allows(*v));
            proptest::prop_assert_eq!(r.first_disallowed(&seen), naive);
        }
    }
}
