//! Run reports: the summary as JSON, JUnit XML (for CI systems), Markdown and a self-contained
//! HTML page ([`html`]: failures first, filters, every divergence with its complete byte table
//! and, for tensor loads, the pictures of [`tensor_svg`]).

use crate::schema_version::{FileKind, SchemaVersion};
use ptxconform_core::result::{CaseResult, Summary, Verdict};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

mod html;
pub mod tensor_svg;

pub use html::{diff_svg, html, html_with, FilePictures};
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A result's detail, followed by its attribution when it has one.
pub fn detail_with_attribution(r: &CaseResult) -> String {
    let mut d = match &r.attribution {
        Some(a) => format!("{} [attribution: {a}]", r.detail),
        None => r.detail.clone(),
    };
    // A case that ran under another build than the run's says which and why.
    if let Some(b) = r.build.as_ref().filter(|b| b.routed()) {
        if !d.is_empty() {
            d.push(' ');
        }
        d.push_str(&format!("[build: {b}]"));
    }
    d
}

/// summary.json: the summary, its schema version, and whether it lacks shards of its case set
/// (a convenience for readers: the scope says which).
#[derive(Serialize, JsonSchema)]
pub struct SummaryFile<'a> {
    #[schemars(extend("const" = crate::schema_version::SUMMARY.0))]
    pub schema_version: SchemaVersion,
    pub partial: bool,
    #[serde(flatten)]
    pub summary: &'a Summary,
}

impl SummaryFile<'_> {
    pub fn new(summary: &Summary) -> SummaryFile<'_> {
        SummaryFile {
            schema_version: FileKind::Summary.current(),
            partial: summary.scope.is_partial(),
            summary,
        }
    }
}

/// The properties every JUnit testsuite carries: the profile, the file's schema version, and
/// what the report lacks when it is partial.
fn suite_properties(s: &Summary) -> String {
    let mut props = vec![
        ("profile", s.info.profile.clone()),
        ("schema_version", FileKind::Junit.current().to_string()),
    ];
    if let Some(note) = s.scope.note().filter(|_| s.scope.is_partial()) {
        props.push(("partial", note));
    }
    props
        .iter()
        .map(|(n, v)| format!("<property name=\"{n}\" value=\"{}\"/>", esc(v)))
        .collect()
}

/// JUnit XML: one testsuite per family, one testcase per case; failures for failing verdicts,
/// skipped for not-run. A partial report says so in the name of its `testsuites`.
pub fn junit(s: &Summary) -> String {
    let mut by_fam: BTreeMap<&str, Vec<&CaseResult>> = BTreeMap::new();
    for r in &s.results {
        by_fam.entry(&r.family).or_default().push(r);
    }
    let name = if s.scope.is_partial() {
        "ptxconform (PARTIAL)"
    } else {
        "ptxconform"
    };
    let mut x =
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{name}\">\n");
    let properties = suite_properties(s);
    for (fam, rs) in by_fam {
        let fails = rs.iter().filter(|r| r.verdict.is_failure()).count();
        let skipped = rs.iter().filter(|r| r.verdict == Verdict::NotRun).count();
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{fails}\" skipped=\"{skipped}\">",
            esc(fam),
            rs.len()
        );
        let _ = writeln!(x, "    <properties>{properties}</properties>");
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
            if let Some(b) = &r.build {
                props.push(("build", b.to_string()));
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
        "# ptxconform run\n\n- device: {}\n- driver: {}\n- date: {}\n- mode: {}\n- profile: {}\n- ptxconform: {}\n- cases: {}\n{}\n",
        s.info.device,
        s.info.driver,
        s.info.date,
        s.info.mode,
        s.info.profile,
        s.info.ptxconform,
        s.results.len(),
        s.scope
            .note()
            .map(|n| format!("- scope: {n}\n"))
            .unwrap_or_default()
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
    if !s.undecided.is_empty() {
        m.push_str(
            "\n## Undecided predictions (undefined cases predicted several outcomes)\n\n\
             | rule | between classes | between trap kinds |\n| --- | --- | --- |\n",
        );
        for (rule, u) in &s.undecided {
            let _ = writeln!(m, "| `{rule}` | {} | {} |", u.class, u.kind);
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
        serde_json::to_string_pretty(&SummaryFile::new(s)).map_err(|e| e.to_string())?,
    )?;
    w("junit.xml", junit(s))?;
    w("summary.md", markdown(s))?;
    w("report.html", html(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A case under another build than the run's says which and why; one under the run's
    /// build says nothing more.
    #[test]
    fn a_routed_build_is_named_with_its_reason() {
        use ptxconform_core::result::{BuildReason, RanBuild};
        let mut r = CaseResult::new("c", "f.yaml", "cp.async", Verdict::Pass);
        r.build = Some(RanBuild {
            build: "ptxas-13.0-O3".parse().unwrap(),
            why: BuildReason::Run,
        });
        assert_eq!(detail_with_attribution(&r), "");
        r.build = Some(RanBuild {
            build: "ptxas-13.0-O0".parse().unwrap(),
            why: BuildReason::AvoidsDefect {
                finding: "k".into(),
                instead_of: "ptxas-13.0-O3".parse().unwrap(),
            },
        });
        assert_eq!(
            detail_with_attribution(&r),
            "[build: ptxas-13.0-O0 (not ptxas-13.0-O3: known compiler defect k)]"
        );
    }
    use ptxconform_core::result::{CaseSet, ExpectedByte, RegionDiff, RunInfo, Scope, Shards};

    /// The scope of a run of three cases holding `shards`.
    fn scope(shards: Shards) -> Scope {
        Scope::Shards {
            case_set: CaseSet {
                selection: Default::default(),
                cases: 3,
                fingerprint: "0f".into(),
            },
            shards,
        }
    }

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
            scope(Shards::whole()),
            vec![
                CaseResult {
                    wall_us: 5,
                    ..CaseResult::new("a", "f.yaml", "cp.async", Verdict::Pass)
                },
                CaseResult {
                    detail: "byte 2".into(),
                    diffs: vec![diff],
                    wall_us: 7,
                    ..CaseResult::new("b<x>", "f.yaml", "cp.async", Verdict::Diverge)
                },
                CaseResult {
                    detail: "needs sm_100a".into(),
                    ..CaseResult::new("c", "g.yaml", "tcgen05.cp", Verdict::NotRun)
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

    /// Undefined cases predicted several outcomes are counted per rule (classes apart from trap
    /// kinds), in the summary and its Markdown; a mispredicted one fails the run.
    #[test]
    fn undecided_and_mispredicted_are_counted() {
        use ptxconform_core::result::Difference;
        use ptxconform_reference::case::{Ending, TrapKind};
        use ptxconform_reference::sem::exec::{HwOutcome, Undecided};
        let mut s = sample();
        let kinds = vec![
            HwOutcome::Traps(TrapKind::IllegalInstruction),
            HwOutcome::Traps(TrapKind::MisalignedAddress),
        ];
        s.results[0].verdict = Verdict::TrapExpected;
        s.results[0].differences = vec![Difference::Undecided {
            rule: "address.misaligned".into(),
            predicted: kinds.clone(),
            between: Undecided::Kind,
        }];
        s.results[2].verdict = Verdict::UndefinedMispredicted;
        s.results[2].differences = vec![Difference::Mispredicted {
            predicted: kinds,
            ended: Ending::Completed,
        }];
        let s = Summary::new(s.info, s.scope, s.results);
        assert_eq!(s.undecided["address.misaligned"].kind, 1);
        assert_eq!(s.undecided["address.misaligned"].class, 0);
        assert_eq!(s.failures(), 2);
        assert_eq!(s.totals["undefined, outcome mispredicted"], 1);
        let md = markdown(&s);
        assert!(md.contains("| `address.misaligned` | 0 | 1 |"), "{md}");
        assert!(junit(&s).contains("undefined, outcome mispredicted"));
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
        let s = Summary::new(s.info, s.scope, s.results);
        assert_eq!(s.departures["P-RED-F32-SUBNORMALS"], 1);
        assert_eq!(s.spec_departures().count(), 1);
        assert_eq!(s.failures(), 1, "a departure is no failure");
        let x = junit(&s);
        assert_eq!(
            x.matches("<properties><property name=\"profile\" value=\"sm_90\"/><property name=\"schema_version\" value=\"2\"/></properties>")
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

    /// A report that lacks shards says so in summary.json, JUnit, HTML and Markdown; a whole
    /// run's does not.
    #[test]
    fn a_partial_report_is_marked_everywhere() {
        let whole = sample();
        let mut s = sample();
        s.scope = scope(Shards::of(4, [0, 1, 3].into()).unwrap());
        let json: serde_json::Value = serde_json::to_value(SummaryFile::new(&s)).unwrap();
        assert_eq!(json["partial"], true);
        assert_eq!(json["schema_version"], 2);
        assert_eq!(
            json["scope"]["shards"]["held"],
            serde_json::json!([0, 1, 3])
        );
        assert_eq!(
            serde_json::to_value(SummaryFile::new(&whole)).unwrap()["partial"],
            false
        );
        let note = "PARTIAL: shard 0/4, 1/4, 3/4 of 3 cases, missing 2/4";
        let x = junit(&s);
        assert!(
            x.contains("<testsuites name=\"ptxconform (PARTIAL)\">"),
            "{x}"
        );
        assert_eq!(
            x.matches(&format!("<property name=\"partial\" value=\"{note}\"/>"))
                .count(),
            2,
            "one per suite: {x}"
        );
        assert!(!junit(&whole).contains("partial") && !junit(&whole).contains("PARTIAL"));
        assert!(html(&s).contains(&format!("<p id=\"scope\" class=\"fail\">{note}</p>")));
        assert!(!html(&whole).contains("id=\"scope\""));
        assert!(markdown(&s).contains(&format!("- scope: {note}\n")));
        assert!(!markdown(&whole).contains("- scope:"));
    }
}
