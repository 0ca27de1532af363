//! `ptxconform check FILE.ptx... [--targets …] [--format text|json]`: the modelled
//! asynchronous-copy instructions of real PTX modules (a kernel compiled by nvcc, Triton, CUTLASS),
//! each with its location and the model's static legality: on the module's own `.target` at its
//! `.version`, and on each requested target with the least PTX ISA version it needs there. Exit 1 if an instruction is illegal for the module's own target and version,
//! 2 if a file cannot be read (missing, a malformed modelled instruction, a bad header).

use super::syntax::read_input;
use ptxconform_reference::capped;
use ptxconform_reference::ptx::lex::Kind;
use ptxconform_reference::ptx::module::{function_name, Header};
use ptxconform_reference::ptx::{read_source, Parsed, Statement};
use ptxconform_reference::target::{
    PtxVersion, Requirement, Support, Target, TargetClass, Verdict,
};
use serde::Serialize;
use std::collections::BTreeSet;
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
    /// One line per kernel (function) of each module instead of five per instruction; then the
    /// problems and the totals.
    #[arg(long, conflicts_with = "quiet")]
    pub summary: bool,
    /// Only the problems (instructions illegal for their module's own target and version, what
    /// could not be read) and the totals line.
    #[arg(short, long)]
    pub quiet: bool,
}

/// How much the text report says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Every instruction with its verdict on each target.
    Instructions,
    /// One line per kernel.
    Kernels,
    /// Nothing but the problems and the totals.
    Problems,
}

impl CheckArgs {
    pub fn detail(&self) -> Detail {
        match (self.summary, self.quiet) {
            (_, true) => Detail::Problems,
            (true, false) => Detail::Kernels,
            (false, false) => Detail::Instructions,
        }
    }
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

    /// Instructions illegal for the module's own target and version.
    fn illegal(&self) -> impl Iterator<Item = (&Found, &OnTarget)> {
        self.instructions
            .iter()
            .filter_map(|f| Some((f, f.module.as_ref().filter(|m| !m.legal)?)))
    }

    /// The compiler-style errors (stderr): what could not be read, then every instruction that
    /// is illegal for the module's own target and version.
    pub fn problems(&self) -> Vec<String> {
        let mut errs = self.errors.clone();
        errs.extend(self.illegal().map(|(f, m)| {
            format!(
                "{}:{}:{}: error: `{}` is not legal for .target {} .version {}: {}",
                self.file,
                f.line,
                f.col,
                f.row,
                m.target,
                m.ptx,
                m.reason.as_deref().unwrap_or_default()
            )
        }));
        errs
    }

    /// The report (stdout) at `detail`, and the problems (stderr).
    pub fn text(&self, detail: Detail) -> (String, Vec<String>) {
        let out = match detail {
            Detail::Instructions => self.instruction_lines(),
            Detail::Kernels => self.kernel_lines(),
            Detail::Problems => String::new(),
        };
        (out, self.problems())
    }

    /// One line per kernel: its modelled instructions and how many are illegal where.
    fn kernel_lines(&self) -> String {
        let mut kernels: Vec<(Option<&str>, Vec<&Found>)> = Vec::new();
        for f in &self.instructions {
            let name = f.function.as_deref();
            match kernels.iter_mut().find(|(k, _)| *k == name) {
                Some((_, found)) => found.push(f),
                None => kernels.push((name, vec![f])),
            }
        }
        let mut out = format!("{}: {}\n", self.file, self.header());
        for (name, found) in kernels {
            let name = name.map_or("(outside functions)".into(), |n| format!("[{n}]"));
            let verdicts = |pick: &dyn Fn(&Found) -> Option<&OnTarget>| {
                let n = found
                    .iter()
                    .filter(|f| pick(f).is_some_and(|o| !o.legal))
                    .count();
                if n == 0 {
                    "all legal".to_string()
                } else {
                    format!("{n} illegal")
                }
            };
            let mut line = format!(
                "{} {name}: {} modelled instructions",
                self.file,
                found.len()
            );
            if let Some(m) = found.first().and_then(|f| f.module.as_ref()) {
                let module = verdicts(&|f: &Found| f.module.as_ref());
                line += &format!(
                    "; module (.target {} .version {}): {module}",
                    m.target, m.ptx
                );
            }
            for (i, t) in found[0].targets.iter().enumerate() {
                line += &format!(
                    "; {}: {}",
                    t.target,
                    verdicts(&|f: &Found| f.targets.get(i))
                );
            }
            out += &line;
            out.push('\n');
        }
        out
    }

    fn header(&self) -> String {
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
        format!(
            "{header}: {} modelled instructions, {} skipped (not modelled)",
            self.modelled, self.skipped
        )
    }

    /// Every instruction with its verdict on the module's target and each requested one.
    fn instruction_lines(&self) -> String {
        let mut out = String::new();
        out += &format!("{}: {}\n", self.file, self.header());
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
            }
            for o in &f.targets {
                out += &format!("    {}: {}\n", o.target, verdict(o));
            }
            for t in &f.target_specific {
                out += &format!("    target-specific: {t}\n");
            }
        }
        out
    }
}

/// What every module checked held, for the last line of the text report.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub files: usize,
    pub kernels: usize,
    pub modelled: usize,
    pub skipped: usize,
    pub illegal: usize,
    pub unreadable: usize,
}

impl Totals {
    pub fn of(reports: &[FileReport], unreadable_files: usize) -> Totals {
        let mut t = Totals {
            files: reports.len() + unreadable_files,
            unreadable: unreadable_files,
            ..Totals::default()
        };
        for r in reports {
            let kernels: BTreeSet<Option<&str>> = r
                .instructions
                .iter()
                .map(|f| f.function.as_deref())
                .collect();
            t.kernels += kernels.len();
            t.modelled += r.modelled;
            t.skipped += r.skipped;
            t.illegal += r.illegal().count();
            t.unreadable += r.errors.len();
        }
        t
    }
}

impl std::fmt::Display for Totals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "total: {} files, {} kernels, {} modelled instructions ({} skipped); {} illegal for \
             their module's target and version; {} unreadable",
            self.files, self.kernels, self.modelled, self.skipped, self.illegal, self.unreadable
        )
    }
}

/// Print `errors` to stderr, at most [`capped::SHOWN`] of them and then how many more there were.
fn eprint_capped(errors: impl IntoIterator<Item = String>) {
    let c = capped::Capped::new(errors, capped::SHOWN);
    for e in &c.shown {
        eprintln!("{e}");
    }
    if let Some(more) = c.more_line("errors") {
        eprintln!("{more}");
    }
}

/// Check every file; the highest exit code wins.
pub fn main(args: &CheckArgs) -> Result<i32, String> {
    let mut code = 0;
    let mut reports = Vec::new();
    let mut unreadable = 0;
    for f in &args.files {
        match read_input(Some(f)) {
            Ok((name, src)) => reports.push(check(&name, &src, &args.targets)),
            Err(e) => {
                eprintln!("ptxconform: error: {e}");
                unreadable += 1;
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
            eprint_capped(reports.iter().flat_map(|r| r.errors.iter().cloned()));
        }
        Format::Text => {
            let mut problems = Vec::new();
            for r in &reports {
                let (out, errs) = r.text(args.detail());
                print!("{out}");
                problems.extend(errs);
            }
            eprint_capped(problems);
            println!("{}", Totals::of(&reports, unreadable));
        }
    }
    Ok(code)
}
