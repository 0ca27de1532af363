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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::cp_async::{CpAsyncOp, Fill};

    /// Each item as (line, what): `I` modelled text, `S` skipped opcode, `D` structure, `E` error.
    fn summary(src: &str) -> Vec<(usize, String)> {
        parse_source(src)
            .into_iter()
            .map(|p| match p {
                Parsed::Instr(at, s) => (at.line, format!("I {s}")),
                Parsed::Skipped(at, op) => (at.line, format!("S {op}")),
                Parsed::Directive(at) => (at.line, "D".into()),
                Parsed::Error(at, e) => (at.line, format!("E {}:{} {e}", at.line, at.col)),
            })
            .collect()
    }

    #[test]
    fn instruction_after_directive_without_semicolon_is_kept() {
        let got = summary(".version 8.0\n.target sm_90\ncp.async.commit_group;\n");
        assert_eq!(
            got,
            vec![
                (1, "D".into()),
                (2, "D".into()),
                (3, "I cp.async.commit_group;".into())
            ]
        );
    }

    #[test]
    fn instruction_after_brace_on_its_own_line_is_kept() {
        let got = summary(".visible .entry k()\n{\ncp.async.wait_all;\n}\n");
        assert_eq!(got[2], (3, "I cp.async.wait_all;".into()), "{got:?}");
        assert_eq!(got.len(), 4, "{got:?}");
    }

    #[test]
    fn module_statements_are_kept_in_order() {
        let src = "\
.version 8.0 // header
.target sm_90a
.address_size 64
.visible .entry k(
    .param .u64 k_p0
)
.maxntid 128, 1, 1
{
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x; /* a ; in a comment */
$L__BB0_1:
    @!%p1 bra $L__BB0_1;
    @%p1 fence.proxy.async.shared::cta;
    mbarrier.try_wait.parity.shared::cta.b64 %p1,
        [%r2], 0;
    .pragma \"nounroll\";
}
";
        let got = summary(src);
        let want: Vec<(usize, String)> = vec![
            (1, "D".into()),
            (2, "D".into()),
            (3, "D".into()),
            (4, "D".into()),
            (7, "D".into()),
            (8, "D".into()),
            (9, "D".into()),
            (10, "S mov.u32".into()),
            (11, "D".into()),
            (12, "S bra".into()),
            (13, "I @%p1 fence.proxy.async.shared::cta;".into()),
            (
                14,
                "I mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 0;".into(),
            ),
            (16, "D".into()),
            (17, "D".into()),
        ];
        assert_eq!(got, want);
        let items = read_source(src);
        assert_eq!(items[3].stmt.kind, Kind::Directive);
        assert_eq!(function_name(&items[3].stmt.text), Some("k"));
        assert_eq!(
            Header::of(&items),
            Ok(Header {
                version: Some(PtxVersion::new(8, 0)),
                target: Some(Target::SM_90A),
            })
        );
    }

    #[test]
    fn missing_semicolon_is_located_and_drops_nothing() {
        let got = summary("add.u32 %r1, %r2, %r3\ncp.async.commit_group;\n");
        assert_eq!(
            got,
            vec![
                (1, "S add.u32".into()),
                (
                    1,
                    "E 1:22 expected `;` at the end of the statement, found a new statement on line 2"
                        .into()
                ),
                (2, "I cp.async.commit_group;".into()),
            ]
        );
    }

    #[test]
    fn structural_errors_are_located() {
        let got = summary("{\n  cp.async.commit_group;\n");
        assert_eq!(
            got[1],
            (
                1,
                "E 1:1 expected a `}` closing this `{`, found end of input".into()
            )
        );
        let got = summary("cp.async.commit_group;\n  }\n");
        assert_eq!(
            got[2],
            (
                2,
                "E 2:3 expected an open `{` before this `}`, found none".into()
            )
        );
        let got = summary("cp.async.commit_group;\n /* open");
        assert_eq!(
            got.last().unwrap(),
            &(
                2,
                "E 2:2 expected `*/` closing the comment, found end of input".into()
            )
        );
    }

    #[test]
    fn malformed_modelled_instruction_is_an_error_unmodelled_is_not() {
        let got = summary("foo.bar %r1;\ntcgen05.mma.cta_group::1.kind::f16 [t], a, b, i, p;\n  cp.async.bulk.bogus [a], [b], 4;\n");
        assert_eq!(got[0], (1, "S foo.bar".into()));
        assert_eq!(got[1], (2, "S tcgen05.mma.cta_group::1.kind::f16".into()));
        assert!(got[2].1.starts_with("E 3:"), "{got:?}");
        // A misspelt copy is not quietly skipped.
        let got = summary("cp.asnyc.ca.shared.global [a], [b], 4;");
        assert_eq!(
            got,
            vec![(
                1,
                "E 1:1 expected an asynchronous-copy family instruction, found `cp.asnyc.ca.shared.global`".into()
            )]
        );
    }

    #[test]
    fn reg_declarations_are_scoped_to_their_block() {
        let src = "{\n.reg .pred flag;\ncp.async.ca.shared.global [a], [b], 4, flag;\n}\ncp.async.ca.shared.global [a], [b], 4, flag;\n";
        let fills: Vec<Fill> = parse_source(src)
            .into_iter()
            .filter_map(|p| match p {
                Parsed::Instr(_, s) => match s.instr {
                    Instruction::CpAsync(CpAsyncOp::Copy(c)) => Some(c.fill),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        assert_eq!(fills.len(), 2);
        assert_eq!(fills[0], Fill::IgnoreSrc("flag".into()));
        assert!(
            matches!(fills[1], Fill::SrcSize(_)),
            "outside its block `flag` is not a declared predicate: {:?}",
            fills[1]
        );
    }

    #[test]
    fn nvcc_module_forms_are_directives() {
        // An extern declaration ending on its own line, initializers with braces over lines, a
        // call prototype after a label, a debug section with labels and bytes inside.
        let src = ".version 8.0\n.target sm_90a, debug\n.file 1 \"//src/a.cu\"\n\
.extern .func (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0\n)\n;\n\
.global .align 4 .b8 tbl[8] = {1, 2, 3,\n  4, 5, 6, 7, 8};\n\
.visible .entry k()\n{\n\tprototype_0 : .callprototype ()_ (.param .b32 _);\n\
\tcp.async.commit_group;\n\tret;\n}\n\
.section\t.debug_str\n{\n$L__info_string0:\n.b8 95,90,0\n}\n";
        let got = summary(src);
        let lines = |what: &str| -> Vec<usize> {
            got.iter()
                .filter(|(_, w)| w.starts_with(what))
                .map(|(l, _)| *l)
                .collect()
        };
        assert_eq!(lines("E"), Vec::<usize>::new(), "{got:?}");
        assert_eq!(lines("I"), vec![14]);
        assert_eq!(lines("S"), vec![15]);
        assert_eq!(lines("D"), vec![1, 2, 3, 4, 9, 11, 12, 13, 13, 16, 17]);
        let h = Header::of(&read_source(src)).unwrap();
        assert_eq!(h.target, Some(Target::SM_90A));
    }

    #[test]
    fn function_names() {
        assert_eq!(
            function_name(".func (.param .b32 r) swz(.param .b32 a)"),
            Some("swz")
        );
        assert_eq!(function_name(".visible .entry gemm("), Some("gemm"));
        assert_eq!(function_name(".reg .b32 %r<4>"), None);
    }
}
