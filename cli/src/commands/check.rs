//! `ptxconform check FILE.ptx... [--targets …] [--format text|json]`: the modelled
//! asynchronous-copy instructions of real PTX modules (a kernel compiled by nvcc, Triton, CUTLASS),
//! each with its location and the model's static legality: on the module's own `.target` at its
//! `.version`, and on each requested target with the least PTX ISA version it needs there. Exit 1 if an instruction is illegal for the module's own target and version,
//! 2 if a file cannot be read (missing, a malformed modelled instruction, a bad header).

use super::syntax::read_input;
use ptxconform_reference::ptx::lex::Kind;
use ptxconform_reference::ptx::module::{function_name, Header};
use ptxconform_reference::ptx::{read_source, Parsed, Statement};
use ptxconform_reference::target::{
    PtxVersion, Requirement, Support, Target, TargetClass, Verdict,
};
use serde::Serialize;
use std::path::PathBuf;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

#[derive(clap::Args, Debug, Clone)]
pub struct CheckArgs {
    /// PTX modules.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Comma-separated targets to judge every instruction on, besides the module's own.
    #[arg(long, value_delimiter = ',', default_value = "sm_80,sm_90a,sm_100a", value_parser = crate::legality::known_target)]
    pub targets: Vec<Target>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// One module's report.
#[derive(Debug, Serialize)]
pub struct FileReport {
    pub file: String,
    pub version: Option<String>,
    pub target: Option<String>,
    /// Modelled instructions found, and instructions read but not modelled.
    pub modelled: usize,
    pub skipped: usize,
    pub instructions: Vec<Found>,
    /// `FILE:LINE:COL: error: …` for what could not be read.
    pub errors: Vec<String>,
}

/// One modelled instruction.
#[derive(Debug, Serialize)]
pub struct Found {
    pub line: usize,
    pub col: usize,
    /// The `.entry` / `.func` it belongs to.
    pub function: Option<String>,
    /// Canonical text.
    pub instruction: String,
    pub family: &'static str,
    /// The coverage row (opcode and qualifiers), as `coverage` and `legality` name it.
    pub row: String,
    /// On the module's own `.target` at its `.version` (9.0 if it has none); absent without
    /// a `.target`.
    pub module: Option<OnTarget>,
    /// On each requested target at the newest PTX ISA version (9.0); `min_ptx` says from which
    /// version on.
    pub targets: Vec<OnTarget>,
    /// Restrictions that only architecture- or family-specific targets (`sm_90a`, `sm_100a`,
    /// `sm_100f`, …) meet, each with the targets that do.
    pub target_specific: Vec<String>,
}

/// The model's verdict on one target at one PTX ISA version.
#[derive(Debug, Serialize)]
pub struct OnTarget {
    pub target: String,
    pub ptx: String,
    pub legal: bool,
    /// The least PTX ISA version at which this target accepts it; absent if none does.
    pub min_ptx: Option<String>,
    /// `min_ptx` is newer than the module's `.version`: this module could not use it there.
    pub above_module_version: bool,
    /// Why it is not legal here.
    pub reason: Option<String>,
}

fn alternatives(s: &Support) -> String {
    if s.any.is_empty() {
        return "no target".into();
    }
    let alts: Vec<String> = s
        .any
        .iter()
        .map(|a| format!("{} (PTX {})", a.class, a.ptx))
        .collect();
    alts.join(", ")
}

fn judge(req: &Requirement, t: Target, ptx: PtxVersion) -> OnTarget {
    let reason = match req.verdict(t, ptx) {
        Verdict::Legal => None,
        Verdict::WrongTarget { why } => {
            Some(match req.all.iter().find(|s| s.min_ptx_for(t).is_none()) {
                Some(s) => format!("{why}: needs {}", alternatives(s)),
                None => why,
            })
        }
        Verdict::PtxTooOld { why, needs } => {
            Some(format!("needs PTX {needs} on {t} ({why}), not {ptx}"))
        }
    };
    OnTarget {
        target: t.to_string(),
        ptx: ptx.to_string(),
        legal: reason.is_none(),
        min_ptx: req.min_ptx_for(t).ok().map(|v| v.to_string()),
        above_module_version: false,
        reason,
    }
}

/// Restrictions whose every alternative is an `a` or `f` target class.
fn target_specific(req: &Requirement) -> Vec<String> {
    req.all
        .iter()
        .filter(|s| {
            !s.any.is_empty()
                && s.any
                    .iter()
                    .all(|a| !matches!(a.class, TargetClass::AtLeast(_)))
        })
        .map(|s| format!("{}: {}", s.why, alternatives(s)))
        .collect()
}

/// Check the module `src` named `name`.
pub fn check(name: &str, src: &str, targets: &[Target]) -> FileReport {
    let items = read_source(src);
    let mut r = FileReport {
        file: name.to_string(),
        version: None,
        target: None,
        modelled: 0,
        skipped: 0,
        instructions: Vec::new(),
        errors: Vec::new(),
    };
    let header = Header::of(&items).unwrap_or_else(|(at, e)| {
        r.errors
            .push(format!("{name}:{}:{}: error: {e}", at.line, at.col));
        Header::default()
    });
    r.version = header.version.map(|v| v.to_string());
    r.target = header.target.map(|t| t.to_string());
    let mut function = None;
    for it in &items {
        if it.stmt.kind == Kind::Directive {
            if let Some(f) = function_name(&it.stmt.text) {
                function = Some(f.to_string());
            }
        }
        match &it.parsed {
            Parsed::Instr(at, s) => {
                r.modelled += 1;
                r.instructions
                    .push(found(s, at.line, at.col, &function, header, targets));
            }
            Parsed::Skipped(..) => r.skipped += 1,
            Parsed::Error(at, e) => r
                .errors
                .push(format!("{name}:{}:{}: error: {e}", at.line, at.col)),
            Parsed::Directive(_) => {}
        }
    }
    r
}

fn found(
    s: &Statement,
    line: usize,
    col: usize,
    function: &Option<String>,
    header: Header,
    targets: &[Target],
) -> Found {
    let req = s.instr.requirement();
    let judge = |t: Target, ptx: PtxVersion| {
        let mut o = judge(&req, t, ptx);
        o.above_module_version = header
            .version
            .is_some_and(|m| req.min_ptx_for(t).is_ok_and(|v| v > m));
        o
    };
    Found {
        line,
        col,
        function: function.clone(),
        instruction: s.to_string(),
        family: s.instr.family(),
        row: s.instr.row(),
        module: header
            .target
            .map(|t| judge(t, header.version.unwrap_or(PtxVersion::MAX_SUPPORTED))),
        targets: targets
            .iter()
            .map(|&t| judge(t, PtxVersion::MAX_SUPPORTED))
            .collect(),
        target_specific: target_specific(&req),
    }
}

impl FileReport {
    /// 2 if something could not be read, 1 if an instruction is illegal for the module's own
    /// target and version, else 0.
    pub fn exit_code(&self) -> i32 {
        if !self.errors.is_empty() {
            2
        } else if self
            .instructions
            .iter()
            .any(|f| f.module.as_ref().is_some_and(|m| !m.legal))
        {
            1
        } else {
            0
        }
    }

    /// The text report (stdout) and the compiler-style errors (stderr).
    pub fn text(&self) -> (String, Vec<String>) {
        let mut out = String::new();
        let mut errs = self.errors.clone();
        let header = match (&self.version, &self.target) {
            (Some(v), Some(t)) => format!(".version {v} .target {t}"),
            (None, Some(t)) => format!(
                "no .version (judged at PTX {}) .target {t}",
                PtxVersion::MAX_SUPPORTED
            ),
            (Some(v), None) => format!(".version {v}, no .target"),
            (None, None) => format!(
                "no .version (judged at PTX {}), no .target",
                PtxVersion::MAX_SUPPORTED
            ),
        };
        out += &format!(
            "{}: {header}: {} modelled instructions, {} skipped (not modelled)\n",
            self.file, self.modelled, self.skipped
        );
        for f in &self.instructions {
            let func = f
                .function
                .as_deref()
                .map(|n| format!("[{n}] "))
                .unwrap_or_default();
            out += &format!(
                "{}:{}:{}: {func}{}\n",
                self.file, f.line, f.col, f.instruction
            );
            let verdict = |o: &OnTarget| match (&o.reason, &o.min_ptx) {
                (Some(r), _) => format!("illegal: {r}"),
                (None, Some(v)) if o.above_module_version => {
                    format!("legal from PTX {v}, newer than this module's .version")
                }
                (None, Some(v)) => format!("legal from PTX {v}"),
                (None, None) => "legal".into(),
            };
            if let Some(m) = &f.module {
                out += &format!(
                    "    module (.target {} .version {}): {}\n",
                    m.target,
                    m.ptx,
                    verdict(m)
                );
                if let Some(r) = &m.reason {
                    errs.push(format!(
                        "{}:{}:{}: error: `{}` is not legal for .target {} .version {}: {r}",
                        self.file, f.line, f.col, f.row, m.target, m.ptx
                    ));
                }
            }
            for o in &f.targets {
                out += &format!("    {}: {}\n", o.target, verdict(o));
            }
            for t in &f.target_specific {
                out += &format!("    target-specific: {t}\n");
            }
        }
        (out, errs)
    }
}

/// Check every file; the highest exit code wins.
pub fn main(args: &CheckArgs) -> Result<i32, String> {
    let mut code = 0;
    let mut reports = Vec::new();
    for f in &args.files {
        match read_input(Some(f)) {
            Ok((name, src)) => reports.push(check(&name, &src, &args.targets)),
            Err(e) => {
                eprintln!("ptxconform: error: {e}");
                code = 2;
            }
        }
    }
    for r in &reports {
        code = code.max(r.exit_code());
    }
    match args.format {
        Format::Json => {
            let v = serde_json::json!({ "files": reports });
            println!(
                "{}",
                serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
            );
            for r in &reports {
                for e in &r.errors {
                    eprintln!("{e}");
                }
            }
        }
        Format::Text => {
            for r in &reports {
                let (out, errs) = r.text();
                print!("{out}");
                for e in errs {
                    eprintln!("{e}");
                }
            }
        }
    }
    Ok(code)
}
