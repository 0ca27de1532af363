//! `ptxconform schema`: JSON Schemas generated from the Rust types. Of case files
//! (`ptxconform_reference::case::json_schema`, as `docs/case.schema.json` holds it: editors that
//! know JSON Schema validate and complete YAML case files with it), and of the result files other
//! programs read: `summary.json` and one line of `journal.jsonl` (`docs/summary.schema.json`,
//! `docs/journal.schema.json`), each carrying its `schema_version` (`crate::schema_version`).
//! Tests keep the committed files equal to what this prints.

use crate::journal::Line;
use crate::report::SummaryFile;
use crate::schema_version::FileKind;
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;

/// Which file a schema describes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Document {
    /// A case file (YAML).
    #[default]
    Case,
    /// A run's summary.json.
    Summary,
    /// One line of a run's journal.jsonl (the first is the header, every other a result).
    Journal,
}

impl Document {
    /// Where the schema is committed, relative to the repository.
    pub fn committed(self) -> &'static str {
        match self {
            Document::Case => "docs/case.schema.json",
            Document::Summary => "docs/summary.schema.json",
            Document::Journal => "docs/journal.schema.json",
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct SchemaArgs {
    /// The file the schema describes.
    #[arg(value_enum, default_value_t)]
    of: Document,
    /// Print the field reference of case files (docs/case-reference.md) generated from the
    /// schema instead.
    #[arg(long)]
    reference: bool,
}

/// The schema of a result file ptxconform writes (`T`, as serialized), titled with its name and
/// the schema version it describes.
fn written<T: JsonSchema>(kind: FileKind, description: &str) -> serde_json::Value {
    let mut v = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    v["title"] = format!(
        "ptxconform {} (schema version {})",
        kind.file_name(),
        kind.current()
    )
    .into();
    v["description"] = description.into();
    v
}

/// The schema of `of` as pretty JSON (one trailing newline).
pub fn text(of: Document) -> String {
    let v = match of {
        Document::Case => ptxconform_reference::case::json_schema(),
        Document::Summary => written::<SummaryFile>(
            FileKind::Summary,
            "A run's (or a merge's) summary: run description, scope, counts, every result.",
        ),
        Document::Journal => written::<Line>(
            FileKind::Journal,
            "One line of journal.jsonl: the first is the header, every other a case result.",
        ),
    };
    serde_json::to_string_pretty(&v).expect("a JSON value prints") + "\n"
}

pub fn main(a: &SchemaArgs) -> Result<i32, String> {
    match (a.reference, a.of) {
        (true, Document::Case) => print!("{}", super::field_reference::reference_markdown()),
        (true, _) => return Err("--reference is the field reference of case files".into()),
        (false, of) => print!("{}", text(of)),
    }
    Ok(0)
}

/// YAML text as JSON (YAML's non-finite floats as their YAML strings: JSON has none).
pub(crate) fn yaml_value(yaml: &str) -> serde_json::Value {
    let opts = serde_saphyr::options! {
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::AsString,
    };
    serde_saphyr::from_str_with_options(yaml, opts).unwrap_or(serde_json::Value::Null)
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    fn validator() -> jsonschema::Validator {
        jsonschema::validator_for(&ptxconform_reference::case::json_schema())
            .expect("the generated schema is a valid JSON Schema")
    }

    /// YAML text as the JSON value an editor's YAML language server validates (JSON has no
    /// `.inf` / `.nan`: they stay the YAML strings, which the schema allows where floats are).
    fn json_of(yaml: &str) -> serde_json::Value {
        let v = super::yaml_value(yaml);
        assert!(!v.is_null(), "YAML parses:\n{yaml}");
        v
    }

    /// Every schema error of a YAML text, as `PATH: MESSAGE` lines.
    fn errors(v: &jsonschema::Validator, yaml: &str) -> Vec<String> {
        let doc = json_of(yaml);
        v.iter_errors(&doc)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect()
    }

    fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                yaml_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                out.push(p);
            }
        }
    }

    /// The committed schemas are what `ptxconform schema` prints.
    #[test]
    fn committed_schemas_are_generated_ones() {
        use super::Document;
        for (of, arg) in [
            (Document::Case, "case"),
            (Document::Summary, "summary"),
            (Document::Journal, "journal"),
        ] {
            let path = repo().join(of.committed());
            let doc = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                doc == super::text(of),
                "{} is stale: regenerate it with `ptxconform schema {arg} > {}`",
                path.display(),
                of.committed()
            );
        }
    }

    /// The schema accepts every case file of the corpus (planted faults and probes included):
    /// it describes the format the loader reads, not a stricter one.
    #[test]
    fn schema_accepts_every_corpus_file() {
        let v = validator();
        let mut files = Vec::new();
        yaml_files(&repo().join("cases"), &mut files);
        assert!(files.len() > 50, "{} case files", files.len());
        let mut bad = Vec::new();
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            let errs = errors(&v, &text);
            if !errs.is_empty() {
                bad.push(format!(
                    "{}: {}",
                    f.display(),
                    errs[..errs.len().min(3)].join("; ")
                ));
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    /// The example sources of the reference (case-format.md, the starters, field_examples.yaml)
    /// load as cases and meet the schema.
    #[test]
    fn example_sources_load_and_meet_the_schema() {
        let v = validator();
        let docs = std::fs::read_to_string(repo().join("docs/case-format.md")).unwrap();
        let blocks = docs
            .split("```yaml\n")
            .skip(1)
            .map(|b| b.split("```").next().unwrap_or(""));
        let starters = crate::commands::new::STARTERS.iter().map(|s| s.2);
        let mut n = 0;
        for text in blocks
            .chain(starters)
            .chain([crate::commands::field_reference::FIELD_EXAMPLES])
        {
            ptxconform_reference::case::load_str(text, "example")
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(errors(&v, text), Vec::<String>::new(), "{text}");
            n += 1;
        }
        assert!(n >= 12, "{n}");
    }

    /// Malformed cases are rejected, and the error points at the offending field.
    #[test]
    fn schema_rejects_malformed_cases() {
        let v = validator();
        let ok = "name: a\ntarget: sm_90\nprogram: [ { ptx: cp.async.wait_all } ]\n";
        assert_eq!(errors(&v, ok), Vec::<String>::new());
        for (yaml, at) in [
            // a misspelt field
            ("name: a\ntarget: sm_90\nprogram: []\nchecks: [a]\n", ""),
            // no program
            ("name: a\ntarget: sm_90\n", ""),
            // a target that is not one
            ("name: a\ntarget: volta\nprogram: []\n", "/target"),
            // a step that is two steps
            (
                "name: a\ntarget: sm_90\nprogram: [ { ptx: x, store: { at: b, bytes: [1] } } ]\n",
                "/program/0",
            ),
            // an init byte out of range
            (
                "name: a\ntarget: sm_90\nmemory: { global: [ { name: g, size: 4, init: { fill: 256 } } ] }\nprogram: []\n",
                "/memory/global/0/init",
            ),
            // expected bytes that are not a byte pattern
            (
                "name: a\ntarget: sm_90\nprogram: []\nexpect: { bytes: { g: 0x12 } }\n",
                "/expect",
            ),
            (
                "name: a\ntarget: sm_90\nprogram: []\nexpect: { bytes: { g: \"..01\" } }\n",
                "/expect",
            ),
        ] {
            let errs = errors(&v, yaml);
            assert!(!errs.is_empty(), "accepted:\n{yaml}");
            assert!(
                errs.iter().any(|e| e.starts_with(at)),
                "{yaml}: errors {errs:?} do not point at `{at}`"
            );
        }
    }
}
