//! cp.async.bulk (§9.7.9.25.4.1), its prefetch (§9.7.9.25.4.3) and the bulk async-group
//! instructions (§9.7.9.25.6). The operand checks every bulk operation shares live here and are
//! used by [`super::reduce`] as well.

use super::operands::Loc;
use super::{kind, ub, Machine, Stop, R};
use crate::ptx::bulk::{BulkCopy, BulkOp, CopyDir};
use crate::ptx::operand::{Address, Value};
use crate::sem::groups::AsyncOp;
use crate::sem::memory::{Addr, Byte, ReadHoldId};
use crate::sem::mutant::{self, Mutant as M};
use crate::sem::proxy::Proxy;
use crate::sem::ub::{self as rules, Situation, Ub, UbRule};

/// The 16-byte granule of every bulk operation (size, alignment, cp_mask chunks).
const GRANULE: u64 = 16;

/// The alignment of bulk addresses: the granule.
fn bulk_align() -> u64 {
    if mutant::on(M::BulkAlign8) {
        8
    } else {
        GRANULE
    }
}

impl Machine<'_> {
    pub(super) fn bulk(&mut self, op: &BulkOp) -> R {
        match op {
            BulkOp::Copy(c) => self.bulk_copy(c),
            BulkOp::Reduce(r) => self.bulk_reduce(r),
            // A-EXEC-PREFETCH: only resolved, no state change.
            BulkOp::Prefetch(p) => self.global(&p.src, "srcMem").map(|_| ()),
            BulkOp::CommitGroup => {
                self.bulk_queue().commit();
                Ok(())
            }
            BulkOp::WaitGroup { read, n } => {
                let n = usize::try_from(*n)
                    .or_else(|_| kind(format!("cp.async.bulk.wait_group {n}")))?;
                let q = self.bulk_queue();
                let rel = if *read {
                    q.wait_group_read(n)
                } else {
                    q.wait_group(n)
                };
                self.apply_release(rel)
            }
        }
    }

    /// §9.7.9.25.4.1: "size must be a multiple of 16", otherwise undefined.
    /// A-BULK-SIZE-ROUNDS-DOWN: sm_90 moves the size rounded down to a multiple of 16 (H100 and
    /// H200: a 40-byte store wrote 32 bytes, an 8-byte reduction none, a 24-byte load reported
    /// 16 of its 24 expected bytes and its wait hung), read so under [`super::Reading::Silicon`].
    pub(super) fn bulk_size(&self, v: &Value) -> R<u64> {
        let size = self.value(v)?;
        let granule = if mutant::on(M::BulkGranule8) {
            8
        } else {
            GRANULE
        };
        let off_granule = !(size as u64).is_multiple_of(granule);
        if size >= 0 && off_granule && self.reading == super::Reading::Silicon {
            if mutant::on(M::BulkRoundsUp) {
                return Ok((size as u64).div_ceil(GRANULE) * GRANULE);
            }
            return Ok(size as u64 / GRANULE * GRANULE);
        }
        if size < 0 || off_granule {
            return ub(&rules::BULK_SIZE_MULTIPLE_16, format!("size {size}"));
        }
        Ok(size as u64)
    }

    /// §9.7.9.25.4.1: dstMem and srcMem aligned to 16 bytes; both ranges inside their space.
    pub(super) fn bulk_ranges(&self, dst: &Loc, src: &Loc, size: u64) -> R<(Addr, Addr)> {
        self.check_align(dst, bulk_align(), "dstMem")?;
        self.check_align(src, bulk_align(), "srcMem")?;
        let d = self.check_range(dst, size, &rules::BULK_RANGE_OVERFLOW, "dstMem")?;
        let s = self.check_range(src, size, &rules::BULK_RANGE_OVERFLOW, "srcMem")?;
        Ok((d, s))
    }

    /// Destination CTAs of a .shared::cluster destination: the operand's CTA, or with
    /// `.multicast::cluster` every CTA whose cluster rank bit is set in ctaMask.
    pub(super) fn cluster_destinations(&self, dst: &Loc, mask: Option<&Value>) -> R<Vec<u32>> {
        let Some(m) = mask else {
            return Ok(dst.cta().into_iter().collect());
        };
        let m = self.value(m)?;
        let m = u16::try_from(m).or_else(|_| kind(format!("ctaMask {m} is not a 16-bit value")))?;
        let mut out = vec![];
        for bit in (0..16).filter(|b| m >> b & 1 == 1) {
            let cta = if mutant::on(M::MulticastBitIsCtaId) {
                (bit < self.ctas).then_some(bit)
            } else if mutant::on(M::MulticastMaskReversed) {
                self.cluster
                    .checked_sub(1 + bit)
                    .and_then(|r| self.rank_cta(r))
            } else {
                self.rank_cta(bit)
            };
            if cta == Some(self.cta) && mutant::on(M::MulticastSkipsIssuer) {
                continue;
            }
            match cta {
                Some(c) => out.push(c),
                None => {
                    return ub(
                        &rules::BULK_MULTICAST_OUTSIDE_CLUSTER,
                        format!("ctaMask 0x{m:04x}: rank {bit} not in the cluster"),
                    )
                }
            }
        }
        Ok(out)
    }

    /// Issues the same bytes to the same CTA-relative offset in every CTA of `ctas`, each landing
    /// with a complete-tx on the mbarrier at `mbar_off` in that CTA (A-EXEC-MBAR-IN-DST).
    fn deliver(
        &mut self,
        dst: &Loc,
        ctas: &[u32],
        bytes: Vec<Byte>,
        hold: Option<ReadHoldId>,
        mbar_off: u64,
    ) -> R {
        let size = bytes.len() as u64;
        let targets: Vec<Addr> = ctas
            .iter()
            .map(|c| self.check_range(&dst.in_cta(*c), size, &rules::BULK_RANGE_OVERFLOW, "dstMem"))
            .collect::<R<_>>()?;
        // Each destination's complete-tx is issued with the copy, whatever its writes meet.
        for &cta in ctas {
            self.signals((cta, mbar_off));
        }
        if let (true, Some(h)) = (targets.is_empty(), hold) {
            // An empty ctaMask copies nothing; its source read is over at once.
            self.mem.release_source(h)?;
        }
        for (d, cta) in targets.into_iter().zip(ctas) {
            let w = self.begin_write(d, bytes.clone(), Proxy::Async)?;
            let signalled = if mutant::on(M::MulticastSignalsIssuer) {
                self.cta
            } else {
                *cta
            };
            self.track(
                AsyncOp {
                    write: Some(w),
                    read: hold,
                },
                (signalled, mbar_off),
                size,
            )?;
        }
        Ok(())
    }

    /// The `.shared::cta` destination of a bulk copy (§9.7.9.25.4.1, `rule`
    /// [`rules::BULK_DST_NOT_OWN_CTA`]) or tensor load (§9.7.9.25.5.2,
    /// [`rules::TENSOR_DST_NOT_OWN_CTA`]) from global memory: it must be in the executing CTA's
    /// shared memory. Silicon writes one in another CTA of the cluster (a `mapa` address) as the
    /// `.shared::cluster` form would: the bytes land there and complete-tx goes to the mbarrier
    /// at the operand's offset in that CTA (A-BULK-DST-OTHER-CTA-HW,
    /// [`super::predict::DST_OTHER_CTA`]).
    pub(super) fn cta_destination(&mut self, a: &Address, rule: &'static UbRule) -> R<Loc> {
        let dst = if self.reading == super::Reading::Silicon {
            self.shared(a, "dstMem")?
        } else {
            self.shared_cta(a, "dstMem", rule)?
        };
        self.dst_other_cta |= dst.cta() != Some(self.cta);
        Ok(dst)
    }

    fn bulk_copy(&mut self, c: &BulkCopy) -> R {
        let size = self.bulk_size(&c.size)?;
        match &c.dir {
            CopyDir::GlobalToCta { ignore_oob, mbar } => {
                let dst = self.cta_destination(&c.dst, &rules::BULK_DST_NOT_OWN_CTA)?;
                let src = self.global(&c.src, "srcMem")?;
                // §9.7.9.25.4.1 .ignore_oob: only [0, 15] valid; those bytes of the source may be
                // out of bounds and the destination bytes are indeterminate.
                let (l, r) = match ignore_oob {
                    Some((l, r)) => (self.ignore_bytes(l)?, self.ignore_bytes(r)?),
                    None => (0, 0),
                };
                let (l, r) = if mutant::on(M::IgnoreOobSwapped) {
                    (r, l)
                } else {
                    (l, r)
                };
                let (l, r) = (l.min(size), r.min(size - l.min(size)));
                self.check_align(&dst, bulk_align(), "dstMem")?;
                self.check_align(&src, bulk_align(), "srcMem")?;
                let d = self.check_range(&dst, size, &rules::BULK_RANGE_OVERFLOW, "dstMem")?;
                let s = self.check_range(
                    &src.shifted(l as i64),
                    size - l - r,
                    &rules::BULK_RANGE_OVERFLOW,
                    "srcMem",
                )?;
                let (_, mbar_off) = self.mbar(mbar, false)?;
                let b = (dst.cta().unwrap_or(self.cta), mbar_off);
                let (mid, hold) = self.read_source(s, size - l - r, Proxy::Async)?;
                let mut bytes = vec![Byte::ANY; l as usize];
                bytes.extend(mid);
                bytes.extend(vec![Byte::ANY; r as usize]);
                let w = self.begin_write(d, bytes, Proxy::Async)?;
                self.track(
                    AsyncOp {
                        write: Some(w),
                        read: Some(hold),
                    },
                    b,
                    size,
                )
            }
            CopyDir::GlobalToCluster { cta_mask, mbar } => {
                // Silicon trapped on such copies off the granule where the model's run hangs
                // (A-BULK-GRANULE-CLUSTER-HW): the run goes on, the prediction adds the trap.
                if self.reading == super::Reading::Silicon
                    && !self.value(&c.size)?.unsigned_abs().is_multiple_of(GRANULE)
                {
                    self.granule_cluster_copy = true;
                }
                let dst = self.shared(&c.dst, "dstMem")?;
                let src = self.global(&c.src, "srcMem")?;
                let ctas = self.cluster_destinations(&dst, cta_mask.as_ref())?;
                let (_, s) = self.bulk_ranges(&dst, &src, size)?;
                let (_, mbar_off) = self.mbar(mbar, true)?;
                let (bytes, hold) = self.read_source(s, size, Proxy::Async)?;
                self.deliver(&dst, &ctas, bytes, Some(hold), mbar_off)
            }
            CopyDir::CtaToCluster { mbar } => {
                let src = self.shared_cta(&c.src, "srcMem", &rules::ADDRESS_OUT_OF_REGION)?;
                let dst = self.shared(&c.dst, "dstMem")?;
                // §9.7.9.25.4.1: "the destination has to be in the shared memory of a different CTA".
                // In a cluster launch silicon runs the copy as into another CTA: the bytes land,
                // complete-tx goes to the executing CTA's mbarrier at the operand's offset
                // (A-EXEC-MBAR-IN-DST); launched without a cluster it traps
                // (A-BULK-SELF-CLUSTER-LAUNCH-HW).
                let cluster_launch = self.cluster > 1;
                let run_on = cluster_launch && self.reading == super::Reading::Silicon;
                if dst.cta() == Some(self.cta) && !run_on {
                    let u = Ub::new(
                        &rules::BULK_CLUSTER_DST_OWN_CTA,
                        format!("dstMem {} is in the executing CTA {}", c.dst, self.cta),
                    );
                    return Err(Stop::Ub(if cluster_launch {
                        u.in_situation(Situation::ClusterLaunch)
                    } else {
                        u
                    }));
                }
                let (_, s) = self.bulk_ranges(&dst, &src, size)?;
                let (_, mbar_off) = self.mbar(mbar, true)?;
                let (bytes, hold) = self.read_source(s, size, Proxy::Async)?;
                let ctas: Vec<u32> = dst.cta().into_iter().collect();
                // Run on into the executing CTA, the copy may write its own source: the model
                // takes the bytes at issue, so its read is over before its write.
                let hold = if dst.cta() == Some(self.cta) {
                    self.mem.release_source(hold)?;
                    None
                } else {
                    Some(hold)
                };
                self.deliver(&dst, &ctas, bytes, hold, mbar_off)
            }
            CopyDir::CtaToGlobal { byte_mask } => {
                let src = self.shared_cta(&c.src, "srcMem", &rules::ADDRESS_OUT_OF_REGION)?;
                let dst = self.global(&c.dst, "dstMem")?;
                let (d, s) = self.bulk_ranges(&dst, &src, size)?;
                let mask = match byte_mask {
                    Some(v) => {
                        let m = self.value(v)?;
                        u16::try_from(m)
                            .or_else(|_| kind(format!("byteMask {m} is not a 16-bit value")))?
                    }
                    None => u16::MAX,
                };
                let (bytes, hold) = self.read_source(s, size, Proxy::Async)?;
                // .cp_mask: bit i selects byte i of every 16-byte chunk; unselected bytes of the
                // destination are not written, so each run of selected bytes is its own write.
                let reversed = mutant::on(M::CpMaskReversed);
                let selected = |i: u64| {
                    let byte = i % GRANULE;
                    let bit = if reversed { GRANULE - 1 - byte } else { byte };
                    mask >> bit & 1 == 1
                };
                let mut ops = vec![];
                let mut i = 0;
                while i < size {
                    if !selected(i) {
                        i += 1;
                        continue;
                    }
                    let start = i;
                    while i < size && selected(i) {
                        i += 1;
                    }
                    let w = self.begin_write(
                        d.plus(start),
                        bytes[start as usize..i as usize].to_vec(),
                        Proxy::Async,
                    )?;
                    ops.push(AsyncOp {
                        write: Some(w),
                        read: Some(hold),
                    });
                }
                if ops.is_empty() {
                    ops.push(AsyncOp {
                        write: None,
                        read: Some(hold),
                    });
                }
                for op in ops {
                    self.bulk_queue().issue(op);
                }
                Ok(())
            }
        }
    }

    fn ignore_bytes(&self, v: &Value) -> R<u64> {
        let x = self.value(v)?;
        if !(0..=15).contains(&x) {
            return ub(
                &rules::BULK_IGNORE_OOB_RANGE,
                format!("{x} outside [0, 15]"),
            );
        }
        Ok(x as u64)
    }
}
