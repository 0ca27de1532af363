//! Run reports: the summary as JSON, JUnit XML (for CI systems) and a self-contained HTML page
//! with one table per family and, for every divergence, a picture of expected vs observed bytes.

use ptxconform_reference::gen::swarm::Features;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

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
    pub reason: String,
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
                r.detail = format!("[known: {}] {}: {}", k.name, r.verdict.name(), r.detail);
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
}

/// Where and on what a run happened.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RunInfo {
    pub device: String,
    pub driver: String,
    pub date: String,
    pub mode: String,
    pub ptxconform: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    pub info: RunInfo,
    /// family -> verdict name -> count
    pub counts: BTreeMap<String, BTreeMap<String, usize>>,
    pub totals: BTreeMap<String, usize>,
    pub results: Vec<CaseResult>,
}

impl Summary {
    /// The summary of `results`, ordered by file, then case name (stable), so that a run's report
    /// does not depend on the order results arrived in (batches, devices, shards, `--resume`).
    pub fn new(info: RunInfo, mut results: Vec<CaseResult>) -> Summary {
        results.sort_by(|a, b| (&a.file, &a.case).cmp(&(&b.file, &b.case)));
        let mut counts: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        let mut totals: BTreeMap<String, usize> = BTreeMap::new();
        for r in &results {
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
            results,
        }
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
        for r in rs {
            let t = r.wall_us as f64 / 1e6;
            let _ = write!(
                x,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{t:.6}\"",
                esc(&r.file),
                esc(&r.case)
            );
            if r.verdict.is_failure() {
                let _ = writeln!(
                    x,
                    ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                    esc(r.verdict.name()),
                    esc(&r.detail)
                );
            } else if r.verdict == Verdict::NotRun {
                let _ = writeln!(
                    x,
                    ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                    esc(&r.detail)
                );
            } else {
                let _ = writeln!(x, "/>");
            }
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

fn expected_text(e: &ExpectedByte) -> String {
    match e {
        ExpectedByte::Known(k) => format!("{k:#04x}"),
        ExpectedByte::OneOf(v) => format!(
            "one of {}",
            v.iter()
                .map(|b| format!("{b:#04x}"))
                .collect::<Vec<_>>()
                .join(",")
        ),
        ExpectedByte::Any => "any".into(),
    }
}

/// An SVG grid of a region: one cell per byte, 32 per row; green = matches a known value, blue =
/// matches an uncertain (allowed-set) value, red = differs. Hover shows expected and observed.
pub fn diff_svg(d: &RegionDiff) -> String {
    const COLS: usize = 32;
    const CELL: usize = 12;
    let n = d.expected.len().min(d.observed.len()).min(16 * 1024);
    let rows = n.div_ceil(COLS);
    let (w, h) = (COLS * CELL + 60, rows * CELL + 4);
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-size=\"9\" font-family=\"monospace\">");
    for row in 0..rows {
        let _ = write!(
            s,
            "<text x=\"0\" y=\"{}\">{:#06x}</text>",
            row * CELL + 10,
            row * COLS
        );
    }
    for i in 0..n {
        let (e, o) = (&d.expected[i], d.observed[i]);
        let color = if !e.allows(o) {
            "#d62728"
        } else if e.is_known() {
            "#2ca02c"
        } else {
            "#1f77b4"
        };
        let exp = expected_text(e);
        let _ = write!(
            s,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{color}\"><title>byte {i}: expected {exp}, observed {o:#04x}</title></rect>",
            56 + (i % COLS) * CELL,
            (i / COLS) * CELL + 2,
            CELL - 1,
            CELL - 1
        );
    }
    s.push_str("</svg>");
    s
}

pub fn html(s: &Summary) -> String {
    let mut h = String::from("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>ptxconform run</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1.5em}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}.fail{color:#d62728;font-weight:bold}.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px}</style></head><body>");
    let _ = write!(
        h,
        "<h1>ptxconform run</h1><p>device: {} — driver: {} — date: {} — mode: {} — ptxconform {}</p>",
        esc(&s.info.device),
        esc(&s.info.driver),
        esc(&s.info.date),
        esc(&s.info.mode),
        esc(&s.info.ptxconform)
    );
    let verdicts: Vec<&String> = s.totals.keys().collect();
    h.push_str("<h2>Outcomes per family</h2><table><tr><th>family</th>");
    for v in &verdicts {
        let _ = write!(h, "<th>{}</th>", esc(v));
    }
    h.push_str("</tr>");
    for (fam, c) in s
        .counts
        .iter()
        .chain(std::iter::once((&"total".to_string(), &s.totals)))
    {
        let _ = write!(h, "<tr><td>{}</td>", esc(fam));
        for v in &verdicts {
            let _ = write!(h, "<td>{}</td>", c.get(*v).copied().unwrap_or(0));
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
    let mut by_fam: BTreeMap<&str, Vec<&CaseResult>> = BTreeMap::new();
    for r in &s.results {
        by_fam.entry(&r.family).or_default().push(r);
    }
    for (fam, rs) in by_fam {
        let _ = write!(
            h,
            "<h2>{}</h2><table><tr><th>case</th><th>verdict</th><th>detail</th></tr>",
            esc(fam)
        );
        for r in rs {
            let cls = if r.verdict.is_failure() {
                " class=\"fail\""
            } else {
                ""
            };
            let _ = write!(
                h,
                "<tr><td><a href=\"#{}\">{}</a></td><td{cls}>{}</td><td style=\"text-align:left\">{}</td></tr>",
                esc(&r.case),
                esc(&r.case),
                esc(r.verdict.name()),
                esc(&r.detail)
            );
        }
        h.push_str("</table>");
    }
    let divergent: Vec<&CaseResult> = s.results.iter().filter(|r| !r.diffs.is_empty()).collect();
    if !divergent.is_empty() {
        h.push_str("<h2>Divergences</h2><p class=\"legend\">bytes:<span style=\"background:#2ca02c\"></span>match<span style=\"background:#1f77b4\"></span>allowed (uncertain)<span style=\"background:#d62728\"></span>differs</p>");
        for r in divergent {
            let _ = write!(
                h,
                "<h3 id=\"{}\">{} — {}</h3><p>{}</p>",
                esc(&r.case),
                esc(&r.case),
                esc(r.verdict.name()),
                esc(&r.detail)
            );
            for d in &r.diffs {
                let _ = write!(
                    h,
                    "<p>region <b>{}</b>: {} of {} bytes differ{}</p>{}",
                    esc(&d.region),
                    d.mismatches(),
                    d.expected.len(),
                    d.first_mismatch()
                        .map(|i| format!(", first at byte {i}"))
                        .unwrap_or_default(),
                    diff_svg(d)
                );
                h.push_str("<table><tr><th>byte</th><th>expected</th><th>observed</th></tr>");
                for (i, (e, o)) in d
                    .expected
                    .iter()
                    .zip(&d.observed)
                    .enumerate()
                    .filter(|(_, (e, o))| !e.allows(**o))
                    .take(8)
                {
                    let _ = write!(
                        h,
                        "<tr><td>{i}</td><td>{}</td><td>{o:#04x}</td></tr>",
                        esc(&expected_text(e))
                    );
                }
                h.push_str("</table>");
            }
        }
    }
    h.push_str("</body></html>\n");
    h
}

/// A Markdown summary: where and when, then outcome counts per family.
pub fn markdown(s: &Summary) -> String {
    let mut m = format!(
        "# ptxconform run\n\n- device: {}\n- driver: {}\n- date: {}\n- mode: {}\n- ptxconform: {}\n- cases: {}\n\n",
        s.info.device,
        s.info.driver,
        s.info.date,
        s.info.mode,
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
}
