//! Tensor Memory instructions (§9.7.16) on the `sem::tcgen05` mechanisms: alloc / dealloc /
//! relinquish_alloc_permit, tcgen05.cp (every shape, multicast, `.cta_group`, decompression),
//! tcgen05.commit (arrive-one, multicast), tcgen05.wait, tcgen05.ld (`.32x32b`), tcgen05.fence.
//!
//! Model positions (named, listed in `ASSUMPTIONS`):
//! - A-EXEC-TCGEN05-WORD: a `memory.tmem` allocation `t` is a 4-byte shared word (see `Layout`);
//!   `tcgen05.alloc [t], n` writes the Tensor Memory address there as hardware does, and `t` as a
//!   taddr / register operand reads that word (the emitter emits the `ld.shared.b32`).
//! - A-EXEC-TCGEN05-DESC-RELATIVE: a descriptor's start address (and so every source chunk
//!   address) is an offset into the case's shared image; the emitter adds the image's shared
//!   address (`smem >> 4`, 1024-byte aligned so swizzle phases agree) before the instruction.
//! - A-EXEC-TCGEN05-COMPLETE: tcgen05.cp reads its source and writes Tensor Memory at issue;
//!   a commit then has nothing outstanding and arrives at once (commit::Assumption::
//!   EmptyCommitArrivesAtOnce). Cells a copy wrote stay *unconfirmed* (any value in the final
//!   state) until a `wait_parity` step on an mbarrier a later commit of the issuing thread arrives
//!   on completes; silicon may not have finished the copy before that.
//! - A-EXEC-TCGEN05-PEER: the `.cta_group::2` peer is the CTA of cluster rank `rank ^ 1`; a
//!   `.cta_group::2` alloc executed in a CTA allocates in that CTA's Tensor Memory (both CTAs of
//!   the pair execute it, so first-fit gives both the same address). Peer data comes from the
//!   issuer's shared memory (cp::PeerSource::IssuerSmem).
//! - A-EXEC-TCGEN05-EPILOGUE: the harness epilogue reads every *checked* allocation (32x32b, one
//!   warp per lane quarter) and then deallocates it; any other allocation live at exit is
//!   `tcgen05.alloc.not_deallocated_at_exit` (reported at step = program length).
//! - A-EXEC-TCGEN05-ALLOC-BLOCKS: an alloc that cannot be placed would block forever (nothing
//!   later frees columns in a sequential program): classified `wait.never_completes`.
//! - A-EXEC-TCGEN05-LD: tcgen05.ld completes at issue; thread i of the warp receives lane
//!   `taddr.lane + i`; a register loaded from an undefined cell is left unbound.

use std::collections::{BTreeMap, HashMap};

use foldhash::fast::FixedState;

use super::{kind, ub, Machine, Reg, Stop, R};
use crate::layout::{Place, TMEM_WORD_BYTES};
use crate::ptx::common::CtaGroup;
use crate::ptx::operand::Value;
use crate::ptx::tcgen05::{Alloc, Commit, Cp, Ld, LdStShape, Tcgen05Op};
use crate::sem::exec::ErrorKind;
use crate::sem::mbarrier::Arrive;
use crate::sem::memory::{Addr, RegionId};
use crate::sem::tcgen05::commit::{AsyncKind, Tracker};
use crate::sem::tcgen05::cp::{self, CpForm, OutOfWindow, PeerSource, SmemView};
use crate::sem::tcgen05::desc::SmemDesc;
use crate::sem::tcgen05::tmem::{warp_uniform, Cell, TAddr, Tmem, LANES};
use crate::sem::ub as rules;

/// A Tensor Memory cell of one CTA: (cta, lane, column).
type CellId = (u32, u32, u32);

/// The executor's tcgen05 state.
#[derive(Clone, Debug, Default)]
pub(crate) struct State {
    /// Per CTA, created on first use.
    tmem: BTreeMap<u32, Tmem>,
    /// Kernel-wide: completion tracking and the `.cta_group` consistency rule.
    tracker: Tracker,
    cta_group: Option<CtaGroup>,
    used: bool,
    next_op: u64,
    /// Cells whose last writer (op number) no wait has confirmed yet (looked up, never walked in
    /// order: hashed).
    unconfirmed: HashMap<CellId, u64, FixedState>,
    /// Per issuing (cta, thread): copies not yet committed.
    uncommitted: BTreeMap<(u32, u32), Vec<(CellId, u64)>>,
    /// Per mbarrier key: copies a commit arriving on it covers.
    committed: BTreeMap<u64, Vec<(CellId, u64)>>,
}

/// The executing CTA's shared image as a `cp::SmemView` (image offsets, A-EXEC-TCGEN05-DESC-RELATIVE).
struct Image<'m> {
    mem: &'m crate::sem::memory::Memory,
    cta: u32,
    bytes: u64,
}

impl SmemView for Image<'_> {
    fn byte(&self, addr: u32) -> Result<Option<u8>, OutOfWindow> {
        if u64::from(addr) >= self.bytes {
            return Err(OutOfWindow);
        }
        let b = self
            .mem
            .read(
                Addr::new(RegionId::Shared { cta: self.cta }, u64::from(addr)),
                1,
            )
            .map_err(|_| OutOfWindow)?;
        Ok(b[0].known())
    }
    fn chunk(&self, addr: u32) -> Result<[Option<u8>; 16], u32> {
        // One read of the whole chunk, the same bytes as sixteen reads when it is in bounds.
        if u64::from(addr) + 16 <= self.bytes {
            let at = Addr::new(RegionId::Shared { cta: self.cta }, u64::from(addr));
            if let Ok(b) = self.mem.read(at, 16) {
                return Ok(std::array::from_fn(|i| b[i].known()));
            }
        }
        cp::chunk_bytewise(self, addr)
    }
}

impl Machine<'_> {
    pub(super) fn tcgen05(&mut self, op: &Tcgen05Op) -> R {
        self.tc.used = true;
        match op {
            Tcgen05Op::Alloc(a) => self.tc_alloc(a),
            Tcgen05Op::Dealloc(d) => {
                self.tc_group(d.cta)?;
                let taddr = self.tc_u32(&d.taddr, 0, "taddr")?;
                let n = self.tc_warp_u32(&d.ncols, "nCols")?;
                let cta = self.cta;
                Ok(self.tc_tmem(cta).dealloc(taddr, n)?)
            }
            Tcgen05Op::Relinquish(r) => {
                self.tc_group(r.cta)?;
                self.tc_tmem(self.cta).relinquish();
                Ok(())
            }
            Tcgen05Op::Cp(c) => self.tc_cp(c),
            Tcgen05Op::Commit(c) => self.tc_commit(c),
            Tcgen05Op::Ld(l) => self.tc_ld(l),
            // A-EXEC-TCGEN05-COMPLETE / -LD: every tracked operation completed at issue.
            Tcgen05Op::Wait(_) => Ok(()),
            // A-EXEC-FENCE-NOOP.
            Tcgen05Op::Fence(_) => Ok(()),
            Tcgen05Op::St(_) | Tcgen05Op::LdRed(_) | Tcgen05Op::Shift(_) => Err(Stop::Err(
                ErrorKind::Unsupported(format!("{op:?} is not modelled by the executor")),
            )),
        }
    }

    fn tc_tmem(&mut self, cta: u32) -> &mut Tmem {
        self.tc.tmem.entry(cta).or_default()
    }

    /// §9.7.16.9.2 (and every tcgen05 page): one `.cta_group` per kernel.
    fn tc_group(&mut self, c: CtaGroup) -> R {
        match self.tc.cta_group {
            Some(p) if p != c => ub(
                &rules::TCGEN05_CTA_GROUP_MIXED,
                format!("{} after {} in the same kernel", c.ptx(), p.ptx()),
            ),
            _ => {
                self.tc.cta_group = Some(c);
                Ok(())
            }
        }
    }

    /// A warp-collective operand (§9.7.16.7.1: every thread must supply the same value): evaluated
    /// per thread of the executing warp (`%laneid` / `%tid.x` differ per thread), then
    /// `tmem::warp_uniform`.
    fn tc_warp_u32(&self, v: &Value, what: &str) -> R<u32> {
        let warp = self.thread / 32;
        let threads = (self.case.launch.threads - warp * 32).min(32);
        let mut vals = Vec::new();
        for i in 0..threads {
            let x = match v {
                Value::Reg(n) if n == "%laneid" => i64::from(i),
                Value::Reg(n) if n == "%tid.x" => i64::from(warp * 32 + i),
                _ => self.value(v)?,
            };
            vals.push(
                u32::try_from(x).or_else(|_| kind(format!("{what} {x} is not a 32-bit value")))?,
            );
        }
        Ok(warp_uniform(&vals, what)?)
    }

    fn tc_u32(&self, v: &Value, offset: i64, what: &str) -> R<u32> {
        let x = self.value(v)? + offset;
        u32::try_from(x).or_else(|_| kind(format!("{what} {x:#x} is not a 32-bit value")))
    }

    /// The `.cta_group::2` peer of the executing CTA (A-EXEC-TCGEN05-PEER).
    fn tc_peer(&self) -> Option<u32> {
        let rank = self.cta % self.cluster;
        self.rank_cta(rank ^ 1)
    }

    fn tc_alloc(&mut self, a: &Alloc) -> R {
        self.tc_group(a.cta)?;
        let n = self.tc_warp_u32(&a.ncols, "nCols")?;
        let dst = self.shared_cta(&a.dst, "dst", &rules::ADDRESS_OUT_OF_REGION)?;
        self.check_align(&dst, TMEM_WORD_BYTES, "dst")?;
        let at = self.check_range(&dst, TMEM_WORD_BYTES, &rules::ADDRESS_OUT_OF_REGION, "dst")?;
        if a.cta == CtaGroup::Two && self.tc_peer().is_none() {
            return ub(
                &rules::TCGEN05_CP_PEER_INACTIVE,
                "tcgen05.alloc.cta_group::2 without a peer CTA in the cluster",
            );
        }
        let cta = self.cta;
        let Some(taddr) = self.tc_tmem(cta).alloc(n)? else {
            // A-EXEC-TCGEN05-ALLOC-BLOCKS
            return ub(
                &rules::WAIT_NEVER_COMPLETES,
                format!("tcgen05.alloc of {n} columns blocks: no free run, nothing can free one"),
            );
        };
        self.check_write(at, TMEM_WORD_BYTES)?;
        self.mem.write_exact(at, &taddr.to_le_bytes())?;
        self.touch(at, TMEM_WORD_BYTES, super::TouchKind::Store);
        Ok(())
    }

    fn tc_cp(&mut self, c: &Cp) -> R {
        self.tc_group(c.cta)?;
        let taddr = self.tc_u32(&c.taddr.base, c.taddr.offset, "taddr")?;
        let sdesc = self.value(&c.sdesc)? as u64;
        SmemDesc::decode(sdesc)?.check_target(self.case.target)?;
        let form = CpForm::of(c);
        let peer = match c.cta {
            CtaGroup::One => None,
            CtaGroup::Two => match self.tc_peer() {
                Some(p) => Some(p),
                None => {
                    return ub(
                        &rules::TCGEN05_CP_PEER_INACTIVE,
                        "tcgen05.cp.cta_group::2 without a peer CTA in the cluster",
                    )
                }
            },
        };
        let img = Image {
            mem: &self.mem,
            cta: self.cta,
            bytes: self.layout.shared_bytes,
        };
        let eff = cp::cp_effect(form, taddr, sdesc, &img, None, PeerSource::IssuerSmem)?;
        let cta = self.cta;
        let mut own = self.tc.tmem.remove(&cta).unwrap_or_default();
        let mut peer_mem = peer.map(|p| self.tc.tmem.remove(&p).unwrap_or_default());
        let res = cp::apply_cp(&mut own, peer_mem.as_mut(), form, &eff);
        self.tc.tmem.insert(cta, own);
        if let (Some(p), Some(t)) = (peer, peer_mem) {
            self.tc.tmem.insert(p, t);
        }
        res?;
        let id = self.tc.tracker.issue(AsyncKind::Cp, Some(c.cta))?;
        let _ = self.tc.tracker.complete(id);
        // A-EXEC-TCGEN05-COMPLETE: written now, unconfirmed until a wait on a commit covers it.
        self.tc.next_op += 1;
        let opn = self.tc.next_op;
        let cells = eff.own.iter().map(|w| (cta, w.lane, w.column)).chain(
            eff.peer
                .iter()
                .filter_map(|w| peer.map(|p| (p, w.lane, w.column))),
        );
        let list = self.tc.uncommitted.entry((cta, self.thread)).or_default();
        for id in cells {
            self.tc.unconfirmed.insert(id, opn);
            list.push((id, opn));
        }
        Ok(())
    }

    fn tc_commit(&mut self, c: &Commit) -> R {
        self.tc_group(c.cta)?;
        let (bcta, off) = self.mbar(&c.mbar, true)?;
        let mask = match &c.cta_mask {
            None => None,
            Some(v) => Some(self.value(v)? as u64 as u16),
        };
        let arrives = self.tc.tracker.commit(c.cta, off, mask)?;
        let covered = self
            .tc
            .uncommitted
            .remove(&(self.cta, self.thread))
            .unwrap_or_default();
        for a in arrives {
            let target = match a.target.cta_rank {
                None => bcta,
                Some(rank) => match self.rank_cta(rank) {
                    Some(t) => t,
                    None => {
                        return ub(
                            &rules::BULK_MULTICAST_OUTSIDE_CLUSTER,
                            format!("ctaMask bit {rank} outside a cluster of {}", self.cluster),
                        )
                    }
                },
            };
            self.slot((target, a.target.addr)).arrive(Arrive::one())?;
            self.tc
                .committed
                .entry(super::mbar_key(target, a.target.addr))
                .or_default()
                .extend(covered.iter().copied());
        }
        Ok(())
    }

    /// The `wait_parity` step; once it returns, the copies that commits on the barrier covered
    /// are complete (the commit arrives only after them).
    pub(super) fn wait_parity_confirming(&mut self, mbar: &str, parity: u32) -> R {
        self.wait_parity_step(mbar, parity)?;
        if self.tc.used {
            let b = self.mbar(&crate::ptx::operand::Address::reg(mbar), false)?;
            self.tc_confirm(super::mbar_key(b.0, b.1));
        }
        Ok(())
    }

    /// A `wait_parity` step on mbarrier `key` completed: the copies commits on it covered are done.
    fn tc_confirm(&mut self, key: u64) {
        for (id, opn) in self.tc.committed.remove(&key).unwrap_or_default() {
            if self.tc.unconfirmed.get(&id) == Some(&opn) {
                self.tc.unconfirmed.remove(&id);
            }
        }
    }

    fn tc_ld(&mut self, l: &Ld) -> R {
        if l.access.shape != LdStShape::S32x32b || l.pack {
            return Err(Stop::Err(ErrorKind::Unsupported(format!(
                "tcgen05.ld .{}{}: only .32x32b without .pack is modelled",
                l.access.shape.ptx(),
                if l.pack { ".pack::16b" } else { "" }
            ))));
        }
        let t = TAddr::from_u32(self.tc_u32(&l.taddr.base, l.taddr.offset, "taddr")?);
        let n = l.access.num.count() as u32;
        let warp = self.thread / 32;
        let cta = self.cta;
        let tm = self.tc_tmem(cta);
        tm.check_warp_access(warp, t.lane..t.lane + 32, t.column..t.column + n)?;
        let vals: Vec<Vec<Cell>> = (0..32)
            .map(|i| (0..n).map(|j| tm.read(t.lane + i, t.column + j)).collect())
            .collect();
        for (i, row) in vals.into_iter().enumerate() {
            let file = self.regs.entry((cta, warp * 32 + i as u32)).or_default();
            for (v, cell) in l.dst.iter().zip(row) {
                let Value::Reg(name) = v else { continue };
                match cell {
                    Cell::Known(x) => {
                        file.insert(name.clone(), Reg::Int(i64::from(x)));
                    }
                    Cell::Unwritten => {
                        file.remove(name);
                    }
                }
            }
        }
        Ok(())
    }

    /// A Tensor Memory allocation name used as a value: its shared word (A-EXEC-TCGEN05-WORD).
    pub(super) fn tc_word(&self, name: &str) -> Option<R<i64>> {
        self.case.memory.tmem.iter().find(|t| t.name == name)?;
        let Some(Place::Shared { offset, .. }) = self.layout.get(name) else {
            return None;
        };
        let at = Addr::new(RegionId::Shared { cta: self.cta }, offset);
        Some(match self.mem.read_known(at, TMEM_WORD_BYTES) {
            Ok(Some(b)) => Ok(i64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
            Ok(None) => kind(format!(
                "the Tensor Memory address word `{name}` is not a known value"
            )),
            Err(e) => Err(e.into()),
        })
    }

    /// The live allocation a checked tmem name holds in `cta`: (taddr, nCols).
    fn tc_checked(&self, cta: u32, name: &str) -> Option<(u32, u32)> {
        let Some(Place::Shared { offset, .. }) = self.layout.get(name) else {
            return None;
        };
        let b = self
            .mem
            .read_known(Addr::new(RegionId::Shared { cta }, offset), TMEM_WORD_BYTES)
            .ok()??;
        let t = TAddr::from_u32(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let tm = self.tc.tmem.get(&cta)?;
        tm.allocations()
            .iter()
            .find(|(s, _)| t.lane == 0 && *s == t.column)
            .map(|&(s, n)| (s, n))
    }

    fn checked_tmem(&self) -> Vec<(String, u32)> {
        self.case
            .memory
            .tmem
            .iter()
            .filter(|t| self.case.check.contains(&t.name))
            .map(|t| (t.name.clone(), t.columns))
            .collect()
    }

    /// At exit (A-EXEC-TCGEN05-EPILOGUE): checked allocations must be live with their declared
    /// size (the epilogue deallocates them); any other live allocation leaks.
    pub(super) fn tc_exit(&self) -> R {
        if !self.tc.used {
            return Ok(());
        }
        let checked = self.checked_tmem();
        for cta in 0..self.ctas {
            for (name, cols) in &checked {
                match self.tc_checked(cta, name) {
                    Some((_, n)) if n == *cols => {}
                    Some((_, n)) => return kind(format!("checked Tensor Memory `{name}` (CTA {cta}) is allocated with {n} columns, declared {cols}")),
                    None => return kind(format!("checked Tensor Memory `{name}` (CTA {cta}) is not allocated at the end of the program")),
                }
            }
        }
        for (&cta, tm) in &self.tc.tmem {
            let mine: Vec<(u32, u32)> = checked
                .iter()
                .filter_map(|(n, _)| self.tc_checked(cta, n))
                .collect();
            if let Some(&(s, n)) = tm.allocations().iter().find(|a| !mine.contains(a)) {
                return ub(
                    &rules::TCGEN05_ALLOC_LEAK,
                    format!("CTA {cta} exits with {n} columns at column {s} allocated"),
                );
            }
        }
        Ok(())
    }

    /// Per CTA: checked allocation → cells, lane-major (`lane * columns + column`), unconfirmed
    /// cells widened to `Unwritten`.
    pub(super) fn tc_final(&self) -> Vec<BTreeMap<String, Vec<Cell>>> {
        let checked = self.checked_tmem();
        (0..self.ctas)
            .map(|cta| {
                let mut m = BTreeMap::new();
                for (name, cols) in &checked {
                    let (Some((start, _)), Some(tm)) =
                        (self.tc_checked(cta, name), self.tc.tmem.get(&cta))
                    else {
                        continue;
                    };
                    let mut cells = Vec::with_capacity((LANES * cols) as usize);
                    for lane in 0..LANES {
                        for c in start..start + cols {
                            let v = if self.tc.unconfirmed.contains_key(&(cta, lane, c)) {
                                Cell::Unwritten
                            } else {
                                tm.read(lane, c)
                            };
                            cells.push(v);
                        }
                    }
                    m.insert(name.clone(), cells);
                }
                m
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sem::memory::{Byte, Memory};

    /// A chunk read at once gives what its sixteen byte reads give: known bytes, uncertain ones,
    /// bytes under writes in flight, and the first byte outside the window or the region.
    #[test]
    fn image_chunk_reads_like_its_bytes() {
        let id = RegionId::Shared { cta: 0 };
        let mut mem = Memory::new();
        mem.add_region(id, (0..96u8).collect());
        mem.write(Addr::new(id, 20), &[Byte::ANY]).unwrap();
        mem.begin_async_write(Addr::new(id, 40), vec![Byte::Known(0xee); 8])
            .unwrap();
        // Windows inside, at and past the region's end.
        for bytes in [64, 96, 112] {
            let img = Image {
                mem: &mem,
                cta: 0,
                bytes,
            };
            for addr in 0..bytes as u32 + 4 {
                assert_eq!(
                    img.chunk(addr),
                    cp::chunk_bytewise(&img, addr),
                    "window {bytes}, chunk at {addr}"
                );
            }
        }
        let img = Image {
            mem: &mem,
            cta: 0,
            bytes: 112,
        };
        let c = img.chunk(32).unwrap();
        assert_eq!((c[0], c[7], c[8], c[15]), (Some(32), Some(39), None, None));
        assert_eq!(img.chunk(16).unwrap()[3..5], [Some(19), None]);
        assert_eq!(img.chunk(90), Err(96));
    }
}
