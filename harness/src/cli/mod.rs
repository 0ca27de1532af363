//! Subcommand implementations that are not a module of their own.

pub mod check;
pub mod coverage;
pub mod emit;
pub mod explain;
pub mod field_reference;
pub mod new;
pub mod rules;
pub mod schema;
pub mod syntax;
pub mod tensormaps;

use ptxconform_reference::target::Target;

/// A `--targets` entry: a target the pinned ptxas knows. `Target`'s own parser takes any
/// `sm_NN`, and a verdict on an invented target (`sm_99`) would read as a fact.
pub fn known_target(s: &str) -> Result<Target, String> {
    let t: Target = s.parse()?;
    if Target::all_known().contains(&t) {
        return Ok(t);
    }
    let known: Vec<String> = Target::all_known().iter().map(|t| t.to_string()).collect();
    Err(format!(
        "`{t}` is not a target the pinned ptxas knows ({})",
        known.join(" ")
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_targets_only() {
        assert_eq!(super::known_target("sm_90a").unwrap().to_string(), "sm_90a");
        let e = super::known_target("sm_99").unwrap_err();
        assert!(
            e.starts_with("`sm_99` is not a target") && e.contains("sm_100a"),
            "{e}"
        );
        assert!(super::known_target("sm80").is_err());
    }
}
