//! cp.async (§9.7.9.25.3): the non-bulk copy, its cp.async-group instructions and
//! cp.async.mbarrier.arrive (§9.7.13.15.15).

use super::{kind, ub, Machine, Stop, R};
use crate::ptx::cp_async::{CpAsync, CpAsyncOp, Fill};
use crate::sem::groups::AsyncOp;
use crate::sem::memory::Byte;
use crate::sem::mutant::{self, Mutant as M};
use crate::sem::proxy::Proxy;
use crate::sem::ub::{self as rules, Situation};

impl Machine<'_> {
    pub(super) fn cp_async(&mut self, op: &CpAsyncOp) -> R {
        match op {
            CpAsyncOp::Copy(c) => self.cp_async_copy(c),
            CpAsyncOp::CommitGroup => {
                self.cp_queue().commit();
                Ok(())
            }
            CpAsyncOp::WaitGroup(n) => {
                let n =
                    usize::try_from(*n).or_else(|_| kind(format!("cp.async.wait_group {n}")))?;
                let rel = self.cp_queue().wait_group(n);
                self.apply_release(rel)
            }
            CpAsyncOp::WaitAll => {
                let rel = self.cp_queue().wait_all();
                self.apply_release(rel)
            }
            CpAsyncOp::MbarrierArrive { noinc, addr, .. } => {
                // §9.7.13.15.15: the arrive-on is triggered when all prior cp.async operations of
                // the executing thread complete; without .noinc the pending count is incremented.
                let b = self.mbar(addr, false)?;
                let p = self.slot(b).cp_async_arrive(*noinc)?;
                self.async_arrive_step = Some(self.step);
                let ops = self.cp_queue().outstanding();
                self.tracking.track_cp_async_arrive(p, ops.clone());
                self.async_arrives.push((super::mbar_key(b.0, b.1), ops));
                self.fire_arrives()
            }
        }
    }

    fn cp_async_copy(&mut self, c: &CpAsync) -> R {
        let n = c.size.bytes() as u64;
        let dst = self.shared_cta(&c.dst, "dst", &rules::ADDRESS_OUT_OF_REGION)?;
        let src = self.global(&c.src, "src")?;
        // §9.7.9.25.3.1: src-size > cp-size is UB; ignore-src true reads nothing.
        let read_len = match &c.fill {
            Fill::Full => n,
            Fill::SrcSize(_) if mutant::on(M::SrcSizeIgnored) => n,
            Fill::SrcSize(v) => {
                let s = self.value(v)?;
                let too_big = s as u64 > n || (s as u64 == n && mutant::on(M::SrcSizeEqualIsUb));
                if s < 0 || too_big {
                    return ub(
                        &rules::CP_ASYNC_SRC_SIZE,
                        format!("src-size {s} > cp-size {n}"),
                    );
                }
                if s == 0 && mutant::on(M::SrcSizeZeroReadsAll) {
                    n
                } else {
                    s as u64
                }
            }
            Fill::IgnoreSrc(p) => {
                if self.pred(p)? != mutant::on(M::IgnoreSrcInverted) {
                    0
                } else {
                    n
                }
            }
        };
        // §9.7.9.25.3.1 / §6.4.1: both addresses aligned to cp-size. A misaligned source is UB
        // by the text whatever is read; silicon does not trap on it in the form with a src-size
        // operand or with ignore-src true (A-CP-ASYNC-SRC-SIZE-FORM-HW).
        self.check_align(&dst, n, "dst")?;
        let unchecked_form = matches!(c.fill, Fill::SrcSize(_)) || read_len == 0;
        self.check_align(&src, n, "src").map_err(|e| match e {
            Stop::Ub(u) if unchecked_form => Stop::Ub(u.in_situation(Situation::SrcSizeForm)),
            e => e,
        })?;
        let d = self.check_range(&dst, n, &rules::ADDRESS_OUT_OF_REGION, "dst")?;
        let s = self.check_range(&src, read_len, &rules::ADDRESS_OUT_OF_REGION, "src")?;
        // §9.7.9.25.3.2: two operations of one group must not write the same location.
        let uncommitted: Vec<AsyncOp> = self.cp_queue().uncommitted().to_vec();
        for w in uncommitted.iter().filter_map(|o| o.write) {
            if let Some((a, l)) = self.mem.target(w) {
                if a.region == d.region && a.offset < d.offset + n && d.offset < a.offset + l {
                    return ub(
                        &rules::CP_ASYNC_SAME_DST_IN_GROUP,
                        format!("dst overlaps {w:?} of the same group"),
                    );
                }
            }
        }
        let (mut bytes, read) = if read_len > 0 {
            let (b, h) = self.read_source(s, read_len, Proxy::Generic)?;
            (b, Some(h))
        } else {
            (Vec::new(), None)
        };
        // The bytes past src-size (all of them with ignore-src) are zero-filled.
        let written = if mutant::on(M::ZeroFillSkipped) {
            read_len
        } else {
            n
        };
        bytes.resize(n as usize, Byte::Known(0));
        bytes.truncate(written as usize);
        let w = self.begin_write(d, bytes, Proxy::Generic)?;
        self.cp_queue().issue(AsyncOp {
            write: Some(w),
            read,
        });
        Ok(())
    }
}
