//! STUB: family `cp_async` — to be replaced by the real model.

use super::lex::SyntaxError;
use super::opcode::Opcode;
use super::operand::{Args, ParseCtx, Slot};
use super::Family;
use crate::target::Requirement;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum CpAsyncOp {}

impl fmt::Display for CpAsyncOp {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {}
    }
}

impl Family for CpAsyncOp {
    const HEADS: &'static [&'static str] = &[];
    fn parse(_head: &str, op: &Opcode, _args: &Args, _ctx: &ParseCtx) -> Result<Self, SyntaxError> {
        Err(SyntaxError::new(op.at, "a modelled instruction", "an unmodelled family"))
    }
    fn variants() -> Vec<Self> {
        Vec::new()
    }
    fn requirement(&self) -> Requirement {
        match *self {}
    }
    fn visit_operands(&mut self, _f: &mut dyn FnMut(Slot<'_>)) {
        match *self {}
    }
    fn row(&self) -> String {
        match *self {}
    }
    fn family(&self) -> &'static str {
        match *self {}
    }
}
