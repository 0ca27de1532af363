//! `ptxconform new FAMILY`: a commented starter case for an instruction family, to copy into a
//! case file and edit. Each starter lives in `cli/starters/FAMILY.yaml`; a test loads every one
//! and runs it on the reference (it must meet its `expect`).

#[derive(clap::Args, Debug)]
pub struct NewArgs {
    /// The instruction family (see --list).
    #[arg(required_unless_present = "list")]
    family: Option<String>,
    /// List the families that have a starter.
    #[arg(long)]
    list: bool,
}

/// (family, what the starter shows, the starter case).
pub const STARTERS: &[(&str, &str, &str)] = &[
    (
        "cp.async",
        "non-bulk copy global -> shared, cp.async-group completion",
        include_str!("starters/cp.async.yaml"),
    ),
    (
        "cp.async.bulk",
        "bulk copy global -> shared, mbarrier complete_tx",
        include_str!("starters/cp.async.bulk.yaml"),
    ),
    (
        "cp.reduce.async.bulk",
        "bulk add shared -> global, bulk async-group completion",
        include_str!("starters/cp.reduce.async.bulk.yaml"),
    ),
    (
        "cp.async.bulk.prefetch",
        "L2 prefetch of global memory (changes nothing)",
        include_str!("starters/cp.async.bulk.prefetch.yaml"),
    ),
    (
        "cp.async.bulk.tensor",
        "tile load through a tensor map, mbarrier complete_tx",
        include_str!("starters/cp.async.bulk.tensor.yaml"),
    ),
    (
        "mbarrier",
        "a phase completed by two threads' arrivals",
        include_str!("starters/mbarrier.yaml"),
    ),
    (
        "tcgen05.cp",
        "shared memory -> Tensor Memory through a matrix descriptor",
        include_str!("starters/tcgen05.cp.yaml"),
    ),
];

/// The starter of `family`, or an error listing the families.
pub fn starter(family: &str) -> Result<&'static str, String> {
    STARTERS
        .iter()
        .find(|s| s.0 == family)
        .map(|s| s.2)
        .ok_or_else(|| format!("no starter for `{family}`; families: {}", families()))
}

fn families() -> String {
    STARTERS.iter().map(|s| s.0).collect::<Vec<_>>().join(", ")
}

pub fn main(a: &NewArgs) -> Result<i32, String> {
    match (&a.family, a.list) {
        (_, true) => {
            for (f, what, _) in STARTERS {
                println!("{f:<24} {what}");
            }
        }
        (Some(f), false) => print!("{}", starter(f)?),
        (None, false) => return Err(format!("name a family: {}", families())),
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use ptxconform_reference::case::load_str;

    /// Every starter loads, states what it expects, and meets it on the reference.
    #[test]
    fn every_starter_runs_on_the_reference() {
        for (family, _, text) in super::STARTERS {
            let origin = format!("starters/{family}.yaml");
            let cases = load_str(text, &origin).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(cases.len(), 1, "{family}");
            let c = &cases[0];
            assert!(
                c.expect.is_some(),
                "{family}: a starter says what it expects"
            );
            let (r, _) = ptxconform_core::evaluate::evaluate(&origin, c);
            assert!(!r.verdict.is_failure(), "{family}: {}", r.detail);
            // The starter exercises its family: some step is an instruction of it.
            assert!(
                c.program.iter().any(|s| matches!(&s.op,
                    ptxconform_reference::case::StepOp::Ptx(p) if p.starts_with(&format!("{family}.")) || p.starts_with(&format!("{family} ")))),
                "{family}: no step of the family"
            );
        }
    }

    #[test]
    fn families_are_distinct_and_unknown_ones_are_named() {
        let mut names: Vec<&str> = super::STARTERS.iter().map(|s| s.0).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), super::STARTERS.len());
        assert!(super::starter("cp.async")
            .unwrap()
            .contains("name: starter.cp_async"));
        let e = super::starter("cp.sync").unwrap_err();
        assert!(e.contains("`cp.sync`") && e.contains("tcgen05.cp"), "{e}");
    }
}
