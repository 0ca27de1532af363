//! Finding and running the pinned ptxas (CUDA 13.0), and reading its diagnostics.
//!
//! ptxas is the oracle of the static-legality differential: it says which (instruction, target,
//! PTX version) triples the assembler accepts. `$PTXAS`, when set, is the only candidate (a choice
//! that does not exist is an error, never a silent fallback); otherwise `PATH`,
//! `$CUDA_HOME/bin/ptxas`, then the `nvidia-cuda-nvcc` PyPI package (`nvidia/cu13/bin/ptxas` under
//! a Python site-packages directory).

use ptxconform_reference::target::Target;
use rayon::prelude::*;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// Environment variable that turns "ptxas not found" from a skip into a failure (set by CI).
pub const REQUIRE_ENV: &str = "PTXCONFORM_REQUIRE_PTXAS";

/// How grave a ptxas diagnostic is, as ptxas labels it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Warning,
    Error,
    /// Ends the assembly: syntax errors, bad options, unreadable input; also this module's own
    /// failures to run ptxas at all.
    Fatal,
}

impl Severity {
    /// ptxas's label (`error   :`, padded to the longest, `warning`).
    fn from_label(label: &str) -> Option<Severity> {
        Some(match label {
            "info" => Severity::Info,
            "warning" => Severity::Warning,
            "error" => Severity::Error,
            "fatal" => Severity::Fatal,
            _ => return None,
        })
    }
}

/// One diagnostic of ptxas. `line` is the 1-based line of the PTX text, `None` for messages
/// ptxas does not attach to a line (options, input files, failure to run).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    pub line: Option<usize>,
    pub severity: Severity,
    pub message: String,
}

impl Diagnostic {
    /// A failure of this module (writing the input, starting ptxas), not a line ptxas wrote.
    fn ours(message: String) -> Diagnostic {
        Diagnostic {
            line: None,
            severity: Severity::Fatal,
            message,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// A located ptxas binary.
#[derive(Clone, Debug)]
pub struct Ptxas {
    pub path: PathBuf,
    /// The release line of `ptxas --version`, e.g. `Cuda compilation tools, release 13.0, V13.0.88`.
    pub version: String,
}

/// The errors in ptxas's stderr ([`Severity::Error`] and [`Severity::Fatal`], in order), as
/// [`diagnostics`] reads them.
pub fn parse_errors(stderr: &str) -> Vec<Diagnostic> {
    diagnostics(stderr)
        .filter(|d| d.severity >= Severity::Error)
        .collect()
}

/// ptxas's closing line after errors: it says only that errors came before it.
const ABORTED: &str = "Ptx assembly aborted due to errors";

/// Every diagnostic of ptxas's stderr but the closing [`ABORTED`] line. ptxas has no structured
/// output, so this reads its text format, and is the only code that does: one diagnostic a
/// line, `ptxas FILE, line N; LABEL : MESSAGE` or `ptxas LABEL : MESSAGE` (LABEL `info`,
/// `warning`, `error` or `fatal`, padded with spaces). Other lines (the indented continuations
/// of `info` lines) are skipped.
fn diagnostics(stderr: &str) -> impl Iterator<Item = Diagnostic> + '_ {
    stderr
        .lines()
        .filter_map(diagnostic)
        .filter(|d| !(d.line.is_none() && d.severity == Severity::Fatal && d.message == ABORTED))
}

/// One line of ptxas's stderr, if it is a diagnostic.
fn diagnostic(l: &str) -> Option<Diagnostic> {
    let rest = l.trim().strip_prefix("ptxas ")?;
    if let Some(d) = labelled(rest, None) {
        return Some(d);
    }
    // FILE may hold anything, `, line ` included: take the first place where a line number
    // and a label follow.
    rest.match_indices(", line ").find_map(|(i, sep)| {
        let (num, tail) = rest[i + sep.len()..].split_once("; ")?;
        labelled(tail, Some(num.parse().ok()?))
    })
}

/// `LABEL : MESSAGE`.
fn labelled(text: &str, line: Option<usize>) -> Option<Diagnostic> {
    let (label, message) = text.split_once(':')?;
    Some(Diagnostic {
        line,
        severity: Severity::from_label(label.trim_end())?,
        message: message.trim().to_string(),
    })
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

impl Ptxas {
    /// Locate ptxas and read its version.
    pub fn find() -> Result<Ptxas, String> {
        match std::env::var_os("PTXAS").filter(|p| !p.is_empty()) {
            Some(p) if !Path::new(&p).is_file() => Err(format!(
                "ptxas not found: $PTXAS is {}, which is not a file (unset it to search PATH, \
                 $CUDA_HOME/bin and the nvidia-cuda-nvcc Python package)",
                Path::new(&p).display()
            )),
            _ => Ptxas::find_in(&candidates()),
        }
    }

    /// The first existing file of `cands`.
    fn find_in(cands: &[PathBuf]) -> Result<Ptxas, String> {
        for c in cands {
            if c.is_file() {
                return Ptxas::at(c);
            }
        }
        Err(format!(
            "ptxas not found (looked at $PTXAS, PATH, $CUDA_HOME/bin and the nvidia-cuda-nvcc Python package: {}); \
             install it with `python3 -m pip install nvidia-cuda-nvcc==13.0.88` or set PTXAS",
            cands.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        ))
    }

    /// Use the ptxas at `path`.
    pub fn at(path: &Path) -> Result<Ptxas, String> {
        let out = Command::new(path)
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot run {}: {e}", path.display()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let version = text
            .lines()
            .find(|l| l.contains("release"))
            .or_else(|| text.lines().last())
            .unwrap_or("unknown version")
            .trim()
            .to_string();
        Ok(Ptxas {
            path: path.to_path_buf(),
            version,
        })
    }

    /// Assemble `ptx` for `target` (`-arch` is set to the same target as the text's `.target`).
    pub fn assemble(&self, ptx: &str, target: Target) -> Result<(), Vec<Diagnostic>> {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let file = std::env::temp_dir().join(format!("ptxconform-{}-{n}.ptx", std::process::id()));
        let fail = |m: String| vec![Diagnostic::ours(m)];
        std::fs::write(&file, ptx)
            .map_err(|e| fail(format!("cannot write {}: {e}", file.display())))?;
        let out = Command::new(&self.path)
            .arg(format!("-arch={target}"))
            .arg(&file)
            .arg("-o")
            .arg("/dev/null")
            .output();
        let _ = std::fs::remove_file(&file);
        let out = out.map_err(|e| fail(format!("cannot run {}: {e}", self.path.display())))?;
        if out.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let mut errs = parse_errors(&stderr);
        if errs.is_empty() {
            // Failed without a diagnostic we understand: keep what it said.
            errs = fail(format!("ptxas failed ({}): {}", out.status, stderr.trim()));
        }
        Err(errs)
    }

    /// Assemble many texts in parallel (rayon), results in input order.
    pub fn assemble_all(&self, jobs: &[(String, Target)]) -> Vec<Result<(), Vec<Diagnostic>>> {
        jobs.par_iter()
            .map(|(t, target)| self.assemble(t, *target))
            .collect()
    }
}

/// Where to look, in order. Only existing files are used; the list is also the "not found" hint.
pub fn candidates() -> Vec<PathBuf> {
    let var = |k| std::env::var_os(k).filter(|p| !p.is_empty());
    if let Some(p) = var("PTXAS") {
        return candidates_from(Some(p), None, None, Vec::new());
    }
    candidates_from(None, var("PATH"), var("CUDA_HOME"), python_dirs())
}

/// The candidate list for given environment values (pure, for tests). An explicit `ptxas` is the
/// only candidate: a user who names one must not silently get another.
fn candidates_from(
    ptxas: Option<std::ffi::OsString>,
    path: Option<std::ffi::OsString>,
    cuda_home: Option<std::ffi::OsString>,
    site_dirs: Vec<PathBuf>,
) -> Vec<PathBuf> {
    if let Some(p) = ptxas {
        return vec![PathBuf::from(p)];
    }
    let mut v = Vec::new();
    if let Some(path) = path {
        v.extend(std::env::split_paths(&path).map(|d| d.join("ptxas")));
    }
    v.extend(cuda_home.map(|h| PathBuf::from(h).join("bin/ptxas")));
    v.extend(
        site_dirs
            .into_iter()
            .map(|d| d.join("nvidia/cu13/bin/ptxas")),
    );
    v
}

/// site-packages directories that may hold the `nvidia` namespace package: what python3 reports,
/// then common install locations (pyenv, user and system site-packages).
fn python_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let script = "import site,sys\n\
        for p in site.getsitepackages()+[site.getusersitepackages()]+sys.path: print(p)\n\
        try:\n import nvidia\n for p in nvidia.__path__: print(p+'/..')\n\
        except Exception: pass";
    for py in ["python3", "python"] {
        if let Ok(out) = Command::new(py).arg("-c").arg(script).output() {
            if out.status.success() {
                dirs.extend(
                    String::from_utf8_lossy(&out.stdout)
                        .lines()
                        .filter(|l| !l.is_empty())
                        .map(PathBuf::from),
                );
                break;
            }
        }
    }
    let mut globs: Vec<PathBuf> = Vec::new();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut roots: Vec<PathBuf> = vec!["/usr/local/lib".into(), "/usr/lib".into()];
    if let Some(h) = &home {
        roots.push(h.join(".local/lib"));
        if let Ok(rd) = std::fs::read_dir(h.join(".pyenv/versions")) {
            roots.extend(rd.flatten().map(|e| e.path().join("lib")));
        }
    }
    for r in roots {
        if let Ok(rd) = std::fs::read_dir(&r) {
            for e in rd.flatten() {
                let name = e.file_name();
                if name.to_string_lossy().starts_with("python3") {
                    globs.push(e.path().join("site-packages"));
                    globs.push(e.path().join("dist-packages"));
                }
            }
        }
    }
    dirs.extend(globs);
    dirs
}

/// For tests: the ptxas to use, or `None` when it is absent and `PTXCONFORM_REQUIRE_PTXAS` is
/// unset, after a [`crate::test_support::note`]. Panics when it is absent but required.
pub fn for_tests() -> Option<Ptxas> {
    match Ptxas::find() {
        Ok(p) => Some(p),
        Err(e) if std::env::var_os(REQUIRE_ENV).is_some() => panic!("{REQUIRE_ENV} is set but {e}"),
        Err(e) => {
            crate::test_support::note(&e, REQUIRE_ENV);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines ptxas 13.0.88 wrote (file names shortened): errors of a bad instruction, a warning
    /// of a located instruction, a syntax error, bad options and input, `-v`'s info lines with
    /// a continuation, and the closing line after errors.
    const REAL: &str = "\
ptxas a.ptx, line 7; error   : Unknown modifier '.foo'
ptxas v.ptx, line 8; warning : Instruction 'vote' without '.sync' may produce unpredictable results on sm_70 and later architectures
ptxas a.ptx, line 8; error   : Not a name of any known instruction: 'bogus'
ptxas b.ptx, line 7; fatal   : Parsing error near ';': syntax error
ptxas fatal   : Ptx assembly aborted due to errors
ptxas fatal   : Value 'sm_999' is not defined for option 'gpu-name'
ptxas warning : For entry k adjusting per thread register count of 16 to lower bound of 24
ptxas info    : Function properties for k
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas fatal   : Input file 'nonexist.ptx' could not be opened
";

    fn d(line: Option<usize>, severity: Severity, message: &str) -> Diagnostic {
        Diagnostic {
            line,
            severity,
            message: message.into(),
        }
    }

    #[test]
    fn reads_every_diagnostic_of_real_output() {
        use Severity::*;
        let all: Vec<Diagnostic> = diagnostics(REAL).collect();
        let vote = "Instruction 'vote' without '.sync' may produce unpredictable results on sm_70 \
                    and later architectures";
        let regs = "For entry k adjusting per thread register count of 16 to lower bound of 24";
        assert_eq!(
            all,
            [
                d(Some(7), Error, "Unknown modifier '.foo'"),
                d(Some(8), Warning, vote),
                d(
                    Some(8),
                    Error,
                    "Not a name of any known instruction: 'bogus'"
                ),
                d(Some(7), Fatal, "Parsing error near ';': syntax error"),
                d(
                    None,
                    Fatal,
                    "Value 'sm_999' is not defined for option 'gpu-name'"
                ),
                d(None, Warning, regs),
                d(None, Info, "Function properties for k"),
                d(None, Fatal, "Input file 'nonexist.ptx' could not be opened"),
            ]
        );
        let errors = parse_errors(REAL);
        assert_eq!(errors.len(), 5, "{errors:?}");
        assert!(errors.iter().all(|e| e.severity >= Error), "{errors:?}");
        assert_eq!(
            errors[1].to_string(),
            "line 8: Not a name of any known instruction: 'bogus'"
        );
    }

    #[test]
    fn file_names_and_messages_may_hold_the_separators() {
        let odd = "ptxas /tmp/a, line 1; b: c/x.ptx, line 13; error   : expected ', line 9; x'";
        assert_eq!(
            parse_errors(odd),
            [d(Some(13), Severity::Error, "expected ', line 9; x'")]
        );
        // Not ptxas's format: no diagnostic.
        for other in [
            "ptxas a.ptx, line x; error   : m",
            "ptxas a.ptx, line 3; note    : m",
            "nvlink error : m",
            "",
        ] {
            assert_eq!(diagnostics(other).count(), 0, "{other}");
        }
    }

    #[test]
    fn discovery_order() {
        let c = candidates_from(
            Some("/opt/x/ptxas".into()),
            Some("/a:/b".into()),
            Some("/cuda".into()),
            vec!["/sp".into()],
        );
        assert_eq!(
            c,
            vec![PathBuf::from("/opt/x/ptxas")],
            "$PTXAS is the only candidate"
        );
        let c = candidates_from(
            None,
            Some("/a:/b".into()),
            Some("/cuda".into()),
            vec!["/sp".into()],
        );
        let want: Vec<PathBuf> = [
            "/a/ptxas",
            "/b/ptxas",
            "/cuda/bin/ptxas",
            "/sp/nvidia/cu13/bin/ptxas",
        ]
        .map(PathBuf::from)
        .into();
        assert_eq!(c, want);
        assert_eq!(
            candidates_from(None, None, None, vec![]),
            Vec::<PathBuf>::new()
        );
    }

    #[test]
    fn discovery_takes_first_existing_and_reads_version() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("ptxconform-fake-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fake = dir.join("ptxas");
        std::fs::write(
            &fake,
            "#!/bin/sh\necho 'ptxas: fake'\necho 'Cuda compilation tools, release 99.9, V99.9.1'\n",
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let p = Ptxas::find_in(&[dir.join("missing/ptxas"), fake.clone()]).unwrap();
        assert_eq!(p.path, fake);
        assert_eq!(p.version, "Cuda compilation tools, release 99.9, V99.9.1");
        assert!(Ptxas::find_in(&[dir.join("missing/ptxas")]).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn finds_and_runs_ptxas() {
        let Some(p) = for_tests() else { return };
        assert!(p.version.contains("release"), "{}", p.version);
        let good =
            ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n";
        assert_eq!(p.assemble(good, Target::SM_90A), Ok(()));
        let bad = good.replace("ret;", "bogus.instr;\nret;");
        let e = p.assemble(&bad, Target::SM_90A).unwrap_err();
        assert!(!e.is_empty());
        // Its errors, each at the bad line; the closing line is not one.
        let at_6 = |x: &Diagnostic| x.line == Some(6) && x.severity == Severity::Error;
        assert!(e.iter().all(at_6), "{e:?}");
    }
}
