//! `ptxconform rules`: every rule id the model names, grouped by kind, as `docs/ub-rules.md`
//! holds it (a test keeps the two equal): the undefined-behaviour catalogue, the per-copy rules of
//! tensor copies, the tensor-map encode rules, the model's named positions where the text is
//! silent, and the profile positions where the text and sm_90 silicon differ (both readings).

use ptxconform_reference::sem::exec::{
    rule_prediction, tensor as exec_tensor, HwOutcome, Undecided,
};
use ptxconform_reference::sem::profile::{self, Silicon};
use ptxconform_reference::sem::proxy::{self, Effect};
use ptxconform_reference::sem::tensor::access::copy_rule;
use ptxconform_reference::sem::tensor::tensormap::{
    rule as encode_rule, silicon_when_accepted, Observed, RuleSource,
};
use ptxconform_reference::sem::ub::CATALOGUE;

use super::rules_evidence::{Evidence, THIN_BELOW};
use ptxconform_reference::sem::{exec, mbarrier, reduce};

#[derive(clap::Args, Debug)]
pub struct RulesArgs {
    /// The case folder whose recorded runs are counted as each prediction's evidence
    #[arg(long, default_value = "cases")]
    pub cases: std::path::PathBuf,
    /// The folder of sweep record folders (each `*/records.jsonl`) counted as evidence too
    #[arg(long, default_value = "reports/sweep")]
    pub sweeps: std::path::PathBuf,
}

/// The per-copy rules of tensor copies (`sem::tensor::access::copy_rule`, whose doc comments
/// these restate): id, spec section, summary. A test checks the list is exactly `copy_rule::ALL`.
const COPY_RULES: &[(&str, &str, &str)] = &[
    (copy_rule::COORD_COUNT, "9.7.9.25.5.2", "tensorCoords has `.dim` entries (5 for gather4/scatter4)"),
    (copy_rule::MODE_MATCHES_MAP, "9.7.9.25.5.2", "the load mode needs a map of its encode kind (tile: tiled, im2col: im2col, im2col::w / ::w::128: wide W / W128)"),
    (copy_rule::FOUR_ROWS, "5.5.3.4", "gather4/scatter4: 2D only, boxDim[1] = 1, no interleave"),
    (copy_rule::IM2COL_OFFSETS, "5.5.4.1", "im2col offsets: rank-2 of them, within [0, 2^16-1] / [0, 2^8-1] / [0, 2^5-1]"),
    (copy_rule::W_ARGS, "9.7.9.25.5.2", "wHalo in [0, 512) (w) / [0, 32) (w::128), wOffset in [0, 32)"),
    (copy_rule::FILTER_IN_BOX, "5.5.4.1, 5.5.5.1", "im2col: the filter base lies within the bounding box (im2col::w: may leave it on the left only)"),
    (copy_rule::STORE_BOUNDS, "9.7.9.25.5.1", "store: tensorCoords non-negative, im2col corners lower >= 0 and upper <= 0"),
    (copy_rule::PACKED_COORD, "9.7.9.25.5.1", "sub-byte types: dimension-0 coordinate a multiple of 128 (packed16), of the unit otherwise"),
    (copy_rule::PACKED_DIRECTION, "9.7.9.25.5.1", "16U4_ALIGN16B cannot be stored; swizzle modes marked load-only / store-only (driver page)"),
    (copy_rule::FLIP_8B, "9.7.9.25.5.1", "32B atomicity with 8B flip: loads only, not the im2col::w modes"),
    (copy_rule::SMEM_ALIGN, "5.5.3.1, 5.5.7", "shared-memory address 128-byte aligned (the text says 16 / 32 / 64; 128 observed on H100)"),
    (copy_rule::BOX_FITS_SMEM, "model", "the box fits in one CTA's shared memory (227 KiB)"),
    (copy_rule::BOX_START_ALIGNED, "5.5.3.1", "the box's start (dimension-0 coordinate x element size) is a multiple of 16 bytes"),
];

/// A reference source file: its path in the repository and its text.
type Source = (&'static str, &'static str);

/// The [`Source`] of a file under `reference/src/`.
macro_rules! src {
    ($path:literal) => {
        (
            concat!("reference/src/", $path),
            include_str!(concat!("../../../reference/src/", $path)),
        )
    };
}

/// The modules that name model positions (`A-…` ids): their `ASSUMPTIONS` lists, and the module
/// sources whose doc comments state each one as `- A-ID: text` (read at build time, so the page
/// quotes the statement the code carries).
const POSITIONS: &[(&[&str], &[Source])] = &[
    (
        exec::ASSUMPTIONS,
        &[
            src!("sem/exec.rs"),
            src!("sem/exec/tcgen05.rs"),
            src!("sem/exec/tensormap.rs"),
            src!("sem/exec/sync.rs"),
            src!("sem/exec/predict.rs"),
        ],
    ),
    (exec_tensor::ASSUMPTIONS, &[src!("sem/exec/tensor.rs")]),
    (mbarrier::ASSUMPTIONS, &[src!("sem/mbarrier.rs")]),
    (reduce::ASSUMPTIONS, &[src!("sem/reduce.rs")]),
];

/// The first sentence of the `- ID: …` item of a module's doc comment (continuation lines
/// joined), and the module that states it.
fn stated(sources: &[Source], id: &str) -> Option<(&'static str, String)> {
    let head = format!("//! - {id}:");
    sources.iter().find_map(|(path, src)| {
        let mut lines = src.lines().skip_while(|l| !l.starts_with(&head));
        let first = lines.next()?[head.len()..].trim().to_string();
        let rest = lines
            .take_while(|l| l.starts_with("//!   "))
            .map(|l| l[3..].trim());
        let text = std::iter::once(first.as_str())
            .chain(rest)
            .collect::<Vec<_>>()
            .join(" ");
        let end = text.find(". ").map(|i| i + 1).unwrap_or(text.len());
        Some((*path, text[..end].to_string()))
    })
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// What sm_90 silicon is predicted to do in a situation of rule `id`, undecided marked.
fn predicted(id: &str) -> String {
    let p = rule_prediction(id);
    match p.undecided() {
        None => p.to_string(),
        Some(Undecided::Class) => format!("{p} (undecided)"),
        Some(Undecided::Kind) => format!("{p} (undecided kind)"),
    }
}

/// Every rule id as a Markdown page.
pub fn markdown(ev: &Evidence) -> String {
    let mut s = String::from(
        "# Rules the model names\n\n\
         Generated by `ptxconform rules` (regenerate with `ptxconform rules > docs/ub-rules.md`).\n\
         Six kinds: [undefined behaviour](#undefined-behaviour) (what `expect: { undefined: RULE }`\n\
         names), the [copy rules](#copy-rules) of tensor copies and the\n\
         [encode rules](#encode-rules) of tensor maps (both reported as UB with the rule after a\n\
         colon), the [proxy rules](#proxy-rules) (not UB: they make bytes uncertain or order\n\
         them), the [model positions](#model-positions) the model takes where the text is\n\
         silent, and the [profile positions](#profile-positions) where the text and sm_90 silicon\n\
         differ.\n\n\
         ## Undefined behaviour\n\n\
         A run reports the rule, its section and what the model expects silicon to do. *Model\n\
         position*: the text says \"must\" or \"valid only\" without calling the violation undefined;\n\
         the model classifies it as UB. `tensormap.encode_rejected` and `tensor.copy` take a detail\n\
         after a colon (`tensor.copy:smem-alignment`).\n\n\
         *Recorded runs*: the runs recorded under `cases/` of cases the sm_90 model calls\n\
         undefined by the rule, and the sweeps' records under `reports/sweep/*/records.jsonl`\n\
         (one run per configuration, rebuilt and classified by today's model; a record whose\n\
         configuration no longer rebuilds as it ran is left out), counted when this page is\n\
         generated: devices and drivers, and how many ended in an outcome the prediction allows\n\
         (class and trap kind; `run --replay` and `sweep --replay` fail on the others). A\n\
         prediction resting on fewer than {thin} runs is *thin*, with why (no corpus case reaches\n\
         the rule, its cases need sm_100 silicon, none here, or only so many corpus cases and\n\
         sweep configurations reach it); the baselines under `reports/` that it also rests on\n\
         are named in `reference/src/sem/exec/predict.rs`. An undefined shared access past its region is\n\
         predicted to complete inside the CTA's allocation and to trap (`IllegalAddress`, 700)\n\
         past it, whatever its rule (`memory.shared_allocation`).\n\n\
         {sweeps}\n\n\
         | rule | § | model position | silicon expected | recorded runs | summary |\n\
         | --- | --- | --- | --- | --- | --- |\n",
    )
    .replace("{thin}", &THIN_BELOW.to_string())
    .replace(
        "{sweeps}",
        &format!(
            "This page counts {} sweep records of {} sweeps; {} of them no longer rebuild the \
             configuration that ran and are left out.",
            ev.sweep_records,
            ev.sweeps.len(),
            ev.stale_records
        ),
    );
    for r in CATALOGUE {
        let hw = predicted(r.id);
        let hw = match ptxconform_reference::sem::ub::silicon_traps_when(r.id) {
            Some(when) => format!(
                "{hw}; {} on {when}",
                HwOutcome::Traps(ptxconform_reference::case::TrapKind::LaunchFailed)
            ),
            None => hw,
        };
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            r.id,
            r.section,
            if r.assumption { "yes" } else { "" },
            cell(&hw),
            ev.of(r.id).describe(),
            cell(r.summary)
        ));
    }
    s.push_str(&format!(
        "\n## Copy rules\n\n\
         Checked by every tensor copy against its validated map; a copy that breaks one is UB\n\
         `{}:RULE` (e.g. `expect: {{ undefined: \"{}\" }}`).\n\n\
         | rule | § | silicon expected | recorded runs | summary |\n\
         | --- | --- | --- | --- | --- |\n",
        exec_tensor::COPY_RULE,
        exec_tensor::copy_rule_id(copy_rule::SMEM_ALIGN)
    ));
    for (id, section, summary) in COPY_RULES {
        let full = exec_tensor::copy_rule_id(id);
        s.push_str(&format!(
            "| `{id}` | {section} | {} | {} | {} |\n",
            predicted(full),
            ev.of(full).describe(),
            cell(summary)
        ));
    }
    s.push_str(&format!(
        "\n## Encode rules\n\n\
         The rules `cuTensorMapEncode*` parameters must meet (`memory.tensor_maps`). A map that\n\
         breaks one makes the first instruction that uses it UB `{}:RULE`. *Source*: the driver\n\
         page, the PTX ISA only, this model's shape check, or an undocumented driver check found by\n\
         probing. *Driver 13.0*: what `cuTensorMapEncode*` did on an H100 with a map breaking only\n\
         this rule. *Silicon when accepted*: what copies through such a map did on sm_90.\n\n\
         | rule | source | driver 13.0 | silicon when accepted | recorded runs | citation |\n\
         | --- | --- | --- | --- | --- | --- |\n",
        exec_tensor::ENCODE_REJECTED
    ));
    for r in encode_rule::ALL {
        let source = match r.source {
            RuleSource::Driver => "driver page",
            RuleSource::Ptx => "PTX ISA",
            RuleSource::Model => "model",
            RuleSource::Probe => "probe",
        };
        let observed = match r.observed {
            Observed::Rejects => "rejects",
            Observed::Accepts => "accepts",
            Observed::Untested => "untested",
        };
        let accepted = silicon_when_accepted(r.id).unwrap_or("");
        s.push_str(&format!(
            "| `{}` | {source} | {observed} | {} | {} | {} |\n",
            r.id,
            cell(accepted),
            ev.of(&format!("{}:{}", exec_tensor::ENCODE_REJECTED, r.id))
                .describe(),
            cell(r.cite)
        ));
    }
    s.push_str(
        "\n## Proxy rules\n\n\
         Generic proxy (stores, `cp.async`) against async proxy (`cp{.reduce}.async.bulk{.tensor}`).\n\
         A crossing without the fence a rule asks for leaves the bytes concerned uncertain (old or\n\
         new value) and names the rule in the execution's notes; an *orders* rule is what makes\n\
         them certain again.\n\n\
         | rule | § | effect | summary |\n| --- | --- | --- | --- |\n",
    );
    for r in proxy::CATALOGUE {
        let effect = match r.effect {
            Effect::Uncertain => "uncertain",
            Effect::Orders => "orders",
            Effect::Noted => "noted",
        };
        s.push_str(&format!(
            "| `{}` | {} | {effect} | {} |\n",
            r.id,
            r.section,
            cell(r.summary)
        ));
    }
    s.push_str(
        "\n## Model positions\n\n\
         Where the text is silent the model takes a named position; the code that depends on one\n\
         names it, and the module's documentation states it in full.\n\n\
         | id | stated in | position |\n| --- | --- | --- |\n",
    );
    for (ids, sources) in POSITIONS {
        for id in *ids {
            let (path, text) = stated(sources, id).unwrap_or_default();
            s.push_str(&format!("| `{id}` | `{path}` | {} |\n", cell(&text)));
        }
    }
    s.push_str(
        "\n## Profile positions\n\n\
         Where the text and sm_90 silicon differ the model holds both readings: `--profile spec`\n\
         (`run`, `fuzz`) judges hardware against what the text guarantees, `--profile sm_90` (the\n\
         default) against what the recorded H100 / H200 runs did, and reports a result that follows\n\
         the silicon there as a pass with a spec departure. *sm_90 evidence*: observed (recorded\n\
         runs show it; the unprobed column says what they do not cover, where sm_90 keeps the spec\n\
         reading) or unprobed (sm_90 keeps the spec reading).\n\n\
         | id | § | subject | spec reading | sm_90 reading | sm_90 evidence | evidence | unprobed |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for p in profile::POSITIONS {
        let silicon = match p.silicon {
            Silicon::Observed => "observed",
            Silicon::Unprobed => "unprobed",
        };
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {silicon} | {} | {} |\n",
            p.id,
            p.section,
            cell(p.subject),
            cell(p.spec),
            cell(p.sm_90),
            cell(p.evidence),
            cell(p.unprobed)
        ));
    }
    s
}

pub fn main(a: &RulesArgs) -> Result<i32, String> {
    if !a.cases.is_dir() {
        return Err(format!(
            "{}: no case folder (the recorded runs are counted from it; --cases DIR)",
            a.cases.display()
        ));
    }
    print!("{}", markdown(&Evidence::gather(&a.cases, &a.sweeps)?));
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::Evidence;

    /// The project's corpus and sweep records, as `ptxconform rules` reads them from the
    /// repository root (counted once for the tests here).
    fn corpus() -> &'static Evidence {
        static EV: std::sync::OnceLock<Evidence> = std::sync::OnceLock::new();
        EV.get_or_init(|| {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
            Evidence::gather(&root.join("cases"), &root.join("reports/sweep")).unwrap()
        })
    }

    /// The recorded runs are counted per rule, and a rule resting on few is marked thin.
    #[test]
    fn predictions_carry_their_recorded_runs() {
        let ev = corpus();
        let waits = ev.of("wait.never_completes");
        // Every recorded run lies inside, the traps after a timed-out wait too (the run goes on
        // past it: A-WAIT-RUNS-ON-HW, cases/probes/arrive-after-timeout.yaml).
        assert!(waits.runs >= 10 && waits.inside == waits.runs, "{waits:?}");
        assert!(waits.devices.keys().any(|d| d.contains("H100")));
        let page = super::markdown(ev);
        let row = |id: &str| {
            page.lines()
                .find(|l| l.starts_with(&format!("| `{id}` |")))
                .unwrap_or_else(|| panic!("{id}"))
                .to_string()
        };
        assert!(row("wait.never_completes").contains(&waits.describe()));
        // `.ignore_oob` is PTX ISA 9.2, newer than ptxas 13.0: its rule never ran here.
        let ignore_oob = ev.of("bulk.ignore_oob_range");
        assert!(ignore_oob.runs < super::THIN_BELOW);
        assert!(
            row("bulk.ignore_oob_range").contains("none recorded; thin: "),
            "{}",
            row("bulk.ignore_oob_range")
        );
        assert!(!row("mbarrier.misaligned").contains("thin"));
        // A thin rule says why: tcgen05's cases need sm_100 silicon.
        assert!(
            row("tcgen05.alloc.ncols_invalid").contains("sm_100 silicon"),
            "{}",
            row("tcgen05.alloc.ncols_invalid")
        );
        // The sweeps' records count too: thousands of driver refusals back the encode rules
        // that one corpus case each reaches, and every record still rebuilds as it ran.
        assert_eq!(ev.stale_records, 0);
        assert!(
            ev.sweeps.len() >= 10 && ev.sweep_records >= 49_000,
            "{:?}",
            ev.sweeps
        );
        assert!(page.contains(&format!("counts {} sweep records", ev.sweep_records)));
        let dims = ev.of("tensormap.encode_rejected:global-dim-range");
        assert!(dims.sweep_runs >= 100 && dims.cases <= 2, "{dims:?}");
        assert!(row("global-dim-range").contains("sweep records"));
        assert!(!row("global-dim-range").contains("thin"));
        // Detailed ids add up under their catalogue row.
        let copy = ev.of("tensor.copy");
        let parts: usize = ev
            .by_rule
            .iter()
            .filter(|(k, _)| k.starts_with("tensor.copy:"))
            .map(|(_, c)| c.runs)
            .sum();
        assert_eq!(copy.runs, parts);
    }

    /// docs/ub-rules.md is what `ptxconform rules` prints, and lists every rule.
    #[test]
    fn docs_list_every_rule() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/ub-rules.md");
        let doc = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            doc == super::markdown(corpus()),
            "{} is stale: regenerate it with `ptxconform rules > docs/ub-rules.md`",
            path.display()
        );
        for r in ptxconform_reference::sem::ub::CATALOGUE {
            assert!(doc.contains(&format!("`{}`", r.id)), "{}", r.id);
        }
        for r in super::encode_rule::ALL {
            assert!(doc.contains(&format!("`{}`", r.id)), "{}", r.id);
        }
        for r in super::proxy::CATALOGUE {
            assert!(doc.contains(&format!("| `{}` |", r.id)), "{}", r.id);
        }
    }

    /// Every profile position is listed with both readings and its evidence.
    #[test]
    fn profile_positions_show_both_readings() {
        let page = super::markdown(corpus());
        let table = &page[page.find("## Profile positions").unwrap()..];
        assert!(!super::profile::POSITIONS.is_empty());
        for p in super::profile::POSITIONS {
            let row = table
                .lines()
                .find(|l| l.starts_with(&format!("| `{}` |", p.id)))
                .unwrap_or_else(|| panic!("{} not listed", p.id));
            for part in [p.spec, p.sm_90, p.evidence, p.unprobed] {
                assert!(row.contains(&super::cell(part)), "{}: {part}", p.id);
            }
        }
        assert!(table.contains("| `P-RED-F32-SUBNORMALS` | §9.7.9.25.4.2 |"));
    }

    /// The copy-rule table lists exactly the rules the copy model checks, once each.
    #[test]
    fn copy_rules_are_the_models() {
        let listed: Vec<&str> = super::COPY_RULES.iter().map(|r| r.0).collect();
        assert_eq!(listed, super::copy_rule::ALL.to_vec());
    }

    /// Every named model position is stated in its module's documentation, as one sentence.
    #[test]
    fn every_position_is_stated() {
        for (ids, sources) in super::POSITIONS {
            assert!(!ids.is_empty(), "{sources:?}");
            for id in *ids {
                let (_, t) = super::stated(sources, id).unwrap_or_default();
                assert!(t.len() > 10, "{id} is not stated as `//! - {id}: ...`");
            }
        }
        let (path, t) = super::stated(super::POSITIONS[0].1, "A-EXEC-FENCE-NOOP").unwrap();
        assert_eq!(path, "reference/src/sem/exec.rs");
        assert_eq!(
            t,
            "thread fences, fence.proxy.alias, fence.proxy.tensormap::generic and barrier.cluster change no modelled state (steps are already sequential, the model has no virtual aliases and no tensor map the program writes); the proxy fences do (`exec/sync.rs`)."
        );
        let (path, _) = super::stated(super::POSITIONS[0].1, "A-EXEC-PROXY-CAUSAL").unwrap();
        assert_eq!(path, "reference/src/sem/exec/sync.rs");
        let (path, _) = super::stated(super::POSITIONS[0].1, "A-EXEC-TCGEN05-WORD").unwrap();
        assert_eq!(path, "reference/src/sem/exec/tcgen05.rs");
    }
}

#[cfg(test)]
mod case_format_tests {
    use ptxconform_reference::case::load_str;

    /// Every YAML block of docs/case-format.md is a case that loads and meets its `expect` on the
    /// reference (the page promises it).
    #[test]
    fn case_format_examples_run() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/case-format.md");
        let doc = std::fs::read_to_string(&path).unwrap();
        let blocks: Vec<&str> = doc
            .split("```yaml\n")
            .skip(1)
            .map(|b| b.split("```").next().unwrap_or(""))
            .collect();
        assert!(blocks.len() >= 3, "{}", blocks.len());
        for b in blocks {
            let cases = load_str(b, "case-format.md").unwrap_or_else(|e| panic!("{e}\n{b}"));
            for c in cases {
                let (r, _) = ptxconform_core::evaluate::evaluate("case-format.md", &c);
                assert!(!r.verdict.is_failure(), "{}: {}", c.name, r.detail);
                assert!(
                    c.expect.is_some(),
                    "{}: examples say what they expect",
                    c.name
                );
            }
        }
    }

    /// Every form of `init` appears in an example of docs/case-format.md that asserts the bytes
    /// it produces (`expect: { bytes: .. }` on its region), so the page shows, and the test above
    /// checks, what each form writes.
    #[test]
    fn every_init_form_is_shown_with_its_bytes() {
        use ptxconform_reference::case::{Expect, Init};
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/case-format.md");
        let doc = std::fs::read_to_string(&path).unwrap();
        let mut shown = std::collections::BTreeSet::new();
        for b in doc.split("```yaml\n").skip(1) {
            let b = b.split("```").next().unwrap_or("");
            for c in load_str(b, "case-format.md").unwrap() {
                let Some(Expect::Bytes(want)) = &c.expect else {
                    continue;
                };
                for r in c
                    .memory
                    .global
                    .iter()
                    .filter(|r| want.contains_key(&r.name))
                {
                    // Exhaustive: a new form of `init` must be added here, and shown there.
                    shown.insert(match r.init {
                        Init::Fill(_) => "fill",
                        Init::Pattern(_) => "pattern",
                        Init::Bytes(_) => "bytes",
                        Init::Hex(_) => "hex",
                        Init::Hash(_) => "hash",
                        Init::Values(_) => "values",
                    });
                }
            }
        }
        assert_eq!(shown.len(), 6, "shown with their bytes: {shown:?}");
    }

    /// Silicon outcomes are stated only for rules the driver accepts (else no copy runs), and
    /// name rules that exist.
    #[test]
    fn silicon_when_accepted_names_accepted_rules() {
        use ptxconform_reference::sem::tensor::tensormap::{rule, silicon_when_accepted, Observed};
        let stated: Vec<_> = rule::ALL
            .iter()
            .filter(|r| silicon_when_accepted(r.id).is_some())
            .collect();
        assert_eq!(stated.len(), 2);
        assert!(stated.iter().all(|r| r.observed == Observed::Accepts));
        assert_eq!(silicon_when_accepted("no-such-rule"), None);
    }
}
