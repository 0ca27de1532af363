//! Reading the operand list of a tensor instruction left to right (its trailing operands are
//! optional and present exactly when a qualifier asks for them), and placeholder operands.

use crate::ptx::lex::SyntaxError;
use crate::ptx::operand::{Address, Args, TensorRef, Value};

/// A left-to-right cursor over [`Args`].
pub struct Operands<'a> {
    args: &'a Args,
    i: usize,
}

impl<'a> Operands<'a> {
    pub fn new(args: &'a Args) -> Self {
        Operands { args, i: 0 }
    }
    /// Offset of the next operand (or of the end), for errors.
    pub fn offset(&self) -> usize {
        self.args.offset_of(self.i)
    }
    pub fn addr(&mut self, what: &str) -> Result<Address, SyntaxError> {
        let a = self.args.addr(self.i, what)?;
        self.i += 1;
        Ok(a)
    }
    pub fn vector(&mut self, what: &str) -> Result<Vec<Value>, SyntaxError> {
        let v = self.args.vector(self.i, what)?;
        self.i += 1;
        Ok(v)
    }
    pub fn value(&mut self, what: &str) -> Result<Value, SyntaxError> {
        let v = self.args.value(self.i, what)?;
        self.i += 1;
        Ok(v)
    }
    /// `[tensorMap, {coords}]` with exactly `n` coordinates.
    pub fn tensor(&mut self, n: usize, why: &str) -> Result<TensorRef, SyntaxError> {
        let at = self.offset();
        let t = self.args.tensor(self.i, "[tensorMap, tensorCoords]")?;
        if t.coords.len() != n {
            return Err(SyntaxError::new(
                at,
                format!("{n} tensor coordinates ({why})"),
                format!("{}", t.coords.len()),
            ));
        }
        self.i += 1;
        Ok(t)
    }
    /// The trailing operand named by a flag qualifier (`ctaMask` for `.multicast::cluster`,
    /// `cache-policy` for `.L2::cache_hint`): ptxas requires it exactly when the flag is given.
    pub fn value_if(&mut self, flag: bool, what: &str) -> Result<Option<Value>, SyntaxError> {
        if flag {
            self.value(what).map(Some)
        } else {
            Ok(None)
        }
    }
    /// Error if the next operand is a vector (an `im2colInfo` where none belongs).
    pub fn no_vector(&self, expected: &str) -> Result<(), SyntaxError> {
        if self.args.is_vector(self.i) {
            return Err(SyntaxError::new(
                self.offset(),
                expected,
                "a vector `{...}`",
            ));
        }
        Ok(())
    }
    /// Error if operands are left over. `hint` says which qualifier would make room for more.
    pub fn done(&self, hint: &str) -> Result<(), SyntaxError> {
        if self.i < self.args.len() {
            return Err(SyntaxError::new(
                self.offset(),
                format!("no operand {} ({hint})", self.i + 1),
                "one",
            ));
        }
        Ok(())
    }
}

/// Placeholder coordinates: `{col, row0..row3}` for the four-row modes, `{tc0..}` otherwise.
pub fn coords(n: usize, four_rows: bool) -> Vec<Value> {
    if four_rows {
        ["col", "row0", "row1", "row2", "row3"]
            .iter()
            .map(|s| Value::reg(s))
            .collect()
    } else {
        (0..n).map(|i| Value::Reg(format!("tc{i}"))).collect()
    }
}

pub fn tensor(n: usize, four_rows: bool) -> TensorRef {
    TensorRef {
        map: "tensorMap".to_string(),
        coords: coords(n, four_rows),
    }
}

/// Placeholder register names of the optional scalar operands.
pub const CTA_MASK: &str = "ctaMask";
pub const CACHE_POLICY: &str = "cachePolicy";
