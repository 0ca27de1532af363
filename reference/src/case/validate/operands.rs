//! Operand checks: each operand of a `ptx:` step names what its slot needs (a region of the
//! right space, a tensor map, a bound parameter or special register), and where in the text.

use super::{is_special, Decl, Names};
use crate::ptx::operand::{AddrBase, Slot, Space, Value};
use crate::ptx::Instruction;

/// Assumption (until `Slot` records direction): operand roles that are written by the
/// instruction (the harness declares a scratch register for them) or carry a value an earlier
/// step wrote, so they need no `params` binding. `_` is PTX's sink.
const OUTPUT_ROLES: &[&str] = &["state", "waitComplete", "ldDst"];

/// A problem with one operand: the name it concerns (to locate it in the text) and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperandProblem {
    pub name: String,
    pub message: String,
}

fn check_value(role: &str, v: &Value, names: &Names, out: &mut Vec<OperandProblem>) {
    let Value::Reg(r) = v else { return };
    if names.params.contains_key(r) || is_special(r) {
        return;
    }
    if OUTPUT_ROLES.contains(&role) {
        return;
    }
    let message = match names.decls.get(r) {
        Some(Decl::Tmem) => return, // a Tensor Memory address is held in a register
        Some(d) => format!("`{r}` is {}; the {role} operand takes a register (bind it in `params`) or an immediate", d.describe()),
        None => format!("`{r}` (the {role} operand) is not a parameter or special register; bind it in `params`"),
    };
    out.push(OperandProblem {
        name: r.clone(),
        message,
    });
}

/// Check one operand slot against the case's names.
pub fn check_slot(slot: Slot<'_>, names: &Names, out: &mut Vec<OperandProblem>) {
    match slot {
        Slot::Addr { role, space, addr } => {
            let n = match &addr.base {
                AddrBase::Name(n) => n,
                AddrBase::Abs(a) => {
                    out.push(OperandProblem {
                        name: format!("0x{a:x}"),
                        message: format!(
                            "the {role} operand is an absolute address; name a region instead"
                        ),
                    });
                    return;
                }
            };
            let decl = names.decls.get(n).copied();
            let fits = match (space, decl) {
                (_, None) => false,
                (Space::Global, Some(d)) => matches!(d, Decl::Global { .. }),
                (Space::Tmem, Some(d)) => d == Decl::Tmem,
                (Space::Generic, Some(d)) => matches!(
                    d,
                    Decl::Global { .. } | Decl::Shared { .. } | Decl::Mbarrier | Decl::Tmem
                ),
                // A Tensor Memory allocation's name is also its address word in shared memory
                // (the `tcgen05.alloc` destination, A-EXEC-TCGEN05-WORD).
                (s, Some(d)) if s.is_shared() => {
                    matches!(d, Decl::Shared { .. } | Decl::Mbarrier | Decl::Tmem)
                }
                _ => false,
            };
            if fits {
                return;
            }
            let want = match space {
                Space::Global => "a global region",
                Space::Tmem => "a Tensor Memory allocation",
                Space::Generic => "a region or mbarrier",
                _ => "a shared region or mbarrier",
            };
            let message = match decl {
                Some(d) => format!(
                    "`{n}` is {}, but the {role} operand ({}) needs {want}",
                    d.describe(),
                    space_name(space)
                ),
                None if names.params.contains_key(n) => {
                    format!("`{n}` is a parameter; the {role} operand must name {want} (cases address memory by name)")
                }
                None => format!("`{n}` (the {role} operand) is not declared; it must name {want}"),
            };
            out.push(OperandProblem {
                name: n.clone(),
                message,
            });
        }
        Slot::Value { role, value, .. } => check_value(role, value, names, out),
        Slot::Tensor { role, tensor } => {
            if names.decls.get(&tensor.map) != Some(&Decl::TensorMap) {
                let what = names
                    .decls
                    .get(&tensor.map)
                    .map(|d| format!("is {}", d.describe()))
                    .unwrap_or_else(|| "is not declared".into());
                out.push(OperandProblem {
                    name: tensor.map.clone(),
                    message: format!("`{}` {what}; the {role} operand must name a tensor map in `memory.tensor_maps`", tensor.map),
                });
            }
            for c in &tensor.coords {
                check_value("coordinate", c, names, out);
            }
        }
        Slot::Vector { role, values, .. } => {
            for v in values.iter() {
                check_value(role, v, names, out);
            }
        }
    }
}

fn space_name(s: Space) -> &'static str {
    match s {
        Space::Global => ".global",
        Space::Shared | Space::SharedCta => ".shared::cta",
        Space::SharedCluster => ".shared::cluster",
        Space::Tmem => "Tensor Memory",
        Space::Generic => "generic",
    }
}

/// Check every operand of a parsed instruction against the case's names.
pub fn check_instruction(instr: &mut Instruction, names: &Names) -> Vec<OperandProblem> {
    let mut out = Vec::new();
    instr.visit_operands(&mut |slot| check_slot(slot, names, &mut out));
    out
}

/// Byte offset of the first whole-token occurrence of `name` in `text` (for locating operands).
pub fn find_token(text: &str, name: &str) -> Option<usize> {
    let is_tok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.' | '-');
    let mut from = 0;
    while let Some(i) = text[from..].find(name).map(|i| i + from) {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        if !before.is_some_and(is_tok) && !after.is_some_and(|c| is_tok(c) && c != '.') {
            return Some(i);
        }
        from = i + name.len().max(1);
        if from > text.len() {
            break;
        }
    }
    None
}
