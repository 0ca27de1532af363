//! What the machine records for the report: the bytes each step touches, the state of every
//! declared mbarrier after it (the trace) and the final state (A-EXEC-UPDATE-FINAL).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::async_ops::reduce_update;
use super::{mbar_key, ErrorKind, FinalState, GroupCounts, Machine, MbarState};
use super::{Touch, TouchKind, TraceDetail, TraceStep};
use crate::layout::Place;
use crate::sem::mbarrier::Slot;
use crate::sem::memory::{Addr, Byte, MemError, RegionId};

impl Machine<'_> {
    pub(super) fn touch(&mut self, at: Addr, len: u64, kind: TouchKind) {
        let exact = match self.detail {
            TraceDetail::Full => Some(self.mem.all_known(at, len).unwrap_or(false)),
            TraceDetail::Touches => None,
        };
        let end = at.offset + len;
        match at.region {
            RegionId::Global(i) => {
                let name = self
                    .layout
                    .globals
                    .get(i as usize)
                    .cloned()
                    .unwrap_or_default();
                self.touched.push(Touch {
                    region: name,
                    cta: None,
                    range: at.offset..end,
                    kind,
                    exact,
                });
            }
            RegionId::Shared { cta } => {
                for (name, p) in &self.layout.places {
                    let start = match p {
                        Place::Shared { offset, .. } | Place::Mbarrier { offset } => *offset,
                        Place::Global { .. } => continue,
                    };
                    let (lo, hi) = (at.offset.max(start), end.min(start + p.size()));
                    if lo < hi {
                        let t = Touch {
                            region: name.clone(),
                            cta: Some(cta),
                            range: lo - start..hi - start,
                            kind,
                            exact,
                        };
                        self.touched.push(t);
                    }
                }
            }
        }
    }

    fn mbar_state(&self, key: u64) -> MbarState {
        let in_flight = self.tracking.copies_for(key).next().is_some();
        let arrives = self.async_arrives.iter().any(|(k, _)| *k == key);
        match self.slots.get(&key).and_then(Slot::object) {
            None => MbarState {
                valid: false,
                phase_parity: None,
                pending: None,
                expected: 0,
                tx_count: None,
            },
            Some(m) => MbarState {
                valid: true,
                phase_parity: (!in_flight && !arrives).then_some((m.phase & 1) as u8),
                pending: (!in_flight && !arrives).then_some(m.pending),
                expected: m.expected,
                tx_count: (!in_flight).then_some(i64::from(m.tx_count)),
            },
        }
    }

    fn declared_mbarriers(&self) -> Vec<(u32, Arc<str>, u64)> {
        let mut v = vec![];
        for d in &self.case.memory.mbarriers {
            if let Some(Place::Mbarrier { offset }) = self.layout.get(&d.name) {
                let name: Arc<str> = d.name.as_str().into();
                v.extend((0..self.ctas).map(|cta| (cta, name.clone(), mbar_key(cta, offset))));
            }
        }
        v.sort_by_key(|(cta, _, _)| *cta);
        v
    }

    /// The step just run, as the trace keeps it (`text`: the step as the case wrote it, where
    /// the trace keeps it).
    pub(super) fn trace_step(&mut self, text: Option<String>) -> TraceStep {
        let mbarriers = match self.detail {
            TraceDetail::Full => {
                let decls = match self.mbar_decls.take() {
                    Some(d) => d,
                    None => self.declared_mbarriers(),
                };
                let states = decls
                    .iter()
                    .map(|(c, n, k)| (*c, n.clone(), self.mbar_state(*k)))
                    .collect();
                self.mbar_decls = Some(decls);
                states
            }
            TraceDetail::Touches => Vec::new(),
        };
        TraceStep {
            step: self.step,
            cta: self.cta,
            thread: self.thread,
            text,
            mbarriers,
            touched: std::mem::take(&mut self.touched),
        }
    }

    pub(super) fn final_state(&mut self) -> Result<FinalState, ErrorKind> {
        let internal = |e: MemError| ErrorKind::Internal(e.to_string());
        // A-EXEC-UPDATE-FINAL: reductions in flight widen their destination (in a copy: the
        // machine's memory stays as it ran; with none, the memory is read as it is).
        let mut widened = None;
        if !self.updates.is_empty() {
            let mut mem = self.mem.clone();
            for (w, u) in &self.updates {
                if let Some((at, len)) = mem.target(*w) {
                    let cur = mem.read(at, len).map_err(internal)?;
                    let res = reduce_update(self.profile, u, &cur, &mut self.departures)?;
                    let wide: Vec<Byte> = cur.iter().zip(&res).map(|(a, b)| a.union(*b)).collect();
                    mem.complete_update(*w, wide).map_err(internal)?;
                }
            }
            widened = Some(mem);
        }
        let mem = widened.as_ref().unwrap_or(&self.mem);
        let mut global = BTreeMap::new();
        for (i, r) in self.case.memory.global.iter().enumerate() {
            global.insert(
                r.name.clone(),
                mem.read_region(Addr::new(RegionId::Global(i as u32), 0), r.size)
                    .map_err(internal)?,
            );
        }
        let mut shared = vec![];
        let mut mbarriers = vec![BTreeMap::new(); self.ctas as usize];
        for cta in 0..self.ctas {
            let mut m = BTreeMap::new();
            for r in &self.case.memory.shared {
                if let Some(Place::Shared { offset, size }) = self.layout.get(&r.name) {
                    m.insert(
                        r.name.clone(),
                        mem.read_region(Addr::new(RegionId::Shared { cta }, offset), size)
                            .map_err(internal)?,
                    );
                }
            }
            shared.push(m);
        }
        for (cta, name, k) in self.declared_mbarriers() {
            mbarriers[cta as usize].insert(name.to_string(), self.mbar_state(k));
        }
        let groups = self
            .queues
            .iter()
            .map(|((cta, thread), q)| GroupCounts {
                cta: *cta,
                thread: *thread,
                cp_async_groups: q.cp.committed_groups(),
                cp_async_uncommitted: q.cp.uncommitted().len(),
                bulk_groups: q.bulk.committed_groups(),
                bulk_uncommitted: q.bulk.uncommitted().len(),
            })
            .collect();
        Ok(FinalState {
            global,
            shared,
            mbarriers,
            groups,
            tmem: self.tc_final(),
        })
    }
}
