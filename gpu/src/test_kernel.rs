//! Test kernels: one `.entry` holding one or many instructions, every operand a freshly declared
//! register (or the instruction's own immediate where the syntax allows one).
//!
//! Used by the legality differential (ptxas only: registers need not be initialised) and as the
//! skeleton the GPU emitter fills in.

use ptxconform_reference::ptx::operand::{AddrBase, RegTy, Slot, Space, Value};
use ptxconform_reference::ptx::Instruction;
use ptxconform_reference::target::{PtxVersion, Target};
use std::fmt::Write as _;

/// Register name prefix per type: one counter per prefix, so declarations are `.reg .T %p<N>;`.
fn prefix(ty: RegTy) -> &'static str {
    match ty {
        RegTy::Pred => "%p",
        RegTy::B16 => "%h",
        RegTy::B32 => "%r",
        RegTy::B64 => "%rd",
        RegTy::U16 => "%uh",
        RegTy::U32 => "%u",
        RegTy::U64 => "%ud",
        RegTy::S32 => "%s",
        RegTy::S64 => "%sd",
    }
}

/// Register types a kernel declares, in declaration order.
pub const REG_TYPES: usize = 9;

const ALL_TYS: [RegTy; REG_TYPES] = [
    RegTy::Pred,
    RegTy::B16,
    RegTy::B32,
    RegTy::B64,
    RegTy::U16,
    RegTy::U32,
    RegTy::U64,
    RegTy::S32,
    RegTy::S64,
];

/// Register type holding an address in `space`. Shared-memory addresses are 32-bit (the form
/// `cvta.to.shared.u32` produces; ptxas 13.0 accepts `.b32` registers for `.shared::cta` and
/// `.shared::cluster` operands under `.address_size 64`); Tensor Memory addresses (`taddr`) are
/// 32-bit; global and generic addresses are 64-bit.
fn addr_reg_ty(space: Space) -> RegTy {
    match space {
        Space::Shared | Space::SharedCta | Space::SharedCluster | Space::Tmem => RegTy::B32,
        Space::Global | Space::Generic => RegTy::B64,
    }
}

/// `text` with 1-based line numbers, as ptxas error lines refer to it (for error messages).
pub fn numbered(text: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| format!("{:4} {l}\n", i + 1))
        .collect()
}

/// A kernel under construction: register declarations plus body lines, printed as
///
/// ```text
/// .version V
/// .target T
/// .address_size 64
///
/// .visible .entry NAME(PARAMS)
/// {
/// .reg .T %x<N>;   (one line per register type used)
/// BODY LINES…
/// ret;
/// }
/// ```
#[derive(Clone, Debug)]
pub struct KernelBuilder {
    pub version: PtxVersion,
    pub target: Target,
    pub name: String,
    counts: [usize; REG_TYPES],
    params: Vec<String>,
    /// Module-scope declarations printed before the `.entry` (e.g. `.extern .shared`).
    module_decls: Vec<String>,
    extra_decls: Vec<String>,
    body: Vec<String>,
}

/// One fresh register an instantiated instruction uses, and what for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The operand role the family gave the slot (`dst`, `mbar`, `tensorMap`, …; `coordinate`
    /// for tensor coordinates).
    pub role: &'static str,
    pub ty: RegTy,
    pub reg: String,
    /// For address operands: the state space the address is in.
    pub space: Option<Space>,
    /// For vector elements and tensor coordinates: the position in the vector.
    pub index: Option<usize>,
}

/// A printed kernel, with the 1-based line number of each selected body line.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub text: String,
    /// `lines[j]` is the line number of the j-th body line printed.
    pub lines: Vec<usize>,
}

impl Kernel {
    /// Which printed body line (index into the selection) sits at `line`.
    pub fn body_index_at(&self, line: usize) -> Option<usize> {
        self.lines.iter().position(|&l| l == line)
    }
}

impl KernelBuilder {
    pub fn new(version: PtxVersion, target: Target) -> Self {
        KernelBuilder {
            version,
            target,
            name: "k".into(),
            counts: [0; REG_TYPES],
            params: Vec::new(),
            module_decls: Vec::new(),
            extra_decls: Vec::new(),
            body: Vec::new(),
        }
    }

    /// Declare a fresh register of type `ty` and return its name.
    pub fn fresh(&mut self, ty: RegTy) -> String {
        let n = self.next(ty);
        format!("{}{n}", prefix(ty))
    }

    /// Declare the next register of type `ty`, as [`fresh`](Self::fresh) does, and return its
    /// number without naming it (for an emitter that prints nothing).
    pub fn next(&mut self, ty: RegTy) -> usize {
        let i = ALL_TYS.iter().position(|t| *t == ty).unwrap_or(0);
        self.counts[i] += 1;
        self.counts[i] - 1
    }

    /// A declaration line placed before the body (e.g. `.shared .align 8 .b64 bar;`).
    pub fn declare(&mut self, decl: impl Into<String>) {
        self.extra_decls.push(decl.into());
    }

    /// A clone of `instr` whose operands are all fresh registers, except immediates the original
    /// already had where the slot allows one.
    pub fn instantiate(&mut self, instr: &Instruction) -> Instruction {
        self.instantiate_bound(instr).0
    }

    /// [`instantiate`](Self::instantiate), also returning which fresh register plays which operand
    /// role (in operand order), so that an emitter can initialise them.
    fn instantiate_bound(&mut self, instr: &Instruction) -> (Instruction, Vec<Binding>) {
        let mut out = instr.clone();
        let mut binds = Vec::new();
        out.visit_operands(&mut |slot| match slot {
            Slot::Addr { role, space, addr } => {
                let ty = addr_reg_ty(space);
                let reg = self.fresh(ty);
                binds.push(Binding {
                    role,
                    ty,
                    reg: reg.clone(),
                    space: Some(space),
                    index: None,
                });
                addr.base = AddrBase::Name(reg);
            }
            Slot::Value {
                role,
                ty,
                value,
                imm_ok,
            } => {
                if !(imm_ok && matches!(value, Value::Imm(_))) {
                    let reg = self.fresh(ty);
                    binds.push(Binding {
                        role,
                        ty,
                        reg: reg.clone(),
                        space: None,
                        index: None,
                    });
                    *value = Value::Reg(reg);
                }
            }
            Slot::Tensor { role, tensor } => {
                let reg = self.fresh(RegTy::B64);
                binds.push(Binding {
                    role,
                    ty: RegTy::B64,
                    reg: reg.clone(),
                    space: None,
                    index: None,
                });
                tensor.map = reg;
                for (i, c) in tensor.coords.iter_mut().enumerate() {
                    let reg = self.fresh(RegTy::B32);
                    binds.push(Binding {
                        role: "coordinate",
                        ty: RegTy::B32,
                        reg: reg.clone(),
                        space: None,
                        index: Some(i),
                    });
                    *c = Value::Reg(reg);
                }
            }
            Slot::Vector { role, ty, values } => {
                for (i, v) in values.iter_mut().enumerate() {
                    let reg = self.fresh(ty);
                    binds.push(Binding {
                        role,
                        ty,
                        reg: reg.clone(),
                        space: None,
                        index: Some(i),
                    });
                    *v = Value::Reg(reg);
                }
            }
        });
        (out, binds)
    }

    /// A module-scope declaration printed before the `.entry` line (e.g.
    /// `.extern .shared .align 1024 .b8 smem[];`, which PTX does not allow inside a function).
    pub fn declare_module(&mut self, decl: impl Into<String>) {
        self.module_decls.push(decl.into().replace('\n', " "));
    }

    /// A kernel parameter, e.g. `.param .u64 out` (printed in the `.entry` signature).
    pub fn param(&mut self, decl: impl Into<String>) {
        self.params.push(decl.into().replace('\n', " "));
    }

    /// Append `instr` (instantiated with fresh registers) as a body line; returns its body index.
    pub fn push_instruction(&mut self, instr: &Instruction) -> usize {
        let i = self.instantiate(instr);
        self.push_line(format!("{i};"))
    }

    /// Append a raw body line (it must fit on one line); returns its body index.
    pub fn push_line(&mut self, line: impl Into<String>) -> usize {
        let mut l: String = line.into();
        if l.contains('\n') {
            l = l.replace('\n', " ");
        }
        self.body.push(l);
        self.body.len() - 1
    }

    /// How many registers of each type (in declaration order) [`fresh`](Self::fresh) gave.
    pub fn register_counts(&self) -> [usize; REG_TYPES] {
        self.counts
    }

    pub fn body(&self) -> &[String] {
        &self.body
    }

    /// Print the whole kernel.
    pub fn build(&self) -> Kernel {
        let all: Vec<usize> = (0..self.body.len()).collect();
        self.build_only(&all)
    }

    /// Print the kernel with only the body lines `keep` (indices, in the given order). All
    /// registers stay declared, so any subset assembles as far as declarations go.
    pub fn build_only(&self, keep: &[usize]) -> Kernel {
        let mut t = String::new();
        let _ = writeln!(
            t,
            ".version {}\n.target {}\n.address_size 64\n",
            self.version, self.target
        );
        for d in &self.module_decls {
            let _ = writeln!(t, "{d}");
        }
        if !self.module_decls.is_empty() {
            t.push('\n');
        }
        let _ = writeln!(
            t,
            ".visible .entry {}({})\n{{",
            self.name,
            self.params.join(", ")
        );
        for (i, ty) in ALL_TYS.iter().enumerate() {
            if self.counts[i] > 0 {
                let _ = writeln!(t, ".reg {} {}<{}>;", ty.ptx(), prefix(*ty), self.counts[i]);
            }
        }
        for d in &self.extra_decls {
            let _ = writeln!(t, "{d}");
        }
        let mut line = t.matches('\n').count() + 1;
        let mut lines = Vec::with_capacity(keep.len());
        for &k in keep {
            if let Some(b) = self.body.get(k) {
                let _ = writeln!(t, "{b}");
                lines.push(line);
                line += 1;
            }
        }
        t.push_str("ret;\n}\n");
        Kernel { text: t, lines }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptxas;

    fn bulk_copy_kernel(target: Target) -> (KernelBuilder, usize) {
        let mut kb = KernelBuilder::new(PtxVersion::MAX_SUPPORTED, target);
        let (d, s, n, m) = (
            kb.fresh(RegTy::B32),
            kb.fresh(RegTy::B64),
            kb.fresh(RegTy::B32),
            kb.fresh(RegTy::B32),
        );
        let i = kb.push_line(format!(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{s}], {n}, [{m}];"
        ));
        (kb, i)
    }

    #[test]
    fn layout_and_line_numbers() {
        let (mut kb, _) = bulk_copy_kernel(Target::SM_90A);
        kb.push_line("bar.sync 0;");
        let k = kb.build();
        assert!(k
            .text
            .starts_with(".version 9.0\n.target sm_90a\n.address_size 64\n"));
        assert!(
            k.text.contains(".reg .b32 %r<3>;\n.reg .b64 %rd<1>;\n"),
            "{}",
            k.text
        );
        let lines: Vec<&str> = k.text.lines().collect();
        assert_eq!(k.lines.len(), 2);
        assert!(lines[k.lines[0] - 1].starts_with("cp.async.bulk.shared::cluster"));
        assert_eq!(lines[k.lines[1] - 1], "bar.sync 0;");
        kb.param(".param .u64 out");
        kb.param(".param .u32 n");
        assert!(kb
            .build()
            .text
            .contains(".visible .entry k(.param .u64 out, .param .u32 n)\n{\n"));
        let only = kb.build_only(&[1]);
        assert_eq!(
            only.text.lines().nth(only.lines[0] - 1),
            Some("bar.sync 0;")
        );
        assert_eq!(only.body_index_at(only.lines[0]), Some(0));
    }

    #[test]
    fn instantiate_renames_every_operand() {
        // Meaningful once families are merged: every variant's operands become fresh registers
        // whose names the builder declared, and immediates survive only where allowed.
        for v in Instruction::all_variants() {
            let mut kb = KernelBuilder::new(PtxVersion::MAX_SUPPORTED, Target::SM_100A);
            let (mut inst, binds) = kb.instantiate_bound(&v);
            assert!(
                binds.iter().all(|b| b.reg.starts_with(prefix(b.ty))),
                "{v}: {binds:?}"
            );
            let declared = kb.build().text;
            let mut seen = std::collections::HashSet::new();
            inst.visit_operands(&mut |slot| {
                let mut check = |name: &str| {
                    assert!(seen.insert(name.to_string()), "{v}: register {name} reused");
                    assert!(
                        binds.iter().any(|b| b.reg == name),
                        "{v}: {name} has no binding"
                    );
                    let p = name.trim_end_matches(|c: char| c.is_ascii_digit());
                    assert!(
                        declared.contains(&format!(" {p}<")),
                        "{v}: {name} not declared"
                    );
                };
                match slot {
                    Slot::Addr { addr, .. } => match &addr.base {
                        AddrBase::Name(n) => check(n),
                        AddrBase::Abs(_) => panic!("{v}: absolute address kept"),
                    },
                    Slot::Value { value, imm_ok, .. } => match value {
                        Value::Reg(r) => check(r),
                        Value::Imm(_) => assert!(imm_ok, "{v}: immediate in a register-only slot"),
                    },
                    Slot::Tensor { tensor, .. } => {
                        check(&tensor.map);
                        tensor
                            .coords
                            .iter()
                            .for_each(|c| check(c.as_reg().expect("coordinate register")));
                    }
                    Slot::Vector { values, .. } => {
                        values
                            .iter()
                            .for_each(|c| check(c.as_reg().expect("vector register")));
                    }
                }
            });
        }
    }

    #[test]
    fn manual_examples_assemble() {
        // Examples in the manuals' syntax; each one a family models must assemble once built.
        let Some(p) = ptxas::for_tests() else { return };
        let examples = [
            ("cp.async.ca.shared.global [shrd], [gbl], 4", Target::SM_80),
            ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dstMem], [srcMem], size, [mbar]", Target::SM_90A),
            ("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dstMem], [tensorMap, {x, y}], [mbar]", Target::SM_90A),
            ("mbarrier.arrive.shared::cta.b64 state, [addr]", Target::SM_90A),
            ("tcgen05.cp.cta_group::1.128x256b [taddr], sdesc", Target::SM_100A),
        ];
        let mut built = 0;
        for (text, target) in examples {
            let Ok(instr) = Instruction::parse(text) else {
                eprintln!("family not merged yet, skipping: {text}");
                continue;
            };
            let mut kb = KernelBuilder::new(PtxVersion::MAX_SUPPORTED, target);
            kb.push_instruction(&instr);
            let k = kb.build();
            assert_eq!(p.assemble(&k.text, target), Ok(()), "{}", k.text);
            built += 1;
        }
        eprintln!("{built} of {} examples built and assembled", examples.len());
    }

    #[test]
    fn built_kernel_assembles() {
        let Some(p) = ptxas::for_tests() else { return };
        let (kb, _) = bulk_copy_kernel(Target::SM_90A);
        assert_eq!(p.assemble(&kb.build().text, Target::SM_90A), Ok(()));
        // and the same kernel is rejected where the model says so, on the instruction's line
        let (kb, i) = bulk_copy_kernel(Target::SM_80);
        let mut kb = kb;
        kb.version = PtxVersion::MAX_SUPPORTED;
        let k = kb.build();
        let errs = p.assemble(&k.text, Target::SM_80).unwrap_err();
        assert!(errs.iter().all(|e| e.line == Some(k.lines[i])), "{errs:?}");
    }
}
