//! `ptxconform syntax [FILE]`: read a PTX module (or a few statements) with the reference model's
//! front door and print it back statement by statement: modelled instructions canonically, every
//! other statement in place (an unmodelled instruction marked `// skipped: not modelled`);
//! errors as `FILE:LINE:COL: error: …`.

use ptxconform_reference::ptx::lex::Kind;
use ptxconform_reference::ptx::{read_source, Parsed};
use std::io::Read;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug, Clone)]
pub struct SyntaxArgs {
    /// PTX file (standard input if absent).
    pub file: Option<PathBuf>,
    /// Print only the modelled instructions (canonically), not the whole module.
    #[arg(long)]
    pub modelled: bool,
}

/// What reading a text gave: the listing (stdout lines), diagnostics (stderr lines) and counts.
#[derive(Debug, Default)]
pub struct Listing {
    pub out: Vec<String>,
    pub errors: Vec<String>,
    pub modelled: usize,
    pub skipped: usize,
}

/// Read `src` named `name`. With `modelled_only`, list only the modelled instructions.
pub fn list(name: &str, src: &str, modelled_only: bool) -> Listing {
    let mut l = Listing::default();
    let mut depth = 0usize;
    for it in read_source(src) {
        let text = it
            .stmt
            .text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let (line, is_modelled) = match it.parsed {
            Parsed::Instr(_, s) => {
                l.modelled += 1;
                (s.to_string(), true)
            }
            Parsed::Skipped(..) => {
                l.skipped += 1;
                (format!("{text};  // skipped: not modelled"), false)
            }
            Parsed::Error(pos, e) => {
                l.errors
                    .push(format!("{name}:{}:{}: error: {e}", pos.line, pos.col));
                continue;
            }
            Parsed::Directive(_) if it.stmt.has_semicolon() => (format!("{text};"), false),
            Parsed::Directive(_) => (text, false),
        };
        if it.stmt.kind == Kind::Close {
            depth = depth.saturating_sub(1);
        }
        if !modelled_only || is_modelled {
            let indent = if modelled_only { 0 } else { depth * 4 };
            l.out.push(format!("{:indent$}{line}", ""));
        }
        if it.stmt.kind == Kind::Open {
            depth += 1;
        }
    }
    l
}

/// The text of `file` (standard input if `None`) and the name diagnostics give it.
pub fn read_input(file: Option<&Path>) -> Result<(String, String), String> {
    match file {
        Some(f) => Ok((
            f.display().to_string(),
            std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?,
        )),
        None => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| format!("<stdin>: {e}"))?;
            Ok(("<stdin>".to_string(), s))
        }
    }
}

/// Exit code 1 if any statement failed to read.
pub fn main(args: &SyntaxArgs) -> Result<i32, String> {
    let (name, src) = read_input(args.file.as_deref())?;
    let l = list(&name, &src, args.modelled);
    for line in &l.out {
        println!("{line}");
    }
    for e in &l.errors {
        eprintln!("{e}");
    }
    eprintln!(
        "{name}: {} modelled instructions, {} skipped (not modelled), {} errors",
        l.modelled,
        l.skipped,
        l.errors.len()
    );
    Ok(if l.errors.is_empty() { 0 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_located() {
        let l = list("f.ptx", "// header\n  cp.async.bogus [a], b;\n", false);
        assert_eq!(l.errors.len(), 1);
        assert!(
            l.errors[0].starts_with("f.ptx:2:17: error: expected cache operator"),
            "{}",
            l.errors[0]
        );
    }
}
