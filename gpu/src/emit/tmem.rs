//! The Tensor Memory epilogue of tcgen05 cases (A-EXEC-TCGEN05-EPILOGUE).

use super::*;

impl Em<'_> {
    /// A-EXEC-TCGEN05-EPILOGUE: every checked allocation → dump (32x32b, warp w reads lanes
    /// 32w..32w+31, one column per load), then warp 0 deallocates it. Ends with `bar.sync 0`.
    pub(super) fn tmem_epilogue(&mut self) {
        let checked: Vec<(u64, u32)> = self
            .case
            .memory
            .tmem
            .iter()
            .filter(|t| self.case.check.contains(&t.name))
            .filter_map(|t| match self.layout.get(&t.name) {
                Some(Place::Shared { offset, .. }) => Some((offset, t.columns)),
                _ => None,
            })
            .collect();
        if checked.is_empty() {
            return;
        }
        let (tid, cta, dumpr) = (self.tid.clone(), self.cta.clone(), self.dumpr.clone());
        let per_cta: u32 = checked.iter().map(|(_, c)| 128 * c).sum();
        self.line("tcgen05.fence::after_thread_sync;");
        let [lb, lane, ta, tc, col, v, idx] = std::array::from_fn(|_| self.reg(RegTy::B32));
        let (p, fa) = (self.reg(RegTy::Pred), self.reg(RegTy::B64));
        let at = self.load(RegTy::B32, self.tmem_at);
        let mut before = 0u32;
        for (offset, cols) in checked.iter().copied() {
            let skip = self.label("tmem_read");
            self.line(format_args!("setp.ge.u32 {p}, {tid}, 128;"));
            self.line(format_args!("@{p} bra {skip};"));
            self.line(format_args!("and.b32 {lane}, {tid}, 31;"));
            self.line(format_args!("and.b32 {lb}, {tid}, 96;"));
            let w = self.shared_addr(offset);
            self.line(format_args!("ld.shared.b32 {ta}, [{w}];"));
            self.line(format_args!("shl.b32 {tc}, {lb}, 16;"));
            self.line(format_args!("add.u32 {ta}, {ta}, {tc};"));
            // idx = at + ((cta * per_cta + before) + (lb + lane) * cols) * 4
            self.line(format_args!("add.u32 {idx}, {lb}, {lane};"));
            self.line(format_args!("mul.lo.u32 {idx}, {idx}, {cols};"));
            self.line(format_args!("add.u32 {idx}, {idx}, {before};"));
            self.line(format_args!("mad.lo.u32 {idx}, {cta}, {per_cta}, {idx};"));
            self.line(format_args!("mad.lo.u32 {idx}, {idx}, 4, {at};"));
            self.line(format_args!("mov.u32 {col}, 0;"));
            let top = self.label("tmem_col");
            self.line(format_args!("{top}:"));
            self.line(format_args!("add.u32 {tc}, {ta}, {col};"));
            self.line(format_args!(
                "tcgen05.ld.sync.aligned.32x32b.x1.b32 {{{v}}}, [{tc}];"
            ));
            self.line("tcgen05.wait::ld.sync.aligned;");
            self.line(format_args!("cvt.u64.u32 {fa}, {idx};"));
            self.line(format_args!("add.s64 {fa}, {fa}, {dumpr};"));
            self.line(format_args!("st.global.b32 [{fa}], {v};"));
            self.line(format_args!("add.u32 {idx}, {idx}, 4;"));
            self.line(format_args!("add.u32 {col}, {col}, 1;"));
            self.line(format_args!("setp.lt.u32 {p}, {col}, {cols};"));
            self.line(format_args!("@{p} bra {top};"));
            self.line(format_args!("{skip}:"));
            before += 128 * cols;
        }
        self.line("tcgen05.fence::before_thread_sync;");
        self.line("bar.sync 0;");
        let skip = self.label("tmem_free");
        self.line(format_args!("setp.ge.u32 {p}, {tid}, 32;"));
        self.line(format_args!("@{p} bra {skip};"));
        let g = self.cta_group.ptx();
        for (offset, cols) in checked {
            let w = self.shared_addr(offset);
            self.line(format_args!("ld.shared.b32 {ta}, [{w}];"));
            self.line(format_args!(
                "tcgen05.dealloc.{g}.sync.aligned.b32 {ta}, {cols};"
            ));
        }
        self.line(format_args!("{skip}:"));
        self.line("bar.sync 0;");
    }
}
