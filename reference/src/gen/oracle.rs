//! Oracles over generated cases (after wasmtime's `fuzzing::oracles`): small checks behind one
//! trait, each returning a [`Violation`] instead of panicking, so fuzz targets and tests are a few
//! lines of glue.

use super::{Generated, Intent};
use crate::case::model::Case;
use crate::case::validate::case_errors;
use crate::case::validate::parsed_steps;
use crate::target::{PtxVersion, Verdict};
use std::fmt;

/// Which oracle found a violation: campaigns decide on it (a case that does not validate may
/// still reproduce a `Validates` violation while minimizing), never on its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OracleId {
    /// [`Validates`]: the case validates and its steps print back.
    Validates,
    /// [`StaticLegality`]: legal-by-construction programs are legal on their target.
    StaticLegality,
    /// [`YamlRoundTrip`]: the case survives YAML serialization.
    YamlRoundTrip,
    /// [`Reference`]: the reference runs and reaches the intended outcome.
    Reference,
    /// ptxas agrees with the legality model (the CLI's oracle, outside this crate).
    Ptxas,
}

impl OracleId {
    /// The name reports and signatures show.
    pub fn name(self) -> &'static str {
        match self {
            OracleId::Validates => "validates",
            OracleId::StaticLegality => "static_legality",
            OracleId::YamlRoundTrip => "yaml_roundtrip",
            OracleId::Reference => "reference",
            OracleId::Ptxas => "ptxas",
        }
    }
}

impl fmt::Display for OracleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An invariant that failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    pub oracle: OracleId,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.oracle, self.message)
    }
}

impl std::error::Error for Violation {}

/// Whether `v` prints exactly `text`, compared piece by piece as it prints (no string built).
fn prints_as(v: &impl fmt::Display, text: &str) -> bool {
    struct Rest<'a>(&'a str);
    impl fmt::Write for Rest<'_> {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0 = self.0.strip_prefix(s).ok_or(fmt::Error)?;
            Ok(())
        }
    }
    let mut rest = Rest(text);
    fmt::write(&mut rest, format_args!("{v}")).is_ok() && rest.0.is_empty()
}

fn fail(oracle: OracleId, message: impl Into<String>) -> Result<(), Violation> {
    Err(Violation {
        oracle,
        message: message.into(),
    })
}

pub trait Oracle {
    fn id(&self) -> OracleId;
    fn check(&self, g: &Generated) -> Result<(), Violation>;
}

/// The case validates (no error-severity problem) and every `ptx:` step parses and prints back
/// to the same text.
pub struct Validates;

impl Oracle for Validates {
    fn id(&self) -> OracleId {
        OracleId::Validates
    }
    fn check(&self, g: &Generated) -> Result<(), Violation> {
        let errs: Vec<String> = case_errors(&g.case)
            .into_iter()
            .map(|p| format!("{:?}: {}", p.path, p.message))
            .collect();
        if !errs.is_empty() {
            return fail(self.id(), errs.join("; "));
        }
        let parsed = parsed_steps(&g.case);
        for ((i, text), parsed) in ptx_steps(&g.case).zip(parsed.iter().flatten().map(|p| &**p)) {
            match parsed {
                Ok(st) if prints_as(&st.instr, text) => {}
                Ok(st) => {
                    return fail(
                        self.id(),
                        format!("step {i}: `{text}` reprints as `{}`", st.instr),
                    )
                }
                Err(e) => {
                    return fail(self.id(), format!("step {i}: `{text}` does not parse: {e}"))
                }
            }
        }
        Ok(())
    }
}

/// The model's static verdicts match the intent: every step legal for the target at the pinned
/// PTX ISA unless the intent is `Illegal`, and then the named step is not.
pub struct StaticLegality;

impl Oracle for StaticLegality {
    fn id(&self) -> OracleId {
        OracleId::StaticLegality
    }
    fn check(&self, g: &Generated) -> Result<(), Violation> {
        let parsed = parsed_steps(&g.case);
        for ((i, text), parsed) in ptx_steps(&g.case).zip(parsed.iter().flatten().map(|p| &**p)) {
            let Ok(st) = parsed else {
                continue;
            };
            let v = st
                .instr
                .requirement()
                .verdict(g.case.target, PtxVersion::MAX_SUPPORTED);
            match (&g.intent, v) {
                (Intent::Illegal { step, .. }, Verdict::Legal) if *step == i => {
                    return fail(
                        self.id(),
                        format!(
                            "step {i} `{text}` meant illegal but the model finds it legal on {}",
                            g.case.target
                        ),
                    )
                }
                (Intent::Illegal { step, .. }, _) if *step == i => {}
                (_, Verdict::Legal) => {}
                (_, v) => {
                    return fail(
                        self.id(),
                        format!("step {i} `{text}` on {}: {v:?}", g.case.target),
                    )
                }
            }
        }
        Ok(())
    }
}

/// `to_yaml` then `load_str` gives back the same case.
pub struct YamlRoundTrip;

impl Oracle for YamlRoundTrip {
    fn id(&self) -> OracleId {
        OracleId::YamlRoundTrip
    }
    fn check(&self, g: &Generated) -> Result<(), Violation> {
        round_trip(g, &program_yaml(g))
    }
}

/// A program's YAML, as [`YamlRoundTrip`] reads it back (and a campaign fingerprints it).
pub fn program_yaml(g: &Generated) -> String {
    crate::case::to_yaml(std::slice::from_ref(&g.case))
}

/// [`YamlRoundTrip`] of `g` over its YAML `text` ([`program_yaml`]).
fn round_trip(g: &Generated, text: &str) -> Result<(), Violation> {
    match crate::case::load_str(text, "generated") {
        Ok(back) if back.len() == 1 && back[0] == g.case => Ok(()),
        Ok(back) => fail(
            YamlRoundTrip.id(),
            format!("round trip changed the case:\n{text}\n=> {back:?}"),
        ),
        Err(e) => fail(
            YamlRoundTrip.id(),
            format!("generated YAML does not load: {e}\n{text}"),
        ),
    }
}

/// The reference executor never panics, returns no executor error for generated cases, and
/// classifies exactly as intended: well defined cases run to the end with every wait completed,
/// undefined / racy ones are undefined by the intended rule.
pub struct Reference;

impl Oracle for Reference {
    fn id(&self) -> OracleId {
        OracleId::Reference
    }
    fn check(&self, g: &Generated) -> Result<(), Violation> {
        if matches!(g.intent, Intent::Illegal { .. }) {
            return Ok(());
        }
        check_reference_intent(&g.case, &g.intent)
    }
}

fn check_reference_intent(case: &Case, intent: &Intent) -> Result<(), Violation> {
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| exec::run(case)));
    let outcome = match run {
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            return fail(OracleId::Reference, format!("executor panicked: {msg}"));
        }
        Ok(None) => return Ok(()), // no executor in this build
        Ok(Some(Err(e))) => {
            return fail(
                OracleId::Reference,
                format!("executor error on a generated case: {e}"),
            )
        }
        Ok(Some(Ok(o))) => o,
    };
    match (intent, outcome) {
        (Intent::WellDefined, exec::Outcome::Defined) => Ok(()),
        (Intent::Undefined { rule } | Intent::Racy { rule }, exec::Outcome::Undefined(got))
            if got == *rule =>
        {
            Ok(())
        }
        (want, got) => fail(
            OracleId::Reference,
            format!("intended {want:?}, executor says {got:?}"),
        ),
    }
}

/// The one place that knows the executor's API (adapt it here when `sem::exec` changes).
pub mod exec {
    use crate::case::model::Case;

    /// The executor's classification of a run, as the oracle needs it.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum Outcome {
        /// Ran to the end, every wait completed, no UB.
        Defined,
        /// Stopped at undefined behaviour by this rule id.
        Undefined(String),
        /// A wait that can never complete.
        Stuck(String),
    }

    /// Run `case` on the reference executor (`None` would mean a build without one).
    pub fn run(case: &Case) -> Option<Result<Outcome, String>> {
        use crate::sem::exec;
        // Only the outcome is read: the executor keeps no trace or final state for it.
        Some(match exec::execute_outcome(case) {
            Ok(outcome) => Ok(match outcome {
                exec::Outcome::Defined => Outcome::Defined,
                exec::Outcome::Undefined { ub, .. }
                    if ub.rule == crate::sem::ub::WAIT_NEVER_COMPLETES.id =>
                {
                    Outcome::Stuck(ub.to_string())
                }
                exec::Outcome::Undefined { ub, .. } => Outcome::Undefined(ub.rule.to_string()),
            }),
            Err(e) => Err(e.to_string()),
        })
    }
}

/// The `ptx:` steps with their indices.
pub fn ptx_steps(c: &Case) -> impl Iterator<Item = (usize, &str)> {
    c.program
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((i, s.op.ptx()?)))
}

/// Every oracle that needs no executor and no ptxas.
pub fn static_oracles() -> Vec<Box<dyn Oracle>> {
    vec![
        Box::new(Validates),
        Box::new(StaticLegality),
        Box::new(YamlRoundTrip),
    ]
}

/// The static oracles, then the reference executor: the first violation.
pub fn check_cpu(g: &Generated) -> Result<(), Violation> {
    check_cpu_with(g, &program_yaml(g), CpuChecks::ALL)
}

/// Which of [`check_cpu`]'s oracles [`check_cpu_with`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuChecks {
    /// [`YamlRoundTrip`]: most of the oracles' time (the YAML parse); a campaign may check it
    /// on one value set of each shape.
    pub yaml_round_trip: bool,
}

impl CpuChecks {
    pub const ALL: CpuChecks = CpuChecks {
        yaml_round_trip: true,
    };
}

/// [`check_cpu`] over the program's YAML `text` ([`program_yaml`], which a campaign also
/// fingerprints: made once for both), running the oracles `checks` names, in `check_cpu`'s
/// order: the first violation.
pub fn check_cpu_with(g: &Generated, text: &str, checks: CpuChecks) -> Result<(), Violation> {
    Validates.check(g)?;
    StaticLegality.check(g)?;
    if checks.yaml_round_trip {
        round_trip(g, text)?;
    }
    Reference.check(g)
}

#[cfg(test)]
#[test]
fn prints_as_compares_the_whole_text() {
    let st = crate::ptx::Statement::parse("cp.async.wait_group 2;").unwrap();
    let text = st.instr.to_string();
    assert!(prints_as(&st.instr, &text));
    assert!(!prints_as(&st.instr, &text[..text.len() - 1]), "shorter");
    assert!(!prints_as(&st.instr, &format!("{text} ")), "longer");
    assert!(!prints_as(&st.instr, "cp.async.wait_group 3"), "another");
}
