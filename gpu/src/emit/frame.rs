//! The kernel's frame: the prologue (pointers, CTA number, thread index, the initial shared
//! image, tensor map parameters) and the epilogue (barriers, mbarrier parities, the shared image
//! and the reached-end word into the dump), as the module documentation lays them out.

use super::*;

impl Em<'_> {
    /// Prologue: pointers, CTA number, thread index, initial shared image. Returns the tensor
    /// map parameters (declared here).
    pub(super) fn prologue(&mut self) -> Result<Vec<TensorMapParam>, EmitError> {
        self.kb
            .declare_module(".extern .shared .align 1024 .b8 smem[];");
        self.kb.param(".param .u64 table");
        let mut tms = Vec::new();
        for (i, t) in self.case.memory.tensor_maps.iter().enumerate() {
            let Some(Place::Global { index, .. }) = self.layout.get(&t.global) else {
                return err(format!(
                    "tensor map `{}`: `{}` is not a global region",
                    t.name, t.global
                ));
            };
            tms.push(TensorMapParam {
                param: format!("tmaps[{i}]"),
                name: t.name.clone(),
                global: t.global.clone(),
                global_index: index,
                map: t.map.clone(),
            });
        }
        if !tms.is_empty() {
            self.kb.param(format!(
                ".param .align 64 .b8 tmaps[{}]",
                128 * tmap_slots(self.kb.version)
            ));
        }
        let (pbr, dumpr, smem, cta, tid, inst) = (
            self.pbr.clone(),
            self.dumpr.clone(),
            self.smem.clone(),
            self.cta.clone(),
            self.tid.clone(),
            self.inst.clone(),
        );
        let l = &self.case.launch;
        let gx = l.grid[0];
        // Instance `inst` owns CTAs inst*gx .. inst*gx+gx-1 along x (the batch multiplies the
        // grid's x extent); its pblock and dump pointers are entry `inst` of the table.
        let (lx, t64) = (self.reg(RegTy::B32), self.reg(RegTy::B64));
        self.line(format_args!("ld.param.u64 {t64}, [table];"));
        self.line(format_args!("cvta.to.global.u64 {t64}, {t64};"));
        self.line(format_args!("mov.u32 {lx}, %ctaid.x;"));
        self.line(format_args!("div.u32 {inst}, {lx}, {gx};"));
        self.line(format_args!("mul.wide.u32 {pbr}, {inst}, 16;"));
        self.line(format_args!("add.s64 {t64}, {t64}, {pbr};"));
        self.line(format_args!("ld.global.u64 {pbr}, [{t64}];"));
        self.line(format_args!("cvta.to.global.u64 {pbr}, {pbr};"));
        self.line(format_args!("ld.global.u64 {dumpr}, [{t64}+8];"));
        self.line(format_args!("cvta.to.global.u64 {dumpr}, {dumpr};"));
        let first = self.reg(RegTy::B32);
        self.line(format_args!("mul.lo.u32 {first}, {inst}, {gx};"));
        self.line(format_args!("sub.u32 {lx}, {lx}, {first};"));
        self.line(format_args!("mov.u32 {smem}, smem;"));
        self.line(format_args!("mov.u32 {tid}, %tid.x;"));
        let [y, z, n] = std::array::from_fn(|_| self.reg(RegTy::B32));
        self.line(format_args!("mov.u32 {y}, %ctaid.y;"));
        self.line(format_args!("mov.u32 {z}, %ctaid.z;"));
        if self.clustered() {
            // The instance's cluster linear id * cluster size + rank, the cluster coordinates
            // computed from the instance-local CTA id (%clusterid would count across instances).
            let [cx, cy, cz] = l.cluster;
            self.line(format_args!("div.u32 {lx}, {lx}, {cx};"));
            self.line(format_args!("div.u32 {y}, {y}, {cy};"));
            self.line(format_args!("div.u32 {z}, {z}, {cz};"));
            self.line(format_args!(
                "mad.lo.u32 {y}, {z}, {}, {y};",
                l.grid[1] / cy.max(1)
            ));
            self.line(format_args!(
                "mad.lo.u32 {lx}, {y}, {}, {lx};",
                gx / cx.max(1)
            ));
            self.line(format_args!("mov.u32 {n}, %cluster_ctarank;"));
            self.line(format_args!(
                "mad.lo.u32 {cta}, {lx}, {}, {n};",
                l.cluster_size()
            ));
        } else {
            self.line(format_args!("mad.lo.u32 {y}, {z}, {}, {y};", l.grid[1]));
            self.line(format_args!("mad.lo.u32 {cta}, {y}, {gx}, {lx};"));
        }
        // Initial shared image: global -> shared, cooperatively, 4 bytes at a time.
        let src = self.load_at(RegTy::B64, pb::SHARED_INIT * 8);
        self.line(format_args!("cvta.to.global.u64 {src}, {src};"));
        self.copy_image(&src, true);
        if self.case.target.sm >= 90 && self.kb.version >= PtxVersion::new(8, 0) {
            // §9.7.13.4 (fence.proxy.async: PTX 8.0, sm_90): the image was written through the generic proxy; async-proxy
            // readers (bulk/tensor copies out of shared memory) need this fence to see it.
            self.line("fence.proxy.async.shared::cta;");
        }
        self.line("bar.sync 0;");
        if self.clustered() {
            // A peer may address this CTA's shared memory in its first step.
            self.cluster_barrier();
        }
        Ok(tms)
    }

    /// Copy the shared image from (`to_shared`) or to the global address in `g`, 4 bytes per
    /// thread per iteration (the image size is a multiple of 16).
    pub(super) fn copy_image(&mut self, g: &str, to_shared: bool) {
        let n = self.load_at(RegTy::B32, pb::IMAGE_BYTES * 8);
        let [i, stride, v, sa] = std::array::from_fn(|_| self.reg(RegTy::B32));
        let (ga, p) = (self.reg(RegTy::B64), self.reg(RegTy::Pred));
        let (top, done) = (self.label("copy"), self.label("copied"));
        let (tid, smem) = (self.tid.clone(), self.smem.clone());
        self.line(format_args!("shl.b32 {i}, {tid}, 2;"));
        self.line(format_args!("mov.u32 {stride}, %ntid.x;"));
        self.line(format_args!("shl.b32 {stride}, {stride}, 2;"));
        self.line(format_args!("{top}:"));
        self.line(format_args!("setp.ge.u32 {p}, {i}, {n};"));
        self.line(format_args!("@{p} bra {done};"));
        self.line(format_args!("cvt.u64.u32 {ga}, {i};"));
        self.line(format_args!("add.s64 {ga}, {ga}, {g};"));
        self.line(format_args!("add.u32 {sa}, {smem}, {i};"));
        if to_shared {
            self.line(format_args!("ld.global.b32 {v}, [{ga}];"));
            self.line(format_args!("st.shared.b32 [{sa}], {v};"));
        } else {
            self.line(format_args!("ld.shared.b32 {v}, [{sa}];"));
            self.line(format_args!("st.global.b32 [{ga}], {v};"));
        }
        self.line(format_args!("add.u32 {i}, {i}, {stride};"));
        self.line(format_args!("bra {top};"));
        self.line(format_args!("{done}:"));
    }

    pub(super) fn epilogue(&mut self) {
        self.line("bar.sync 0;");
        if self.clustered() {
            self.cluster_barrier();
        }
        let (tid, cta, dumpr) = (self.tid.clone(), self.cta.clone(), self.dumpr.clone());
        let not0 = self.reg(RegTy::Pred);
        self.line(format_args!("setp.ne.u32 {not0}, {tid}, 0;"));
        let mbars: Vec<u64> = self
            .case
            .memory
            .mbarriers
            .iter()
            .filter_map(|m| match self.layout.get(&m.name) {
                Some(Place::Mbarrier { offset }) => Some(offset),
                _ => None,
            })
            .collect();
        if !mbars.is_empty() {
            let skip = self.label("parity");
            self.line(format_args!("@{not0} bra {skip};"));
            let at = self.load_at(RegTy::B32, pb::PARITY_AT * 8);
            let (p0, p1, w, w1, idx) = (
                self.reg(RegTy::Pred),
                self.reg(RegTy::Pred),
                self.reg(RegTy::B32),
                self.reg(RegTy::B32),
                self.reg(RegTy::B32),
            );
            let fa = self.reg(RegTy::B64);
            let m_count = mbars.len();
            for (m, off) in mbars.into_iter().enumerate() {
                let a = self.shared_addr(off);
                self.line(format_args!(
                    "mbarrier.test_wait.parity.shared.b64 {p0}, [{a}], 0;"
                ));
                self.line(format_args!(
                    "mbarrier.test_wait.parity.shared.b64 {p1}, [{a}], 1;"
                ));
                self.line(format_args!("selp.b32 {w}, 1, 0, {p0};"));
                self.line(format_args!("selp.b32 {w1}, 2, 0, {p1};"));
                self.line(format_args!("or.b32 {w}, {w}, {w1};"));
                self.line(format_args!("mad.lo.u32 {idx}, {cta}, {m_count}, {m};"));
                self.line(format_args!("mad.lo.u32 {idx}, {idx}, 4, {at};"));
                self.line(format_args!("cvt.u64.u32 {fa}, {idx};"));
                self.line(format_args!("add.s64 {fa}, {fa}, {dumpr};"));
                self.line(format_args!("st.global.u32 [{fa}], {w};"));
            }
            self.line(format_args!("{skip}:"));
        }
        self.tmem_epilogue();
        // The shared image of this CTA -> dump + cta * image_bytes.
        let n = self.load_at(RegTy::B64, pb::IMAGE_BYTES * 8);
        let (c64, g) = (self.reg(RegTy::B64), self.reg(RegTy::B64));
        self.line(format_args!("cvt.u64.u32 {c64}, {cta};"));
        self.line(format_args!("mul.lo.u64 {g}, {c64}, {n};"));
        self.line(format_args!("add.s64 {g}, {g}, {dumpr};"));
        self.copy_image(&g, false);
        let skip = self.label("reached");
        self.line(format_args!("@{not0} bra {skip};"));
        let at = self.load_at(RegTy::B64, pb::REACHED_AT * 8);
        let fa = self.reg(RegTy::B64);
        self.line(format_args!("mad.lo.u64 {fa}, {c64}, 4, {at};"));
        self.line(format_args!("add.s64 {fa}, {fa}, {dumpr};"));
        self.line(format_args!("st.global.u32 [{fa}], 1;"));
        self.line(format_args!("{skip}:"));
        if self.clustered() {
            self.line("bar.sync 0;");
            self.cluster_barrier();
        }
    }
}
