//! `.L2::cache_hint` with its 64-bit `cache-policy` operand: the same pair on cp.async,
//! cp.async.bulk, cp.reduce.async.bulk and cp.async.bulk.prefetch.

use crate::ptx::operand::{RegTy, Slot, Value};
use crate::target::Support;

/// The `.L2::cache_hint` qualifier and the optional `cache-policy` operand, kept independent so
/// that the ill-formed pairings (operand without qualifier and vice versa) stay representable for
/// the legality differential.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct CacheHint {
    pub qualifier: bool,
    pub policy: Option<Value>,
}

impl CacheHint {
    pub const QUAL: &'static str = "L2::cache_hint";

    /// The usual pairing: qualifier with a placeholder `policy` register.
    pub fn with_policy() -> CacheHint {
        CacheHint {
            qualifier: true,
            policy: Some(Value::reg("policy")),
        }
    }

    /// The four qualifier × operand combinations (for `variants()`).
    pub fn all() -> [CacheHint; 4] {
        [
            CacheHint::default(),
            CacheHint::with_policy(),
            CacheHint {
                qualifier: true,
                policy: None,
            },
            CacheHint {
                qualifier: false,
                policy: Some(Value::reg("policy")),
            },
        ]
    }

    /// The qualifier text (empty when absent), for `opcode::join`.
    pub fn qual(&self) -> &'static str {
        if self.qualifier {
            Self::QUAL
        } else {
            ""
        }
    }

    /// Take `.L2::cache_hint` from the qualifiers (the operand is placed by the caller).
    pub fn take(q: &mut crate::ptx::opcode::Quals) -> Result<bool, crate::ptx::lex::SyntaxError> {
        q.flag(Self::QUAL)
    }

    /// Rules on the pairing; the version/target of the qualifier itself is the caller's.
    pub fn rules(&self) -> Vec<Support> {
        match (self.qualifier, self.policy.is_some()) {
            // "When the optional argument cache-policy is specified, the qualifier .level::cache_hint is required."
            (false, true) => vec![Support::never(
                "`cache-policy` operand requires `.L2::cache_hint`",
            )],
            // ASSUMPTION (spec silent; the syntax blocks make both optional independently): the hint
            // names no policy without its operand. ptxas 13.0 rejects it ("Arguments mismatch").
            (true, false) => vec![Support::never(
                "`.L2::cache_hint` without a `cache-policy` operand (assumption, as ptxas)",
            )],
            _ => Vec::new(),
        }
    }

    /// `cache-policy` is a 64-bit register (never an immediate in any example or syntax block).
    pub fn visit(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        if let Some(p) = &mut self.policy {
            f(Slot::Value {
                role: "policy",
                ty: RegTy::B64,
                value: p,
                imm_ok: false,
            });
        }
    }

    /// The `+policy` marker of coverage rows.
    pub fn row_marker(&self) -> &'static str {
        if self.policy.is_some() {
            " +policy"
        } else {
            ""
        }
    }
}
