use super::*;
use proptest::prelude::*;

const G: RegionId = RegionId::Global(0);
const S: RegionId = RegionId::Shared { cta: 0 };

fn mem() -> Memory {
    let mut m = Memory::new();
    m.add_region(G, (0..64).collect());
    m.add_region(S, vec![0xAA; 64]);
    m
}

fn two(a: u8, b: u8) -> Byte {
    Byte::Known(a).union(Byte::Known(b))
}

#[test]
fn generic_write_is_stale_for_the_async_proxy_until_fenced() {
    let mut m = mem();
    let a = Addr::new(S, 0);
    m.write_exact(a, &[1]).unwrap();
    m.write_exact(a, &[2]).unwrap();
    // Both earlier values stay visible to the async proxy; the generic proxy sees its own.
    let (b, n) = m.read_in(a, 1, Proxy::Async).unwrap();
    assert_eq!(
        (b[0], n),
        (
            Byte::from_set(two(0xAA, 1).set().union(ByteSet::single(2))),
            1
        )
    );
    assert_eq!(
        m.read_in(a, 1, Proxy::Generic).unwrap(),
        (vec![Byte::Known(2)], 0)
    );
    assert_eq!(m.read(a, 1).unwrap(), vec![Byte::Known(2)], "host view");
    assert_eq!(m.unfenced_count(a, 4, Proxy::Generic).unwrap(), 1);
    // A fence over global memory only does not order shared bytes.
    assert_eq!(
        m.proxy_fence(|r| matches!(r, RegionId::Global(_)), &[Proxy::Generic]),
        0
    );
    assert_eq!(m.proxy_fence(|r| r == S, &[Proxy::Generic]), 1);
    assert_eq!(
        m.read_in(a, 1, Proxy::Async).unwrap(),
        (vec![Byte::Known(2)], 0)
    );
}

#[test]
fn async_write_is_stale_for_the_generic_proxy_until_its_completion_is_observed() {
    let mut m = mem();
    let a = Addr::new(G, 4);
    let w = m.begin_async_write(a, vec![Byte::Known(9)]).unwrap();
    assert_eq!(m.proxy_of(w), Some(Proxy::Async));
    m.complete(w).unwrap();
    // proxy.async_write_generic_read: landed but not observed.
    assert_eq!(
        m.read_in(a, 1, Proxy::Generic).unwrap(),
        (vec![two(4, 9)], 1)
    );
    assert_eq!(
        m.read_in(a, 1, Proxy::Async).unwrap(),
        (vec![Byte::Known(9)], 0)
    );
    // proxy.completion_fence.
    m.completion_fence(a, 1).unwrap();
    assert_eq!(
        m.read_in(a, 1, Proxy::Generic).unwrap(),
        (vec![Byte::Known(9)], 0)
    );
}

#[test]
fn async_write_over_an_unfenced_generic_write_may_lose_to_it() {
    let mut m = mem();
    let a = Addr::new(S, 8);
    m.write_exact(a, &[5, 6]).unwrap();
    m.proxy_fence(|_| true, &[Proxy::Generic]);
    m.write_exact(a, &[7]).unwrap(); // byte 8 unfenced again, byte 9 fenced
    let w = m
        .begin_write_in(a, vec![Byte::Known(1), Byte::Known(2)], Proxy::Async)
        .unwrap();
    m.complete(w).unwrap();
    assert_eq!(m.read(a, 2).unwrap(), vec![two(7, 1), Byte::Known(2)]);
    // A cp.async (generic) write over a generic write is ordered with it.
    let w = m
        .begin_write_in(a, vec![Byte::Known(3)], Proxy::Generic)
        .unwrap();
    m.complete(w).unwrap();
    assert_eq!(m.read(a, 1).unwrap(), vec![Byte::Known(3)]);
    assert_eq!(m.unfenced_count(a, 1, Proxy::Generic).unwrap(), 1);
}
fn known(v: &[u8]) -> Vec<Byte> {
    v.iter().map(|b| Byte::Known(*b)).collect()
}

#[test]
fn byteset_basics() {
    let b = Byte::Known(1).union(Byte::Known(2));
    assert!(b.allows(1) && b.allows(2) && !b.allows(3));
    assert_eq!(Byte::Known(5).union(Byte::Known(5)), Byte::Known(5));
    assert_eq!(ByteSet::ANY.len(), 256);
    assert!(Byte::ANY.allows(0x77));
    assert_eq!(Byte::from_set(ByteSet::single(9)), Byte::Known(9));
}

/// `iter` gives exactly the members, in increasing order, across all four words.
#[test]
fn byteset_iter_is_its_members_in_order() {
    for members in [
        vec![],
        vec![0],
        vec![255],
        vec![3, 63, 64, 127, 128, 200, 255],
    ] {
        let mut s = ByteSet::default();
        members.iter().for_each(|&v| s.insert(v));
        assert_eq!(s.iter().collect::<Vec<u8>>(), members);
    }
    assert_eq!(ByteSet::ANY.iter().count(), 256);
    assert!(ByteSet::ANY.iter().zip(0..=255u8).all(|(a, b)| a == b));
}

#[test]
fn bounds_and_regions() {
    let mut m = mem();
    assert!(matches!(
        m.read(Addr::new(G, 60), 8),
        Err(MemError::OutOfBounds { .. })
    ));
    assert!(matches!(
        m.read(Addr::new(RegionId::Global(7), 0), 1),
        Err(MemError::UnknownRegion(_))
    ));
    assert!(m.write_exact(Addr::new(S, u64::MAX), &[1]).is_err());
    assert!(m
        .begin_async_write(Addr::new(S, 63), known(&[1, 2]))
        .is_err());
}

#[test]
fn async_write_old_or_new_then_exact() {
    let mut m = mem();
    let src = m.read(Addr::new(G, 0), 4).unwrap();
    let w = m.begin_async_write(Addr::new(S, 0), src).unwrap();
    assert_eq!(m.in_flight_overlapping(Addr::new(S, 2), 10), vec![w]);
    assert_eq!(
        m.matches(Addr::new(S, 0), &[0xAA, 1, 0xAA, 3]).unwrap(),
        None
    );
    let mm = m.matches(Addr::new(S, 0), &[0, 1, 2, 4]).unwrap().unwrap();
    assert_eq!((mm.at.offset, mm.observed), (3, 4));
    assert!(m.complete(w).unwrap());
    assert!(!m.complete(w).unwrap());
    assert!(!m.is_in_flight(w));
    assert!(m.complete(WriteId(99)).is_err());
    assert_eq!(
        m.read_known(Addr::new(S, 0), 4).unwrap(),
        Some(vec![0, 1, 2, 3])
    );
    assert!(m
        .matches(Addr::new(S, 0), &[0xAA, 1, 2, 3])
        .unwrap()
        .is_some());
    assert!(m.in_flight_overlapping(Addr::new(S, 0), 64).is_empty());
}

#[test]
fn overlapping_in_flight_writes_stay_widened() {
    let mut m = mem();
    let a = m
        .begin_async_write(Addr::new(S, 0), known(&[1, 1]))
        .unwrap();
    let b = m
        .begin_async_write(Addr::new(S, 1), known(&[2, 2]))
        .unwrap();
    m.complete(a).unwrap();
    // byte 0: only a → exact; byte 1: a or b; byte 2: old or b
    assert_eq!(m.read(Addr::new(S, 0), 1).unwrap()[0], Byte::Known(1));
    let r = m.read(Addr::new(S, 1), 2).unwrap();
    assert!(r[0].allows(1) && r[0].allows(2) && !r[0].allows(0xAA));
    assert!(r[1].allows(0xAA) && r[1].allows(2));
    m.complete(b).unwrap();
    // Unordered: either landed last.
    let r = m.read(Addr::new(S, 0), 3).unwrap();
    assert_eq!(r[0], Byte::Known(1));
    assert_eq!(r[1], Byte::Known(1).union(Byte::Known(2)));
    assert_eq!(r[2], Byte::Known(2));
    // A write begun after both completed is ordered after them.
    let c = m.begin_async_write(Addr::new(S, 1), known(&[3])).unwrap();
    m.complete(c).unwrap();
    assert_eq!(m.read(Addr::new(S, 1), 1).unwrap()[0], Byte::Known(3));
}

#[test]
fn uncertain_source_propagates() {
    let mut m = mem();
    let w = m.begin_async_write(Addr::new(G, 0), known(&[9])).unwrap();
    let src = m.read(Addr::new(G, 0), 1).unwrap();
    let c = m.begin_async_write(Addr::new(S, 5), src).unwrap();
    m.complete(c).unwrap();
    let r = m.read(Addr::new(S, 5), 1).unwrap()[0];
    assert!(r.allows(0) && r.allows(9) && !r.allows(0xAA));
    m.complete(w).unwrap();
    assert_eq!(m.read(Addr::new(G, 0), 1).unwrap()[0], Byte::Known(9));
}

#[test]
fn racy_plain_write_and_holds() {
    let mut m = mem();
    let w = m.begin_async_write(Addr::new(S, 0), known(&[1])).unwrap();
    m.write_exact(Addr::new(S, 0), &[7]).unwrap();
    let r = m.read(Addr::new(S, 0), 1).unwrap()[0];
    assert!(r.allows(7) && r.allows(1));
    m.complete(w).unwrap();
    assert_eq!(m.read(Addr::new(S, 0), 1).unwrap()[0], Byte::Known(1));
    let h = m.hold_source(Addr::new(G, 16), 16).unwrap();
    assert_eq!(m.holds_overlapping(Addr::new(G, 31), 4), vec![h]);
    assert!(m.holds_overlapping(Addr::new(G, 32), 4).is_empty());
    m.release_source(h).unwrap();
    assert!(m.release_source(h).is_err());
    assert!(m.holds_overlapping(Addr::new(G, 16), 16).is_empty());
}

#[test]
fn concurrent_updates_serialize() {
    let mut m = mem();
    let a = m.begin_async_update(Addr::new(S, 0), 1).unwrap();
    let b = m.begin_async_update(Addr::new(S, 0), 1).unwrap();
    assert_eq!(
        m.read(Addr::new(S, 0), 1).unwrap()[0],
        Byte::Known(0xAA),
        "unchanged until landing"
    );
    assert_eq!(m.in_flight_overlapping(Addr::new(S, 0), 1), vec![a, b]);
    assert_eq!(m.complete(a), Err(MemError::UpdateNeedsResult(a)));
    assert_eq!(m.complete_all(), vec![a, b]);
    // +1 lands, then +2 reads the landed value: exactly 0xAA + 3.
    let base = m.read_known(Addr::new(S, 0), 1).unwrap().unwrap()[0];
    assert!(m.complete_update(a, vec![Byte::Known(base + 1)]).unwrap());
    let base = m.read_known(Addr::new(S, 0), 1).unwrap().unwrap()[0];
    assert!(m.complete_update(b, vec![Byte::Known(base + 2)]).unwrap());
    assert_eq!(m.read(Addr::new(S, 0), 1).unwrap()[0], Byte::Known(0xAD));
    assert!(!m.complete_update(b, vec![Byte::Known(0)]).unwrap());
    // An update racing a plain async write to the same byte: anything.
    let w = m.begin_async_write(Addr::new(S, 8), known(&[1])).unwrap();
    let u = m.begin_async_update(Addr::new(S, 8), 1).unwrap();
    assert_eq!(
        m.complete_update(w, vec![Byte::Known(0)]),
        Err(MemError::NotAnUpdate(w))
    );
    m.complete(w).unwrap();
    assert_eq!(m.read(Addr::new(S, 8), 1).unwrap()[0], Byte::ANY);
    assert_eq!(m.target(u), Some((Addr::new(S, 8), 1)));
    assert!(m
        .complete_update(u, vec![Byte::Known(4), Byte::Known(4)])
        .is_err());
}

#[test]
fn matches_region_length() {
    let m = mem();
    assert!(matches!(
        m.matches_region(S, &[0; 3]),
        Err(MemError::LengthMismatch { .. })
    ));
    assert_eq!(m.matches_region(S, &[0xAA; 64]).unwrap(), None);
}

/// What a read through each proxy sees of `[0, 16)` of S, and how many bytes are unfenced
/// for each writer.
fn views(m: &Memory) -> (Vec<Byte>, Vec<Byte>, u64, u64) {
    let a = Addr::new(S, 0);
    let (generic, _) = m.read_in(a, 16, Proxy::Generic).unwrap();
    let (asynchronous, _) = m.read_in(a, 16, Proxy::Async).unwrap();
    let g = m.unfenced_count(a, 16, Proxy::Generic).unwrap();
    let w = m.unfenced_count(a, 16, Proxy::Async).unwrap();
    (generic, asynchronous, g, w)
}

proptest! {
    /// An observed landing is a landing followed by the completion fence over its range,
    /// over unfenced generic writes, overlapping async writes and updates alike.
    #[test]
    fn observed_landing_is_landing_then_completion_fence(
        generic in proptest::collection::vec((0u64..16, any::<u8>()), 0..4),
        writes in proptest::collection::vec((0u64..12, 1usize..5, any::<u8>(), any::<bool>()), 1..4),
        pick in any::<prop::sample::Index>(),
    ) {
        let mut m = mem();
        for (at, v) in generic {
            m.write_exact(Addr::new(S, at), &[v]).unwrap();
        }
        let ids: Vec<(WriteId, u64, usize, bool)> = writes
            .into_iter()
            .map(|(at, len, v, update)| {
                let a = Addr::new(S, at);
                let id = if update {
                    m.begin_async_update(a, len as u64).unwrap()
                } else {
                    m.begin_async_write(a, vec![Byte::Known(v); len]).unwrap()
                };
                (id, at, len, update)
            })
            .collect();
        let (id, at, len, update) = ids[pick.index(ids.len())];
        let (mut fenced, mut observed) = (m.clone(), m);
        let result = vec![Byte::Known(7); len];
        if update {
            fenced.complete_update(id, result.clone()).unwrap();
            observed.complete_update_as(id, result, Landing::Observed).unwrap();
        } else {
            fenced.complete(id).unwrap();
            observed.complete_as(id, Landing::Observed).unwrap();
        }
        fenced.completion_fence(Addr::new(S, at), len as u64).unwrap();
        prop_assert_eq!(views(&fenced), views(&observed));
    }

    /// Completed write → exactly the new bytes; in flight → {old, new}.
    #[test]
    fn write_lifecycle(old in proptest::collection::vec(any::<u8>(), 32),
                       new in proptest::collection::vec(any::<u8>(), 1..16), off in 0u64..16) {
        let mut m = Memory::new();
        m.add_region(S, old.clone());
        let at = Addr::new(S, off);
        let w = m.begin_async_write(at, known(&new)).unwrap();
        let r = m.read(at, new.len() as u64).unwrap();
        for (i, b) in r.iter().enumerate() {
            prop_assert_eq!(*b, Byte::Known(old[off as usize + i]).union(Byte::Known(new[i])));
        }
        prop_assert!(m.matches(at, &new).unwrap().is_none());
        prop_assert!(m.matches(at, &old[off as usize..off as usize + new.len()]).unwrap().is_none());
        m.complete(w).unwrap();
        let mut expect = old.clone();
        expect[off as usize..off as usize + new.len()].copy_from_slice(&new);
        prop_assert_eq!(m.read_known(Addr::new(S, 0), 32).unwrap(), Some(expect.clone()));
        prop_assert!(m.matches_region(S, &expect).unwrap().is_none());
    }

    /// Any completion order of overlapping writes: every final byte allows the value of each
    /// write that covers it, and nothing else (old values are gone).
    #[test]
    fn concurrent_writes_final_sets(ws in proptest::collection::vec((0u64..8, 1usize..8, any::<u8>()), 1..5),
                                    order in proptest::collection::vec(any::<usize>(), 5)) {
        let mut m = Memory::new();
        m.add_region(S, vec![0xEE; 16]);
        let mut ids = vec![];
        for (off, len, v) in &ws {
            ids.push(m.begin_async_write(Addr::new(S, *off), vec![Byte::Known(*v); *len]).unwrap());
        }
        let mut left = ids.clone();
        for k in order {
            if left.is_empty() { break; }
            let id = left.remove(k % left.len());
            m.complete(id).unwrap();
        }
        m.complete_all();
        for b in 0..16u64 {
            let got = m.read(Addr::new(S, b), 1).unwrap()[0];
            let mut want: Option<Byte> = None;
            for (off, len, v) in &ws {
                if b >= *off && b < off + *len as u64 {
                    want = Some(want.map_or(Byte::Known(*v), |x| x.union(Byte::Known(*v))));
                }
            }
            prop_assert_eq!(got, want.unwrap_or(Byte::Known(0xEE)));
        }
    }
}

/// A byte allows exactly the values of its set, known or not.
#[test]
fn a_byte_allows_the_values_of_its_set() {
    let two = two(3, 200);
    for b in [
        Byte::Known(0),
        Byte::Known(3),
        Byte::Known(255),
        two,
        Byte::ANY,
    ] {
        for v in 0..=255u8 {
            assert_eq!(b.allows(v), b.set().contains(v), "{b:?} {v}");
        }
    }
    assert!(two.allows(200) && !two.allows(4) && !Byte::Known(3).allows(4));
}

proptest! {
    /// A region's compact read gives every byte [`Memory::read`] gives: uncertain bytes left by
    /// racing writes, writes and updates still in flight, across the byte map's blocks.
    #[test]
    fn read_region_is_read(
        plain in proptest::collection::vec((0u64..190, 1usize..9, any::<u8>(), any::<u8>()), 0..6),
        flights in proptest::collection::vec((0u64..190, 1usize..40, any::<u8>(), any::<bool>(), any::<bool>()), 0..5),
        off in 0u64..200,
        len in 0u64..200,
    ) {
        let mut m = Memory::new();
        m.add_region(S, (0..200u32).map(|i| (i * 7) as u8).collect());
        let mut ids = Vec::new();
        for (at, n, a, b) in plain {
            let n = n.min(200 - at as usize);
            m.write(Addr::new(S, at), &vec![two(a, b); n]).unwrap();
        }
        for (at, n, v, update, done) in flights {
            let n = n.min(200 - at as usize) as u64;
            let a = Addr::new(S, at);
            let id = if update {
                m.begin_async_update(a, n).unwrap()
            } else {
                m.begin_async_write(a, vec![Byte::Known(v); n as usize]).unwrap()
            };
            ids.push((id, update, done, n));
        }
        for (id, update, done, n) in ids {
            if done && !update {
                m.complete(id).unwrap();
            } else if done {
                m.complete_update(id, vec![Byte::Known(3); n as usize]).unwrap();
            }
        }
        let len = len.min(200 - off);
        let at = Addr::new(S, off);
        prop_assert_eq!(m.read_region(at, len).unwrap(), m.read(at, len).unwrap());
    }
}
