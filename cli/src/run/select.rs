//! Which cases a run takes: `--filter` / `--exclude` patterns and `--case-list` files.
//!
//! A pattern is matched against the case name, or against `FILE:NAME` when it contains `/` or
//! `:` (case names have neither). A pattern with a glob character (`*?[{`) is a glob over the
//! whole subject; a plain text keeps its old meaning: in `--filter` / `--exclude` it is a
//! substring, in a case list it is the exact name (as in Vulkan CTS mustpass lists). Globs come
//! from the project's one matcher (`ptxconform_core::glob`): `{a,b}` alternatives, classes,
//! escapes; a list of any length is one `globset` automaton.

use globset::{GlobSet, GlobSetBuilder};
use ptxconform_core::corpus::{Loaded, DEFAULT_CORPUS};
use ptxconform_core::glob;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug, Clone, Default)]
pub struct SelectArgs {
    /// Only cases matching PATTERN (repeatable: any may match). A glob (`*?[{`) matches the whole
    /// case name, a plain text a part of it; a pattern with `/` or `:` is matched against
    /// `FILE:NAME` instead.
    #[arg(long, value_name = "PATTERN")]
    pub filter: Vec<String>,
    /// Leave out cases matching PATTERN (repeatable; same rules as --filter).
    #[arg(long, value_name = "PATTERN")]
    pub exclude: Vec<String>,
    /// Only cases named in FILE (repeatable): one name, `FILE:NAME` or glob per line; `#` starts
    /// a comment line, blank lines are ignored. A line that matches no case is a warning.
    #[arg(long, value_name = "FILE")]
    pub case_list: Vec<PathBuf>,
}

/// The case paths a run names must exist, and without paths the default corpus must be here: a
/// mistyped path or a run from the wrong folder is a usage error, not a failing "case".
pub fn check_paths(paths: &[PathBuf]) -> Result<(), String> {
    if paths.is_empty() && !Path::new(DEFAULT_CORPUS).is_dir() {
        let here = std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|_| "the working directory".into());
        return Err(format!(
            "no `{DEFAULT_CORPUS}/` folder in {here}: run from the repository root or name the \
             case files and folders"
        ));
    }
    match paths.iter().find(|p| !p.exists()) {
        Some(p) => Err(format!("{}: no such file or directory", p.display())),
        None => Ok(()),
    }
}

/// What a plain (glob-free) pattern means.
#[derive(Clone, Copy)]
enum Plain {
    Substring,
    Exact,
}

/// Patterns as one matcher, remembering where each came from (for warnings and errors).
struct Patterns {
    by_name: GlobSet,
    by_path: GlobSet,
    /// Index into `origin` of each glob of `by_name`, `by_path`.
    name_ix: Vec<usize>,
    path_ix: Vec<usize>,
    /// `--filter` or `list.txt:3`, and the pattern text.
    origin: Vec<(String, String)>,
}

fn is_glob(p: &str) -> bool {
    p.contains(['*', '?', '[', '{'])
}

/// Whether a pattern is matched against `FILE:NAME` rather than the name.
fn on_path(p: &str) -> bool {
    p.contains(['/', ':'])
}

impl Patterns {
    /// `items`: (where it came from, pattern text, column of the text in a file).
    fn new(items: Vec<(String, String, Option<usize>)>, plain: Plain) -> Result<Patterns, String> {
        let (mut by_name, mut by_path) = (GlobSetBuilder::new(), GlobSetBuilder::new());
        let (mut name_ix, mut path_ix, mut origin) = (vec![], vec![], vec![]);
        for (i, (from, text, col)) in items.into_iter().enumerate() {
            let pattern = match (is_glob(&text), plain) {
                (true, _) => text.clone(),
                (false, Plain::Substring) => format!("*{}*", glob::escape(&text)),
                (false, Plain::Exact) => glob::escape(&text),
            };
            let g = glob::compile(&pattern).map_err(|e| {
                let at = col.map(|c| format!("{from}:{c}")).unwrap_or(from.clone());
                format!("{at}: invalid pattern `{text}`: {}", e.kind())
            })?;
            if on_path(&text) {
                by_path.add(g);
                path_ix.push(i);
            } else {
                by_name.add(g);
                name_ix.push(i);
            }
            origin.push((from, text));
        }
        let build = |b: GlobSetBuilder| b.build().map_err(|e| e.to_string());
        Ok(Patterns {
            by_name: build(by_name)?,
            by_path: build(by_path)?,
            name_ix,
            path_ix,
            origin,
        })
    }

    fn is_empty(&self) -> bool {
        self.origin.is_empty()
    }

    /// Indices of the patterns matching the case.
    fn matching(&self, file: &str, name: &str) -> Vec<usize> {
        let mut m: Vec<usize> = self
            .by_name
            .matches(name)
            .into_iter()
            .map(|i| self.name_ix[i])
            .collect();
        if !self.path_ix.is_empty() {
            let subject = format!("{file}:{name}");
            m.extend(
                self.by_path
                    .matches(&subject)
                    .into_iter()
                    .map(|i| self.path_ix[i]),
            );
        }
        m
    }

    fn is_match(&self, file: &str, name: &str) -> bool {
        self.by_name.is_match(name)
            || (!self.path_ix.is_empty() && self.by_path.is_match(format!("{file}:{name}")))
    }
}

/// The compiled selection of a run.
pub struct Selection {
    filter: Patterns,
    exclude: Patterns,
    list: Patterns,
    /// The selection in words, for "no cases …".
    words: String,
}

/// The lines of a case list: (`FILE:LINE`, pattern, column).
fn list_lines(path: &Path) -> Result<Vec<(String, String, Option<usize>)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--case-list {}: {e}", path.display()))?;
    Ok(text
        .lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let t = line.trim();
            let col = line.len() - line.trim_start().len() + 1;
            (!t.is_empty() && !t.starts_with('#')).then(|| {
                (
                    format!("{}:{}", path.display(), i + 1),
                    t.to_string(),
                    Some(col),
                )
            })
        })
        .collect())
}

impl Selection {
    pub fn new(args: &SelectArgs) -> Result<Selection, String> {
        let flags = |flag: &str, v: &[String]| {
            v.iter()
                .map(|p| (format!("--{flag}"), p.clone(), None))
                .collect::<Vec<_>>()
        };
        let mut lines = Vec::new();
        let mut words: Vec<String> = Vec::new();
        for p in &args.case_list {
            lines.extend(list_lines(p)?);
            words.push(format!("--case-list {}", p.display()));
        }
        words.extend(args.filter.iter().map(|p| format!("--filter `{p}`")));
        words.extend(args.exclude.iter().map(|p| format!("--exclude `{p}`")));
        Ok(Selection {
            filter: Patterns::new(flags("filter", &args.filter), Plain::Substring)?,
            exclude: Patterns::new(flags("exclude", &args.exclude), Plain::Substring)?,
            list: Patterns::new(lines, Plain::Exact)?,
            words: if words.is_empty() {
                String::new()
            } else {
                format!(" selected by {}", words.join(", "))
            },
        })
    }

    /// Keep the selected cases. Returns a warning for each case-list line that matched no case
    /// of the corpus.
    pub fn apply(&self, cases: &mut Vec<Loaded>) -> Vec<String> {
        let mut used = vec![false; self.list.origin.len()];
        cases.retain(|c| {
            let (file, name) = (c.file.as_str(), c.case.name.as_str());
            let listed = self.list.matching(file, name);
            for &i in &listed {
                used[i] = true;
            }
            (self.list.is_empty() || !listed.is_empty())
                && (self.filter.is_empty() || self.filter.is_match(file, name))
                && !self.exclude.is_match(file, name)
        });
        used.iter()
            .zip(&self.list.origin)
            .filter(|(u, _)| !**u)
            .map(|(_, (from, text))| format!("{from}: `{text}` matches no case"))
            .collect()
    }

    /// The selection in words, for "no cases …".
    pub fn describe(&self) -> &str {
        &self.words
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxconform_reference::case::load_str;

    fn corpus() -> Vec<Loaded> {
        let case = |name: &str| {
            load_str(
                &format!(
                    "name: {name}\ntarget: sm_90a\nprogram: [ {{ ptx: cp.async.wait_all }} ]\n"
                ),
                "t.yaml",
            )
            .unwrap()
            .remove(0)
        };
        [
            ("cases/cp_async/copy.yaml", "cp_async.ca.4"),
            ("cases/cp_async/copy.yaml", "cp_async.cg.16"),
            ("cases/bulk/g2s.yaml", "bulk.g2s.16"),
            ("cases/bulk/s2g.yaml", "bulk.s2g.16"),
        ]
        .iter()
        .map(|(f, n)| Loaded {
            file: f.to_string(),
            case: case(n),
        })
        .collect()
    }

    fn select(args: SelectArgs) -> (Vec<String>, Vec<String>) {
        let mut cs = corpus();
        let warnings = Selection::new(&args).unwrap().apply(&mut cs);
        (cs.into_iter().map(|c| c.case.name).collect(), warnings)
    }

    fn args(filter: &[&str], exclude: &[&str]) -> SelectArgs {
        SelectArgs {
            filter: filter.iter().map(|s| s.to_string()).collect(),
            exclude: exclude.iter().map(|s| s.to_string()).collect(),
            case_list: vec![],
        }
    }

    #[test]
    fn plain_text_is_a_substring_globs_match_the_whole_name() {
        assert_eq!(select(args(&["ca.4"], &[])).0, ["cp_async.ca.4"]);
        // A glob is anchored: `bulk.*` is not `*bulk.*`.
        assert_eq!(
            select(args(&["bulk.*"], &[])).0,
            ["bulk.g2s.16", "bulk.s2g.16"]
        );
        assert!(select(args(&["g2s*"], &[])).0.is_empty());
        assert_eq!(
            select(args(&["*.{4,16}"], &["bulk.s2g*", "cg"])).0,
            ["cp_async.ca.4", "bulk.g2s.16"]
        );
        // Repeated filters: any may match.
        assert_eq!(
            select(args(&["ca.4", "s2g"], &[])).0,
            ["cp_async.ca.4", "bulk.s2g.16"]
        );
    }

    #[test]
    fn patterns_with_a_path_match_file_and_name() {
        assert_eq!(
            select(args(&["bulk/"], &[])).0,
            ["bulk.g2s.16", "bulk.s2g.16"]
        );
        assert_eq!(
            select(args(&["*/copy.yaml:*.16"], &[])).0,
            ["cp_async.cg.16"]
        );
        assert_eq!(
            select(args(&[], &["cases/bulk/*"])).0,
            ["cp_async.ca.4", "cp_async.cg.16"]
        );
    }

    #[test]
    fn case_lists_name_cases_exactly_and_warn_about_dead_lines() {
        let dir = std::env::temp_dir().join(format!("ptxc-select-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let list = dir.join("must.txt");
        std::fs::write(
            &list,
            "# mustpass\n\ncp_async.ca\n  bulk.*.16\ncases/cp_async/copy.yaml:cp_async.cg.16\nnot.a.case\n",
        )
        .unwrap();
        let (names, warnings) = select(SelectArgs {
            case_list: vec![list.clone()],
            exclude: vec!["s2g".into()],
            ..Default::default()
        });
        assert_eq!(names, ["cp_async.cg.16", "bulk.g2s.16"]);
        // `cp_async.ca` is a plain name that is no case's name; excluded cases still count as
        // matched (the line is not dead, the exclusion is deliberate).
        let at = list.display().to_string();
        assert_eq!(
            warnings,
            [
                format!("{at}:3: `cp_async.ca` matches no case"),
                format!("{at}:6: `not.a.case` matches no case"),
            ]
        );
        std::fs::write(&list, "ok\n   bad[\n").unwrap();
        let e = Selection::new(&SelectArgs {
            case_list: vec![list.clone()],
            ..Default::default()
        })
        .err()
        .unwrap();
        assert!(
            e.starts_with(&format!("{at}:2:4: invalid pattern `bad[`")),
            "{e}"
        );
        let e = Selection::new(&SelectArgs {
            case_list: vec![dir.join("missing.txt")],
            ..Default::default()
        })
        .err()
        .unwrap();
        assert!(
            e.starts_with("--case-list ") && e.contains("missing.txt"),
            "{e}"
        );
        std::fs::remove_dir_all(dir).ok();
    }
}
