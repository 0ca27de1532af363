//! `ptxconform mutants [PATHS] [--json FILE] [--known FILE]`: the mutation schema's kill table.
//! Every mutant of the reference (`sem::mutant`) is run over the corpus, and every recorded
//! hardware observation is judged against it as `run` replays recordings (sm_90 profile, known
//! findings applied): a recording that passes unmutated and fails under the mutant kills it.
//! tcgen05 mutants are reported apart (no sm_100 silicon recorded). `--campaign OUT` adds the
//! kills of a GPU fuzz campaign run with `--mutants` (its observations judged under each mutant,
//! generator only: no corpus or regressions as input): when, after how many programs, by which
//! program. `--proxy "FUZZ ARGS"` first runs such a campaign on the CPU with the unmutated
//! reference playing the silicon ([`proxy`]): a mutant dies where, on a program the model calls
//! well defined (or refused, or trapping), its prediction leaves what the model predicts; the
//! generator's reach measured without a GPU.

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
    /// A fuzz campaign's output folder (`fuzz --mutants --out DIR`): its kills join the table.
    #[arg(long, value_name = "DIR")]
    pub campaign: Option<PathBuf>,
    /// Run a campaign first with the model as the device (CPU only), e.g. `--proxy "--seconds 60
    /// --seed 7 --values-per-shape 64 --out DIR"` (`fuzz` arguments; `--mutants` implied); its
    /// kills join the table as `--campaign DIR` would.
    #[arg(long, value_name = "FUZZ ARGS", allow_hyphen_values = true)]
    pub proxy: Option<String>,
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
    use ptxconform_reference::sem::mutant::{Mutant, Unobservable};

    let proxied = args.proxy.as_deref().map(proxy::run).transpose()?;
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
    let campaign = args
        .campaign
        .as_deref()
        .or(proxied.as_deref())
        .map(load_campaign)
        .transpose()?;
    let by_campaign = |id: &str| campaign.as_ref().and_then(|c| c.mutant_kills.get(id));

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
            if let Some(c) = &campaign {
                println!(
                    "{:<42} campaign: {}",
                    "",
                    campaign_verdict(c, by_campaign(r.id))
                );
            }
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
        "corpus replay: killed {k90} of {n90} sm_90 mutants ({:.1}%); tcgen05 apart: {} of {} \
         (no sm_100 recordings)",
        rate(k90, n90),
        killed(&sm100),
        sm100.len()
    );
    // The denominator: the sm_90 mutants this silicon and toolchain can tell apart.
    let observable: Vec<&MutantResult> = sm90
        .iter()
        .copied()
        .filter(|r| r.unobservable.is_none())
        .collect();
    let (ko, no) = (killed(&observable), observable.len());
    let equivalent = sm90
        .iter()
        .filter(|r| matches!(r.unobservable, Some(Unobservable::ArguedEquivalent(_))))
        .count();
    println!(
        "  of the {no} that sm_90a silicon with ptxas 13.0 can tell apart ({} need sm_100 or a \
         newer PTX ISA, {equivalent} argued equivalent): killed {ko} ({:.1}%)",
        n90 - no - equivalent,
        rate(ko, no)
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
    let campaign_killed =
        |rs: &[&MutantResult]| rs.iter().filter(|r| by_campaign(r.id).is_some()).count();
    match &campaign {
        Some(c) => {
            println!(
                "campaign ({} programs, {:.0} s, device runs judged under {} mutants): killed {} \
                 of {n90} sm_90 mutants, {} of {} tcgen05; either way: {} of {n90} sm_90",
                c.programs,
                c.seconds,
                c.mutants,
                campaign_killed(&sm90),
                campaign_killed(&sm100),
                sm100.len(),
                sm90.iter()
                    .filter(|r| r.killed_by.is_some() || by_campaign(r.id).is_some())
                    .count()
            );
            let kc = campaign_killed(&observable);
            println!(
                "  of the {no} that sm_90a silicon with ptxas 13.0 can tell apart: killed {kc} \
                 ({:.1}%)",
                rate(kc, no)
            );
        }
        None => {
            println!("campaign kills: none given (`--campaign OUT` of `fuzz --mutants --out OUT`)")
        }
    }
    if let Some(c) = &campaign {
        let ks: Vec<&crate::fuzz::campaign::MutantKill> =
            sm90.iter().filter_map(|r| by_campaign(r.id)).collect();
        if let Some((s, p)) = medians(&ks) {
            println!(
                "  time to kill (sm_90 mutants killed): median {s:.1} s, {p} programs \
                 ({:.0} programs/s over the campaign)",
                c.programs as f64 / c.seconds.max(1e-9)
            );
        }
    }
    if let Some(path) = &args.json {
        let doc = serde_json::json!({
            "cases": loaded.len(),
            "recorded_cases": recorded,
            "seconds": secs,
            "killed_sm90": k90,
            "killed_sm90_judge_fails": by(Kill::Fails),
            "killed_sm90_loses_pass": by(Kill::LosesPass),
            "mutants_sm90": n90,
            "observable_sm90": no,
            "killed_observable_sm90": ko,
            "kill_rate_observable_sm90": rate(ko, no),
            "kill_rate_sm90": rate(k90, n90),
            "killed_tcgen05": killed(&sm100),
            "mutants_tcgen05": sm100.len(),
            "campaign": campaign.as_ref().map(|c| serde_json::json!({
                "programs": c.programs,
                "seconds": c.seconds,
                "mutants": c.mutants,
                "killed_sm90": campaign_killed(&sm90),
                "killed_observable_sm90": campaign_killed(&observable),
                "killed_tcgen05": campaign_killed(&sm100),
                "kills": c.mutant_kills,
            })),
            "mutants": results,
        });
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(0)
}

/// A campaign's figures (`OUT/campaign.json`); one not judged under the mutants is refused.
#[cfg(feature = "mutants")]
fn load_campaign(dir: &std::path::Path) -> Result<crate::fuzz::campaign::Stats, String> {
    let p = dir.join("campaign.json");
    let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
    let s: crate::fuzz::campaign::Stats =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))?;
    if s.mutants == 0 {
        return Err(format!(
            "{}: the campaign was not judged under the mutants (run `fuzz --mutants`)",
            p.display()
        ));
    }
    Ok(s)
}

/// A mutant's fate in a campaign, in words.
#[cfg(feature = "mutants")]
fn campaign_verdict(
    c: &crate::fuzz::campaign::Stats,
    k: Option<&crate::fuzz::campaign::MutantKill>,
) -> String {
    match k {
        Some(k) => format!(
            "killed after {:.1} s, {} programs, by program {} ({}, fingerprint {}{})",
            k.seconds,
            k.programs,
            k.program,
            k.case,
            k.fingerprint,
            if k.judge_fails {
                ""
            } else {
                "; called undefined"
            }
        ),
        None => format!("survived {} programs", c.programs),
    }
}

/// Median seconds and median programs run before a kill (the upper median).
#[cfg(feature = "mutants")]
fn medians(ks: &[&crate::fuzz::campaign::MutantKill]) -> Option<(f64, u64)> {
    let mut s: Vec<f64> = ks.iter().map(|k| k.seconds).collect();
    let mut p: Vec<u64> = ks.iter().map(|k| k.program + 1).collect();
    s.sort_by(f64::total_cmp);
    p.sort_unstable();
    Some((*s.get(s.len() / 2)?, *p.get(p.len() / 2)?))
}

/// The CPU proxy of a GPU campaign under the mutants: the model is the device.
#[cfg(feature = "mutants")]
pub mod proxy {
    use crate::fuzz::campaign::{Campaign, Options, Stop};
    use crate::fuzz::FuzzArgs;
    use ptxconform_core::differential::{predicted, Backend, Run};
    use ptxconform_core::result::RunInfo;
    use ptxconform_reference::case::Case;
    use ptxconform_reference::gen::GenConfig;
    use ptxconform_reference::sem::exec::Execution;
    use ptxconform_reference::target::Target;
    use std::path::PathBuf;

    /// `fuzz` arguments, parsed as `fuzz` parses them.
    #[derive(clap::Parser)]
    struct Args {
        #[command(flatten)]
        fuzz: FuzzArgs,
    }

    /// The unmutated model as an sm_90 device (the targets an H100 runs): it observes what it
    /// predicts, the least allowed value for every uncertain byte.
    pub struct ModelDevice {
        info: RunInfo,
    }

    impl Default for ModelDevice {
        fn default() -> Self {
            ModelDevice {
                info: RunInfo {
                    device: "reference model (mutants proxy)".into(),
                    mode: "mutants proxy: the model as the device".into(),
                    ..RunInfo::default()
                },
            }
        }
    }

    impl Backend for ModelDevice {
        fn info(&self) -> RunInfo {
            self.info.clone()
        }
        fn runs(&self, t: Target) -> bool {
            ptxconform_gpu::engine::runs_on(t, (9, 0))
        }
        fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
            Ok(cases
                .iter()
                .map(|(_, ex)| Run::observed(predicted(&self.info, ex)))
                .collect())
        }
    }

    /// The generator config `fuzz` would use for `a` (its config, families and concurrency;
    /// the features known findings ask a hardware campaign to avoid).
    fn config(a: &FuzzArgs, opts: &Options) -> Result<GenConfig, String> {
        let mut cfg = crate::fuzz::gen_config(a)?;
        if !a.no_steer {
            cfg.avoid = opts.known.avoided()?.0;
        }
        Ok(cfg)
    }

    /// Run the campaign `fuzz_args` describe with [`ModelDevice`] and `--mutants`; its folder.
    pub fn run(fuzz_args: &str) -> Result<PathBuf, String> {
        use clap::Parser;
        let words = std::iter::once("fuzz").chain(fuzz_args.split_whitespace());
        let mut a = Args::try_parse_from(words)
            .map_err(|e| format!("--proxy: {e}"))?
            .fuzz;
        a.mutants = true;
        let opts = Options::from_args(&a);
        let cfg = config(&a, &opts)?;
        let mut dev = ModelDevice::default();
        let mut c = Campaign::open(cfg, opts, Some(&mut dev))?;
        c.run(&Stop::from_args(&a), true)?;
        Ok(a.out)
    }
}

/// One mutant's verdict in words.
#[cfg(feature = "mutants")]
fn verdict(r: &ptxconform_core::mutants::MutantResult) -> String {
    use ptxconform_reference::sem::mutant::Unobservable;
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
        (None, _) if r.unobservable.is_some() => match r.unobservable {
            Some(Unobservable::ArguedEquivalent(why)) => {
                format!("SURVIVED, apart: argued equivalent ({why}){expect}")
            }
            Some(Unobservable::NeedsNewerPtx) => {
                format!("SURVIVED, apart: needs a PTX ISA newer than ptxas 13.0 takes{expect}")
            }
            _ => format!("SURVIVED, apart: needs sm_100 silicon{expect}"),
        },
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

#[cfg(all(test, feature = "mutants"))]
mod tests {
    use super::*;
    use crate::fuzz::campaign::{MutantKill, Stats};

    /// A campaign's kills are read from its figures; one not judged under the mutants is refused.
    #[test]
    fn campaign_kills_come_from_campaign_json() {
        let dir =
            std::env::temp_dir().join(format!("ptxc-mutants-campaign-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut s = Stats {
            programs: 100,
            ..Stats::default()
        };
        let write = |s: &Stats| {
            std::fs::write(dir.join("campaign.json"), serde_json::to_string(s).unwrap()).unwrap()
        };
        write(&s);
        assert!(load_campaign(&dir).is_err());
        s.mutants = 3;
        let kill = MutantKill {
            seconds: 1.5,
            programs: 64,
            program: 17,
            case: "gen.sm_90a.x".into(),
            fingerprint: "00000000000000ff".into(),
            judge_fails: true,
        };
        s.mutant_kills
            .insert("parity_inverted".into(), kill.clone());
        write(&s);
        let back = load_campaign(&dir).unwrap();
        assert_eq!(back.mutant_kills.get("parity_inverted"), Some(&kill));
        assert!(campaign_verdict(&back, Some(&kill)).contains("program 17"));
        assert!(campaign_verdict(&back, None).starts_with("survived 100"));
        std::fs::remove_dir_all(dir).ok();
    }

    /// The proxy campaign runs what an sm_90 device runs, and the model's own observations
    /// kill mutants of the rules its programs reach (cp.async copies: src-size, groups).
    #[test]
    fn proxy_campaign_kills_with_the_model_as_the_device() {
        use ptxconform_core::differential::Backend;
        use ptxconform_reference::target::Target;
        let dev = proxy::ModelDevice::default();
        assert!(dev.runs(Target::SM_90A) && !dev.runs(Target::SM_100A));
        let dir = std::env::temp_dir().join(format!("ptxc-mutants-proxy-{}", std::process::id()));
        let args = format!(
            "--cases 512 --seed 7 --values-per-shape 64 --families cp_async --no-coverage \
             --out {} --regressions {}",
            dir.display(),
            dir.join("regressions").display()
        );
        let out = proxy::run(&args).unwrap();
        let s = load_campaign(&out).unwrap();
        assert_eq!(s.programs, 512);
        assert!(
            s.mutant_kills
                .keys()
                .any(|k| k.starts_with("cp-async.") || k.starts_with("group.")),
            "{:?}",
            s.mutant_kills.keys()
        );
        assert!(proxy::run("--no-such-flag").is_err());
        std::fs::remove_dir_all(dir).ok();
    }
}
