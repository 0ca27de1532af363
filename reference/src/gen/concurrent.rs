//! Concurrent episodes: several threads (or the CTAs of a cluster) issue copies and signal one
//! mbarrier at once, as one `concurrent` group (A-EXEC-CONCURRENT-INTERLEAVINGS). Enabled by
//! [`super::GenConfig::concurrent_per_256`].
//!
//! Kinds, each legal unless the program asked for a deviation:
//! - lanes: k threads each cp.async into their own 16-byte slot of `sbuf` and arrive with
//!   cp.async.mbarrier.arrive.noinc on an mbarrier of count k (racy: another thread stores into
//!   slot 0 meanwhile; undefined: the count is one short, so the last arrive-on falls in the next
//!   phase before any wait, §9.7.13.15.4);
//! - bulk producers: k threads each cp.async.bulk global→shared into their own slice, completing
//!   on one mbarrier that one of them (count 1) or each of them (count k) expects the bytes on
//!   (racy: a store into slice 0 meanwhile);
//! - arrivals: k threads arrive on an mbarrier whose count is the sum of their counts
//!   (undefined: one arrival too many, §9.7.13.15.4);
//! - proxy producers: k threads each store into their own shared region and copy it to `gdst`
//!   with cp.async.bulk (bulk_group), with or without the required fence.proxy.async between
//!   (§8.6: without it the copied bytes are uncertain, a defined outcome);
//! - store race: two threads store different bytes into `sbuf` (uncertain bytes, defined);
//! - cluster peers: the first two CTAs of the cluster each expect both transfers on their own
//!   mbarrier and multicast their half into both CTAs, after the required
//!   fence.mbarrier_init.release.cluster.
//!
//! Every kind keeps the case's reduced interleavings (all groups together) within the bound:
//! kinds whose threads depend on each other are chosen only while [`World::orders`] allows.

use super::bytes::Chunk;
use super::world::{Who, World, GDST, GSRC, SBUF};
use super::{Deviation, Intent};
use crate::case::model::{Ctas, Init, Region, StepOp};
use crate::sem::exec::concurrent::MAX_ORDERS;
use crate::sem::ub;

/// The kinds, in the order the episode byte names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Lanes,
    BulkProducers,
    Arrivals,
    ProxyProducers,
    StoreRace,
    ClusterPeers,
}

const KINDS: [Kind; 6] = [
    Kind::Lanes,
    Kind::BulkProducers,
    Kind::Arrivals,
    Kind::ProxyProducers,
    Kind::StoreRace,
    Kind::ClusterPeers,
];

impl Kind {
    /// Can this program run the kind with deviation `dev`?
    fn fits(self, w: &World, dev: Option<Deviation>) -> bool {
        let sm = w.target.sm;
        let runs = match self {
            Kind::Lanes | Kind::Arrivals | Kind::StoreRace => true,
            Kind::BulkProducers | Kind::ProxyProducers => sm >= 90,
            Kind::ClusterPeers => sm >= 90 && w.cluster_size() >= 2,
        };
        let deviates = match dev {
            None => true,
            Some(Deviation::Racy) => matches!(self, Kind::Lanes | Kind::BulkProducers),
            Some(Deviation::Undefined) => matches!(self, Kind::Lanes | Kind::Arrivals),
            Some(Deviation::Illegal) => false,
        };
        runs && deviates
    }
}

/// Runs one concurrent episode; `None` when no kind fits `dev` (the caller then runs a family
/// episode instead).
pub fn episode(w: &mut World, c: &mut Chunk<'_>, dev: Option<Deviation>) -> Option<Option<Intent>> {
    let start = c.below(KINDS.len() as u32) as usize;
    let kind = (0..KINDS.len())
        .map(|i| KINDS[(start + i) % KINDS.len()])
        .find(|k| k.fits(w, dev))?;
    Some(match kind {
        Kind::Lanes => lanes(w, c, dev),
        Kind::BulkProducers => bulk_producers(w, c, dev),
        Kind::Arrivals => arrivals(w, c, dev),
        Kind::ProxyProducers => proxy_producers(w, c),
        Kind::StoreRace => store_race(w, c),
        Kind::ClusterPeers => cluster_peers(w, c),
    })
}

/// `k` distinct threads: lanes of warp 0 from a byte's offset, or one per warp when the CTA has
/// enough warps and a bit says so.
fn threads(w: &World, c: &mut Chunk<'_>, k: u32) -> Vec<u32> {
    let n = w.launch.threads;
    let warps = n / 32;
    if c.bit() && warps >= k {
        (0..k).map(|i| 32 * i + c.below(32)).collect()
    } else {
        let first = c.below(n - k + 1);
        (first..first + k).collect()
    }
}

/// A thread of the CTA not in `busy` (the CTA has at least 32 threads and `busy` fewer).
fn other_thread(w: &World, c: &mut Chunk<'_>, busy: &[u32]) -> u32 {
    let n = w.launch.threads;
    let mut t = c.below(n);
    while busy.contains(&t) {
        t = (t + 1) % n;
    }
    t
}

/// Marks the steps from `from` on as one concurrent group and counts its reduced orders.
fn group(w: &mut World, from: usize, orders: u128) {
    let name = format!("g{from}");
    for s in &mut w.steps[from..] {
        s.concurrent = Some(name.clone());
    }
    w.orders = w.orders.saturating_mul(orders);
}

/// May the case take a group of `orders` more reduced orders?
fn affords(w: &World, orders: u128) -> bool {
    w.orders.saturating_mul(orders) <= MAX_ORDERS
}

/// A `ptx:` step, in the model's canonical spelling (what the validator reprints).
fn ptx(w: &mut World, who: &Who, text: String) {
    match crate::ptx::Instruction::parse(&text) {
        Ok(i) => {
            w.ptx(who, i);
        }
        // Not reached for the texts above; the validator names it if it were.
        Err(_) => {
            w.step(who, StepOp::Ptx(text));
        }
    }
}

fn store(w: &mut World, who: &Who, at: &str, bytes: Vec<u8>) {
    w.step(
        who,
        StepOp::Store {
            at: at.to_string(),
            bytes,
        },
    );
}

/// The racy store into slot 0 depends on the thread whose copy writes there: its steps and
/// the store's interleave (C(steps + 1, 1) orders).
fn racy_store(w: &mut World, c: &mut Chunk<'_>, cta: u32, busy: &[u32], len: usize) -> u32 {
    let t = other_thread(w, c, busy);
    let who = w.who(&[cta], t);
    let bytes = (0..len).map(|_| c.byte()).collect();
    store(w, &who, SBUF, bytes);
    t
}

fn lanes(w: &mut World, c: &mut Chunk<'_>, dev: Option<Deviation>) -> Option<Intent> {
    let cta = c.below(w.ctas());
    let slots = (w.size / 16) as u32;
    let k = c.range(2, 32).min(slots).min(w.launch.threads - 1);
    let size = c.pick(&[4i64, 8, 16]);
    let ts = threads(w, c, k);
    let b = c.below(w.bars.len() as u32) as usize;
    let short = dev == Some(Deviation::Undefined);
    w.ensure_bar(b, &[cta], ts[0], if short { k - 1 } else { k });
    let racy = dev == Some(Deviation::Racy) && affords(w, 3);
    let from = w.steps.len();
    for (i, &t) in ts.iter().enumerate() {
        let who = w.who(&[cta], t);
        let src = size * c.below((w.size as i64 / size) as u32) as i64;
        ptx(
            w,
            &who,
            format!(
                "cp.async.ca.shared.global [{SBUF}+{}], [{GSRC}+{src}], {size}",
                16 * i
            ),
        );
        ptx(
            w,
            &who,
            format!(
                "cp.async.mbarrier.arrive.noinc.shared.b64 [{}]",
                World::bar_name(b)
            ),
        );
    }
    if racy {
        racy_store(w, c, cta, &ts, size as usize);
    }
    // Lane 0 and the racy store: 3 orders; otherwise the lanes are independent.
    group(w, from, if racy { 3 } else { 1 });
    w.wait_phase(b, &[cta], ts[0]);
    if short {
        Some(Intent::Undefined {
            rule: ub::MBAR_ARRIVE_BEFORE_WAIT.id,
        })
    } else if racy {
        Some(Intent::Racy {
            rule: ub::ASYNC_DST_WRITTEN.id,
        })
    } else {
        None
    }
}

fn bulk_producers(w: &mut World, c: &mut Chunk<'_>, dev: Option<Deviation>) -> Option<Intent> {
    let cta = c.below(w.ctas());
    let k = c.range(2, 4);
    let slice = 16 * c.range(1, (w.size / 16 / 4) as u32) as i64;
    let ts = threads(w, c, k);
    let b = c.below(w.bars.len() as u32) as usize;
    let each = c.bit();
    w.ensure_bar(b, &[cta], ts[0], if each { k } else { 1 });
    let bar = World::bar_name(b);
    let racy = dev == Some(Deviation::Racy) && affords(w, 4);
    let from = w.steps.len();
    for (i, &t) in ts.iter().enumerate() {
        let who = w.who(&[cta], t);
        let off = slice * i as i64;
        let expect = if each { slice } else { slice * k as i64 };
        if each || i == 0 {
            ptx(
                w,
                &who,
                format!("mbarrier.arrive.expect_tx.shared::cta.b64 _, [{bar}], {expect}"),
            );
        }
        ptx(
            w,
            &who,
            format!(
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{SBUF}+{off}], [{GSRC}+{off}], {slice}, [{bar}]"
            ),
        );
    }
    if racy {
        racy_store(w, c, cta, &ts, 4);
    }
    // Producer 0's (at most) 2 steps and the racy store: at most C(3, 1) = 3 orders.
    group(w, from, if racy { 3 } else { 1 });
    w.wait_phase(b, &[cta], ts[0]);
    racy.then_some(Intent::Racy {
        rule: ub::ASYNC_DST_WRITTEN.id,
    })
}

fn arrivals(w: &mut World, c: &mut Chunk<'_>, dev: Option<Deviation>) -> Option<Intent> {
    let cta = c.below(w.ctas());
    let k = c.range(2, 8);
    let ts = threads(w, c, k);
    let b = c.below(w.bars.len() as u32) as usize;
    let extra = dev == Some(Deviation::Undefined);
    // With one arrival too many every count is 1, so in every order the last arrival is the
    // one in the next phase.
    // A count operand without .noComplete needs sm_90 (§9.7.13.15.13).
    let most = if w.target.sm >= 90 { 4 } else { 1 };
    let counts: Vec<u32> = ts
        .iter()
        .map(|_| if extra { 1 } else { c.range(1, most) })
        .collect();
    let total: u32 = counts.iter().sum();
    w.ensure_bar(b, &[cta], ts[0], if extra { total - 1 } else { total });
    let bar = World::bar_name(b);
    let from = w.steps.len();
    for (&t, n) in ts.iter().zip(counts) {
        let who = w.who(&[cta], t);
        let count = if n == 1 {
            String::new()
        } else {
            format!(", {n}")
        };
        ptx(
            w,
            &who,
            format!("mbarrier.arrive.shared.b64 _, [{bar}]{count}"),
        );
    }
    group(w, from, 1);
    if extra {
        return Some(Intent::Undefined {
            rule: ub::MBAR_ARRIVE_BEFORE_WAIT.id,
        });
    }
    w.wait_phase(b, &[cta], ts[0]);
    None
}

fn proxy_producers(w: &mut World, c: &mut Chunk<'_>) -> Option<Intent> {
    let cta = c.below(w.ctas());
    // Fenced producers depend on each other (a fence touches everything): 2 of them, 3 steps
    // each, C(6, 3) = 20 orders.
    let fenced = c.bit() && affords(w, 20);
    let k = if fenced { 2 } else { c.range(2, 4) };
    let ts = threads(w, c, k);
    let names: Vec<String> = (0..k)
        .map(|i| format!("pst{}_{i}", w.steps.len()))
        .collect();
    for n in &names {
        w.memory.shared.push(Region {
            name: n.clone(),
            size: 16,
            align: 16,
            misalign: 0,
            init: Init::Fill(0),
        });
    }
    let from = w.steps.len();
    for (i, (&t, n)) in ts.iter().zip(&names).enumerate() {
        let who = w.who(&[cta], t);
        let bytes = (0..16).map(|_| c.byte()).collect();
        store(w, &who, n, bytes);
        if fenced {
            ptx(w, &who, "fence.proxy.async.shared::cta".into());
        }
        ptx(
            w,
            &who,
            format!(
                "cp.async.bulk.global.shared::cta.bulk_group [{GDST}+{}], [{n}], 16",
                16 * i
            ),
        );
    }
    group(w, from, if fenced { 20 } else { 1 });
    for &t in &ts {
        let who = w.who(&[cta], t);
        ptx(w, &who, "cp.async.bulk.commit_group".into());
        ptx(w, &who, "cp.async.bulk.wait_group 0".into());
    }
    None
}

fn store_race(w: &mut World, c: &mut Chunk<'_>) -> Option<Intent> {
    let cta = c.below(w.ctas());
    let ts = threads(w, c, 2);
    let from = w.steps.len();
    for &t in &ts {
        let who = w.who(&[cta], t);
        let n = c.range(1, 16) as usize;
        let v = c.byte();
        store(w, &who, SBUF, vec![v; n]);
    }
    group(w, from, 2);
    None
}

fn cluster_peers(w: &mut World, c: &mut Chunk<'_>) -> Option<Intent> {
    let ctas = [0, 1];
    let half = 16 * c.range(1, (w.size / 32) as u32) as i64;
    let b = c.below(w.bars.len() as u32) as usize;
    let t = c.below(w.launch.threads);
    w.ensure_bar(b, &ctas, t, 1);
    // §9.7.13.4: the peer's complete-tx needs the initialisation released to the cluster.
    let all = w.who(&ctas, t);
    ptx(w, &all, "fence.mbarrier_init.release.cluster".into());
    let bar = World::bar_name(b);
    let from = w.steps.len();
    for r in ctas {
        let who = Who {
            cta: Ctas::One(r),
            thread: t,
        };
        let off = half * i64::from(r);
        ptx(
            w,
            &who,
            format!(
                "mbarrier.arrive.expect_tx.shared::cta.b64 _, [{bar}], {}",
                2 * half
            ),
        );
        ptx(
            w,
            &who,
            format!(
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [{SBUF}+{off}], [{GSRC}+{off}], {half}, [{bar}], 3"
            ),
        );
    }
    group(w, from, 1);
    w.wait_phase(b, &ctas, t);
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::model::Case;
    use crate::gen::swarm::{Family, Swarm};
    use crate::gen::GenConfig;
    use crate::sem::exec::{self, concurrent::schedules, Execution, Outcome};
    use crate::sem::memory::{Byte, RegionBytes};
    use crate::target::Target;

    /// A one-cluster world of 2 CTAs × 128 threads with 512-byte regions on sm_90a.
    fn world() -> World {
        let cfg = GenConfig {
            targets: vec![Target::SM_90A],
            max_ctas: 2,
            max_cluster: 2,
            max_threads: 128,
            max_region_bytes: 512,
            ..GenConfig::default()
        };
        let head = [0, 1, 0, 3, 3, 0, 0, 7, 0];
        let swarm = Swarm {
            families: vec![Family::Store],
            features: Default::default(),
        };
        let w = World::new(&mut Chunk::new(&head), &cfg, swarm);
        assert_eq!(
            (w.ctas(), w.cluster_size(), w.launch.threads, w.size),
            (2, 2, 128, 512)
        );
        w
    }

    /// 64 pseudo-random episode bytes.
    fn noise(seed: u8) -> Vec<u8> {
        let mut x = u64::from(seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..64)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    type Kindf = fn(&mut World, &mut Chunk<'_>, Option<Deviation>) -> Option<Intent>;

    /// Runs one episode of `f` from `bytes`; the case, its intent and its execution.
    fn run(f: Kindf, bytes: &[u8], dev: Option<Deviation>) -> (Case, Option<Intent>, Execution) {
        let mut w = world();
        let intent = f(&mut w, &mut Chunk::new(bytes), dev);
        let case = w.finish(intent.as_ref().unwrap_or(&Intent::WellDefined));
        let yaml = crate::case::to_yaml(std::slice::from_ref(&case));
        // The generated case is valid as written.
        crate::case::load_str(&yaml, "gen.yaml").unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        let e = exec::execute(&case).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        (case, intent, e)
    }

    fn ub_rule(e: &Execution) -> &str {
        match &e.outcome {
            Outcome::Undefined { ub, .. } => ub.rule,
            Outcome::Defined => "defined",
        }
    }

    fn region<'e>(e: &'e Execution, name: &str) -> &'e RegionBytes {
        e.final_region(name)
            .unwrap_or_else(|| panic!("no region {name}"))
    }

    #[test]
    fn a_warp_of_lanes_is_one_order_and_lands_every_slot() {
        // cta 0, k = 32, 16-byte copies, lanes 0..32, bar0, sources from slot 0.
        let (case, intent, e) = run(lanes, &[0, 30, 2, 0, 0, 0], None);
        assert_eq!(intent, None);
        assert_eq!(
            case.program
                .iter()
                .filter(|s| s.concurrent.is_some())
                .count(),
            64
        );
        assert_eq!(schedules(&case).unwrap().len(), 1);
        assert_eq!(e.outcome, Outcome::Defined);
        assert!(region(&e, "sbuf@cta0")
            .iter()
            .all(|b| matches!(b, Byte::Known(_))));
    }

    #[test]
    fn deviating_lanes_are_racy_or_undefined_as_intended() {
        for seed in 0..16u8 {
            let bytes = noise(seed);
            let (_, intent, e) = run(lanes, &bytes, Some(Deviation::Racy));
            assert_eq!(
                intent,
                Some(Intent::Racy {
                    rule: ub::ASYNC_DST_WRITTEN.id
                })
            );
            assert_eq!(ub_rule(&e), ub::ASYNC_DST_WRITTEN.id);
            let (_, intent, e) = run(lanes, &bytes, Some(Deviation::Undefined));
            assert_eq!(
                intent,
                Some(Intent::Undefined {
                    rule: ub::MBAR_ARRIVE_BEFORE_WAIT.id
                })
            );
            assert_eq!(ub_rule(&e), ub::MBAR_ARRIVE_BEFORE_WAIT.id);
            let (_, intent, e) = run(arrivals, &bytes, Some(Deviation::Undefined));
            assert_eq!(
                intent,
                Some(Intent::Undefined {
                    rule: ub::MBAR_ARRIVE_BEFORE_WAIT.id
                })
            );
            assert_eq!(ub_rule(&e), ub::MBAR_ARRIVE_BEFORE_WAIT.id);
            let (_, intent, e) = run(bulk_producers, &bytes, Some(Deviation::Racy));
            assert_eq!(
                intent,
                Some(Intent::Racy {
                    rule: ub::ASYNC_DST_WRITTEN.id
                })
            );
            assert_eq!(ub_rule(&e), ub::ASYNC_DST_WRITTEN.id);
        }
    }

    #[test]
    fn legal_producers_leave_certain_bytes() {
        for seed in 0..16u8 {
            let bytes = noise(seed);
            for f in [lanes as Kindf, bulk_producers, arrivals] {
                let (case, intent, e) = run(f, &bytes, None);
                assert_eq!(intent, None);
                assert_eq!(e.outcome, Outcome::Defined, "{}", case.name);
                assert_eq!(schedules(&case).unwrap().len(), 1, "{}", case.name);
                for r in ["sbuf@cta0", "sbuf@cta1"] {
                    assert!(region(&e, r).iter().all(|b| matches!(b, Byte::Known(_))));
                }
            }
            let (case, _, e) = run(|w, c, _| cluster_peers(w, c), &bytes, None);
            assert_eq!(e.outcome, Outcome::Defined);
            assert!(e.notes.is_empty(), "{:?}", e.notes);
            assert_eq!(schedules(&case).unwrap().len(), 1);
            // Both halves landed in both CTAs: the same bytes, copied from gsrc.
            let half = region(&e, "sbuf@cta0");
            assert_eq!(half, region(&e, "sbuf@cta1"));
            assert!(half.iter().zip(region(&e, "gsrc")).any(|(a, b)| a == b));
        }
    }

    #[test]
    fn a_missing_proxy_fence_or_a_store_race_leaves_uncertain_bytes() {
        let mut seen = [false; 2];
        for seed in 0..12u8 {
            let bytes = noise(seed);
            let (case, _, e) = run(|w, c, _| proxy_producers(w, c), &bytes, None);
            assert_eq!(e.outcome, Outcome::Defined);
            let fenced = case
                .program
                .iter()
                .any(|s| matches!(&s.op, StepOp::Ptx(t) if t.starts_with("fence.proxy.async")));
            seen[usize::from(fenced)] = true;
            // Producer 0 copied its 16 stored bytes to gdst[0..16].
            let copied = &region(&e, "gdst").to_vec()[..16];
            if fenced {
                assert_eq!(schedules(&case).unwrap().len(), 20);
                assert!(copied.iter().all(|b| matches!(b, Byte::Known(_))));
            } else {
                assert_eq!(schedules(&case).unwrap().len(), 1);
                assert!(copied.iter().any(|b| matches!(b, Byte::OneOf(_))));
                assert!(!e.notes.is_empty());
            }
            let (_, _, e) = run(|w, c, _| store_race(w, c), &bytes, None);
            // Both stores start at sbuf: byte 0 holds either value (the same value is certain).
            assert_eq!(e.outcome, Outcome::Defined);
        }
        assert_eq!(seen, [true, true], "both proxy variants");
        // Two different values at byte 0: uncertain.
        let (_, _, e) = run(|w, c, _| store_race(w, c), &[0, 0, 0, 3, 1, 3, 2], None);
        assert!(matches!(region(&e, "sbuf@cta0")[0], Byte::OneOf(_)));
    }
}
