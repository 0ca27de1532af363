//! Typed model of the PTX asynchronous-copy instructions and the instructions that complete them:
//! one module per instruction family, each able to parse PTX text, print it canonically, enumerate
//! its whole variant space, and state its static legality (targets and PTX ISA versions).

/// Test helpers for the family modules: `parse(text)` that parses a statement and takes the op of
/// family `$variant` (panicking if the text is another family's), and the round-trip and
/// rejection checks every family's tests make with it.
#[cfg(test)]
macro_rules! family_parser {
    ($variant:ident, $ty:ty) => {
        fn parse(text: &str) -> Result<$ty, crate::ptx::lex::SyntaxError> {
            match crate::ptx::Statement::parse(text)?.instr {
                crate::ptx::Instruction::$variant(x) => Ok(x),
                other => panic!("`{text}` parsed as another family: {other:?}"),
            }
        }

        /// Every variant of `all` prints as its own text and parses back to itself.
        #[allow(dead_code)] // not every family's tests use every check
        fn assert_round_trips(all: &[$ty]) {
            let mut seen = std::collections::HashSet::new();
            for x in all {
                let text = x.to_string();
                assert!(seen.insert(text.clone()), "two variants print as `{text}`");
                let back = parse(&text).unwrap_or_else(|e| panic!("`{text}`: {e}"));
                assert_eq!(&back, x, "{text}");
            }
        }

        /// Each text of `bad` fails to parse, with an error that mentions its phrase.
        #[allow(dead_code)]
        fn assert_rejected(bad: &[(&str, &str)]) {
            for (s, want) in bad {
                let e = parse(s).expect_err(s).to_string();
                assert!(e.contains(want), "{s}: `{e}` should mention {want}");
            }
        }
    };
}

pub mod lex;
pub mod module;
pub mod opcode;
pub mod operand;

pub mod bulk;
pub mod common;
pub mod cp_async;
pub mod mbarrier;
pub mod sync;
pub mod tcgen05;
pub mod tensor;
pub mod tensormap;

use crate::target::Requirement;
use lex::{Cursor, SyntaxError};
use opcode::Opcode;
use operand::{Args, ParseCtx, Slot};
use std::fmt;

pub use module::{parse_source, read_source, Item, Parsed};

/// What every instruction family provides.
pub trait Family: Sized + Clone + PartialEq + fmt::Debug + fmt::Display {
    /// Opcode heads this family claims, e.g. `cp.async.bulk.tensor`. The longest matching head
    /// over all families wins, so `cp.async` does not swallow `cp.async.bulk`.
    const HEADS: &'static [&'static str];
    /// Parse an instruction whose opcode starts with `head` (one of [`Family::HEADS`]).
    fn parse(head: &str, op: &Opcode, args: &Args, ctx: &ParseCtx) -> Result<Self, SyntaxError>;
    /// Every variant: each combination of qualifiers and optional operands, with placeholder
    /// operands (registers named after their roles).
    fn variants() -> Vec<Self>;
    /// Static legality: which targets accept it, from which PTX ISA version.
    fn requirement(&self) -> Requirement;
    /// Walk the operands (for emission, randomization and binding).
    fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>));
    /// The coverage row this variant belongs to: the opcode with its qualifiers (no operands),
    /// with optional operands that change the variant noted as `+name`.
    fn row(&self) -> String;
    /// The coverage family (`cp.async`, `cp.async.bulk`, …): one table per family in reports.
    fn family(&self) -> &'static str;
}

/// Any instruction of the modelled families.
#[derive(Clone, Debug, PartialEq)]
pub enum Instruction {
    CpAsync(cp_async::CpAsyncOp),
    Bulk(bulk::BulkOp),
    Tensor(tensor::TensorOp),
    Mbarrier(mbarrier::MbarrierOp),
    Tcgen05(tcgen05::Tcgen05Op),
    Sync(sync::SyncOp),
    Tensormap(tensormap::TensormapOp),
}

/// Apply `$body` to the inner op of every `Instruction` variant.
macro_rules! each_family {
    ($self:expr, $x:ident => $body:expr) => {
        match $self {
            Instruction::CpAsync($x) => $body,
            Instruction::Bulk($x) => $body,
            Instruction::Tensor($x) => $body,
            Instruction::Mbarrier($x) => $body,
            Instruction::Tcgen05($x) => $body,
            Instruction::Sync($x) => $body,
            Instruction::Tensormap($x) => $body,
        }
    };
}

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        each_family!(self, x => fmt::Display::fmt(x, f))
    }
}

type ParseFn = fn(&str, &Opcode, &Args, &ParseCtx) -> Result<Instruction, SyntaxError>;

/// Every family's heads with its parser, longest head first (built once).
fn heads() -> &'static [(&'static str, ParseFn)] {
    static HEADS: std::sync::OnceLock<Vec<(&'static str, ParseFn)>> = std::sync::OnceLock::new();
    HEADS.get_or_init(build_heads)
}

fn build_heads() -> Vec<(&'static str, ParseFn)> {
    let mut v: Vec<(&'static str, ParseFn)> = Vec::new();
    for h in cp_async::CpAsyncOp::HEADS {
        v.push((h, |h, o, a, c| {
            cp_async::CpAsyncOp::parse(h, o, a, c).map(Instruction::CpAsync)
        }));
    }
    for h in bulk::BulkOp::HEADS {
        v.push((h, |h, o, a, c| {
            bulk::BulkOp::parse(h, o, a, c).map(Instruction::Bulk)
        }));
    }
    for h in tensor::TensorOp::HEADS {
        v.push((h, |h, o, a, c| {
            tensor::TensorOp::parse(h, o, a, c).map(Instruction::Tensor)
        }));
    }
    for h in mbarrier::MbarrierOp::HEADS {
        v.push((h, |h, o, a, c| {
            mbarrier::MbarrierOp::parse(h, o, a, c).map(Instruction::Mbarrier)
        }));
    }
    for h in tcgen05::Tcgen05Op::HEADS {
        v.push((h, |h, o, a, c| {
            tcgen05::Tcgen05Op::parse(h, o, a, c).map(Instruction::Tcgen05)
        }));
    }
    for h in sync::SyncOp::HEADS {
        v.push((h, |h, o, a, c| {
            sync::SyncOp::parse(h, o, a, c).map(Instruction::Sync)
        }));
    }
    for h in tensormap::TensormapOp::HEADS {
        v.push((h, |h, o, a, c| {
            tensormap::TensormapOp::parse(h, o, a, c).map(Instruction::Tensormap)
        }));
    }
    // Longest head first.
    v.sort_by_key(|(h, _)| std::cmp::Reverse(h.split('.').count()));
    v
}

impl Instruction {
    /// Parse one instruction (no guard, no `;`).
    pub fn parse_with(text: &str, ctx: &ParseCtx) -> Result<Instruction, SyntaxError> {
        let mut c = Cursor::new(text);
        let op = Opcode::parse(&mut c)?;
        let args = Args::parse(&mut c)?;
        Self::from_parts(&op, &args, ctx)
    }

    pub fn parse(text: &str) -> Result<Instruction, SyntaxError> {
        Self::parse_with(text, &ParseCtx::default())
    }

    /// Is this opcode one of the modelled families'? Every PTX `cp.*` instruction is an
    /// asynchronous copy, so a misspelt one (`cp.asnyc`) counts as modelled and fails to parse
    /// rather than being skipped. The tcgen05 family claims `tcgen05` but leaves `tcgen05.mma` out
    /// of scope (its parser says so): a module reader skips it like any other unmodelled
    /// instruction instead of failing on it.
    pub fn is_modelled(op: &Opcode) -> bool {
        const OUT_OF_SCOPE: &[&str] = &["tcgen05.mma"];
        (op.has_head("cp") || heads().iter().any(|(h, _)| op.has_head(h)))
            && !OUT_OF_SCOPE.iter().any(|h| op.has_head(h))
    }

    fn from_parts(op: &Opcode, args: &Args, ctx: &ParseCtx) -> Result<Instruction, SyntaxError> {
        for &(head, f) in heads() {
            if op.has_head(head) {
                return f(head, op, args, ctx);
            }
        }
        Err(SyntaxError::new(
            op.at,
            "an asynchronous-copy family instruction",
            format!("`{}`", op.text()),
        ))
    }

    /// Every variant of every family.
    pub fn all_variants() -> Vec<Instruction> {
        let mut v: Vec<Instruction> = Vec::new();
        v.extend(
            cp_async::CpAsyncOp::variants()
                .into_iter()
                .map(Instruction::CpAsync),
        );
        v.extend(bulk::BulkOp::variants().into_iter().map(Instruction::Bulk));
        v.extend(
            tensor::TensorOp::variants()
                .into_iter()
                .map(Instruction::Tensor),
        );
        v.extend(
            mbarrier::MbarrierOp::variants()
                .into_iter()
                .map(Instruction::Mbarrier),
        );
        v.extend(
            tcgen05::Tcgen05Op::variants()
                .into_iter()
                .map(Instruction::Tcgen05),
        );
        v.extend(sync::SyncOp::variants().into_iter().map(Instruction::Sync));
        v.extend(
            tensormap::TensormapOp::variants()
                .into_iter()
                .map(Instruction::Tensormap),
        );
        v
    }

    pub fn requirement(&self) -> Requirement {
        each_family!(self, x => x.requirement())
    }
    pub fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        each_family!(self, x => x.visit_operands(f))
    }
    pub fn row(&self) -> String {
        each_family!(self, x => x.row())
    }
    pub fn family(&self) -> &'static str {
        each_family!(self, x => x.family())
    }

    /// Whether every thread of a warp executes it together (`.sync.aligned`): the collective
    /// tcgen05 operations and `tensormap.cp_fenceproxy`.
    pub fn is_warp_collective(&self) -> bool {
        match self {
            Instruction::Tcgen05(x) => x.is_warp_collective(),
            Instruction::Tensormap(x) => x.is_warp_collective(),
            _ => false,
        }
    }

    /// Whether it is an asynchronous copy from a source to a destination operand (§9.7.9.25):
    /// the `cp.async` copy, the bulk copy and reduction, the tensor load, store and reduction.
    /// Group operations, arrives and prefetches move no bytes to a destination.
    pub fn is_async_copy(&self) -> bool {
        use bulk::BulkOp;
        use tensor::TensorOp;
        matches!(
            self,
            Instruction::CpAsync(cp_async::CpAsyncOp::Copy(_))
                | Instruction::Bulk(BulkOp::Copy(_) | BulkOp::Reduce(_))
                | Instruction::Tensor(TensorOp::Load(_) | TensorOp::Store(_) | TensorOp::Reduce(_))
        )
    }

    /// The names its memory operands are based on (`[name]`, `[name+8]`), in operand order.
    pub fn address_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        // The operand walk lends its slots mutably: walk a copy.
        self.clone().visit_operands(&mut |s| {
            if let Slot::Addr { addr, .. } = s {
                if let operand::AddrBase::Name(n) = &addr.base {
                    names.push(n.clone());
                }
            }
        });
        names
    }
}

/// A predicate guard `@p` / `@!p`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    pub negated: bool,
    pub pred: String,
}

impl Guard {
    /// An optional `@p` / `@!p` at the cursor.
    pub fn parse(c: &mut Cursor<'_>) -> Result<Option<Guard>, SyntaxError> {
        if !c.eat('@') {
            return Ok(None);
        }
        let negated = c.eat('!');
        let (_, p) = c
            .ident()
            .ok_or_else(|| c.error("a guard predicate after `@`"))?;
        Ok(Some(Guard {
            negated,
            pred: p.to_string(),
        }))
    }
}

/// One guarded instruction, as written in a PTX statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    pub guard: Option<Guard>,
    pub instr: Instruction,
}

impl fmt::Display for Statement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(g) = &self.guard {
            write!(f, "@{}{} ", if g.negated { "!" } else { "" }, g.pred)?;
        }
        write!(f, "{};", self.instr)
    }
}

/// Parsed statements by text, per thread, each with the lookups its parse made in its context
/// ([`operand::Consulted`]): the programs of one shape repeat most of their steps, and a case is
/// parsed again on each thread that reads it (generation and validation on one, legality and
/// emission on another). A parse is a function of its text and those lookups alone, so it is
/// reused under any context that answers them alike — comparing whole contexts (every param
/// of the case) cost more than parsing.
type ParseMemo = std::collections::HashMap<
    String,
    Vec<(operand::Consulted, SharedParse)>,
    foldhash::fast::FixedState,
>;

/// A parse as the memo keeps and hands it out: shared, not copied.
pub type SharedParse = std::sync::Arc<Result<Statement, SyntaxError>>;

/// Entries a thread's memo holds before it starts over (bounds a long campaign's memory).
const PARSE_MEMO_ENTRIES: usize = 4096;

thread_local! {
    static PARSED: std::cell::RefCell<ParseMemo> = std::cell::RefCell::new(ParseMemo::default());
}

impl Statement {
    /// Parse `{@{!}p} instr operands` (a trailing `;` is allowed).
    pub fn parse_with(text: &str, ctx: &ParseCtx) -> Result<Statement, SyntaxError> {
        (*Self::parse_shared(text, ctx)).clone()
    }

    /// [`Statement::parse_with`], the parse shared with the thread's memo.
    pub fn parse_shared(text: &str, ctx: &ParseCtx) -> SharedParse {
        let hit = PARSED.with(|m| {
            m.borrow().get(text).and_then(|under| {
                under
                    .iter()
                    .find(|(consulted, _)| ctx.answers(consulted))
                    .map(|(consulted, r)| {
                        ParseCtx::consulted(consulted);
                        SharedParse::clone(r)
                    })
            })
        });
        if let Some(r) = hit {
            return r;
        }
        let (r, consulted) = ParseCtx::recording(|| Self::parse_uncached(text, ctx));
        let r = SharedParse::new(r);
        PARSED.with(|m| {
            let mut m = m.borrow_mut();
            if m.len() >= PARSE_MEMO_ENTRIES {
                m.clear();
            }
            m.entry(text.to_string())
                .or_default()
                .push((consulted, SharedParse::clone(&r)));
        });
        r
    }

    fn parse_uncached(text: &str, ctx: &ParseCtx) -> Result<Statement, SyntaxError> {
        let trimmed_end = text.trim_end();
        let body = trimmed_end.strip_suffix(';').unwrap_or(trimmed_end);
        let mut c = Cursor::new(body);
        let guard = Guard::parse(&mut c)?;
        let op = Opcode::parse(&mut c)?;
        let args = Args::parse(&mut c)?;
        let instr = Instruction::from_parts(&op, &args, ctx)?;
        Ok(Statement { guard, instr })
    }
    pub fn parse(text: &str) -> Result<Statement, SyntaxError> {
        Self::parse_with(text, &ParseCtx::default())
    }
}

#[cfg(test)]
mod tests;
