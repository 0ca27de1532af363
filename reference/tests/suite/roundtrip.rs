//! Printing and parsing round-trip over the whole variant space, with operands drawn from the
//! forms real code uses: registers, symbols, immediates where allowed, `[reg+offset]` addresses.

use proptest::prelude::*;
use ptxconform_reference::ptx::operand::{AddrBase, RegTy, Slot, Value};
use ptxconform_reference::ptx::{Guard, Instruction, Statement};
use std::sync::OnceLock;

fn variants() -> &'static [Instruction] {
    static V: OnceLock<Vec<Instruction>> = OnceLock::new();
    V.get_or_init(Instruction::all_variants)
}

/// Deterministic operand rewriting from a seed: every slot gets a fresh register or symbol name,
/// an immediate where the syntax allows one, and addresses get offsets.
fn randomize(instr: &mut Instruction, mut seed: u64) {
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        seed >> 33
    };
    instr.visit_operands(&mut |slot| match slot {
        Slot::Addr { addr, .. } => {
            addr.base = match next() % 3 {
                0 => AddrBase::Name(format!("%rd{}", next() % 100)),
                1 => AddrBase::Name(format!("%r{}", next() % 100)),
                _ => AddrBase::Name(format!("sym_{}", next() % 100)),
            };
            addr.offset = match next() % 3 {
                0 => 0,
                1 => (next() % 64) as i64 * 16,
                _ => -((next() % 8) as i64 * 8),
            };
        }
        Slot::Value {
            ty, value, imm_ok, ..
        } => {
            *value = if ty == RegTy::Pred {
                Value::Reg(format!("%p{}", next() % 10))
            } else if imm_ok && next() % 2 == 0 {
                Value::Imm((next() % 4096) as i64)
            } else {
                // PTX's naming habit by width, which the parser also relies on where only the
                // register's type tells two operands apart (cp.async src-size vs cache-policy).
                let prefix = match ty.bits() {
                    64 => "%rd",
                    16 => "%rs",
                    _ => "%r",
                };
                Value::Reg(format!("{prefix}{}", next() % 100))
            };
        }
        Slot::Tensor { tensor, .. } => {
            tensor.map = format!("tmap{}", next() % 4);
            for c in tensor.coords.iter_mut() {
                *c = Value::Reg(format!("%r{}", next() % 100));
            }
        }
        Slot::Vector { values, .. } => {
            for v in values.iter_mut() {
                *v = Value::Reg(format!("%rs{}", next() % 100));
            }
        }
    });
}

#[test]
fn variant_space_is_not_empty() {
    let v = variants();
    let mut families: Vec<&str> = v.iter().map(|i| i.family()).collect();
    families.sort();
    families.dedup();
    println!(
        "{} variants in {} coverage families: {:?}",
        v.len(),
        families.len(),
        families
    );
    assert!(
        v.len() > 1000,
        "variant space unexpectedly small: {}",
        v.len()
    );
}

#[test]
fn every_variant_round_trips_with_placeholder_operands() {
    for v in variants() {
        let text = v.to_string();
        let back =
            Instruction::parse(&text).unwrap_or_else(|e| panic!("`{text}` does not parse: {e}"));
        assert_eq!(&back, v, "`{text}` parses to a different variant");
        assert_eq!(back.to_string(), text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]
    #[test]
    fn random_operands_round_trip(idx in any::<prop::sample::Index>(), seed in any::<u64>(), guard in 0u8..3) {
        let mut instr = variants()[idx.index(variants().len())].clone();
        randomize(&mut instr, seed);
        let guard = match guard {
            0 => None,
            g => Some(Guard { negated: g == 2, pred: "%p9".into() }),
        };
        let stmt = Statement { guard, instr };
        let text = stmt.to_string();
        let back = Statement::parse(&text);
        prop_assert!(back.is_ok(), "`{}` does not parse: {:?}", text, back.err());
        let back = back.unwrap();
        prop_assert_eq!(&back, &stmt, "`{}`", text);
        prop_assert_eq!(back.to_string(), text);
    }
}
