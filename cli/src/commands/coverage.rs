//! `ptxconform coverage`: the variant × target matrix. For every coverage row (an instruction's
//! qualifiers and optional operands, `Family::row`) it shows where the model says the row is legal,
//! whether ptxas agrees, which corpus cases exercise it, whether the reference model passes them,
//! and whether hardware has confirmed them (recorded observations) or is still pending.

use crate::legality::{self, LegalityArgs};
use ptxconform_gpu::ptxas::Ptxas;
use ptxconform_reference::case::{load_dir, validate::parse_steps, Case};
use ptxconform_reference::ptx::Instruction;
use ptxconform_reference::target::{PtxVersion, Target, Verdict};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

#[derive(clap::Args, Debug, Clone)]
pub struct CoverageArgs {
    /// Case corpus directory.
    #[arg(long, default_value = "cases")]
    pub cases: PathBuf,
    /// Targets of the matrix.
    #[arg(long, value_delimiter = ',', default_value = "sm_80,sm_90a,sm_100a", value_parser = crate::legality::known_target)]
    pub targets: Vec<Target>,
    /// Only families whose name contains this text.
    #[arg(long)]
    pub family: Option<String>,
    /// Print every row, not only the per-family summary.
    #[arg(long)]
    pub rows: bool,
    /// Skip the ptxas column (no assembling).
    #[arg(long)]
    pub no_ptxas: bool,
    /// Write the matrix as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// Hardware status of a row.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hardware {
    /// A corpus case exercising the row has a recorded hardware observation that passed.
    Confirmed,
    /// Cases exist, none observed yet on a GPU that can run them.
    Pending,
    /// The row is legal only on targets no available GPU provides (e.g. sm_100a).
    NeedsTarget(String),
    /// No case exercises the row.
    NoCase,
}

/// What the legality differential says of a row (the `ptxas` column), worst last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PtxasStatus {
    NotChecked,
    Agree,
    /// ptxas disagrees where a recorded exception says it does.
    Listed,
    Disagree,
}

impl PtxasStatus {
    fn name(self) -> &'static str {
        match self {
            PtxasStatus::NotChecked => "not_checked",
            PtxasStatus::Agree => "agree",
            PtxasStatus::Listed => "listed",
            PtxasStatus::Disagree => "disagree",
        }
    }
}

impl std::fmt::Display for PtxasStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub family: String,
    pub row: String,
    /// Model verdict per target: true = legal at the newest supported PTX version.
    pub legal: BTreeMap<String, bool>,
    pub ptxas: PtxasStatus,
    pub cases: Vec<String>,
    /// Cases of this row the reference model runs without error (None = not evaluated).
    pub reference_ok: Option<usize>,
    pub hardware: Hardware,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FamilySummary {
    pub family: String,
    pub rows: usize,
    /// Rows legal on at least one target of the matrix.
    pub legal_rows: usize,
    pub with_cases: usize,
    pub reference_ok: usize,
    pub ptxas_agree: usize,
    pub hardware_confirmed: usize,
    pub hardware_pending: usize,
    pub needs_target: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct Coverage {
    pub targets: Vec<Target>,
    pub families: Vec<FamilySummary>,
    pub rows: Vec<Row>,
    /// Corpus files that failed to load (path: error).
    pub load_errors: Vec<String>,
}

impl Coverage {
    /// Keep the families whose name contains `f`; none is an error that lists them (an empty
    /// table would read as "nothing covered").
    fn keep_family(&mut self, f: &str) -> Result<(), String> {
        let all: Vec<String> = self.families.iter().map(|s| s.family.clone()).collect();
        self.rows.retain(|r| r.family.contains(f));
        self.families.retain(|s| s.family.contains(f));
        if self.families.is_empty() {
            return Err(format!(
                "--family {f}: no family's name contains it (families: {})",
                all.join(", ")
            ));
        }
        Ok(())
    }
}

/// Corpus cases by coverage row, and which rows each case's steps cover.
fn rows_of_corpus(cases: &[Case]) -> BTreeMap<String, Vec<usize>> {
    let mut by_row: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (ci, c) in cases.iter().enumerate() {
        let rows: BTreeSet<String> = parse_steps(c)
            .into_iter()
            .filter_map(|(_, s)| s.ok())
            .map(|s| s.instr.row())
            .collect();
        for r in rows {
            by_row.entry(r).or_default().push(ci);
        }
    }
    by_row
}

fn hardware_of(
    cases: &[&Case],
    legal_on_hopper: bool,
    legal_elsewhere: Option<&Target>,
) -> Hardware {
    if cases.is_empty() {
        return Hardware::NoCase;
    }
    if cases
        .iter()
        .any(|c| ptxconform_core::evaluate::confirmed(c))
    {
        return Hardware::Confirmed;
    }
    // The GPUs lent to this project are Hopper (sm_90a); rows needing a newer target wait for one.
    if !legal_on_hopper && cases.iter().all(|c| c.target.sm > 90) {
        return Hardware::NeedsTarget(
            legal_elsewhere
                .map(|t| t.to_string())
                .unwrap_or_else(|| "a newer GPU".into()),
        );
    }
    Hardware::Pending
}

/// Build the matrix. `ptxas_rows`: row -> its worst ptxas status, when the differential ran.
/// `reference`: runs one case through the reference model (true = no error), when available.
pub fn build(
    targets: &[Target],
    cases: &[Case],
    ptxas_rows: Option<&BTreeMap<String, PtxasStatus>>,
    reference: Option<&dyn Fn(&Case) -> bool>,
) -> Coverage {
    let variants = Instruction::all_variants();
    let corpus = rows_of_corpus(cases);
    let ref_ok: Vec<Option<bool>> = cases.iter().map(|c| reference.map(|f| f(c))).collect();
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    for v in &variants {
        let req = v.requirement();
        let r = rows.entry(v.row()).or_insert_with(|| Row {
            family: v.family().to_string(),
            row: v.row(),
            legal: BTreeMap::new(),
            ptxas: PtxasStatus::NotChecked,
            cases: Vec::new(),
            reference_ok: None,
            hardware: Hardware::NoCase,
        });
        for t in targets {
            let ok = req.verdict(*t, PtxVersion::MAX_SUPPORTED) == Verdict::Legal;
            *r.legal.entry(t.to_string()).or_insert(false) |= ok;
        }
    }
    for r in rows.values_mut() {
        let idx = corpus.get(&r.row).cloned().unwrap_or_default();
        r.cases = idx.iter().map(|&i| cases[i].name.clone()).collect();
        if reference.is_some() {
            r.reference_ok = Some(idx.iter().filter(|&&i| ref_ok[i] == Some(true)).count());
        }
        let hopper = r.legal.get("sm_90a").copied().unwrap_or(false);
        let elsewhere = targets
            .iter()
            .find(|t| r.legal.get(&t.to_string()).copied().unwrap_or(false));
        let cs: Vec<&Case> = idx.iter().map(|&i| &cases[i]).collect();
        r.hardware = hardware_of(&cs, hopper, elsewhere);
        if let Some(p) = ptxas_rows {
            r.ptxas = p.get(&r.row).copied().unwrap_or(PtxasStatus::Agree);
        }
    }
    let mut fams: BTreeMap<String, FamilySummary> = BTreeMap::new();
    for r in rows.values() {
        let f = fams
            .entry(r.family.clone())
            .or_insert_with(|| FamilySummary {
                family: r.family.clone(),
                ..Default::default()
            });
        f.rows += 1;
        if !r.legal.values().any(|&l| l) {
            continue;
        }
        f.legal_rows += 1;
        f.with_cases += usize::from(!r.cases.is_empty());
        f.reference_ok += usize::from(r.reference_ok.is_some_and(|n| n > 0));
        f.ptxas_agree += usize::from(matches!(r.ptxas, PtxasStatus::Agree | PtxasStatus::Listed));
        match r.hardware {
            Hardware::Confirmed => f.hardware_confirmed += 1,
            Hardware::Pending => f.hardware_pending += 1,
            Hardware::NeedsTarget(_) => f.needs_target += 1,
            Hardware::NoCase => {}
        }
    }
    Coverage {
        targets: targets.to_vec(),
        families: fams.into_values().collect(),
        rows: rows.into_values().collect(),
        load_errors: Vec::new(),
    }
}

/// Row -> worst ptxas status over the differential's disagreements.
fn ptxas_status(
    ptxas: &Ptxas,
    targets: &[Target],
) -> Result<BTreeMap<String, PtxasStatus>, String> {
    let args = LegalityArgs {
        targets: targets.to_vec(),
        json: None,
        jobs: None,
        exceptions: None,
        batch: 96,
        strict: false,
        verbose: false,
        family: Vec::new(),
    };
    let rep = legality::run_report(ptxas, &args)?;
    let mut m: BTreeMap<String, PtxasStatus> = BTreeMap::new();
    for d in rep.disagreements {
        let s = if d.listed.is_some() {
            PtxasStatus::Listed
        } else {
            PtxasStatus::Disagree
        };
        let e = m.entry(d.row).or_insert(s);
        *e = (*e).max(s);
    }
    Ok(m)
}

fn mark(b: bool) -> &'static str {
    if b {
        "✓"
    } else {
        "·"
    }
}

pub fn print(c: &Coverage, rows: bool) {
    if rows {
        let ts: Vec<String> = c.targets.iter().map(|t| format!("{t:>8}")).collect();
        println!(
            "{:<90} {} {:>8} {:>6} {:>5} hardware",
            "row",
            ts.join(" "),
            "ptxas",
            "cases",
            "ref"
        );
        for r in &c.rows {
            let l: Vec<String> = c
                .targets
                .iter()
                .map(|t| format!("{:>8}", mark(r.legal[&t.to_string()])))
                .collect();
            let hw = match &r.hardware {
                Hardware::Confirmed => "✓".to_string(),
                Hardware::Pending => "pending".to_string(),
                Hardware::NeedsTarget(t) => format!("needs {t}"),
                Hardware::NoCase => "-".to_string(),
            };
            let rf = r
                .reference_ok
                .map(|n| if n > 0 { "✓" } else { "✗" })
                .unwrap_or("?");
            println!(
                "{:<90} {} {:>8} {:>6} {:>5} {hw}",
                r.row,
                l.join(" "),
                r.ptxas,
                r.cases.len(),
                if r.cases.is_empty() { "-" } else { rf }
            );
        }
        println!();
    }
    println!(
        "{:<30} {:>6} {:>10} {:>10} {:>10} {:>7} {:>9} {:>9} {:>12}",
        "family",
        "rows",
        "legal-rows",
        "with-cases",
        "reference✓",
        "ptxas✓",
        "hardware✓",
        "hw-pending",
        "needs-target"
    );
    let mut total = FamilySummary {
        family: "total".into(),
        ..Default::default()
    };
    for f in &c.families {
        total.rows += f.rows;
        total.legal_rows += f.legal_rows;
        total.with_cases += f.with_cases;
        total.reference_ok += f.reference_ok;
        total.ptxas_agree += f.ptxas_agree;
        total.hardware_confirmed += f.hardware_confirmed;
        total.hardware_pending += f.hardware_pending;
        total.needs_target += f.needs_target;
    }
    for f in c.families.iter().chain(std::iter::once(&total)) {
        println!(
            "{:<30} {:>6} {:>10} {:>10} {:>10} {:>7} {:>9} {:>9} {:>12}",
            f.family,
            f.rows,
            f.legal_rows,
            f.with_cases,
            f.reference_ok,
            f.ptxas_agree,
            f.hardware_confirmed,
            f.hardware_pending,
            f.needs_target
        );
    }
    for e in &c.load_errors {
        println!("corpus error: {e}");
    }
}

/// Load every case of a corpus directory; files that fail are reported, not fatal.
pub fn load_corpus(dir: &std::path::Path) -> (Vec<Case>, Vec<String>) {
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for (path, r) in load_dir(dir) {
        match r {
            Ok(cs) => cases.extend(cs),
            Err(e) => errors.push(format!("{}: {e}", path.display())),
        }
    }
    (cases, errors)
}

pub fn main(args: &CoverageArgs, reference: Option<&dyn Fn(&Case) -> bool>) -> Result<i32, String> {
    let (cases, load_errors) = load_corpus(&args.cases);
    let ptxas_rows = if args.no_ptxas {
        None
    } else {
        match Ptxas::find() {
            Ok(p) => Some(ptxas_status(&p, &args.targets)?),
            Err(e) => {
                println!("ptxas column not checked: {e}");
                None
            }
        }
    };
    let mut c = build(&args.targets, &cases, ptxas_rows.as_ref(), reference);
    c.load_errors = load_errors;
    if let Some(f) = &args.family {
        c.keep_family(f)?;
    }
    print(&c, args.rows);
    if let Some(p) = &args.json {
        std::fs::write(
            p,
            serde_json::to_string_pretty(&c).map_err(|e| e.to_string())?,
        )
        .map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxconform_reference::case::load_str;

    #[test]
    fn family_filter_keeps_matches_and_rejects_an_unknown_name() {
        let targets = [Target::SM_90A];
        let mut c = build(&targets, &[], None, None);
        let e = c.clone().keep_family("nosuch").unwrap_err();
        assert!(
            e.contains("--family nosuch") && e.contains("tcgen05.cp"),
            "{e}"
        );
        c.keep_family("tcgen05").unwrap();
        assert!(!c.families.is_empty());
        assert!(c.families.iter().all(|f| f.family.starts_with("tcgen05")));
        assert!(c.rows.iter().all(|r| r.family.starts_with("tcgen05")));
    }

    /// A row the differential does not name agrees; a listed exception still counts as
    /// agreeing, a disagreement does not. The column reads as before (`listed`, padded).
    #[test]
    fn ptxas_statuses_count_by_kind() {
        let targets = [Target::SM_90A];
        let all = build(&targets, &[], None, None);
        let fam = |c: &Coverage| {
            c.families
                .iter()
                .find(|f| f.family == "async-group")
                .unwrap()
                .ptxas_agree
        };
        let rows: Vec<&Row> = all
            .rows
            .iter()
            .filter(|r| r.family == "async-group" && r.legal["sm_90a"])
            .collect();
        assert!(rows.len() >= 2);
        assert!(rows.iter().all(|r| r.ptxas == PtxasStatus::NotChecked));
        let statuses = BTreeMap::from([
            (rows[0].row.clone(), PtxasStatus::Listed),
            (rows[1].row.clone(), PtxasStatus::Disagree),
        ]);
        let c = build(&targets, &[], Some(&statuses), None);
        assert_eq!(fam(&c), rows.len() - 1);
        let listed = c.rows.iter().find(|r| r.row == rows[0].row).unwrap();
        assert_eq!(format!("{:>8}", listed.ptxas), "  listed");
        let json = serde_json::to_value(listed).unwrap();
        assert_eq!(json["ptxas"], "listed");
    }

    #[test]
    fn corpus_rows_and_hardware_status() {
        let yaml = r#"
- name: a
  target: sm_90a
  memory:
    global: [ { name: src, size: 64 } ]
    shared: [ { name: buf, size: 64 } ]
  program:
    - ptx: cp.async.ca.shared.global [buf], [src], 4
    - ptx: cp.async.commit_group
  observed:
    - { device: H100, driver: "580", date: "2026-11-21", outcome: completed }
- name: b
  target: sm_90a
  memory:
    global: [ { name: src, size: 64 } ]
    shared: [ { name: buf, size: 64 } ]
  program:
    - ptx: cp.async.cg.shared.global [buf], [src], 16
"#;
        let cases = load_str(yaml, "t.yaml").unwrap();
        let targets = [Target::SM_80, Target::SM_90A, Target::SM_100A];
        let c = build(&targets, &cases, None, Some(&|c: &Case| c.name == "a"));
        let ca = c
            .rows
            .iter()
            .find(|r| r.row == "cp.async.ca.shared.global cp-size=4")
            .expect("row of case a");
        assert_eq!(ca.cases, vec!["a".to_string()]);
        assert_eq!(ca.hardware, Hardware::Confirmed);
        assert_eq!(ca.reference_ok, Some(1));
        let cg = c
            .rows
            .iter()
            .find(|r| r.cases == vec!["b".to_string()])
            .expect("row of case b");
        assert_eq!(cg.hardware, Hardware::Pending);
        assert_eq!(cg.reference_ok, Some(0));
        let tc = c
            .rows
            .iter()
            .find(|r| r.family == "tcgen05.cp" && r.legal["sm_100a"])
            .unwrap();
        assert!(!tc.legal["sm_90a"]);
        assert_eq!(tc.hardware, Hardware::NoCase);
        let fam = c
            .families
            .iter()
            .find(|f| f.family == "async-group")
            .unwrap();
        assert_eq!(fam.with_cases, 1, "commit_group is covered by case a");
    }
}
