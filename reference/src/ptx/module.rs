//! A PTX module read statement by statement: modelled instructions parsed, every other
//! instruction, directive, label and brace kept in place, structural problems located. This is
//! the front door of `ptxconform syntax` and `ptxconform check`.

use super::lex::{self, Cursor, Kind, Pos, SourceStatement, SyntaxError};
use super::opcode::Opcode;
use super::operand::ParseCtx;
use super::{Guard, Instruction, Statement};
use crate::target::{PtxVersion, Target};

/// The result of reading one statement of a PTX source text.
#[derive(Debug)]
pub enum Parsed {
    /// A modelled instruction.
    Instr(Pos, Statement),
    /// A directive, label or brace: the module's structure, kept in place.
    Directive(Pos),
    /// An instruction outside the modelled families (`add`, `ld`, `bra`, `tcgen05.mma`, …): read
    /// and kept in place, not checked. The string is its opcode.
    Skipped(Pos, String),
    Error(Pos, SyntaxError),
}

/// One statement with what reading it gave. A statement with a structural problem (a missing
/// `;`, an unmatched brace) appears twice: once read, once as the error.
#[derive(Debug)]
pub struct Item<'a> {
    pub stmt: SourceStatement<'a>,
    pub parsed: Parsed,
}

/// Read every statement of a PTX text in order. `.reg` declarations feed the parse context
/// (cp.async's fourth operand depends on its type) within their block's scope.
pub fn read_source(src: &str) -> Vec<Item<'_>> {
    let mut ctx = ParseCtx::default();
    let mut scopes: Vec<ParseCtx> = Vec::new();
    let mut out = Vec::new();
    for st in lex::statements(src) {
        let at = st.first_pos();
        let parsed = match st.kind {
            Kind::Open => {
                scopes.push(ctx.clone());
                Some(Parsed::Directive(at))
            }
            Kind::Close => {
                if let Some(outer) = scopes.pop() {
                    ctx = outer;
                }
                Some(Parsed::Directive(at))
            }
            Kind::Directive => {
                ctx.declare(&st.text);
                Some(Parsed::Directive(at))
            }
            Kind::Label => Some(Parsed::Directive(at)),
            Kind::Instruction => Some(read_instruction(&st, &ctx)),
            Kind::Malformed => None,
        };
        let error = st
            .error
            .clone()
            .map(|e| Parsed::Error(st.locate(e.offset), e));
        if let Some(parsed) = parsed {
            out.push(Item {
                stmt: st.clone(),
                parsed,
            });
        }
        if let Some(parsed) = error {
            out.push(Item { stmt: st, parsed });
        }
    }
    out
}

/// A modelled instruction is parsed in full; any other is read only as far as its opcode.
fn read_instruction(st: &SourceStatement<'_>, ctx: &ParseCtx) -> Parsed {
    let mut c = Cursor::new(&st.text);
    let op = Guard::parse(&mut c).and_then(|_| Opcode::parse(&mut c));
    match op {
        Err(e) => Parsed::Error(st.locate(e.offset), e),
        Ok(op) if !Instruction::is_modelled(&op) => Parsed::Skipped(st.first_pos(), op.text()),
        Ok(_) => match Statement::parse_with(&st.text, ctx) {
            Ok(s) => Parsed::Instr(st.first_pos(), s),
            Err(e) => Parsed::Error(st.locate(e.offset), e),
        },
    }
}

/// [`read_source`] without the statements' text.
pub fn parse_source(src: &str) -> Vec<Parsed> {
    read_source(src).into_iter().map(|i| i.parsed).collect()
}

/// The header directives that decide legality: `.version` and `.target`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub version: Option<PtxVersion>,
    pub target: Option<Target>,
}

impl Header {
    /// The module's `.version` and `.target` (its `sm_` entry; `texmode_independent`, `debug` and
    /// the like are ignored). A malformed one is a located error.
    pub fn of(items: &[Item<'_>]) -> Result<Header, (Pos, String)> {
        let mut h = Header::default();
        for it in items {
            if it.stmt.kind != Kind::Directive {
                continue;
            }
            let t = it.stmt.text.trim();
            let at = it.stmt.first_pos();
            if let Some(v) = directive_arg(t, ".version") {
                h.version = Some(v.parse().map_err(|e| (at, e))?);
            } else if let Some(list) = directive_arg(t, ".target") {
                let sm = list
                    .split(',')
                    .map(str::trim)
                    .find(|x| x.starts_with("sm_"))
                    .ok_or_else(|| (at, format!("`.target {list}` names no sm_ target")))?;
                h.target = Some(sm.parse().map_err(|e| (at, e))?);
            }
        }
        Ok(h)
    }
}

/// The argument of directive `name` if `text` is that directive.
fn directive_arg<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let rest = text.strip_prefix(name)?;
    rest.starts_with(char::is_whitespace).then(|| rest.trim())
}

/// The function a `.entry` / `.func` directive declares or defines (`.func (.param .b32 r) f(…)`
/// names `f`); `None` for any other directive.
pub fn function_name(directive: &str) -> Option<&str> {
    let t = directive.trim();
    let at = [".entry", ".func"]
        .iter()
        .filter_map(|w| t.find(w).map(|i| i + w.len()))
        .filter(|&i| t[i..].starts_with(|c: char| c.is_whitespace() || c == '('))
        .min()?;
    let mut rest = t[at..].trim_start();
    if rest.starts_with('(') {
        rest = rest[rest.find(')')? + 1..].trim_start();
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}
