//! Byte memory whose bytes may be *uncertain*: each byte is either known or a set of allowed
//! values. Asynchronous writes are in flight between [`Memory::begin_async_write`] and
//! [`Memory::complete`]; while in flight a destination byte may hold its old or its new value.
//!
//! Model positions (named):
//! - A-MEM-BYTE-GRANULAR: uncertainty is tracked per byte, not per write, so a comparison accepts
//!   any per-byte mixture of the allowed values (torn results are accepted; sound, not exact).
//! - A-MEM-CONCURRENT-WRITES: two async writes whose in-flight intervals overlap are unordered
//!   (§9.7.9.25.3.1 "no ordering guarantee", §9.7.9.25.6.1 likewise for bulk), so when one
//!   completes a shared byte may hold either's new value until both are complete — and after,
//!   still either (the later landing one is unknown). A write begun after another completed is
//!   ordered after it.
//! - A-MEM-RACY-PLAIN-WRITE: a plain write to a byte with an async write in flight is a race;
//!   the byte becomes {plain value} ∪ {in-flight new values}. The executor should classify it.
//! - A-MEM-UPDATE-AT-LANDING: a reduction's result is computed from the destination when it
//!   lands; concurrent reductions to one element serialize in the landing order the executor
//!   picks (exact for integer ops; for float add, other orders may round differently, so an
//!   executor that lands several concurrent float reductions on one element under-approximates).
//!   A reduction concurrent with a plain async write to the same byte widens it to any value.
//! - A-MEM-SOURCE-AT-ISSUE: the executor reads an async copy's source when the copy is issued.
//!   The spec only fixes that the read happens before completion, but modifying the source
//!   before then is UB (§9.7.9.25.1), which [`Memory::holds_overlapping`] lets the executor detect.
//!
//! Proxies (§8.6, [`super::proxy`]): every write says which proxy made it; a byte written through
//! one proxy stays [`Unfenced`] for the other until a fence ([`Memory::proxy_fence`]) or, for
//! async writes, the implicit fence of an observed completion ([`Memory::completion_fence`]).
//! [`Memory::read`] is the host's view at kernel end (every write visible);
//! [`Memory::read_in`] is a read through one proxy inside the kernel.

use std::collections::BTreeMap;
use std::fmt;

use super::byte_map::ByteMap;
use super::proxy::{Proxy, Unfenced};

mod region_bytes;
mod writes;
pub use region_bytes::RegionBytes;
use writes::{AsyncWrite, Writes};

/// Which memory a region is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegionId {
    /// A global buffer, numbered by the case.
    Global(u32),
    /// The shared memory of one CTA (by %cluster_ctarank / CTA index in the launch).
    Shared { cta: u32 },
}

/// A byte address: region plus offset inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Addr {
    pub region: RegionId,
    pub offset: u64,
}

impl Addr {
    pub fn new(region: RegionId, offset: u64) -> Addr {
        Addr { region, offset }
    }
    pub fn plus(self, n: u64) -> Addr {
        Addr {
            offset: self.offset + n,
            ..self
        }
    }
}

/// A set of byte values (exact: one bit per value).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ByteSet([u64; 4]);

impl ByteSet {
    pub const ANY: ByteSet = ByteSet([u64::MAX; 4]);
    pub fn single(v: u8) -> ByteSet {
        // Each word computed apart, not one bit stored into an array: the compiler keeps it in
        // registers instead of a store that the next union's wide load must wait on.
        let bit = 1u64 << (v & 63);
        let word = |w: u8| if v >> 6 == w { bit } else { 0 };
        ByteSet([word(0), word(1), word(2), word(3)])
    }
    pub fn insert(&mut self, v: u8) {
        *self = self.union(ByteSet::single(v));
    }
    pub fn contains(&self, v: u8) -> bool {
        self.0[(v >> 6) as usize] >> (v & 63) & 1 == 1
    }
    pub fn union(self, o: ByteSet) -> ByteSet {
        ByteSet([
            self.0[0] | o.0[0],
            self.0[1] | o.0[1],
            self.0[2] | o.0[2],
            self.0[3] | o.0[3],
        ])
    }
    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The least value in the set.
    pub fn first(&self) -> Option<u8> {
        let (i, w) = self.0.iter().enumerate().find(|(_, w)| **w != 0)?;
        Some((i as u32 * 64 + w.trailing_zeros()) as u8)
    }
    /// The values in increasing order, by the set bits of each word: a set is usually small,
    /// and testing all 256 values cost the reduction's enumeration most of its time.
    pub fn iter(self) -> impl Iterator<Item = u8> {
        self.0.into_iter().enumerate().flat_map(|(i, mut w)| {
            std::iter::from_fn(move || {
                let bit = (w != 0).then(|| w.trailing_zeros())?;
                w &= w - 1;
                Some((i as u32 * 64 + bit) as u8)
            })
        })
    }
}

impl fmt::Debug for ByteSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == ByteSet::ANY {
            return write!(f, "{{any}}");
        }
        f.debug_set()
            .entries(self.iter().map(|v| format!("{v:#04x}")))
            .finish()
    }
}

/// One byte of memory or of data in flight: known, or one of several values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Byte {
    Known(u8),
    /// Invariant: at least two values (use [`Byte::from_set`]).
    OneOf(ByteSet),
}

impl Byte {
    pub const ANY: Byte = Byte::OneOf(ByteSet::ANY);
    /// Normalizes: a one-value set is `Known`. An empty set is not a byte; it becomes ANY.
    pub fn from_set(s: ByteSet) -> Byte {
        match s.len() {
            1 => Byte::Known(s.first().unwrap_or(0)),
            0 => Byte::ANY,
            _ => Byte::OneOf(s),
        }
    }
    pub fn set(self) -> ByteSet {
        match self {
            Byte::Known(v) => ByteSet::single(v),
            Byte::OneOf(s) => s,
        }
    }
    pub fn union(self, o: Byte) -> Byte {
        match (self, o) {
            // The common cases (a value over itself or another) without counting sets.
            (Byte::Known(a), Byte::Known(b)) if a == b => self,
            (Byte::Known(a), Byte::Known(b)) => {
                let mut s = ByteSet::single(a);
                s.insert(b);
                Byte::OneOf(s)
            }
            _ => Byte::from_set(self.set().union(o.set())),
        }
    }
    pub fn allows(self, v: u8) -> bool {
        // A known byte is compared, not made a set first: the judge asks this of every byte.
        match self {
            Byte::Known(k) => k == v,
            Byte::OneOf(s) => s.contains(v),
        }
    }
    pub fn known(self) -> Option<u8> {
        match self {
            Byte::Known(v) => Some(v),
            Byte::OneOf(_) => None,
        }
    }
}

/// Handle of an asynchronous write in flight (or completed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WriteId(pub u64);

/// Handle of an asynchronous source read that has not finished yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReadHoldId(pub u64);

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemError {
    UnknownRegion(RegionId),
    OutOfBounds {
        at: Addr,
        len: u64,
        size: u64,
    },
    UnknownWrite(WriteId),
    /// An update lands only with its result ([`Memory::complete_update`]).
    UpdateNeedsResult(WriteId),
    /// [`Memory::complete_update`] on a plain write.
    NotAnUpdate(WriteId),
    UnknownHold(ReadHoldId),
    /// `observed` has a different length than the region.
    LengthMismatch {
        expected: u64,
        observed: u64,
    },
}

impl fmt::Display for MemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for MemError {}

/// First byte where an observation is not allowed by the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub at: Addr,
    pub observed: u8,
    pub allowed: Byte,
}

#[derive(Clone, Debug, Default)]
struct Region {
    known: Vec<u8>,
    /// Bytes whose value is uncertain (override `known`).
    uncertain: ByteMap<ByteSet>,
    /// Bytes whose last write the other proxy is not ordered with yet.
    unfenced: ByteMap<Unfenced>,
}

impl Region {
    /// `[off, off+len)` where no byte is uncertain.
    fn known_bytes<T: FromIterator<Byte>>(&self, off: u64, len: u64) -> T {
        self.known[off as usize..(off + len) as usize]
            .iter()
            .map(|&v| Byte::Known(v))
            .collect()
    }
    fn get(&self, off: u64) -> Byte {
        match self.uncertain.get(off) {
            Some(s) => Byte::from_set(*s),
            None => Byte::Known(self.known[off as usize]),
        }
    }
    fn put(&mut self, off: u64, b: Byte) {
        match b {
            Byte::Known(v) => {
                self.known[off as usize] = v;
                self.uncertain.remove(off);
            }
            Byte::OneOf(s) => {
                self.uncertain.insert(off, s);
            }
        }
    }
    /// Records a write through `writer` over a byte that held `before`: the other proxy may
    /// still see `before`, or any value it could already see of an earlier unfenced write by
    /// the same proxy.
    fn mark(&mut self, off: u64, writer: Proxy, before: Byte) {
        let earlier = match self.unfenced.get(off) {
            Some(u) if u.writer == writer => u.stale,
            _ => ByteSet::default(),
        };
        let stale = earlier.union(before.set());
        self.unfenced.insert(off, Unfenced { writer, stale });
    }
    /// Byte `b` at `off` as a read through `reader` sees it, and whether that crosses an
    /// unfenced write.
    fn seen_by(&self, off: u64, b: Byte, reader: Proxy) -> (Byte, bool) {
        match self.unfenced.get(off) {
            Some(u) if u.writer != reader => {
                let v = Byte::from_set(b.set().union(u.stale));
                (v, v != b)
            }
            _ => (b, false),
        }
    }
}

/// Whether an async write's completion is observed as it lands (a wait on its mbarrier or
/// group): then the implicit proxy fence of [`Memory::completion_fence`] over its range applies
/// at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Landing {
    Unobserved,
    Observed,
}

/// The whole modelled memory.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    regions: BTreeMap<RegionId, Region>,
    writes: Writes,
    holds: BTreeMap<ReadHoldId, (Addr, u64)>,
    clock: u64,
    next_id: u64,
    next_write: u64,
}

impl Memory {
    pub fn new() -> Memory {
        Memory::default()
    }

    /// Adds (or replaces) a region with the given initial contents.
    pub fn add_region(&mut self, id: RegionId, init: Vec<u8>) {
        self.regions.insert(
            id,
            Region {
                known: init,
                uncertain: ByteMap::default(),
                unfenced: ByteMap::default(),
            },
        );
    }

    pub fn region_size(&self, id: RegionId) -> Option<u64> {
        self.regions.get(&id).map(|r| r.known.len() as u64)
    }

    fn check(&self, at: Addr, len: u64) -> Result<(), MemError> {
        let r = self
            .regions
            .get(&at.region)
            .ok_or(MemError::UnknownRegion(at.region))?;
        let size = r.known.len() as u64;
        match at.offset.checked_add(len) {
            Some(end) if end <= size => Ok(()),
            _ => Err(MemError::OutOfBounds { at, len, size }),
        }
    }

    fn region_mut(&mut self, id: RegionId) -> &mut Region {
        self.regions.get_mut(&id).expect("checked")
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// The plain async writes in flight over `[at, at+len)`. Until it lands, each of their
    /// bytes holds its old or its new value: the region keeps the old, and a read adds the new
    /// ([`Memory::view`]). An update in flight adds nothing: its destination keeps its value
    /// until the result lands.
    fn landing(&self, at: Addr, len: u64) -> Vec<&AsyncWrite> {
        self.writes
            .in_flight(at, len)
            .filter(|w| !w.update)
            .collect()
    }

    /// The byte at `a` of region `r`: its value, or any new value of the writes `over` it.
    fn view(r: &Region, over: &[&AsyncWrite], a: Addr) -> Byte {
        over.iter()
            .filter_map(|w| w.covers(a).map(|i| w.new[i]))
            .fold(r.get(a.offset), Byte::union)
    }

    /// Every byte of `[at, at+len)` as [`Memory::view`] gives it; a range with no uncertain
    /// byte and no write in flight is its known bytes.
    fn viewed<T: FromIterator<Byte>>(&self, at: Addr, len: u64) -> T {
        let r = &self.regions[&at.region];
        let over = self.landing(at, len);
        if r.uncertain.is_empty() && over.is_empty() {
            return r.known_bytes(at.offset, len);
        }
        (0..len)
            .map(|i| Memory::view(r, &over, at.plus(i)))
            .collect()
    }

    /// A plain (generic-proxy, synchronous) write of known bytes.
    pub fn write_exact(&mut self, at: Addr, bytes: &[u8]) -> Result<(), MemError> {
        let v: Vec<Byte> = bytes.iter().map(|b| Byte::Known(*b)).collect();
        self.write(at, &v)
    }

    /// A plain write of possibly uncertain bytes (A-MEM-RACY-PLAIN-WRITE for in-flight overlap).
    pub fn write(&mut self, at: Addr, bytes: &[Byte]) -> Result<(), MemError> {
        let len = bytes.len() as u64;
        self.check(at, len)?;
        self.tick();
        let Memory {
            regions, writes, ..
        } = self;
        let over: Vec<&AsyncWrite> = writes.in_flight(at, len).collect();
        let landing: Vec<&AsyncWrite> = over.iter().copied().filter(|w| !w.update).collect();
        let r = regions.get_mut(&at.region).expect("checked");
        for (i, b) in bytes.iter().enumerate() {
            let a = at.plus(i as u64);
            // Racing every write in flight, updates too (their result is not known yet).
            let v = over
                .iter()
                .filter_map(|w| w.covers(a).map(|j| w.new[j]))
                .fold(*b, Byte::union);
            let before = Memory::view(r, &landing, a);
            r.put(a.offset, v);
            r.mark(a.offset, Proxy::Generic, before);
        }
        Ok(())
    }

    /// Whether every byte of `[at, at+len)` has one known value ([`Memory::read`] would give
    /// only `Byte::Known`), without reading them out.
    pub fn all_known(&self, at: Addr, len: u64) -> Result<bool, MemError> {
        self.check(at, len)?;
        let r = &self.regions[&at.region];
        let over = self.landing(at, len);
        if over.is_empty() {
            return Ok(!r.uncertain.any_in(at.offset, at.offset + len));
        }
        Ok((0..len).all(|i| Memory::view(r, &over, at.plus(i)).known().is_some()))
    }

    /// Reads bytes (e.g. a copy source): uncertain bytes stay uncertain.
    pub fn read(&self, at: Addr, len: u64) -> Result<Vec<Byte>, MemError> {
        self.check(at, len)?;
        Ok(self.viewed(at, len))
    }

    /// [`Memory::read`] kept compact: a region's bytes at the end of a run. The known bytes
    /// are copied whole; only the bytes that are uncertain or under a write in flight are
    /// viewed one by one (byte by byte, this was a sixth of a generated program's execution).
    pub fn read_region(&self, at: Addr, len: u64) -> Result<RegionBytes, MemError> {
        self.check(at, len)?;
        let r = &self.regions[&at.region];
        let over = self.landing(at, len);
        let (start, end) = (at.offset, at.offset + len);
        let mut out = RegionBytes::known(r.known[start as usize..end as usize].to_vec());
        let mut viewed: Vec<u64> = r.uncertain.offsets_in(start, end).collect();
        if !over.is_empty() {
            for w in &over {
                let w_end = w.at.offset + w.new.len() as u64;
                viewed.extend(w.at.offset.max(start)..w_end.min(end));
            }
            viewed.sort_unstable();
            viewed.dedup();
        }
        for off in viewed {
            let b = Memory::view(r, &over, Addr::new(at.region, off));
            out.set((off - start) as usize, b);
        }
        Ok(out)
    }

    /// Reads bytes through `proxy` inside the kernel: a byte the other proxy wrote without a
    /// fence since may still hold a value from before that write. Also returns how many bytes
    /// crossed such a write (each is widened by the rule of the direction).
    pub fn read_in(&self, at: Addr, len: u64, proxy: Proxy) -> Result<(Vec<Byte>, u64), MemError> {
        self.check(at, len)?;
        let r = &self.regions[&at.region];
        let mut bytes: Vec<Byte> = self.viewed(at, len);
        let mut crossed = 0;
        if !r.unfenced.is_empty() {
            for (i, b) in bytes.iter_mut().enumerate() {
                let c;
                (*b, c) = r.seen_by(at.offset + i as u64, *b, proxy);
                crossed += u64::from(c);
            }
        }
        Ok((bytes, crossed))
    }

    /// How many bytes of `[at, at+len)` were last written through `writer` with no fence since.
    pub fn unfenced_count(&self, at: Addr, len: u64, writer: Proxy) -> Result<u64, MemError> {
        self.check(at, len)?;
        let r = &self.regions[&at.region];
        Ok((at.offset..at.offset + len)
            .filter(|o| r.unfenced.get(*o).is_some_and(|u| u.writer == writer))
            .count() as u64)
    }

    /// A proxy fence over the regions `covers` selects: writes through a proxy in `from` become
    /// visible to the other proxy (a bi-directional fence passes both). Returns the bytes ordered.
    pub fn proxy_fence(&mut self, covers: impl Fn(RegionId) -> bool, from: &[Proxy]) -> u64 {
        let mut n = 0;
        for (_, r) in self.regions.iter_mut().filter(|(id, _)| covers(**id)) {
            let before = r.unfenced.len();
            r.unfenced.retain(|u| !from.contains(&u.writer));
            n += (before - r.unfenced.len()) as u64;
        }
        n
    }

    /// The implicit generic-async proxy fence that follows the observed completion of an async
    /// write over `[at, at+len)` (§9.7.9.25.2, `proxy.completion_fence`).
    pub fn completion_fence(&mut self, at: Addr, len: u64) -> Result<(), MemError> {
        self.check(at, len)?;
        let r = self.region_mut(at.region);
        for off in at.offset..at.offset + len {
            if r.unfenced
                .get(off)
                .is_some_and(|u| u.writer == Proxy::Async)
            {
                r.unfenced.remove(off);
            }
        }
        Ok(())
    }

    /// The proxy of a write still in flight.
    pub fn proxy_of(&self, id: WriteId) -> Option<Proxy> {
        self.writes
            .get(id)
            .filter(|w| w.in_flight())
            .map(|w| w.proxy)
    }

    /// Reads bytes that must all be known; `None` if any is uncertain.
    pub fn read_known(&self, at: Addr, len: u64) -> Result<Option<Vec<u8>>, MemError> {
        Ok(self.read(at, len)?.into_iter().map(Byte::known).collect())
    }

    /// Starts an asynchronous write through the async proxy (cp.async.bulk, tensor copies).
    pub fn begin_async_write(&mut self, at: Addr, new: Vec<Byte>) -> Result<WriteId, MemError> {
        self.begin_write_in(at, new, Proxy::Async)
    }

    /// Starts an asynchronous write through `proxy`: each destination byte becomes old ∪ new
    /// until completed.
    pub fn begin_write_in(
        &mut self,
        at: Addr,
        new: Vec<Byte>,
        proxy: Proxy,
    ) -> Result<WriteId, MemError> {
        self.check(at, new.len() as u64)?;
        let (old, racing) = self.before_write(at, new.len() as u64, proxy);
        let begin = self.tick();
        let id = WriteId(self.next_write);
        self.next_write += 1;
        // In flight, a byte holds its old or its new value: reads add `new` ([`Memory::view`]).
        self.writes.insert(
            id,
            AsyncWrite {
                at,
                new,
                begin,
                end: None,
                update: false,
                proxy,
                old,
                racing,
            },
        );
        Ok(id)
    }

    /// The destination bytes before a write through `proxy` begins, and per byte the value of
    /// an unfenced write through the other proxy that it is unordered with.
    fn before_write(&self, at: Addr, len: u64, proxy: Proxy) -> (Vec<Byte>, Vec<Option<Byte>>) {
        let r = &self.regions[&at.region];
        let old: Vec<Byte> = self.viewed(at, len);
        let racing = (0..len)
            .map(|i| {
                r.unfenced
                    .get(at.offset + i)
                    .filter(|u| proxy == Proxy::Async && u.writer == Proxy::Generic)
                    .map(|_| old[i as usize])
            })
            .collect();
        (old, racing)
    }

    /// Starts an asynchronous read-modify-write (cp.reduce.async.bulk element reductions, each
    /// atomic, §9.7.9.25.4.2). Its result depends on the destination when it lands, so the
    /// destination bytes keep their current value here (reading them before completion is UB
    /// anyway) and the caller supplies the result in [`Memory::complete_update`], computed from
    /// the destination at that time (A-MEM-UPDATE-AT-LANDING).
    pub fn begin_async_update(&mut self, at: Addr, len: u64) -> Result<WriteId, MemError> {
        self.check(at, len)?;
        let (old, racing) = self.before_write(at, len, Proxy::Async);
        let begin = self.tick();
        let id = WriteId(self.next_write);
        self.next_write += 1;
        self.writes.insert(
            id,
            AsyncWrite {
                at,
                new: vec![Byte::ANY; len as usize],
                begin,
                end: None,
                update: true,
                proxy: Proxy::Async,
                old,
                racing,
            },
        );
        Ok(id)
    }

    /// Destination range of an update (or write) still in flight.
    pub fn target(&self, id: WriteId) -> Option<(Addr, u64)> {
        self.writes
            .get(id)
            .filter(|w| w.in_flight())
            .map(|w| (w.at, w.new.len() as u64))
    }

    /// Lands an update with its result. Concurrent updates do not widen it (atomic
    /// read-modify-writes serialize in landing order); concurrent plain async writes do.
    pub fn complete_update(&mut self, id: WriteId, result: Vec<Byte>) -> Result<bool, MemError> {
        self.complete_update_as(id, result, Landing::Unobserved)
    }

    /// [`Memory::complete_update`], its completion observed or not.
    pub fn complete_update_as(
        &mut self,
        id: WriteId,
        result: Vec<Byte>,
        landing: Landing,
    ) -> Result<bool, MemError> {
        match self.writes.get_mut(id) {
            None if id.0 < self.next_write => Ok(false),
            None => Err(MemError::UnknownWrite(id)),
            Some(w) if w.end.is_some() => Ok(false),
            Some(w) if !w.update => Err(MemError::NotAnUpdate(id)),
            Some(w) if w.new.len() != result.len() => Err(MemError::LengthMismatch {
                expected: w.new.len() as u64,
                observed: result.len() as u64,
            }),
            Some(w) => {
                w.new = result;
                self.finish(id, landing)
            }
        }
    }

    /// Completes an asynchronous write: its bytes become exactly the new values, except where a
    /// concurrent write (A-MEM-CONCURRENT-WRITES) also covers the byte. Returns false if the write
    /// was already complete (completing twice, e.g. via two mechanisms, is harmless).
    pub fn complete(&mut self, id: WriteId) -> Result<bool, MemError> {
        self.complete_as(id, Landing::Unobserved)
    }

    /// [`Memory::complete`], its completion observed or not.
    pub fn complete_as(&mut self, id: WriteId, landing: Landing) -> Result<bool, MemError> {
        let Some(w) = self.writes.get(id) else {
            // Pruned after completing, or never issued.
            return if id.0 < self.next_write {
                Ok(false)
            } else {
                Err(MemError::UnknownWrite(id))
            };
        };
        if w.end.is_some() {
            return Ok(false);
        }
        if w.update {
            return Err(MemError::UpdateNeedsResult(id));
        }
        self.finish(id, landing)
    }

    fn finish(&mut self, id: WriteId, landing: Landing) -> Result<bool, MemError> {
        let now = self.tick();
        // Borrowed apart: the write (and the others) are read while its region is written.
        let Memory {
            regions, writes, ..
        } = self;
        let Some(w) = writes.get(id) else {
            return Ok(false);
        };
        // Writes whose in-flight interval overlaps w's and that touch w's range.
        let others: Vec<&AsyncWrite> = writes
            .overlapping(w.at, w.new.len() as u64)
            .filter(|(oid, o)| *oid != id && o.end.is_none_or(|e| e > w.begin))
            .filter(|(_, o)| !(w.update && o.update))
            .map(|(_, o)| o)
            .collect();
        // One region: an access does not cross regions.
        let r = regions.get_mut(&w.at.region).expect("checked");
        // Marking a byte unfenced and then fencing it leaves it with no unfenced write.
        let fenced = landing == Landing::Observed && w.proxy == Proxy::Async;
        for (i, b) in w.new.iter().enumerate() {
            let a = w.at.plus(i as u64);
            let v = others
                .iter()
                .filter_map(|o| o.covers(a).map(|j| o.new[j]))
                .fold(*b, Byte::union);
            // proxy.generic_write_async_write: the unordered generic write may land last.
            let v = w.racing[i].map_or(v, |g| v.union(g));
            r.put(a.offset, v);
            if fenced {
                r.unfenced.remove(a.offset);
            } else {
                r.mark(a.offset, w.proxy, w.old[i]);
            }
        }
        writes.land(id, now);
        Ok(true)
    }

    /// Completes every plain async write still in flight (e.g. at kernel end), in handle order,
    /// and returns the updates still in flight (they need [`Memory::complete_update`]).
    pub fn complete_all(&mut self) -> Vec<WriteId> {
        let ids: Vec<(WriteId, bool)> = self.writes.pending().map(|(i, w)| (i, w.update)).collect();
        let mut updates = vec![];
        for (id, update) in ids {
            if update {
                updates.push(id);
            } else {
                let _ = self.complete(id);
            }
        }
        updates
    }

    /// Is the write still in flight?
    pub fn is_in_flight(&self, id: WriteId) -> bool {
        self.writes.get(id).is_some_and(|w| w.in_flight())
    }

    /// In-flight writes overlapping `[at, at+len)` (reading them is UB, §9.7.9.25.1).
    pub fn in_flight_overlapping(&self, at: Addr, len: u64) -> Vec<WriteId> {
        let mut ids: Vec<WriteId> = self
            .writes
            .overlapping(at, len)
            .filter(|(_, w)| w.in_flight())
            .map(|(i, _)| i)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Registers an asynchronous read of `[at, at+len)` that has not finished.
    pub fn hold_source(&mut self, at: Addr, len: u64) -> Result<ReadHoldId, MemError> {
        self.check(at, len)?;
        let id = ReadHoldId(self.next_id);
        self.next_id += 1;
        self.holds.insert(id, (at, len));
        Ok(id)
    }

    /// The asynchronous read finished; the source may be reused.
    pub fn release_source(&mut self, id: ReadHoldId) -> Result<(), MemError> {
        self.holds
            .remove(&id)
            .map(|_| ())
            .ok_or(MemError::UnknownHold(id))
    }

    /// Is the source read still unfinished?
    pub fn is_held(&self, id: ReadHoldId) -> bool {
        self.holds.contains_key(&id)
    }

    /// Unfinished source reads overlapping `[at, at+len)` (writing them is UB, §9.7.9.25.1).
    pub fn holds_overlapping(&self, at: Addr, len: u64) -> Vec<ReadHoldId> {
        self.holds
            .iter()
            .filter(|(_, (h, l))| {
                h.region == at.region && h.offset < at.offset + len && at.offset < h.offset + l
            })
            .map(|(i, _)| *i)
            .collect()
    }

    /// First byte of `[at, at+observed.len())` whose observed value the model does not allow.
    pub fn matches(&self, at: Addr, observed: &[u8]) -> Result<Option<Mismatch>, MemError> {
        let model = self.read(at, observed.len() as u64)?;
        Ok(model
            .iter()
            .zip(observed)
            .enumerate()
            .find(|(_, (m, o))| !m.allows(**o))
            .map(|(i, (m, o))| Mismatch {
                at: at.plus(i as u64),
                observed: *o,
                allowed: *m,
            }))
    }

    /// [`Memory::matches`] over a whole region.
    pub fn matches_region(
        &self,
        id: RegionId,
        observed: &[u8],
    ) -> Result<Option<Mismatch>, MemError> {
        let size = self.region_size(id).ok_or(MemError::UnknownRegion(id))?;
        if size != observed.len() as u64 {
            return Err(MemError::LengthMismatch {
                expected: size,
                observed: observed.len() as u64,
            });
        }
        self.matches(Addr::new(id, 0), observed)
    }
}

#[cfg(test)]
mod tests;
