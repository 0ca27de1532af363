//! Operands: the thread's register file and integer / predicate / state operands, and address
//! operands resolved through the [`Layout`](crate::layout::Layout) to a named place in a CTA's
//! shared memory or a global region, with the UB checks on them (alignment, range, window;
//! A-EXEC-CTA-RANK, A-EXEC-GLOBAL-BASE, A-EXEC-REGION, A-EXEC-GENERIC-SHARED).

use super::{kind, mbar_key, ub, ErrorKind, Machine, Reg, Stop, R};
use crate::case_model::Param;
use crate::layout::{Place, MBARRIER_BYTES};
use crate::ptx::operand::{AddrBase, Address, Value};
use crate::sem::mbarrier::{Slot, StateToken};
use crate::sem::memory::{Addr, RegionId};
use crate::sem::ub::{SharedAccess, Ub, UbRule};

/// Which memory an address operand names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Where {
    Global { index: usize, misalign: u64 },
    Shared { cta: u32 },
}

/// A resolved address operand: a named place plus a (possibly out-of-range) offset into it.
#[derive(Clone, Debug)]
pub(crate) struct Loc {
    pub name: String,
    pub at: Where,
    /// Start of the place inside its region (the CTA's shared image for shared places).
    pub start: u64,
    pub size: u64,
    /// Offset from the place's start, as written.
    pub rel: i64,
}

impl Loc {
    pub fn region(&self) -> RegionId {
        match self.at {
            Where::Global { index, .. } => RegionId::Global(index as u32),
            Where::Shared { cta } => RegionId::Shared { cta },
        }
    }
    pub fn cta(&self) -> Option<u32> {
        match self.at {
            Where::Shared { cta } => Some(cta),
            Where::Global { .. } => None,
        }
    }
    /// The same CTA-relative place in another CTA.
    pub fn in_cta(&self, cta: u32) -> Loc {
        Loc {
            at: Where::Shared { cta },
            ..self.clone()
        }
    }
    /// The address as far as alignment is concerned (A-EXEC-GLOBAL-BASE).
    fn align_addr(&self) -> i128 {
        match self.at {
            Where::Global { misalign, .. } => misalign as i128 + self.rel as i128,
            Where::Shared { .. } => self.start as i128 + self.rel as i128,
        }
    }
    /// The first byte, if `[rel, rel+len)` stays inside the place.
    pub fn within(&self, len: u64) -> Option<Addr> {
        let rel = u64::try_from(self.rel).ok()?;
        (rel.checked_add(len)? <= self.size).then(|| Addr::new(self.region(), self.start + rel))
    }
    pub fn shifted(&self, by: i64) -> Loc {
        Loc {
            rel: self.rel + by,
            ..self.clone()
        }
    }
}

/// The address a `store` step's `at` names: `name` or `name+offset`.
pub(super) fn store_address(at: &str) -> R<Address> {
    let (name, off) = match at.split_once('+') {
        Some((n, o)) => (
            n.trim(),
            o.trim()
                .parse::<i64>()
                .or_else(|_| kind(format!("bad offset in `{at}`")))?,
        ),
        None => (at.trim(), 0),
    };
    Ok(Address::reg_off(name, off))
}

impl Machine<'_> {
    // --- registers -----------------------------------------------------------------------------

    fn reg(&self, name: &str) -> Option<Reg> {
        self.regs
            .get(&(self.cta, self.thread))
            .and_then(|f| f.get(name))
            .copied()
    }

    pub(crate) fn set_reg(&mut self, name: &str, v: Reg) {
        self.regs
            .entry((self.cta, self.thread))
            .or_default()
            .insert(name.to_string(), v);
    }

    /// An integer operand: immediate, register written earlier by this thread, or a param.
    pub(crate) fn value(&self, v: &Value) -> R<i64> {
        let name = match v {
            Value::Imm(i) => return Ok(*i),
            Value::Reg(n) => n,
        };
        match self.reg(name) {
            Some(Reg::Int(i)) => return Ok(i),
            Some(Reg::Pred(b)) => return Ok(b as i64),
            Some(Reg::State(_)) => {
                return kind(format!("`{name}` holds an mbarrier state, not a number"))
            }
            None => {}
        }
        if let Some(w) = self.tc_word(name) {
            return w;
        }
        match self.case.params.get(name) {
            Some(Param::Int(i)) | Some(Param::Typed { value: i, .. }) => Ok(*i),
            Some(Param::Mapa { .. }) => kind(format!("`{name}` is a mapa address, not a number")),
            None => Err(Stop::Err(ErrorKind::UnboundRegister(name.clone()))),
        }
    }

    pub(crate) fn pred(&self, name: &str) -> R<bool> {
        self.value(&Value::Reg(name.to_string())).map(|v| v != 0)
    }

    pub(crate) fn state(&self, v: &Value) -> R<StateToken> {
        match v {
            Value::Reg(n) => match self.reg(n) {
                Some(Reg::State(s)) => Ok(s),
                Some(_) => kind(format!("`{n}` does not hold an mbarrier state")),
                None => Err(Stop::Err(ErrorKind::UnboundRegister(n.clone()))),
            },
            Value::Imm(_) => kind("an immediate where an mbarrier state register is needed"),
        }
    }

    pub(crate) fn u32_operand(&self, v: &Value, what: &str) -> R<u32> {
        let x = self.value(v)?;
        u32::try_from(x).or_else(|_| kind(format!("{what} {x} is not a 32-bit unsigned value")))
    }

    // --- addresses -----------------------------------------------------------------------------

    fn cluster_base(&self) -> u32 {
        self.cta / self.cluster * self.cluster
    }

    /// CTA index of cluster rank `rank` in the executing CTA's cluster (A-EXEC-CTA-RANK).
    pub(crate) fn rank_cta(&self, rank: u32) -> Option<u32> {
        (rank < self.cluster).then(|| self.cluster_base() + rank)
    }

    fn place(&self, name: &str, cta: u32) -> R<Loc> {
        let p = self
            .layout
            .get(name)
            .ok_or_else(|| Stop::Err(ErrorKind::UnknownName(name.to_string())))?;
        let (at, start) = match p {
            Place::Global { index, .. } => {
                let r = self.case.memory.global.get(index).ok_or_else(|| {
                    Stop::Err(ErrorKind::OperandKind(format!(
                        "`{name}` is not a byte region"
                    )))
                })?;
                (
                    Where::Global {
                        index,
                        misalign: r.misalign,
                    },
                    0,
                )
            }
            Place::Shared { offset, .. } => (Where::Shared { cta }, offset),
            Place::Mbarrier { offset } => (Where::Shared { cta }, offset),
        };
        Ok(Loc {
            name: name.to_string(),
            at,
            start,
            size: p.size(),
            rel: 0,
        })
    }

    /// Resolves `[name+off]`: a declared place (shared places in the executing CTA) or a Mapa param.
    pub(crate) fn resolve(&self, a: &Address) -> R<Loc> {
        let name = match &a.base {
            AddrBase::Name(n) => n,
            AddrBase::Abs(x) => {
                return kind(format!(
                    "absolute address 0x{x:x}: the model only places named regions"
                ))
            }
        };
        let loc = match self.case.params.get(name) {
            Some(Param::Mapa { mapa, cta }) => {
                let Some(c) = self.rank_cta(*cta) else {
                    return kind(format!(
                        "mapa param `{name}`: cluster rank {cta} outside a cluster of {}",
                        self.cluster
                    ));
                };
                let l = self.place(mapa, c)?;
                if l.cta().is_none() {
                    return kind(format!("mapa param `{name}` names global region `{mapa}`"));
                }
                l
            }
            Some(_) => {
                return kind(format!(
                    "`{name}` holds a number, not an address the model can place"
                ))
            }
            None => self.place(name, self.cta)?,
        };
        Ok(loc.shifted(a.offset))
    }

    /// Resolves an operand that must be global memory.
    pub(crate) fn global(&self, a: &Address, role: &str) -> R<Loc> {
        let l = self.resolve(a)?;
        if l.cta().is_some() {
            return kind(format!(
                "{role} {a}: a shared place where .global memory is required"
            ));
        }
        Ok(l)
    }

    /// Resolves an operand that must be shared memory (any CTA of the cluster).
    pub(crate) fn shared(&self, a: &Address, role: &str) -> R<Loc> {
        let l = self.resolve(a)?;
        if l.cta().is_none() {
            return kind(format!(
                "{role} {a}: a global region where shared memory is required"
            ));
        }
        Ok(l)
    }

    /// A `.shared::cta` operand: shared memory of the executing CTA.
    pub(crate) fn shared_cta(&self, a: &Address, role: &str, rule: &UbRule) -> R<Loc> {
        let l = self.shared(a, role)?;
        if l.cta() != Some(self.cta) {
            return ub(
                rule,
                format!(
                    "{role} {a} is in CTA {:?}, the executing CTA is {}",
                    l.cta(),
                    self.cta
                ),
            );
        }
        Ok(l)
    }

    pub(crate) fn check_align(&self, l: &Loc, align: u64, role: &str) -> R {
        if l.align_addr().rem_euclid(align as i128) != 0 {
            return ub(
                &ub::ADDRESS_MISALIGNED,
                format!("{role} [{}{:+}] not {align}-byte aligned", l.name, l.rel),
            );
        }
        Ok(())
    }

    pub(crate) fn check_range(&self, l: &Loc, len: u64, rule: &UbRule, role: &str) -> R<Addr> {
        l.within(len).map_or_else(
            || {
                let mut u = Ub::new(
                    rule,
                    format!(
                        "{role} [{}{:+}, +{len}) leaves `{}` ({} bytes)",
                        l.name, l.rel, l.name, l.size
                    ),
                );
                if l.cta().is_some() {
                    // Shared addresses are 32 bits: an offset past 2^32 wraps (below the image
                    // when it wraps to a negative one).
                    let raw = i128::from(l.start) + i128::from(l.rel);
                    let start = i64::from(raw as u32 as i32);
                    u.shared_access = Some(SharedAccess {
                        start,
                        end: start.saturating_add(i64::try_from(len).unwrap_or(i64::MAX)),
                        allocation: self.layout.shared_allocation,
                    });
                }
                Err(Stop::Ub(u))
            },
            Ok,
        )
    }

    /// An mbarrier operand: `(cta, offset)` of an 8-byte aligned location in shared memory;
    /// `cluster` allows other CTAs of the cluster.
    pub(crate) fn mbar(&self, a: &Address, cluster: bool) -> R<(u32, u64)> {
        let l = self.resolve(a)?;
        let Some(cta) = l.cta() else {
            return ub(&ub::MBAR_ADDRESS_WINDOW, format!("{a} is in global memory"));
        };
        if !cluster && cta != self.cta {
            return ub(
                &ub::MBAR_ADDRESS_WINDOW,
                format!("{a} is in CTA {cta}, outside the executing CTA's .shared::cta window"),
            );
        }
        if l.align_addr().rem_euclid(MBARRIER_BYTES as i128) != 0 {
            return ub(&ub::MBAR_MISALIGNED, format!("{a} not 8-byte aligned"));
        }
        let at = self.check_range(&l, MBARRIER_BYTES, &ub::ADDRESS_OUT_OF_REGION, "mbarrier")?;
        Ok((cta, at.offset))
    }

    pub(crate) fn slot(&mut self, (cta, off): (u32, u64)) -> &mut Slot {
        let k = mbar_key(cta, off);
        let silicon = self.reading == super::Reading::Silicon;
        self.slots.entry(k).or_insert_with(|| {
            let mut s = Slot::new(k);
            if silicon {
                s.read_as_silicon();
            }
            s
        })
    }
}
