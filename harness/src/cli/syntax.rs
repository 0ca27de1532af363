//! `ptxconform syntax [FILE]`: parse PTX text with the reference model's front door, print each
//! modelled instruction canonically, and report errors as `FILE:LINE:COL: error: …`.

use ptxconform_reference::ptx::{parse_source, Parsed};
use std::io::Read;
use std::path::PathBuf;

#[derive(clap::Args, Debug, Clone)]
pub struct SyntaxArgs {
    /// PTX file (standard input if absent).
    pub file: Option<PathBuf>,
}

/// Canonical text (stdout lines) and diagnostics (stderr lines) for `src` named `name`.
pub fn check(name: &str, src: &str) -> (Vec<String>, Vec<String>) {
    let mut out = Vec::new();
    let mut errs = Vec::new();
    for p in parse_source(src) {
        match p {
            Parsed::Instr(_, s) => out.push(s.to_string()),
            Parsed::Directive(_) => {}
            Parsed::Error(pos, e) => {
                errs.push(format!("{name}:{}:{}: error: {e}", pos.line, pos.col))
            }
        }
    }
    (out, errs)
}

/// Exit code 1 if any statement failed to parse.
pub fn main(args: &SyntaxArgs) -> Result<i32, String> {
    let (name, src) = match &args.file {
        Some(f) => (
            f.display().to_string(),
            std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?,
        ),
        None => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| format!("<stdin>: {e}"))?;
            ("<stdin>".to_string(), s)
        }
    };
    let (out, errs) = check(&name, &src);
    for l in &out {
        println!("{l}");
    }
    for e in &errs {
        eprintln!("{e}");
    }
    Ok(if errs.is_empty() { 0 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_located() {
        let (_, errs) = check("f.ptx", "// header\n  bogus.op [a], b;\n");
        assert_eq!(errs.len(), 1);
        assert!(
            errs[0].starts_with("f.ptx:2:3: error: expected "),
            "{}",
            errs[0]
        );
    }
}
