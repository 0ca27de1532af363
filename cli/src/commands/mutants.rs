//! `ptxconform mutants [PATHS] [--json FILE] [--known FILE]`: the mutation schema's kill table.
//! Every mutant of the reference (`sem::mutant`) is run over the corpus, and every recorded
//! hardware observation is judged against it as `run` replays recordings (sm_90 profile, known
//! findings applied): a recording that passes unmutated and fails under the mutant kills it.
//! tcgen05 mutants are reported apart (no sm_100 silicon recorded). Campaign kills (a GPU fuzz
//! run's observations judged under each mutant, `core::mutants::kills`) need a GPU run and are
//! not part of this table.

use std::path::PathBuf;

#[derive(clap::Args, Debug, Clone)]
pub struct MutantsArgs {
    /// Case files or folders (default: cases/).
    pub paths: Vec<PathBuf>,
    /// Write the table as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Known findings applied to recordings, as `run` does.
    #[arg(long, default_value = "reports/known-divergences.yaml")]
    pub known: PathBuf,
}

#[cfg(not(feature = "mutants"))]
pub fn main(_: &MutantsArgs) -> Result<i32, String> {
    Err("built without the mutation schema: run `cargo run --release --features mutants -- mutants`".into())
}

#[cfg(feature = "mutants")]
pub fn main(args: &MutantsArgs) -> Result<i32, String> {
    use ptxconform_core::corpus::load_corpus;
    use ptxconform_core::known::KnownDivergences;
    use ptxconform_core::mutants::{replay, Kill, MutantResult};
    use ptxconform_reference::sem::mutant::Mutant;

    let t = std::time::Instant::now();
    let known = KnownDivergences::load(&args.known)?;
    let (loaded, errors) = load_corpus(&args.paths);
    for e in &errors {
        eprintln!("warning: {e:?}");
    }
    let recorded = loaded
        .iter()
        .filter(|l| !l.case.observed.is_empty())
        .count();
    let results = replay(&loaded, Mutant::ALL, &known);
    let secs = t.elapsed().as_secs_f64();

    let (sm100, sm90): (Vec<&MutantResult>, Vec<&MutantResult>) =
        results.iter().partition(|r| r.needs_sm100());
    let killed = |rs: &[&MutantResult]| rs.iter().filter(|r| r.killed_by.is_some()).count();
    println!(
        "{:<42} {:<18} {:<6} {:<8} verdict",
        "mutant", "family", "subtle", "reached"
    );
    for (title, rs) in [
        ("sm_90 rules (recorded H100 / H200 silicon)", &sm90),
        (
            "tcgen05 (no sm_100 silicon recorded: a campaign on sm_100a decides)",
            &sm100,
        ),
    ] {
        println!("-- {title}");
        for r in rs.iter() {
            println!(
                "{:<42} {:<18} {:<6} {:<8} {}",
                r.id,
                r.family,
                if r.subtle { "yes" } else { "" },
                format!("{}/{}", r.reached_recorded, r.reached),
                verdict(r)
            );
        }
    }
    let rate = |k: usize, n: usize| {
        if n == 0 {
            0.0
        } else {
            100.0 * k as f64 / n as f64
        }
    };
    let (k90, n90) = (killed(&sm90), sm90.len());
    println!(
        "\n{} mutants ({} subtle) over {} cases ({} with recordings) in {secs:.1} s",
        results.len(),
        results.iter().filter(|r| r.subtle).count(),
        loaded.len(),
        recorded
    );
    println!(
        "corpus replay: killed {k90} of {n90} sm_90 mutants ({:.1}%; none argued equivalent); \
         tcgen05 apart: {} of {} (no sm_100 recordings)",
        rate(k90, n90),
        killed(&sm100),
        sm100.len()
    );
    let by = |kind: Kill| {
        sm90.iter()
            .filter(|r| r.killed_by.as_ref().and_then(|w| w.kill) == Some(kind))
            .count()
    };
    println!(
        "  of which the judge fails a recording: {}; a recording the model passes is called \
         undefined: {}",
        by(Kill::Fails),
        by(Kill::LosesPass)
    );
    println!("campaign kills: not run here (needs a GPU campaign judged under each mutant)");
    if let Some(path) = &args.json {
        let doc = serde_json::json!({
            "cases": loaded.len(),
            "recorded_cases": recorded,
            "seconds": secs,
            "killed_sm90": k90,
            "killed_sm90_judge_fails": by(Kill::Fails),
            "killed_sm90_loses_pass": by(Kill::LosesPass),
            "mutants_sm90": n90,
            "kill_rate_sm90": rate(k90, n90),
            "killed_tcgen05": killed(&sm100),
            "mutants_tcgen05": sm100.len(),
            "campaign": "not run: needs a GPU campaign",
            "mutants": results,
        });
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(0)
}

/// One mutant's verdict in words.
#[cfg(feature = "mutants")]
fn verdict(r: &ptxconform_core::mutants::MutantResult) -> String {
    let at = |w: &ptxconform_core::mutants::Witness| format!("{}:{}", w.file, w.case);
    let expect = r
        .breaks_expect
        .as_ref()
        .map(|w| format!(" [breaks expect: of {}]", at(w)))
        .unwrap_or_default();
    match (&r.killed_by, &r.changes_recorded_case) {
        (Some(w), _) => format!(
            "killed{} by {} ({} {}){expect}",
            match w.kill {
                Some(ptxconform_core::mutants::Kill::LosesPass) => " (called undefined)",
                _ => "",
            },
            at(w),
            w.device.as_deref().unwrap_or(""),
            w.date.as_deref().unwrap_or("")
        ),
        (None, Some(w)) => format!(
            "SURVIVED: changes {} but its recordings pass either way{expect}",
            at(w)
        ),
        (None, None) if r.reached_recorded > 0 => {
            format!("SURVIVED: no recorded case changes (corpus gap){expect}")
        }
        (None, None) => format!("SURVIVED: no recorded case reaches it (corpus gap){expect}"),
    }
}
