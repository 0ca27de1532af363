//! cp.reduce.async.bulk (§9.7.9.25.4.2): issued like a bulk copy (operand checks shared with
//! [`super::bulk`]), but the destination is updated with `sem::reduce` arithmetic when it lands
//! (A-MEM-UPDATE-AT-LANDING).

use super::{ub, ErrorKind, Machine, Stop, R};
use crate::ptx::bulk::{BulkReduce, RedDst};
use crate::sem::groups::AsyncOp;
use crate::sem::proxy::Proxy;
use crate::sem::reduce::{legal, ReduceForm};
use crate::sem::ub as rules;

impl Machine<'_> {
    pub(super) fn bulk_reduce(&mut self, r: &BulkReduce) -> R {
        let form = match r.dst_kind {
            RedDst::Cluster { .. } => ReduceForm::BulkSharedCluster,
            RedDst::Global => ReduceForm::BulkGlobal,
        };
        // A combination the table forbids is rejected by ptxas: the case cannot run.
        legal(form, r.op, r.ty, r.noftz)
            .map_err(|e| Stop::Err(ErrorKind::Unsupported(e.to_string())))?;
        let size = self.bulk_size(&r.size)?;
        let src = self.shared_cta(&r.src, "srcMem", &rules::ADDRESS_OUT_OF_REGION)?;
        let dst = match r.dst_kind {
            RedDst::Cluster { .. } => self.shared(&r.dst, "dstMem")?,
            RedDst::Global => self.global(&r.dst, "dstMem")?,
        };
        let own_cta = matches!(r.dst_kind, RedDst::Cluster { .. }) && dst.cta() == Some(self.cta);
        // A-MISALIGNED-KIND-HW: without a cluster launch, a misaligned reduction into the
        // executing CTA traps as a reduction into it does (IllegalInstruction), not as a
        // misaligned copy.
        let (d, s) = self.bulk_ranges(&dst, &src, size).map_err(|e| match e {
            Stop::Ub(mut u)
                if own_cta && self.cluster <= 1 && u.rule == rules::ADDRESS_MISALIGNED.id =>
            {
                u.checked_first = Some(rules::BULK_CLUSTER_DST_OWN_CTA.id);
                Stop::Ub(u)
            }
            other => other,
        })?;
        // A-EXEC-REDUCE-REMOTE: §9.7.9.25.4.2 states no "different CTA" rule for the .shared::cluster
        // destination (§9.7.9.25.4.1 does for the copy). Hardware decided: on an H100 every
        // reduction into the executing CTA's own shared memory traps with an illegal instruction
        // (cases/reduce/cluster.yaml, run of 2026-11-21), so the model applies the copy's rule.
        // In a cluster launch an H200 completed one (A-BULK-SELF-CLUSTER-LAUNCH-HW).
        if own_cta {
            let u = rules::Ub::new(
                &rules::BULK_CLUSTER_DST_OWN_CTA,
                format!(
                    "reduction dstMem {} is in the executing CTA {}",
                    r.dst, self.cta
                ),
            );
            return Err(Stop::Ub(if self.cluster > 1 {
                u.in_situation(rules::Situation::ReduceClusterLaunch)
            } else {
                u
            }));
        }
        let barrier = match &r.dst_kind {
            // The complete-tx goes to the mbarrier in the destination CTA (A-EXEC-MBAR-IN-DST).
            RedDst::Cluster { mbar } => {
                let (_, off) = self.mbar(mbar, true)?;
                let cta = dst.cta().map_or_else(
                    || ub(&rules::ADDRESS_OUT_OF_REGION, "no destination CTA"),
                    Ok,
                )?;
                Some((cta, off))
            }
            RedDst::Global => None,
        };
        let (bytes, hold) = self.read_source(s, size, Proxy::Async)?;
        let w = self.begin_update(d, (r.op, r.ty, form), bytes)?;
        let op = AsyncOp {
            write: Some(w),
            read: Some(hold),
        };
        match barrier {
            Some(b) => self.track(op, b, size),
            None => {
                self.bulk_queue().issue(op);
                Ok(())
            }
        }
    }
}
