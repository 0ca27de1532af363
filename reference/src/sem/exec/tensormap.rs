//! tensormap.replace (§9.7.9.26) and tensormap.cp_fenceproxy (§9.7.13.16) on memory bytes.
//!
//! The 128-byte tensor-map object's layout is undocumented (spec README), so the executor keeps
//! no typed map: it checks the operands, makes a replaced object's bytes unconstrained and copies
//! bytes as they are. Tensor copies take their maps from case params, not from these bytes.
//!
//! Model positions (listed in [`super::ASSUMPTIONS`]):
//! - A-TMAP-OPAQUE: tensormap.replace leaves every byte of the 128-byte object unconstrained:
//!   which bytes hold the field is not documented, so no byte of the object can be promised to
//!   keep its old value.
//! - A-TMAP-ALIGN: both instructions access a whole 128-byte object (`.b1024`, "on the entire
//!   1024-bit opaque tensor-map object"; cp_fenceproxy's size 128 in each space), so §6.4.1's
//!   natural-alignment rule asks for 128-byte aligned addresses.
//! - A-TMAP-SYNC: cp_fenceproxy's copy is complete when the instruction returns (the text gives it
//!   no completion mechanism); its proxy fence, like the acquire fence a consumer issues, changes
//!   nothing the executor tracks (A-EXEC-FENCE-NOOP).

use super::async_ops::Past;
use super::operands::Loc;
use super::{kind, ub, Machine, TouchKind, R};
use crate::ptx::operand::Address;
use crate::ptx::tensormap::{CpFenceproxy, MapSpace, Replace, Replacement, TensormapOp};
use crate::sem::memory::{Addr, Byte};
use crate::sem::ub as rules;

/// The tensor-map object's size in bytes (1024 bits).
pub const TENSORMAP_BYTES: u64 = 128;

impl Machine<'_> {
    pub(super) fn tensormap(&mut self, op: &TensormapOp) -> R {
        match op {
            TensormapOp::Replace(r) => self.tmap_replace(r),
            TensormapOp::CpFenceproxy(c) => self.tmap_cp_fenceproxy(c),
        }
    }

    fn tmap_replace(&mut self, r: &Replace) -> R {
        let l = match r.space {
            Some(MapSpace::Global) => self.global(&r.addr, "addr")?,
            Some(MapSpace::SharedCta) => {
                self.shared_cta(&r.addr, "addr", &rules::ADDRESS_OUT_OF_REGION)?
            }
            // "If the address ... does not fall within the address window of .global or
            // .shared::cta state space then the behavior is undefined."
            None => {
                let l = self.resolve(&r.addr)?;
                if l.cta().is_some_and(|c| c != self.cta) {
                    return ub(
                        &rules::ADDRESS_OUT_OF_REGION,
                        format!(
                            "addr {} is in CTA {:?}'s shared memory, outside the .shared::cta window",
                            r.addr,
                            l.cta()
                        ),
                    );
                }
                l
            }
        };
        let at = self.tmap_object(&l, "addr")?;
        // An unbound new_val is a case error even though the written bytes do not depend on it.
        if let Replacement::Whole { new_val, .. } | Replacement::Dim { new_val, .. } = &r.what {
            self.value(new_val)?;
        }
        // A-TMAP-OPAQUE
        self.tmap_write(at, &[Byte::ANY; TENSORMAP_BYTES as usize], &r.addr)
    }

    fn tmap_cp_fenceproxy(&mut self, c: &CpFenceproxy) -> R {
        if c.size != TENSORMAP_BYTES as i64 {
            return kind(format!(
                "tensormap.cp_fenceproxy size {}: the only valid size is 128",
                c.size
            ));
        }
        let src = self.shared_cta(&c.src, "src", &rules::ADDRESS_OUT_OF_REGION)?;
        let dst = self.global(&c.dst, "dst")?;
        let (from, to) = (
            self.tmap_object(&src, "src")?,
            self.tmap_object(&dst, "dst")?,
        );
        if let Some(w) = self
            .mem
            .in_flight_overlapping(from, TENSORMAP_BYTES)
            .first()
        {
            let detail = format!(
                "src {} read while asynchronous write {w:?} is in flight",
                c.src
            );
            self.run_past(
                Past::DataRace,
                rules::Ub::new(&rules::ASYNC_DST_READ, detail),
            )?;
        }
        let bytes = self.mem.read(from, TENSORMAP_BYTES)?;
        self.touch(from, TENSORMAP_BYTES, TouchKind::Read);
        // A-TMAP-SYNC
        self.tmap_write(to, &bytes, &c.dst)
    }

    /// The 128 bytes at `l`: aligned (A-TMAP-ALIGN) and inside its region (A-EXEC-REGION).
    fn tmap_object(&self, l: &Loc, role: &str) -> R<Addr> {
        self.check_align(l, TENSORMAP_BYTES, role)?;
        self.check_range(l, TENSORMAP_BYTES, &rules::ADDRESS_OUT_OF_REGION, role)
    }

    /// A plain (synchronous) write, with the checks of a store step.
    fn tmap_write(&mut self, at: Addr, bytes: &[Byte], addr: &Address) -> R {
        let len = bytes.len() as u64;
        self.check_write(at, len)?;
        if !self.mem.in_flight_overlapping(at, len).is_empty() {
            let detail = format!("write to {addr} while an asynchronous write to it is in flight");
            self.run_past(
                Past::DataRace,
                rules::Ub::new(&rules::ASYNC_DST_WRITTEN, detail),
            )?;
        }
        self.mem.write(at, bytes)?;
        self.touch(at, len, TouchKind::Store);
        Ok(())
    }
}
