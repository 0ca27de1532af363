//! What `run` prints, and where: results as they arrive (`-v` every one, by default the failures
//! above the progress bar, `-q` none), the summary (a table per family, `-q` only the failures and
//! the totals line, `--format json` a JSON document on stdout with everything else on stderr),
//! and `--list`. Verdict names are coloured where the stream is a terminal (`--color`).

use anstyle::{AnsiColor, Style};
use indicatif::ProgressBar;
use ptxconform_core::corpus::Loaded;
use ptxconform_core::result::{CaseResult, RunInfo, Scope, Summary, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorWhen {
    /// On a terminal, unless `NO_COLOR` is set.
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Text,
    /// The summary (or the `--list`) as JSON on stdout; progress and messages on stderr.
    Json,
}

#[derive(clap::Args, Debug, Clone, Default)]
pub struct OutputArgs {
    /// Print only the failures and the totals line.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print every result as it arrives.
    #[arg(short, long)]
    pub verbose: bool,
    /// Colour verdict names: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t)]
    pub color: ColorWhen,
    /// The summary on stdout as text or as JSON (counts per family, totals, failures).
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

pub struct Console {
    quiet: bool,
    verbose: bool,
    json: bool,
    colour_out: bool,
    colour_err: bool,
}

fn colour(when: ColorWhen, stream: &impl anstream::stream::RawStream) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        // anstream's decision: a terminal, NO_COLOR unset (CLICOLOR, CLICOLOR_FORCE, TERM=dumb).
        ColorWhen::Auto => anstream::AutoStream::choice(stream) != anstream::ColorChoice::Never,
    }
}

/// How a verdict's name is shown: failures red, passes green, the rest yellow / cyan.
fn style(v: &Verdict) -> Style {
    if v.is_failure() {
        return AnsiColor::Red.on_default().bold();
    }
    let c = match v {
        Verdict::Pass | Verdict::ReferencePass => AnsiColor::Green,
        Verdict::Known
        | Verdict::TrapExpected
        | Verdict::TimeoutExpected
        | Verdict::IllegalExpected
        | Verdict::ReferenceUndefined => AnsiColor::Yellow,
        Verdict::NotRun => AnsiColor::Cyan,
        _ => AnsiColor::Red,
    };
    c.on_default()
}

/// Every verdict, to style the verdict names the summary counts under.
const VERDICTS: [Verdict; 16] = [
    Verdict::Pass,
    Verdict::Diverge,
    Verdict::UndefinedMispredicted,
    Verdict::Known,
    Verdict::TrapExpected,
    Verdict::TrapUnexpected,
    Verdict::TimeoutExpected,
    Verdict::TimeoutUnexpected,
    Verdict::ReferenceUndefined,
    Verdict::ReferencePass,
    Verdict::ReferenceFail,
    Verdict::Illegal,
    Verdict::IllegalExpected,
    Verdict::NotRun,
    Verdict::HarnessError,
    Verdict::BuildsDisagree,
];

/// `1 case`, `2 cases`.
fn cases(n: usize) -> String {
    format!("{n} case{}", if n == 1 { "" } else { "s" })
}

fn paint(text: &str, s: Style, on: bool) -> String {
    if on {
        format!("{s}{text}{s:#}")
    } else {
        text.to_string()
    }
}

/// The summary as `--format json` prints it: summary.json's run description and counts, the
/// failures in full, and where the reports are.
#[derive(Serialize)]
struct Digest<'a> {
    info: &'a RunInfo,
    scope: &'a Scope,
    /// The report lacks shards of its case set (the scope says which).
    partial: bool,
    cases: usize,
    counts: &'a BTreeMap<String, BTreeMap<String, usize>>,
    totals: &'a BTreeMap<String, usize>,
    /// Profile position -> cases that departed from its spec reading.
    departures: &'a BTreeMap<String, usize>,
    failures: Vec<&'a CaseResult>,
    reports: String,
}

#[derive(Serialize)]
struct Listed<'a> {
    file: &'a str,
    case: &'a str,
    family: String,
}

/// `P-… (N cases), …`: the positions results departed from the spec reading of.
fn departures(s: &Summary) -> String {
    let each: Vec<String> = s
        .departures
        .iter()
        .map(|(id, n)| format!("{id} ({})", cases(*n)))
        .collect();
    each.join(", ")
}

/// `; spec departures: …` when results departed from a spec reading, and `; undecided
/// predictions: …` when undefined cases were predicted several outcomes; else empty.
fn departures_note(s: &Summary) -> String {
    let mut note = String::new();
    if !s.departures.is_empty() {
        note = format!("; spec departures: {}", departures(s));
    }
    if !s.undecided.is_empty() {
        let (class, kind) = s
            .undecided
            .values()
            .fold((0, 0), |(c, k), u| (c + u.class, k + u.kind));
        note.push_str(&format!(
            "; undecided predictions: {class} between outcome classes, {kind} between trap kinds"
        ));
    }
    note
}

impl Console {
    pub fn new(a: &OutputArgs) -> Console {
        Console {
            quiet: a.quiet,
            verbose: a.verbose,
            json: a.format == Format::Json,
            colour_out: colour(a.color, &std::io::stdout()),
            colour_err: colour(a.color, &std::io::stderr()),
        }
    }

    /// Does the progress bar stay hidden?
    pub fn quiet(&self) -> bool {
        self.quiet
    }

    fn verdict(&self, v: &Verdict, on: bool) -> String {
        paint(v.name(), style(v), on)
    }

    fn counts(&self, counts: &BTreeMap<String, usize>) -> String {
        counts
            .iter()
            .map(|(name, n)| {
                let s = VERDICTS
                    .iter()
                    .find(|v| v.name() == name)
                    .map(style)
                    .unwrap_or_default();
                format!("{}: {n}", paint(name, s, self.colour_out))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn line(&self, r: &CaseResult, on: bool) -> String {
        let mut l = format!("{}: {}: {}", r.file, r.case, self.verdict(&r.verdict, on));
        let detail = crate::report::detail_with_attribution(r);
        if !detail.is_empty() {
            l.push_str(" — ");
            l.push_str(&detail);
        }
        l
    }

    /// A result as it arrives: with `-v` every one (on stdout, or stderr beside JSON), by default
    /// a failure above the progress bar, with `-q` none.
    pub fn arrived(&self, r: &CaseResult, pb: &ProgressBar) {
        if self.quiet {
        } else if self.verbose && self.json {
            let l = self.line(r, self.colour_err);
            pb.suspend(|| eprintln!("{l}"));
        } else if self.verbose {
            let l = self.line(r, self.colour_out);
            pb.suspend(|| println!("{l}"));
        } else if r.verdict.is_failure() {
            pb.println(self.line(r, self.colour_err));
        }
    }

    /// A message about the run (resuming, recording): not with `-q`; on stderr beside JSON.
    pub fn say(&self, text: &str) {
        if self.quiet {
        } else if self.json {
            eprintln!("{text}");
        } else {
            println!("{text}");
        }
    }

    /// The selected cases, one `FILE:NAME` per line (a line of a `--case-list`), or as JSON.
    pub fn list(&self, cases: &[Loaded]) -> Result<(), String> {
        if self.json {
            let v: Vec<Listed> = cases
                .iter()
                .map(|l| Listed {
                    file: &l.file,
                    case: &l.case.name,
                    family: ptxconform_core::evaluate::family_of(&l.case),
                })
                .collect();
            println!(
                "{}",
                serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
            );
        } else {
            for l in cases {
                println!("{}:{}", l.file, l.case.name);
            }
        }
        Ok(())
    }

    pub fn summary(&self, s: &Summary, out: &Path) -> Result<(), String> {
        let failures = s.results.iter().filter(|r| r.verdict.is_failure());
        if self.json {
            let d = Digest {
                info: &s.info,
                scope: &s.scope,
                partial: s.scope.is_partial(),
                cases: s.results.len(),
                counts: &s.counts,
                totals: &s.totals,
                departures: &s.departures,
                failures: failures.collect(),
                reports: out.display().to_string(),
            };
            println!(
                "{}",
                serde_json::to_string_pretty(&d).map_err(|e| e.to_string())?
            );
            return Ok(());
        }
        // A report that is not one whole run says so even with -q.
        let note = s.scope.note();
        if self.quiet {
            for r in failures {
                println!("FAIL {}", self.line(r, self.colour_out));
            }
            if let Some(n) = &note {
                println!("{n}");
            }
            println!(
                "total: {} — {}{}",
                cases(s.results.len()),
                self.counts(&s.totals),
                departures_note(s)
            );
            return Ok(());
        }
        if s.info.mode == super::REFERENCE_ONLY {
            println!(
                "{} on the reference model only, profile {}",
                cases(s.results.len()),
                s.info.profile
            );
        } else {
            println!(
                "{} on {} ({}), judged under profile {}",
                cases(s.results.len()),
                s.info.device,
                s.info.mode,
                s.info.profile
            );
        }
        if let Some(n) = &note {
            println!("{n}");
        }
        let w = s.counts.keys().map(String::len).max().unwrap_or(0).max(30);
        for (fam, counts) in &s.counts {
            println!("  {fam:<w$} {}", self.counts(counts));
        }
        println!("  {:<w$} {}", "total", self.counts(&s.totals));
        let mut by_device: BTreeMap<&str, BTreeMap<String, usize>> = BTreeMap::new();
        for r in s.results.iter().filter(|r| !r.device.is_empty()) {
            *by_device
                .entry(&r.device)
                .or_default()
                .entry(r.verdict.name().to_string())
                .or_default() += 1;
        }
        if by_device.len() > 1 {
            for (dev, counts) in by_device {
                println!("  {dev:<w$} {}", self.counts(&counts));
            }
        }
        if !s.departures.is_empty() {
            println!("  {:<w$} {}", "spec departures", departures(s));
            for r in s.spec_departures() {
                println!("SPEC DEPARTURE {}", self.line(r, self.colour_out));
            }
        }
        for r in failures {
            println!("FAIL {}", self.line(r, self.colour_out));
        }
        println!(
            "reports: {}/{{summary.json,junit.xml,report.html}}",
            out.display()
        );
        Ok(())
    }
}
