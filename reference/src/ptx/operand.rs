//! Operands as they appear in real PTX: registers and symbols, immediates, `[base+offset]`
//! addresses, `[tensorMap, {coords}]` tensor references and `{a, b}` vectors.

use super::lex::{Cursor, SyntaxError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A register or immediate operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Value {
    Reg(String),
    Imm(i64),
}

impl Value {
    pub fn reg(name: &str) -> Value {
        Value::Reg(name.to_string())
    }
    pub fn as_reg(&self) -> Option<&str> {
        match self {
            Value::Reg(r) => Some(r),
            Value::Imm(_) => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Reg(r) => f.write_str(r),
            Value::Imm(v) if *v < 0 => write!(f, "{v}"),
            Value::Imm(v) if *v > 0xffff => write!(f, "0x{v:x}"),
            Value::Imm(v) => write!(f, "{v}"),
        }
    }
}

/// The base of an address operand: a register or symbol, or an absolute immediate address.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AddrBase {
    Name(String),
    Abs(u64),
}

/// `[base]`, `[base+offset]`, `[base-offset]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Address {
    pub base: AddrBase,
    pub offset: i64,
}

impl Address {
    pub fn reg(name: &str) -> Address {
        Address {
            base: AddrBase::Name(name.to_string()),
            offset: 0,
        }
    }
    pub fn reg_off(name: &str, offset: i64) -> Address {
        Address {
            base: AddrBase::Name(name.to_string()),
            offset,
        }
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        match &self.base {
            AddrBase::Name(n) => f.write_str(n)?,
            AddrBase::Abs(a) => write!(f, "0x{a:x}")?,
        }
        match self.offset {
            0 => {}
            o if o > 0 => write!(f, "+{o}")?,
            o => write!(f, "-{}", o.unsigned_abs())?,
        }
        f.write_str("]")
    }
}

/// `[tensorMap, {c0, c1, ...}]`: the tensor-map operand with its coordinate vector.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TensorRef {
    pub map: String,
    pub coords: Vec<Value>,
}

impl fmt::Display for TensorRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", self.map, VecOperand(&self.coords))
    }
}

/// Display helper for `{a, b, c}`.
pub struct VecOperand<'a>(pub &'a [Value]);

impl fmt::Display for VecOperand<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{v}")?;
        }
        f.write_str("}")
    }
}

/// Register types the emitter declares for operand slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RegTy {
    Pred,
    B16,
    B32,
    B64,
    U16,
    U32,
    U64,
    S32,
    S64,
}

impl RegTy {
    pub fn ptx(self) -> &'static str {
        match self {
            RegTy::Pred => ".pred",
            RegTy::B16 => ".b16",
            RegTy::B32 => ".b32",
            RegTy::B64 => ".b64",
            RegTy::U16 => ".u16",
            RegTy::U32 => ".u32",
            RegTy::U64 => ".u64",
            RegTy::S32 => ".s32",
            RegTy::S64 => ".s64",
        }
    }
    pub fn from_ptx(s: &str) -> Option<RegTy> {
        Some(match s.trim_start_matches('.') {
            "pred" => RegTy::Pred,
            "b16" => RegTy::B16,
            "b32" => RegTy::B32,
            "b64" => RegTy::B64,
            "u16" => RegTy::U16,
            "u32" => RegTy::U32,
            "u64" => RegTy::U64,
            "s32" => RegTy::S32,
            "s64" => RegTy::S64,
            _ => return None,
        })
    }
    pub fn bits(self) -> u32 {
        match self {
            RegTy::Pred => 1,
            RegTy::B16 | RegTy::U16 => 16,
            RegTy::B32 | RegTy::U32 | RegTy::S32 => 32,
            RegTy::B64 | RegTy::U64 | RegTy::S64 => 64,
        }
    }
}

/// State spaces named by instruction qualifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Space {
    Global,
    /// `.shared` written without a sub-qualifier (means `.shared::cta`).
    Shared,
    SharedCta,
    SharedCluster,
    /// Tensor Memory addresses (`taddr`).
    Tmem,
    /// A generic address.
    Generic,
}

impl Space {
    pub fn ptx(self) -> &'static str {
        match self {
            Space::Global => ".global",
            Space::Shared => ".shared",
            Space::SharedCta => ".shared::cta",
            Space::SharedCluster => ".shared::cluster",
            Space::Tmem => "",
            Space::Generic => "",
        }
    }
    /// Is it shared memory (of this CTA or of the cluster)?
    pub fn is_shared(self) -> bool {
        matches!(
            self,
            Space::Shared | Space::SharedCta | Space::SharedCluster
        )
    }
}

/// A mutable view of one operand slot, with its role and the register type it takes, so that
/// generic code (emission, operand randomization, binding to case parameters) can walk the
/// operands of any instruction.
pub enum Slot<'a> {
    /// A memory address in `space`.
    Addr {
        role: &'static str,
        space: Space,
        addr: &'a mut Address,
    },
    /// A register or (where the syntax allows) an immediate.
    Value {
        role: &'static str,
        ty: RegTy,
        value: &'a mut Value,
        imm_ok: bool,
    },
    /// A tensor-map operand with its coordinates (`.s32`).
    Tensor {
        role: &'static str,
        tensor: &'a mut TensorRef,
    },
    /// A vector of values (im2col offsets, wHalo/wOffset).
    Vector {
        role: &'static str,
        ty: RegTy,
        values: &'a mut Vec<Value>,
    },
}

/// Declared register types, used where PTX itself disambiguates by type (e.g. cp.async's fourth
/// operand: `src-size` if an integer, `ignore-src` if a predicate).
#[derive(Clone, Debug, Default)]
pub struct ParseCtx {
    pub decls: BTreeMap<String, RegTy>,
}

/// The names a parse looked up in its context, with what it found: a parse depends on its
/// context through these alone, so the parse memo reuses it under any context that answers
/// them alike.
pub(crate) type Consulted = Vec<(String, Option<RegTy>)>;

thread_local! {
    /// The lookups of the parse running on this thread, while [`ParseCtx::recording`] runs one.
    static CONSULTED: std::cell::RefCell<Option<Consulted>> = const { std::cell::RefCell::new(None) };
}

impl ParseCtx {
    /// The declared type of `name`: the one place a parse reads its context.
    fn declared(&self, name: &str) -> Option<RegTy> {
        let t = self.decls.get(name).copied();
        Self::record(name, t);
        t
    }

    /// Adds the lookup of `name` (found `t`) to those of the parse being recorded on this
    /// thread, if any and if not there yet; the name is copied only then.
    fn record(name: &str, t: Option<RegTy>) {
        CONSULTED.with(|c| {
            if let Some(log) = c.borrow_mut().as_mut() {
                if !log.iter().any(|(n, _)| n == name) {
                    log.push((name.to_string(), t));
                }
            }
        });
    }

    /// Adds `lookups` to those of the parse being recorded on this thread, if any: a parse
    /// that reuses or runs another also depends on what that one looked up.
    pub(crate) fn consulted(lookups: &[(String, Option<RegTy>)]) {
        for (name, t) in lookups {
            Self::record(name, *t);
        }
    }

    /// `parse()`, and the names it looked up in a context.
    pub(crate) fn recording<T>(parse: impl FnOnce() -> T) -> (T, Consulted) {
        let outer = CONSULTED.with(|c| c.borrow_mut().replace(Vec::new()));
        let r = parse();
        let log = CONSULTED.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer));
        let log = log.unwrap_or_default();
        Self::consulted(&log);
        (r, log)
    }

    /// Whether this context answers every lookup of `consulted` as it was answered.
    pub(crate) fn answers(&self, consulted: &Consulted) -> bool {
        consulted
            .iter()
            .all(|(n, t)| self.decls.get(n.as_str()).copied() == *t)
    }

    /// Is `name` a predicate? Declared type wins; undeclared names follow PTX habits: `%p…`
    /// registers, and the documentation's single-letter predicate names `p`/`q`.
    pub fn is_pred(&self, name: &str) -> bool {
        if let Some(t) = self.declared(name) {
            return t == RegTy::Pred;
        }
        let lower = name.to_ascii_lowercase();
        (lower.starts_with("%p") && lower[2..].chars().all(|c| c.is_ascii_digit()))
            || matches!(lower.as_str(), "p" | "q" | "%p")
            || lower.contains("pred")
            || lower.contains("ignore")
    }
    /// Register width in bits: the declared type, else PTX's naming habits (`%rd…` 64-bit,
    /// `%rs…` 16-bit, `%r…` 32-bit, `%p…` predicate); `None` when nothing tells.
    pub fn width(&self, name: &str) -> Option<u32> {
        if let Some(t) = self.declared(name) {
            return Some(t.bits());
        }
        if self.is_pred(name) {
            return Some(1);
        }
        let digits_after = |p: &str| {
            name.strip_prefix(p)
                .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
        };
        if digits_after("%rd") {
            Some(64)
        } else if digits_after("%rs") {
            Some(16)
        } else if digits_after("%r") {
            Some(32)
        } else {
            None
        }
    }
    /// Record `.reg .TYPE a, b, c<N>` declarations (`<N>` ranges declare name0..nameN-1).
    pub fn declare(&mut self, stmt: &str) -> bool {
        let t = stmt.trim();
        let Some(rest) = t.strip_prefix(".reg") else {
            return false;
        };
        let rest = rest.trim_start();
        let (ty, names) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let Some(ty) = RegTy::from_ptx(ty).or_else(|| {
            if ty == ".f32" || ty == ".f64" {
                Some(RegTy::B32)
            } else {
                None
            }
        }) else {
            return true;
        };
        for n in names.split(',') {
            let n = n.trim();
            if let Some((base, count)) = n.split_once('<') {
                let count: usize = count.trim_end_matches('>').parse().unwrap_or(0);
                for i in 0..count.min(4096) {
                    self.decls.insert(format!("{base}{i}"), ty);
                }
            } else if !n.is_empty() {
                self.decls.insert(n.to_string(), ty);
            }
        }
        true
    }
}

/// One operand as written, before a family gives it a role.
#[derive(Clone, Debug, PartialEq)]
pub enum RawOperand {
    Value(Value),
    Addr(Address),
    Tensor(TensorRef),
    Vector(Vec<Value>),
}

impl RawOperand {
    fn kind(&self) -> &'static str {
        match self {
            RawOperand::Value(Value::Reg(_)) => "a register",
            RawOperand::Value(Value::Imm(_)) => "an immediate",
            RawOperand::Addr(_) => "an address `[...]`",
            RawOperand::Tensor(_) => "a tensor reference `[map, {...}]`",
            RawOperand::Vector(_) => "a vector `{...}`",
        }
    }
}

/// The operand list of one instruction, with the offset of each operand for error messages.
#[derive(Clone, Debug)]
pub struct Args {
    pub items: Vec<(usize, RawOperand)>,
    /// Offset just past the last operand (for "missing operand" errors).
    pub end: usize,
}

fn value(c: &mut Cursor<'_>, what: &str) -> Result<Value, SyntaxError> {
    if let Some((_, n)) = c.ident() {
        return Ok(Value::Reg(n.to_string()));
    }
    if let Some((_, v)) = c.integer() {
        return Ok(Value::Imm(v));
    }
    Err(c.error(what))
}

fn vector(c: &mut Cursor<'_>) -> Result<Vec<Value>, SyntaxError> {
    c.expect('{', "`{`")?;
    let mut out = Vec::new();
    if c.eat('}') {
        return Ok(out);
    }
    loop {
        out.push(value(c, "a vector element (register or immediate)")?);
        if c.eat('}') {
            return Ok(out);
        }
        c.expect(',', "`,` or `}` in vector")?;
    }
}

fn bracketed(c: &mut Cursor<'_>) -> Result<RawOperand, SyntaxError> {
    c.expect('[', "`[`")?;
    c.skip_ws();
    let base_at = c.pos;
    let base = if let Some((_, n)) = c.ident() {
        AddrBase::Name(n.to_string())
    } else if let Some((_, v)) = c.integer() {
        AddrBase::Abs(v as u64)
    } else {
        return Err(c.error("an address base (register, symbol or immediate)"));
    };
    if c.eat(',') {
        let AddrBase::Name(map) = base else {
            return Err(SyntaxError::new(
                base_at,
                "a tensor-map register or symbol",
                "an immediate",
            ));
        };
        let coords = vector(c)?;
        c.expect(']', "`]` closing the tensor reference")?;
        return Ok(RawOperand::Tensor(TensorRef { map, coords }));
    }
    let mut offset = 0i64;
    loop {
        c.skip_ws();
        let sign = if c.eat('+') {
            1
        } else if c.peek() == Some('-') {
            c.pos += 1;
            -1
        } else {
            break;
        };
        let (_, v) = c.integer().ok_or_else(|| c.error("an integer offset"))?;
        offset = offset.wrapping_add(sign * v);
    }
    c.expect(']', "`]` or `+offset` in address")?;
    Ok(RawOperand::Addr(Address { base, offset }))
}

impl Args {
    /// Parse a comma-separated operand list up to the end of the statement.
    pub fn parse(c: &mut Cursor<'_>) -> Result<Args, SyntaxError> {
        let mut items = Vec::new();
        if c.at_end() {
            return Ok(Args { items, end: c.pos });
        }
        loop {
            c.skip_ws();
            let at = c.pos;
            let op = match c.peek() {
                Some('[') => bracketed(c)?,
                Some('{') => RawOperand::Vector(vector(c)?),
                _ => RawOperand::Value(value(c, "an operand")?),
            };
            items.push((at, op));
            if c.at_end() {
                return Ok(Args { items, end: c.pos });
            }
            c.expect(',', "`,` between operands")?;
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    fn get(&self, i: usize, what: &str) -> Result<&(usize, RawOperand), SyntaxError> {
        self.items.get(i).ok_or_else(|| {
            SyntaxError::new(
                self.end,
                format!("operand {} ({what})", i + 1),
                "end of instruction",
            )
        })
    }
    fn wrong(&self, i: usize, what: &str) -> SyntaxError {
        let (at, op) = &self.items[i];
        SyntaxError::new(*at, what.to_string(), op.kind())
    }

    /// Error unless the operand count is in `lo..=hi`.
    pub fn count(&self, lo: usize, hi: usize, what: &str) -> Result<(), SyntaxError> {
        if self.len() < lo {
            return Err(SyntaxError::new(
                self.end,
                format!("{lo} operands ({what})"),
                format!("{}", self.len()),
            ));
        }
        if self.len() > hi {
            let (at, _) = self.items[hi];
            return Err(SyntaxError::new(
                at,
                format!("at most {hi} operands ({what})"),
                format!("{}", self.len()),
            ));
        }
        Ok(())
    }
    pub fn addr(&self, i: usize, what: &str) -> Result<Address, SyntaxError> {
        match &self.get(i, what)?.1 {
            RawOperand::Addr(a) => Ok(a.clone()),
            _ => Err(self.wrong(i, &format!("{what} as an address `[...]`"))),
        }
    }
    pub fn value(&self, i: usize, what: &str) -> Result<Value, SyntaxError> {
        match &self.get(i, what)?.1 {
            RawOperand::Value(v) => Ok(v.clone()),
            _ => Err(self.wrong(i, &format!("{what} (register or immediate)"))),
        }
    }
    /// A register-only operand.
    pub fn reg(&self, i: usize, what: &str) -> Result<String, SyntaxError> {
        match &self.get(i, what)?.1 {
            RawOperand::Value(Value::Reg(r)) => Ok(r.clone()),
            _ => Err(self.wrong(i, &format!("{what} (a register)"))),
        }
    }
    pub fn imm(&self, i: usize, what: &str) -> Result<i64, SyntaxError> {
        match &self.get(i, what)?.1 {
            RawOperand::Value(Value::Imm(v)) => Ok(*v),
            _ => Err(self.wrong(i, &format!("{what} (an integer constant)"))),
        }
    }
    pub fn tensor(&self, i: usize, what: &str) -> Result<TensorRef, SyntaxError> {
        match &self.get(i, what)?.1 {
            RawOperand::Tensor(t) => Ok(t.clone()),
            _ => Err(self.wrong(i, &format!("{what} as `[tensorMap, {{coords}}]`"))),
        }
    }
    pub fn vector(&self, i: usize, what: &str) -> Result<Vec<Value>, SyntaxError> {
        match &self.get(i, what)?.1 {
            RawOperand::Vector(v) => Ok(v.clone()),
            _ => Err(self.wrong(i, &format!("{what} as a vector `{{...}}`"))),
        }
    }
    pub fn is_vector(&self, i: usize) -> bool {
        matches!(self.items.get(i), Some((_, RawOperand::Vector(_))))
    }
    pub fn offset_of(&self, i: usize) -> usize {
        self.items.get(i).map(|x| x.0).unwrap_or(self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_operands() {
        let mut c = Cursor::new("[%r0 + 8], [tmap, {x0, 3}], {a, b}, 16, cache-policy");
        let a = Args::parse(&mut c).unwrap();
        assert_eq!(a.len(), 5);
        assert_eq!(a.addr(0, "dst").unwrap(), Address::reg_off("%r0", 8));
        assert_eq!(
            a.tensor(1, "t").unwrap().coords,
            vec![Value::reg("x0"), Value::Imm(3)]
        );
        assert_eq!(a.vector(2, "v").unwrap().len(), 2);
        assert_eq!(a.imm(3, "cp-size").unwrap(), 16);
        assert_eq!(a.reg(4, "policy").unwrap(), "cache-policy");
        assert!(a.addr(3, "x").is_err());
        assert_eq!(Address::reg_off("%r0", 8).to_string(), "[%r0+8]");
        assert_eq!(Address::reg_off("%r0", -8).to_string(), "[%r0-8]");
    }

    #[test]
    fn decls() {
        let mut ctx = ParseCtx::default();
        assert!(ctx.declare(".reg .pred x, y<2>"));
        assert!(ctx.is_pred("x") && ctx.is_pred("y1") && !ctx.is_pred("y2"));
        assert!(ctx.is_pred("%p3") && !ctx.is_pred("%r3"));
    }
}
