//! Run reports: the summary as JSON, JUnit XML (for CI systems), Markdown and a self-contained
//! HTML page ([`html`]: failures first, filters, every divergence with its complete byte table
//! and, for tensor loads, the pictures of [`tensor_svg`]).

use ptxconform_reference::gen::swarm::Features;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

mod html;
pub mod tensor_svg;

pub use html::{diff_svg, html, html_with, FilePictures};

/// The classified result of one case.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Hardware matched the reference (uncertain bytes accepted any allowed value).
    Pass,
    /// Hardware differed from the reference.
    Diverge,
    /// A divergence, unexpected trap or unexpected timeout recorded in
    /// `reports/known-divergences.yaml` (a named, explained finding): reported, not a failure.
    Known,
    /// The GPU trapped where the reference said it might (UB the hardware traps on).
    TrapExpected,
    /// The GPU trapped on a case the reference found well defined.
    TrapUnexpected,
    /// A bounded wait timed out where the reference said the phase can never complete.
    TimeoutExpected,
    /// A bounded wait timed out on a case the reference found well defined.
    TimeoutUnexpected,
    /// The reference classified the case as undefined and the hardware did something (recorded).
    ReferenceUndefined,
    /// The reference alone ran and found the case well defined (no GPU, or `--reference-only`).
    ReferencePass,
    /// The reference itself failed on the case (a case error, or a violated `expect`).
    ReferenceFail,
    /// The program is illegal on its target (the restriction named): ptxas would refuse it, so
    /// it is neither judged nor run.
    Illegal,
    /// Not run on hardware, with the reason (e.g. "needs sm_100a").
    NotRun,
    /// The harness could not run it (JIT error, setup error, worker crash).
    HarnessError,
    /// Builds of its kernel (code generators, levels) ran it differently: a compiler finding.
    BuildsDisagree,
}

impl Verdict {
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Diverge => "diverge",
            Verdict::Known => "known finding",
            Verdict::TrapExpected => "trap (expected)",
            Verdict::TrapUnexpected => "trap (unexpected)",
            Verdict::TimeoutExpected => "timeout (expected)",
            Verdict::TimeoutUnexpected => "timeout (unexpected)",
            Verdict::ReferenceUndefined => "reference-undefined",
            Verdict::ReferencePass => "reference pass",
            Verdict::ReferenceFail => "reference FAIL",
            Verdict::Illegal => "illegal on its target",
            Verdict::NotRun => "not run",
            Verdict::HarnessError => "harness error",
            Verdict::BuildsDisagree => "builds disagree",
        }
    }
    /// Does this verdict fail a run?
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            Verdict::Diverge
                | Verdict::TrapUnexpected
                | Verdict::TimeoutUnexpected
                | Verdict::ReferenceFail
                | Verdict::Illegal
                | Verdict::HarnessError
                | Verdict::BuildsDisagree
        )
    }
}

/// A named, explained finding: cases whose name matches `case` (`*` wildcards) and that diverge,
/// trap or time out unexpectedly are reported as [`Verdict::Known`]. `signature` (a glob over
/// `fuzz` divergence signatures, `family/verdict/where`, e.g. `cp.reduce.async.bulk/diverge/rdst`)
/// matches generated programs, whose names say nothing.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownDivergence {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub case: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Generator features (`Features::NAMES`) that reach this finding: a campaign turns them
    /// off, so that it spends its time on new ground instead of rediscovering it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub avoid: Vec<String>,
    /// Who departs from the model, as attribution established it (default: the silicon).
    #[serde(default, skip_serializing_if = "KnownCulprit::is_silicon")]
    pub culprit: KnownCulprit,
    pub reason: String,
}

/// The culprit of a known finding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KnownCulprit {
    /// The silicon departs from the model (which keeps the text's position).
    #[default]
    Silicon,
    /// A code generator (ptxas, the driver's JIT) miscompiles the program: the same PTX under
    /// another build matches the model.
    Compiler,
}

impl KnownCulprit {
    fn is_silicon(&self) -> bool {
        *self == KnownCulprit::Silicon
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownDivergences {
    #[serde(default)]
    pub known: Vec<KnownDivergence>,
}

impl KnownDivergences {
    pub fn load(path: &Path) -> Result<KnownDivergences, String> {
        if !path.exists() {
            return Ok(KnownDivergences::default());
        }
        let t = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_saphyr::from_str(&t).map_err(|e| format!("{}: {e}", path.display()))
    }
    /// The known divergence a diverging case falls under, if any.
    pub fn matching(&self, case: &str) -> Option<&KnownDivergence> {
        self.known
            .iter()
            .find(|k| !k.case.is_empty() && crate::legality::glob(&k.case, case))
    }
    /// The generator features to turn off (union of every entry's `avoid`), with the entries
    /// that ask for each; an unknown feature name is an error naming its entry.
    pub fn avoided(&self) -> Result<(Features, Vec<(String, String)>), String> {
        let mut f = Features::default();
        let mut why = Vec::new();
        for k in &self.known {
            for a in &k.avoid {
                let one = Features::named(a).ok_or_else(|| {
                    format!(
                        "known divergence `{}`: avoid: unknown generator feature `{a}` (one of {})",
                        k.name,
                        Features::NAMES.join(", ")
                    )
                })?;
                f = f.union(one);
                why.push((a.clone(), k.name.clone()));
            }
        }
        Ok((f, why))
    }
    /// The known finding that explains a trap in `case`, if any. A trap does not say which
    /// instruction caused it, so a signature naming the program's first copy family proves
    /// little: a finding explains the trap when the program uses a feature the finding's `avoid`
    /// names and the finding's signature matches the trap under one of the program's families.
    pub fn explaining_trap(
        &self,
        used: Features,
        families: &[&str],
        verdict_at: &str,
    ) -> Option<&KnownDivergence> {
        self.known.iter().find(|k| {
            let Some(glob) = k.signature.as_deref() else {
                return false;
            };
            let avoid = k
                .avoid
                .iter()
                .filter_map(|a| Features::named(a))
                .fold(Features::default(), Features::union);
            avoid.intersects(used)
                && families
                    .iter()
                    .any(|f| crate::legality::glob(glob, &format!("{f}/{verdict_at}")))
        })
    }
    /// The known divergence a fuzz divergence signature falls under, if any.
    pub fn matching_signature(&self, signature: &str) -> Option<&KnownDivergence> {
        self.known.iter().find(|k| {
            k.signature
                .as_deref()
                .is_some_and(|g| crate::legality::glob(g, signature))
        })
    }
    /// Re-classify a failure that is a known finding.
    pub fn apply(&self, r: &mut CaseResult) {
        if matches!(
            r.verdict,
            Verdict::Diverge | Verdict::TrapUnexpected | Verdict::TimeoutUnexpected
        ) {
            if let Some(k) = self.matching(&r.case) {
                let what = match k.culprit {
                    KnownCulprit::Silicon => "known",
                    KnownCulprit::Compiler => "known compiler defect",
                };
                r.detail = format!("[{what}: {}] {}: {}", k.name, r.verdict.name(), r.detail);
                r.verdict = Verdict::Known;
            }
        }
    }
}

/// One expected byte: exactly one value, or a set of allowed values (uncertain).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ExpectedByte {
    Known(u8),
    OneOf(Vec<u8>),
    Any,
}

impl ExpectedByte {
    pub fn allows(&self, v: u8) -> bool {
        match self {
            ExpectedByte::Known(k) => *k == v,
            ExpectedByte::OneOf(s) => s.contains(&v),
            ExpectedByte::Any => true,
        }
    }
    pub fn is_known(&self) -> bool {
        matches!(self, ExpectedByte::Known(_))
    }
}

/// Expected vs observed bytes of one region, for the divergence pictures and YAML reports.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RegionDiff {
    pub region: String,
    pub expected: Vec<ExpectedByte>,
    pub observed: Vec<u8>,
}

impl RegionDiff {
    pub fn first_mismatch(&self) -> Option<usize> {
        self.expected
            .iter()
            .zip(&self.observed)
            .position(|(e, o)| !e.allows(*o))
    }
    pub fn mismatches(&self) -> usize {
        self.expected
            .iter()
            .zip(&self.observed)
            .filter(|(e, o)| !e.allows(**o))
            .count()
    }
}

/// The result of one case, as journaled and reported.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseResult {
    pub case: String,
    pub file: String,
    pub family: String,
    pub verdict: Verdict,
    /// One-line explanation (the UB rule, the first differing byte, the trap kind, ...).
    pub detail: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diffs: Vec<RegionDiff>,
    #[serde(default)]
    pub wall_us: u64,
    /// The device that ran it, when a run used several.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub device: String,
    /// Who departed from the model, when the case was run under several builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<crate::attribution::Attribution>,
    /// Profile positions (`sem::profile`) where the hardware matched the sm_90 reading and
    /// departed from the spec reading: a pass that is a finding against the text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub departures: Vec<String>,
}

/// Where and on what a run happened.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RunInfo {
    pub device: String,
    pub driver: String,
    pub date: String,
    pub mode: String,
    pub ptxconform: String,
    /// The profile (`spec` or `sm_90`) results were judged under (empty: not recorded).
    #[serde(default)]
    pub profile: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    pub info: RunInfo,
    /// family -> verdict name -> count
    pub counts: BTreeMap<String, BTreeMap<String, usize>>,
    pub totals: BTreeMap<String, usize>,
    /// Profile position -> cases whose hardware result departed from its spec reading.
    #[serde(default)]
    pub departures: BTreeMap<String, usize>,
    pub results: Vec<CaseResult>,
}

impl Summary {
    /// The summary of `results`, ordered by file, then case name (stable), so that a run's report
    /// does not depend on the order results arrived in (batches, devices, shards, `--resume`).
    pub fn new(info: RunInfo, mut results: Vec<CaseResult>) -> Summary {
        results.sort_by(|a, b| (&a.file, &a.case).cmp(&(&b.file, &b.case)));
        let mut counts: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        let mut totals: BTreeMap<String, usize> = BTreeMap::new();
        let mut departures: BTreeMap<String, usize> = BTreeMap::new();
        for r in &results {
            for d in &r.departures {
                *departures.entry(d.clone()).or_default() += 1;
            }
            *counts
                .entry(r.family.clone())
                .or_default()
                .entry(r.verdict.name().to_string())
                .or_default() += 1;
            *totals.entry(r.verdict.name().to_string()).or_default() += 1;
        }
        Summary {
            info,
            counts,
            totals,
            departures,
            results,
        }
    }
    /// The results that departed from the spec reading of a profile position.
    pub fn spec_departures(&self) -> impl Iterator<Item = &CaseResult> {
        self.results.iter().filter(|r| !r.departures.is_empty())
    }
    pub fn failures(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.verdict.is_failure())
            .count()
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A result's detail, followed by its attribution when it has one.
pub fn detail_with_attribution(r: &CaseResult) -> String {
    match &r.attribution {
        Some(a) => format!("{} [attribution: {a}]", r.detail),
        None => r.detail.clone(),
    }
}

/// JUnit XML: one testsuite per family, one testcase per case; failures for failing verdicts,
/// skipped for not-run.
pub fn junit(s: &Summary) -> String {
    let mut by_fam: BTreeMap<&str, Vec<&CaseResult>> = BTreeMap::new();
    for r in &s.results {
        by_fam.entry(&r.family).or_default().push(r);
    }
    let mut x = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ptxconform\">\n",
    );
    for (fam, rs) in by_fam {
        let fails = rs.iter().filter(|r| r.verdict.is_failure()).count();
        let skipped = rs.iter().filter(|r| r.verdict == Verdict::NotRun).count();
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{fails}\" skipped=\"{skipped}\">",
            esc(fam),
            rs.len()
        );
        let _ = writeln!(
            x,
            "    <properties><property name=\"profile\" value=\"{}\"/></properties>",
            esc(&s.info.profile)
        );
        for r in rs {
            let t = r.wall_us as f64 / 1e6;
            let _ = write!(
                x,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{t:.6}\"",
                esc(&r.file),
                esc(&r.case)
            );
            let mut inner = String::new();
            let mut props: Vec<(&str, String)> = Vec::new();
            if let Some(a) = &r.attribution {
                props.push(("attribution", a.to_string()));
            }
            props.extend(r.departures.iter().map(|d| ("spec departure", d.clone())));
            if !props.is_empty() {
                let p: String = props
                    .iter()
                    .map(|(n, v)| format!("<property name=\"{n}\" value=\"{}\"/>", esc(v)))
                    .collect();
                let _ = writeln!(inner, "      <properties>{p}</properties>");
            }
            if r.verdict.is_failure() {
                let _ = writeln!(
                    inner,
                    "      <failure message=\"{}\">{}</failure>",
                    esc(r.verdict.name()),
                    esc(&r.detail)
                );
            } else if r.verdict == Verdict::NotRun {
                let _ = writeln!(inner, "      <skipped message=\"{}\"/>", esc(&r.detail));
            }
            if inner.is_empty() {
                let _ = writeln!(x, "/>");
            } else {
                let _ = write!(x, ">\n{inner}    </testcase>\n");
            }
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

/// A Markdown summary: where and when, then outcome counts per family.
pub fn markdown(s: &Summary) -> String {
    let mut m = format!(
        "# ptxconform run\n\n- device: {}\n- driver: {}\n- date: {}\n- mode: {}\n- profile: {}\n- ptxconform: {}\n- cases: {}\n\n",
        s.info.device,
        s.info.driver,
        s.info.date,
        s.info.mode,
        s.info.profile,
        s.info.ptxconform,
        s.results.len()
    );
    let verdicts: Vec<&String> = s.totals.keys().collect();
    let _ = writeln!(
        m,
        "| family | {} |",
        verdicts
            .iter()
            .map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(m, "|---|{}", "---:|".repeat(verdicts.len()));
    for (fam, c) in s
        .counts
        .iter()
        .chain(std::iter::once((&"**total**".to_string(), &s.totals)))
    {
        let cells: Vec<String> = verdicts
            .iter()
            .map(|v| c.get(*v).copied().unwrap_or(0).to_string())
            .collect();
        let _ = writeln!(m, "| {fam} | {} |", cells.join(" | "));
    }
    let fails: Vec<&CaseResult> = s
        .results
        .iter()
        .filter(|r| r.verdict.is_failure() || r.verdict == Verdict::Known)
        .collect();
    if !s.departures.is_empty() {
        m.push_str("\n## Spec departures (hardware follows the sm_90 reading)\n\n");
        for (id, n) in &s.departures {
            let _ = writeln!(m, "- {id}: {n} case{}", if *n == 1 { "" } else { "s" });
        }
        for r in s.spec_departures() {
            let _ = writeln!(m, "- `{}` ({}): {}", r.case, r.file, r.detail);
        }
    }
    if !fails.is_empty() {
        m.push_str("\n## Failures and known findings\n\n");
        for r in fails {
            let _ = writeln!(
                m,
                "- `{}` ({}): {} — {}",
                r.case,
                r.file,
                r.verdict.name(),
                r.detail
            );
        }
    }
    m
}

/// Write summary.json, summary.md, junit.xml and report.html into `dir`.
pub fn write_all(dir: &Path, s: &Summary) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let w = |name: &str, text: String| {
        std::fs::write(dir.join(name), text)
            .map_err(|e| format!("{}: {e}", dir.join(name).display()))
    };
    w(
        "summary.json",
        serde_json::to_string_pretty(s).map_err(|e| e.to_string())?,
    )?;
    w("junit.xml", junit(s))?;
    w("summary.md", markdown(s))?;
    w("report.html", html(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Summary {
        let diff = RegionDiff {
            region: "buf@cta0".into(),
            expected: vec![
                ExpectedByte::Known(1),
                ExpectedByte::OneOf(vec![0, 2]),
                ExpectedByte::Known(3),
            ],
            observed: vec![1, 2, 9],
        };
        Summary::new(
            RunInfo {
                device: "test".into(),
                ..Default::default()
            },
            vec![
                CaseResult {
                    case: "a".into(),
                    file: "f.yaml".into(),
                    family: "cp.async".into(),
                    verdict: Verdict::Pass,
                    detail: String::new(),
                    diffs: vec![],
                    wall_us: 5,
                    device: String::new(),
                    attribution: None,
                    departures: vec![],
                },
                CaseResult {
                    case: "b<x>".into(),
                    file: "f.yaml".into(),
                    family: "cp.async".into(),
                    verdict: Verdict::Diverge,
                    detail: "byte 2".into(),
                    diffs: vec![diff],
                    wall_us: 7,
                    device: String::new(),
                    attribution: None,
                    departures: vec![],
                },
                CaseResult {
                    case: "c".into(),
                    file: "g.yaml".into(),
                    family: "tcgen05.cp".into(),
                    verdict: Verdict::NotRun,
                    detail: "needs sm_100a".into(),
                    diffs: vec![],
                    wall_us: 0,
                    device: String::new(),
                    attribution: None,
                    departures: vec![],
                },
            ],
        )
    }

    #[test]
    fn diff_counts_respect_uncertain_bytes() {
        let s = sample();
        let d = &s.results[1].diffs[0];
        assert_eq!(d.mismatches(), 1);
        assert_eq!(d.first_mismatch(), Some(2));
        assert_eq!(s.failures(), 1);
        assert_eq!(s.totals["pass"], 1);
    }

    #[test]
    fn known_findings_are_reclassified_by_name() {
        let k = KnownDivergences {
            known: vec![KnownDivergence {
                name: "f32-no-ftz".into(),
                case: "reduce.*.f32*".into(),
                signature: None,
                avoid: vec![],
                culprit: Default::default(),
                reason: "r".into(),
            }],
        };
        let mut s = sample();
        let mut r = s.results.remove(1);
        r.case = "reduce.global.add.f32".into();
        k.apply(&mut r);
        assert_eq!(r.verdict, Verdict::Known);
        assert!(
            r.detail.starts_with("[known: f32-no-ftz] diverge"),
            "{}",
            r.detail
        );
        let mut other = s.results.remove(0);
        other.verdict = Verdict::Diverge;
        k.apply(&mut other);
        assert_eq!(
            other.verdict,
            Verdict::Diverge,
            "an unlisted case stays a failure"
        );
    }

    #[test]
    fn junit_and_html() {
        let s = sample();
        let x = junit(&s);
        assert!(
            x.contains("<testsuite name=\"cp.async\" tests=\"2\" failures=\"1\" skipped=\"0\">"),
            "{x}"
        );
        assert!(x.contains("<skipped message=\"needs sm_100a\"/>"));
        assert!(x.contains("b&lt;x&gt;"));
        let h = html(&s);
        assert!(h.contains("<svg"));
        let md = markdown(&s);
        assert!(md.contains("| cp.async | 1 | 0 | 1 |"), "{md}");
        assert!(md.contains("`b<x>` (f.yaml): diverge — byte 2"), "{md}");
        assert_eq!(h.matches("fill=\"#d62728\"").count(), 1, "one red byte");
        assert_eq!(
            h.matches("fill=\"#1f77b4\"").count(),
            1,
            "one uncertain byte"
        );
    }

    /// The profile and the spec departures reach every report: counted per position in the
    /// summary, a JUnit property per case and the profile per suite, sections in HTML and
    /// Markdown.
    #[test]
    fn spec_departures_are_counted_and_reported() {
        let mut s = sample();
        s.info.profile = "sm_90".into();
        s.results[0].departures = vec!["P-RED-F32-SUBNORMALS".into()];
        s.results[0].detail = "spec departure: P-RED-F32-SUBNORMALS".into();
        let s = Summary::new(s.info, s.results);
        assert_eq!(s.departures["P-RED-F32-SUBNORMALS"], 1);
        assert_eq!(s.spec_departures().count(), 1);
        assert_eq!(s.failures(), 1, "a departure is no failure");
        let x = junit(&s);
        assert_eq!(
            x.matches("<properties><property name=\"profile\" value=\"sm_90\"/></properties>")
                .count(),
            2,
            "one per suite: {x}"
        );
        assert!(x.contains(
            "<properties><property name=\"spec departure\" value=\"P-RED-F32-SUBNORMALS\"/></properties>"
        ));
        let h = html(&s);
        assert!(h.contains("profile: sm_90") && h.contains("1 spec departure</p>"));
        assert!(h.contains("<h2>Spec departures (1)</h2>"));
        assert!(h.contains("<td>P-RED-F32-SUBNORMALS</td><td class=\"l\">§9.7.9.25.4.2</td>"));
        let md = markdown(&s);
        assert!(md.contains("- profile: sm_90") && md.contains("- P-RED-F32-SUBNORMALS: 1 case"));
        let back: Summary = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back.results[0].departures, s.results[0].departures);
        assert_eq!(back.info.profile, "sm_90");
    }

    #[test]
    fn html_puts_failures_first() {
        let h = html(&sample());
        let failures = h.find("<h2>Failures (1)</h2>").expect("a failures section");
        let family = h
            .find("<h2>cp.async (2 cases)</h2>")
            .expect("a family section");
        assert!(
            failures < family,
            "the failures section comes before the families"
        );
        // In the family table the diverging `b<x>` precedes `a` (which sorts first by name).
        let table = &h[family..];
        let (b, a) = (
            table.find(">b&lt;x&gt;</a>").unwrap(),
            table.find("<td>a</td>").unwrap(),
        );
        assert!(b < a, "failures first within a family");
        assert_eq!(
            h[failures..family].matches("<tr class=\"row\"").count(),
            1,
            "only the failure in the failures section"
        );
        assert!(
            h.contains("href=\"#d1\"") && h.contains("id=\"d1\""),
            "linked to its divergence"
        );
    }

    #[test]
    fn html_offers_a_filter_for_every_family_and_verdict() {
        let s = sample();
        let h = html(&s);
        for fam in s.counts.keys() {
            assert!(
                h.contains(&format!("<option value=\"{fam}\">{fam}</option>")),
                "family {fam}"
            );
        }
        for v in s.totals.keys() {
            assert!(
                h.contains(&format!("<option value=\"{v}\">{v}</option>")),
                "verdict {v}"
            );
        }
        assert!(h.contains("<option value=\"@failures\">failures only</option>"));
        assert!(h.contains("<input id=\"f-text\""));
        assert!(h.contains("data-family=\"tcgen05.cp\" data-verdict=\"not run\" data-fail=\"0\""));
        assert!(
            h.contains("<script>") && !h.contains("src=\"http"),
            "inline script only"
        );
    }

    #[test]
    fn html_lists_every_differing_byte() {
        let mut s = sample();
        let n = 100;
        s.results[1].diffs[0] = RegionDiff {
            region: "big".into(),
            expected: (0..n).map(|i| ExpectedByte::Known(i as u8)).collect(),
            observed: (0..n)
                .map(|i| if i % 2 == 0 { 0xff } else { i as u8 })
                .collect(),
        };
        let h = html(&s);
        assert!(h.contains("50 of 100 bytes differ, first at byte 0"), "{h}");
        assert!(h.contains("<details><summary>all 50 differing bytes of big (table of 50 rows)"));
        for i in (0..n).step_by(2) {
            assert!(
                h.contains(&format!(
                    "<tr><td>{i}</td><td>{i:#x}</td><td>{i:#04x}</td><td>0xff</td></tr>"
                )),
                "byte {i} listed"
            );
        }
        assert_eq!(h.matches("<td>0xff</td></tr>").count(), 50);
        // A short list stays open.
        let mut s = sample();
        s.results[1].diffs[0].expected = vec![ExpectedByte::Known(0); 9];
        s.results[1].diffs[0].observed = vec![1; 9];
        let h = html(&s);
        assert!(h.contains("<p>9 differing bytes:</p>") && !h.contains("<details>"));
        assert_eq!(h.matches("<td>0x01</td></tr>").count(), 9);
    }

    #[test]
    fn html_embeds_the_tensor_pictures_of_a_divergent_case() {
        let case = ptxconform_reference::case::load_file(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../cases/tensor/gen/load_oob.yaml"
        )))
        .unwrap()
        .remove(0);
        let s = sample();
        let h = html_with(&s, &mut |r| {
            assert_eq!(r.case, "b<x>", "pictures are asked for divergences only");
            tensor_svg::html(&case, &r.diffs)
        });
        assert!(h.contains("<figure class=\"tensor\">"));
        assert!(h.contains("Tensor loads of the case"));
    }
}
