//! `ptxconform emit CASE_FILE [--case NAME]`: print the PTX program of a case.

use ptxconform_gpu::emit::emit;
use ptxconform_reference::case::load_file;
use std::path::PathBuf;

#[derive(clap::Args, Debug, Clone)]
pub struct EmitArgs {
    /// YAML case file.
    pub file: PathBuf,
    /// Which case of the file (default: the only one; required when the file holds several).
    #[arg(long)]
    pub case: Option<String>,
}

/// The PTX of the selected case.
pub fn render(args: &EmitArgs) -> Result<String, String> {
    let cases = load_file(&args.file).map_err(|e| e.to_string())?;
    let case = match &args.case {
        Some(n) => cases.iter().find(|c| &c.name == n).ok_or_else(|| {
            let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
            format!(
                "{}: no case `{n}` (cases: {})",
                args.file.display(),
                names.join(", ")
            )
        })?,
        None if cases.len() == 1 => &cases[0],
        None if cases.is_empty() => return Err(format!("{}: no cases", args.file.display())),
        None => {
            let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
            return Err(format!(
                "{} holds {} cases; pick one with --case ({})",
                args.file.display(),
                cases.len(),
                names.join(", ")
            ));
        }
    };
    emit(case)
        .map(|e| e.ptx.to_string())
        .map_err(|e| e.to_string())
}

/// Print the PTX; exit code 0.
pub fn main(args: &EmitArgs) -> Result<i32, String> {
    print!("{}", render(args)?);
    Ok(0)
}
