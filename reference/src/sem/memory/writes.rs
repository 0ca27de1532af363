//! The asynchronous writes a [`super::Memory`] keeps: those in flight, and those landed
//! that a write still in flight may be concurrent with (A-MEM-CONCURRENT-WRITES). A tensor copy
//! issues one write per contiguous run of its box, thousands for a swizzled box, so every lookup
//! here goes through an index (by place, by age) instead of a scan of all of them.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::{Addr, Byte, RegionId, WriteId};
use crate::sem::proxy::Proxy;

#[derive(Clone, Debug)]
pub(super) struct AsyncWrite {
    pub at: Addr,
    /// For an update still in flight: ANY placeholders (its result is not known yet).
    pub new: Vec<Byte>,
    pub begin: u64,
    pub end: Option<u64>,
    /// Read-modify-write (a reduction): its value is computed when it lands.
    pub update: bool,
    pub proxy: Proxy,
    /// The destination bytes before the write began (what the other proxy may still see after
    /// it lands, until a fence).
    pub old: Vec<Byte>,
    /// Per byte: the value of an unfenced generic write this (async) write is unordered with
    /// (`proxy.generic_write_async_write`).
    pub racing: Vec<Option<Byte>>,
}

impl AsyncWrite {
    pub fn covers(&self, a: Addr) -> Option<usize> {
        (a.region == self.at.region
            && a.offset >= self.at.offset
            && a.offset < self.at.offset + self.new.len() as u64)
            .then(|| (a.offset - self.at.offset) as usize)
    }
    pub fn overlaps(&self, at: Addr, len: u64) -> bool {
        at.region == self.at.region
            && at.offset < self.at.offset + self.new.len() as u64
            && self.at.offset < at.offset + len
    }
    pub fn in_flight(&self) -> bool {
        self.end.is_none()
    }
}

/// Writes kept below which a lookup by place scans them all: cheaper than keeping an index
/// for the one or two writes of most programs.
const SCAN_UP_TO: usize = 16;

/// The writes, found by handle, by the place they start and by age. Handles and begin times
/// are handed out in the same order, and so are end times, which is what the age order uses.
#[derive(Clone, Debug, Default)]
pub(super) struct Writes {
    by_id: BTreeMap<WriteId, AsyncWrite>,
    /// Built once more than [`SCAN_UP_TO`] writes are kept, then kept up to date.
    by_place: Option<BTreeSet<(RegionId, u64, WriteId)>>,
    /// The longest write ever kept: a write overlapping `[a, a+n)` starts after `a - longest`.
    longest: u64,
    /// The oldest write in flight. It only moves forward: newer writes have larger handles.
    oldest: Option<WriteId>,
    /// Landed and still kept, in landing order.
    landed: VecDeque<WriteId>,
}

impl Writes {
    /// Keeps `w` (in flight) under `id`, which must be newer than every handle kept.
    pub fn insert(&mut self, id: WriteId, w: AsyncWrite) {
        debug_assert!(w.in_flight());
        self.longest = self.longest.max(w.new.len() as u64);
        self.oldest.get_or_insert(id);
        if let Some(p) = &mut self.by_place {
            p.insert((w.at.region, w.at.offset, id));
        }
        self.by_id.insert(id, w);
        if self.by_place.is_none() && self.by_id.len() > SCAN_UP_TO {
            let p = self
                .by_id
                .iter()
                .map(|(i, w)| (w.at.region, w.at.offset, *i));
            self.by_place = Some(p.collect());
        }
    }

    pub fn get(&self, id: WriteId) -> Option<&AsyncWrite> {
        self.by_id.get(&id)
    }

    /// The write `id` to change its values; its place, length and times stay as they are.
    pub fn get_mut(&mut self, id: WriteId) -> Option<&mut AsyncWrite> {
        self.by_id.get_mut(&id)
    }

    /// Kept writes (in flight or landed) overlapping `[at, at+len)`.
    pub fn overlapping(
        &self,
        at: Addr,
        len: u64,
    ) -> impl Iterator<Item = (WriteId, &AsyncWrite)> + '_ {
        let (indexed, scanned) = match &self.by_place {
            Some(p) => {
                let from = (at.offset + 1).saturating_sub(self.longest);
                let to = at.offset.saturating_add(len);
                let range = (at.region, from, WriteId(0))..(at.region, to, WriteId(0));
                let hits = (from < to).then(|| p.range(range));
                let found = hits.into_iter().flatten();
                (Some(found.map(|(_, _, id)| (*id, &self.by_id[id]))), None)
            }
            None => (None, Some(self.by_id.iter().map(|(i, w)| (*i, w)))),
        };
        indexed
            .into_iter()
            .flatten()
            .chain(scanned.into_iter().flatten())
            .filter(move |(_, w)| w.overlaps(at, len))
    }

    /// The writes in flight over `[at, at+len)`, updates included.
    pub fn in_flight(&self, at: Addr, len: u64) -> impl Iterator<Item = &AsyncWrite> + '_ {
        self.overlapping(at, len)
            .map(|(_, w)| w)
            .filter(|w| w.in_flight())
    }

    /// The writes in flight, oldest first.
    pub fn pending(&self) -> impl Iterator<Item = (WriteId, &AsyncWrite)> + '_ {
        let from = self.oldest.map(|id| self.by_id.range(id..));
        from.into_iter()
            .flatten()
            .filter(|(_, w)| w.in_flight())
            .map(|(i, w)| (*i, w))
    }

    /// Records that `id` landed at time `now` (later than every earlier landing), then drops
    /// the landed writes that no write still in flight can be concurrent with: those that
    /// landed before the oldest write in flight began.
    pub fn land(&mut self, id: WriteId, now: u64) {
        let Some(w) = self.by_id.get_mut(&id) else {
            return;
        };
        w.end = Some(now);
        self.landed.push_back(id);
        if self.oldest == Some(id) {
            let mut later = self.by_id.range(id..).filter(|(_, w)| w.in_flight());
            self.oldest = later.next().map(|(i, _)| *i);
        }
        let begun = self.oldest.map(|p| self.by_id[&p].begin);
        while let Some(&first) = self.landed.front() {
            if begun.is_some_and(|b| self.by_id[&first].end.is_some_and(|e| e > b)) {
                break;
            }
            if let Some(w) = self.by_id.remove(&first) {
                if let Some(p) = &mut self.by_place {
                    p.remove(&(w.at.region, w.at.offset, first));
                }
            }
            self.landed.pop_front();
        }
        if self.by_id.is_empty() {
            self.by_place = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn write(region: u32, offset: u64, len: usize, begin: u64) -> AsyncWrite {
        AsyncWrite {
            at: Addr::new(RegionId::Shared { cta: region }, offset),
            new: vec![Byte::Known(0); len],
            begin,
            end: None,
            update: false,
            proxy: Proxy::Async,
            old: vec![Byte::Known(0); len],
            racing: vec![None; len],
        }
    }

    proptest! {
        /// The indexes find what a scan of every kept write finds, and keep what the rule keeps:
        /// a landed write stays while a write in flight began before it landed.
        #[test]
        fn indexes_agree_with_a_scan(
            ops in proptest::collection::vec((any::<bool>(), 0u32..2, 0u64..64, 1usize..40, any::<u16>()), 1..60),
            probes in proptest::collection::vec((0u32..2, 0u64..80, 1u64..40), 1..8),
        ) {
            let mut ws = Writes::default();
            // The scan's model: every write with its times, dropped by the rule.
            let mut all: Vec<(WriteId, AsyncWrite)> = vec![];
            let (mut clock, mut next) = (0u64, 0u64);
            for (issue, region, offset, len, pick) in ops {
                clock += 1;
                let pending: Vec<WriteId> =
                    all.iter().filter(|(_, w)| w.in_flight()).map(|(i, _)| *i).collect();
                if issue || pending.is_empty() {
                    let id = WriteId(next);
                    next += 1;
                    ws.insert(id, write(region, offset, len, clock));
                    all.push((id, write(region, offset, len, clock)));
                } else {
                    let id = pending[pick as usize % pending.len()];
                    ws.land(id, clock);
                    all.iter_mut().find(|(i, _)| *i == id).unwrap().1.end = Some(clock);
                    let oldest = all.iter().filter(|(_, w)| w.in_flight()).map(|(_, w)| w.begin).min();
                    all.retain(|(_, w)| w.end.is_none_or(|e| oldest.is_some_and(|b| e > b)));
                }
                for &(region, offset, len) in &probes {
                    let at = Addr::new(RegionId::Shared { cta: region }, offset);
                    let mut got: Vec<WriteId> = ws.overlapping(at, len).map(|(i, _)| i).collect();
                    got.sort();
                    let want: Vec<WriteId> =
                        all.iter().filter(|(_, w)| w.overlaps(at, len)).map(|(i, _)| *i).collect();
                    prop_assert_eq!(got, want);
                }
                let kept: Vec<WriteId> = all.iter().map(|(i, _)| *i).collect();
                prop_assert_eq!(ws.by_id.keys().copied().collect::<Vec<_>>(), kept.clone());
                let pending: Vec<WriteId> =
                    all.iter().filter(|(_, w)| w.in_flight()).map(|(i, _)| *i).collect();
                prop_assert_eq!(ws.pending().map(|(i, _)| i).collect::<Vec<_>>(), pending);
            }
        }
    }
}
