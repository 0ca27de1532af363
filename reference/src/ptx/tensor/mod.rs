//! Tensor copies through a tensor map (§9.7.9.25.5): cp.async.bulk.tensor in both directions,
//! cp.reduce.async.bulk.tensor and cp.async.bulk.prefetch.tensor. One type per direction, so a
//! load cannot carry `.bulk_group` nor a store `.multicast::cluster`; combinations that are
//! well-formed text but break a rule of the manual (gather4 outside `.2d`, im2col below `.3d`,
//! multicast into `.shared::cta`) stay representable and are `Support::never` in `requirement()`.

pub mod load;
pub mod mode;
pub mod operands;
pub mod prefetch;
pub mod store;
#[cfg(test)]
mod tests;

pub use load::{LoadDst, TensorLoad};
pub use mode::{Dim, FetchKind, FetchMode, ReduceMode, StoreMode, Tile};
pub use prefetch::TensorPrefetch;
pub use store::{TensorReduce, TensorStore, ToGlobal};

use super::lex::SyntaxError;
use super::opcode::{Opcode, Quals};
use super::operand::{Args, ParseCtx, Slot, Space};
use super::Family;
use crate::target::{PtxVersion, Requirement};
use std::fmt;

const V80: PtxVersion = PtxVersion::new(8, 0);
const V86: PtxVersion = PtxVersion::new(8, 6);
const V88: PtxVersion = PtxVersion::new(8, 8);

#[derive(Clone, Debug, PartialEq)]
pub enum TensorOp {
    /// cp.async.bulk.tensor global → shared::cta / shared::cluster.
    Load(TensorLoad),
    /// cp.async.bulk.tensor shared::cta → global.
    Store(TensorStore),
    Reduce(TensorReduce),
    Prefetch(TensorPrefetch),
}

/// `.completion_mechanism`: fixed by the direction, but mandatory in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Completion {
    Mbarrier,
    BulkGroup,
}

impl Completion {
    const CHOICES: [(&'static str, Completion); 2] = [
        ("mbarrier::complete_tx::bytes", Completion::Mbarrier),
        ("bulk_group", Completion::BulkGroup),
    ];
    fn ptx(self) -> &'static str {
        Self::CHOICES
            .iter()
            .find(|c| c.1 == self)
            .map(|c| c.0)
            .unwrap_or("")
    }
    /// Take the completion mechanism, which must be `want` (ptxas: ".completion_mechanism
    /// modifier required for instruction 'cp.async.bulk.tensor'").
    fn need(q: &mut Quals, want: Completion) -> Result<(), SyntaxError> {
        let at = q
            .toks
            .iter()
            .find(|t| Self::CHOICES.iter().any(|c| c.0 == t.text))
            .map(|t| t.at)
            .unwrap_or(q.end);
        match q.take(&Self::CHOICES, "completion mechanism")? {
            Some(c) if c == want => Ok(()),
            got => Err(SyntaxError::new(
                at,
                format!("completion mechanism `.{}` for this direction", want.ptx()),
                got.map(|c| format!("`.{}`", c.ptx()))
                    .unwrap_or_else(|| "none".to_string()),
            )),
        }
    }
}

/// A coverage row: the opcode and a `+name` for each optional operand present.
fn row(opcode: String, optional: &[(&str, bool)]) -> String {
    let mut s = opcode;
    for (name, present) in optional {
        if *present {
            s.push_str(" +");
            s.push_str(name);
        }
    }
    s
}

fn spaces_found(spaces: &[(usize, Space)]) -> String {
    if spaces.is_empty() {
        return "none".to_string();
    }
    spaces
        .iter()
        .map(|s| format!("`{}`", s.1.ptx()))
        .collect::<Vec<_>>()
        .join("")
}

/// Split cp.async.bulk.tensor by its `.dst.src` pair (written in that order, wherever they sit).
fn parse_copy(q: &mut Quals, args: &Args) -> Result<TensorOp, SyntaxError> {
    let spaces = q.take_ordered(&[
        ("shared::cta", Space::SharedCta),
        ("shared::cluster", Space::SharedCluster),
        ("global", Space::Global),
        ("shared", Space::Shared),
    ]);
    let pair: Vec<Space> = spaces.iter().map(|s| s.1).collect();
    match pair.as_slice() {
        [Space::SharedCta, Space::Global] => {
            TensorLoad::parse(LoadDst::SharedCta, q, args).map(TensorOp::Load)
        }
        [Space::SharedCluster, Space::Global] => {
            TensorLoad::parse(LoadDst::SharedCluster, q, args).map(TensorOp::Load)
        }
        [Space::Global, Space::SharedCta] => TensorStore::parse(q, args).map(TensorOp::Store),
        _ => Err(SyntaxError::new(
            spaces.first().map(|s| s.0).unwrap_or(q.end),
            "`.dst.src`: `.shared::cta.global`, `.shared::cluster.global` or `.global.shared::cta`",
            spaces_found(&spaces),
        )),
    }
}

impl Family for TensorOp {
    const HEADS: &'static [&'static str] = &[load::HEAD, store::REDUCE_HEAD, prefetch::HEAD];

    fn parse(head: &str, op: &Opcode, args: &Args, _ctx: &ParseCtx) -> Result<Self, SyntaxError> {
        let mut q = op.quals(head);
        match head {
            load::HEAD => parse_copy(&mut q, args),
            store::REDUCE_HEAD => TensorReduce::parse(&mut q, args).map(TensorOp::Reduce),
            prefetch::HEAD => TensorPrefetch::parse(&mut q, args).map(TensorOp::Prefetch),
            _ => Err(SyntaxError::new(
                op.at,
                "a tensor-copy instruction",
                format!("`{head}`"),
            )),
        }
    }

    fn variants() -> Vec<Self> {
        let mut v: Vec<TensorOp> = TensorLoad::variants()
            .into_iter()
            .map(TensorOp::Load)
            .collect();
        v.extend(TensorStore::variants().into_iter().map(TensorOp::Store));
        v.extend(TensorReduce::variants().into_iter().map(TensorOp::Reduce));
        v.extend(
            TensorPrefetch::variants()
                .into_iter()
                .map(TensorOp::Prefetch),
        );
        v
    }

    fn requirement(&self) -> Requirement {
        match self {
            TensorOp::Load(x) => x.requirement(),
            TensorOp::Store(x) => x.requirement(),
            TensorOp::Reduce(x) => x.requirement(),
            TensorOp::Prefetch(x) => x.requirement(),
        }
    }

    fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        match self {
            TensorOp::Load(x) => x.visit_operands(f),
            TensorOp::Store(x) => x.visit_operands(f),
            TensorOp::Reduce(x) => x.visit_operands(f),
            TensorOp::Prefetch(x) => x.visit_operands(f),
        }
    }

    fn row(&self) -> String {
        match self {
            TensorOp::Load(x) => x.row(),
            TensorOp::Store(x) => x.row(),
            TensorOp::Reduce(x) => x.row(),
            TensorOp::Prefetch(x) => x.row(),
        }
    }

    fn family(&self) -> &'static str {
        match self {
            TensorOp::Load(_) | TensorOp::Store(_) => load::HEAD,
            TensorOp::Reduce(_) => store::REDUCE_HEAD,
            TensorOp::Prefetch(_) => prefetch::HEAD,
        }
    }
}

impl fmt::Display for TensorOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorOp::Load(x) => x.fmt(f),
            TensorOp::Store(x) => x.fmt(f),
            TensorOp::Reduce(x) => x.fmt(f),
            TensorOp::Prefetch(x) => x.fmt(f),
        }
    }
}
