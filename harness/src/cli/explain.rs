//! `ptxconform explain CASE_FILE [--case NAME]`: run a case on the reference model and print a
//! step-by-step trace — each op, the byte ranges it touched (exact or uncertain) and the mbarrier
//! states after it — then the outcome and the final state of the checked regions.

use crate::run::reference::{evaluate, expected_regions};
use crate::report::ExpectedByte;
use ptxconform_reference::case::load_file;
use ptxconform_reference::sem::exec::Outcome;
use std::path::PathBuf;

#[derive(clap::Args, Debug, Clone)]
pub struct ExplainArgs {
    /// A YAML case file.
    pub file: PathBuf,
    /// The case to explain (default: every case of the file).
    #[arg(long)]
    pub case: Option<String>,
    /// Bytes of each region to print (0 = all).
    #[arg(long, default_value_t = 64)]
    pub bytes: usize,
}

fn show(b: &ExpectedByte) -> String {
    match b {
        ExpectedByte::Known(v) => format!("{v:02x}"),
        ExpectedByte::OneOf(s) if s.len() == 2 => format!("{{{:02x}|{:02x}}}", s[0], s[1]),
        ExpectedByte::OneOf(s) => format!("{{{} values}}", s.len()),
        ExpectedByte::Any => "??".into(),
    }
}

pub fn explain_text(file: &str, case: &ptxconform_reference::case::Case, bytes: usize) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let (r, ex) = evaluate(file, case);
    let _ = writeln!(o, "case {} ({}), target {}", case.name, file, case.target);
    match ex {
        Err(e) => {
            let _ = writeln!(o, "cannot execute: {e}");
        }
        Ok(x) => {
            for t in &x.trace {
                let _ = write!(o, "{t}");
            }
            match &x.outcome {
                Outcome::Defined => {
                    let _ = writeln!(o, "outcome: well defined; hardware expected to {:?}", x.expected_hw);
                }
                Outcome::Undefined { ub, step } => {
                    let _ = writeln!(o, "outcome: UNDEFINED at step {step}: {} (§{}) — {}; hardware expected: {:?}", ub.rule, ub.section, ub.detail, x.expected_hw);
                }
            }
            for (name, exp) in expected_regions(case, &x) {
                let n = if bytes == 0 { exp.len() } else { exp.len().min(bytes) };
                let shown: Vec<String> = exp[..n].iter().map(show).collect();
                let more = if n < exp.len() { format!(" … ({} bytes)", exp.len()) } else { String::new() };
                let _ = writeln!(o, "  {name}: {}{more}", shown.join(" "));
            }
        }
    }
    let _ = writeln!(o, "verdict: {}{}", r.verdict.name(), if r.detail.is_empty() { String::new() } else { format!(" — {}", r.detail) });
    o
}

pub fn main(args: &ExplainArgs) -> Result<i32, String> {
    let cases = load_file(&args.file).map_err(|e| e.to_string())?;
    let file = args.file.display().to_string();
    let mut n = 0;
    for c in cases.iter().filter(|c| args.case.as_ref().is_none_or(|w| &c.name == w)) {
        print!("{}", explain_text(&file, c, args.bytes));
        println!();
        n += 1;
    }
    if n == 0 {
        return Err(format!("{file}: no case named {}", args.case.clone().unwrap_or_default()));
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxconform_reference::case::load_str;

    #[test]
    fn trace_shows_steps_uncertainty_and_outcome() {
        let c = load_str(
            r#"
name: t
target: sm_90a
memory:
  global: [ { name: src, size: 16, init: { fill: 7 } } ]
  shared: [ { name: buf, size: 16 } ]
program:
  - ptx: cp.async.ca.shared.global [buf], [src], 4
check: [buf]
"#,
            "t.yaml",
        )
        .unwrap()
        .remove(0);
        let t = explain_text("t.yaml", &c, 8);
        assert!(t.contains("#0 cta 0 thread 0: cp.async.ca.shared.global [buf], [src], 4"), "{t}");
        assert!(t.contains("uncertain"), "no completing wait: the copy's bytes are uncertain\n{t}");
        assert!(t.contains("buf@cta0: {00|07} {00|07} {00|07} {00|07} 00"), "{t}");
        assert!(t.contains("outcome: well defined"), "{t}");
    }
}
