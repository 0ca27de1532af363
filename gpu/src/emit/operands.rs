//! Operands bound to the parameter block: shared and global addresses, `mapa` of a peer CTA's
//! address, names an earlier step wrote, and values of operand slots.

use super::*;

impl Em<'_> {
    /// The 32-bit shared address of shared `offset` (through the pblock).
    pub(super) fn shared_addr(&mut self, offset: u64) -> String {
        let r = self.load(RegTy::B32, offset);
        let smem = self.smem.clone();
        self.line(format_args!("add.u32 {r}, {r}, {smem};"));
        r
    }

    /// The global address of `offset` into global region `index`.
    pub(super) fn global_addr(&mut self, index: usize, offset: u64) -> String {
        let base = self.load_at(RegTy::B64, (pb::HEADER + index) * 8);
        let off = self.load(RegTy::B64, offset);
        self.line(format_args!("add.s64 {base}, {base}, {off};"));
        base
    }

    pub(super) fn generic_of_shared(&mut self, s: &str) -> String {
        let g = self.reg(RegTy::B64);
        self.line(format_args!("cvt.u64.u32 {g}, {s};"));
        self.line(format_args!("cvta.shared.u64 {g}, {g};"));
        g
    }

    /// The local 32-bit shared address of `region` (plus `extra`), which `mapa` maps into a
    /// peer CTA; an error unless `region` is a shared region or an mbarrier.
    fn mapa_source(&mut self, region: &str, extra: u64) -> Option<String> {
        match self.layout.get(region) {
            Some(Place::Shared { offset, .. } | Place::Mbarrier { offset }) => {
                Some(self.shared_addr(offset + extra))
            }
            _ => {
                self.errors.push(format!(
                    "mapa: `{region}` is not a shared region or mbarrier"
                ));
                None
            }
        }
    }

    /// `mapa.shared::cluster` of `region` (plus `extra`) in cluster rank `cta`.
    pub(super) fn mapa(&mut self, region: &str, extra: u64, cta: u32) -> Option<String> {
        let local = self.mapa_source(region, extra)?;
        let rank = self.load(RegTy::B32, cta as u64);
        let r = self.reg(RegTy::B32);
        self.line(format_args!(
            "mapa.shared::cluster.u32 {r}, {local}, {rank};"
        ));
        Some(r)
    }

    /// The generic address of `region` (plus `extra`) in cluster rank `cta` (`mapa.u64`).
    pub(super) fn mapa_generic(&mut self, region: &str, extra: u64, cta: u32) -> Option<String> {
        let local = self.mapa_source(region, extra)?;
        let g = self.generic_of_shared(&local);
        let rank = self.load(RegTy::B32, cta as u64);
        let r = self.reg(RegTy::B64);
        self.line(format_args!("mapa.u64 {r}, {g}, {rank};"));
        Some(r)
    }

    /// A register of `ty` for the value operand named `name` (a param, a special register or
    /// a name an earlier step wrote).
    pub(super) fn named_value(&mut self, role: &str, ty: RegTy, name: &str) -> String {
        if name == "_" || name.starts_with('%') && !self.case.params.contains_key(name) {
            if name.starts_with('%') && ty != RegTy::Pred && ty.bits() == 32 {
                // Some instructions (tcgen05.alloc/dealloc) take no special register operand.
                let r = self.reg(RegTy::B32);
                self.line(format_args!("mov.u32 {r}, {name};"));
                return r;
            }
            return name.to_string();
        }
        if let Some(p) = self.case.params.get(name) {
            return match bound(p) {
                Err(e) => {
                    self.errors.push(format!("parameter `{name}`: {e}"));
                    String::new()
                }
                Ok(Bound::Value(v)) => self.load(ty, v as u64),
                Ok(Bound::Mapa { region, cta }) => {
                    let r = self.mapa(&region, 0, cta).unwrap_or_default();
                    if ty.bits() == 64 {
                        let w = self.reg(ty);
                        self.line(format_args!("cvt.u64.u32 {w}, {r};"));
                        w
                    } else {
                        r
                    }
                }
            };
        }
        let _ = role;
        if let (Some(Place::Shared { offset, .. }), true) = (
            self.layout.get(name),
            self.case.memory.tmem.iter().any(|t| t.name == name),
        ) {
            // A-EXEC-TCGEN05-WORD: the Tensor Memory address alloc wrote into the word.
            let a = self.shared_addr(offset);
            let r = self.reg(RegTy::B32);
            self.line(format_args!("ld.shared.b32 {r}, [{a}];"));
            if ty.bits() == 64 {
                let w = self.reg(ty);
                self.line(format_args!("cvt.u64.u32 {w}, {r};"));
                return w;
            }
            return r;
        }
        let key = (name.to_string(), ty);
        if let Some(r) = self.named.get(&key) {
            return r.clone();
        }
        let r = self.reg(ty);
        self.named.insert(key, r.clone());
        r
    }

    pub(super) fn value(&mut self, role: &str, ty: RegTy, v: &mut Value) {
        let r = match v {
            Value::Imm(i) => self.load(ty, *i as u64),
            Value::Reg(n) => {
                let n = n.clone();
                self.named_value(role, ty, &n)
            }
        };
        *v = Value::Reg(r);
    }

    pub(super) fn address(
        &mut self,
        role: &str,
        space: Space,
        addr: &mut ptxconform_reference::ptx::operand::Address,
    ) {
        let AddrBase::Name(name) = &addr.base else {
            self.errors
                .push(format!("the {role} operand is an absolute address"));
            return;
        };
        let name = name.clone();
        let Ok(extra) = u64::try_from(addr.offset) else {
            self.errors
                .push(format!("the {role} operand `{addr}` has a negative offset"));
            return;
        };
        let reg = if let Some(p) = self.case.params.get(&name) {
            match bound(p) {
                // A remote address in any shared space is emitted as asked (using it outside
                // `.shared::cluster` is the case's question, not the emitter's); generic
                // operands get the generic form (`mapa.u64` of the local generic address).
                Ok(Bound::Mapa { region, cta }) if space.is_shared() => {
                    self.mapa(&region, extra, cta)
                }
                Ok(Bound::Mapa { region, cta }) if space == Space::Generic => {
                    self.mapa_generic(&region, extra, cta)
                }
                _ => {
                    self.errors.push(format!("the {role} operand names parameter `{name}`, which is no address of its space"));
                    None
                }
            }
        } else {
            match (self.layout.get(&name), space) {
                (Some(Place::Shared { offset, .. } | Place::Mbarrier { offset }), s)
                    if s.is_shared() =>
                {
                    Some(self.shared_addr(offset + extra))
                }
                (
                    Some(Place::Shared { offset, .. } | Place::Mbarrier { offset }),
                    Space::Generic,
                ) => {
                    let s = self.shared_addr(offset + extra);
                    Some(self.generic_of_shared(&s))
                }
                (Some(Place::Global { index, .. }), Space::Global | Space::Generic)
                    if index != usize::MAX =>
                {
                    Some(self.global_addr(index, extra))
                }
                (None, Space::Tmem) if self.names.decls.contains_key(&name) => {
                    // A Tensor Memory address lives in a register an earlier step set.
                    let r = self.named_value(role, RegTy::B32, &name);
                    (extra == 0).then_some(r).or_else(|| {
                        self.errors.push(format!(
                            "the {role} operand: offsets on Tensor Memory names are not supported"
                        ));
                        None
                    })
                }
                (p, s) => {
                    self.errors.push(format!(
                        "the {role} operand `{name}` ({p:?}) cannot be addressed in {s:?}"
                    ));
                    None
                }
            }
        };
        if let Some(r) = reg {
            addr.base = AddrBase::Name(r);
            addr.offset = 0;
        }
    }
}
