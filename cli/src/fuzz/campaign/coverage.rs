//! The campaign's coverage map: the cells a campaign exercised (instruction variant × target, the
//! UB and copy rules hit with the outcomes silicon gave, the profile positions met, the run-on
//! positions of silicon's reading applied, value cells read off the reference's run), how often,
//! and which cells count as reachable.
//!
//! A program's cells are read from its case and one reference run ([`analyze`]); a cell is hit
//! when a program having it is judged (on hardware, or by the CPU oracles in a campaign without
//! one). Reachable cells are what the generator produces under the campaign's config: a probe
//! sample of programs drawn from the generator itself ([`CoverageMap::probe`], its own seed) marks
//! them, and every hit cell is reachable by definition. Approximate: a cell the probe missed
//! counts only once hit, so the denominator can grow during a campaign.
//!
//! Each cell also remembers the swarm bits every program that produced it had on ([`Entry::needs`]:
//! their intersection), which steering forces on to reach it again ([`CoverageMap::targets`]).

use ptxconform_reference::case::validate::parsed_steps;
use ptxconform_reference::gen::bytes::{ValueClass, ValueClasses};
use ptxconform_reference::gen::swarm::SwarmBits;
use ptxconform_reference::gen::{Deviation, GenConfig, Generated, Intent};
use ptxconform_reference::ptx::Instruction;
use ptxconform_reference::sem::exec::{
    execute_with, rule_prediction, ExecOptions, Execution, HwOutcome, Outcome, Prediction,
    TouchKind, TraceDetail,
};
use ptxconform_reference::sem::profile::Profile;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

/// What a value cell tells apart (per coverage family of the instruction, e.g. `cp.async.bulk`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueCell {
    /// The value set enabled this value class ([`ValueClass::ALL`] index).
    Class(u8),
    /// A copy's destination start, mod 16.
    DstAlign(u8),
    /// A copy's source start, mod 16.
    SrcAlign(u8),
    /// A copy's byte count mod 16 (the bulk size granule).
    SizeResidue(u8),
    /// One copy step wrote this many CTAs (a multicast mask's population).
    MulticastCtas(u8),
}

/// An mbarrier's tx-count at the end of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxBalance {
    Zero,
    Pending,
    Negative,
    Unknown,
}

/// One cell of the map.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cell {
    /// An instruction variant (its coverage row) on a target.
    Variant {
        row: String,
        target: String,
    },
    /// A UB or copy rule a program was undefined by.
    Rule {
        rule: String,
    },
    /// A profile position whose readings the run told apart.
    Position {
        id: String,
    },
    /// A run-on position of silicon's reading that the run applied (e.g. `A-WAIT-RUNS-ON-HW`):
    /// where undefined programs go on, and where the model's picture of silicon is thinnest.
    Reading {
        id: String,
    },
    Value {
        family: String,
        value: ValueCell,
    },
    /// A valid mbarrier's tx-count at the end.
    Tx {
        balance: TxBalance,
    },
}

impl Cell {
    /// The table a cell is listed in.
    pub fn kind(&self) -> &'static str {
        match self {
            Cell::Variant { .. } => "variant × target",
            Cell::Rule { .. } => "UB and copy rules",
            Cell::Position { .. } => "profile positions",
            Cell::Reading { .. } => "silicon readings",
            Cell::Value { .. } => "value cells",
            Cell::Tx { .. } => "tx balance",
        }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Variant { row, target } => write!(f, "{row} @ {target}"),
            Cell::Rule { rule } => f.write_str(rule),
            Cell::Position { id } | Cell::Reading { id } => f.write_str(id),
            Cell::Value { family, value } => match value {
                ValueCell::Class(i) => {
                    let c = ValueClass::ALL.get(usize::from(*i));
                    write!(f, "{family} value class {c:?}")
                }
                ValueCell::DstAlign(r) => write!(f, "{family} dst start ≡ {r} (mod 16)"),
                ValueCell::SrcAlign(r) => write!(f, "{family} src start ≡ {r} (mod 16)"),
                ValueCell::SizeResidue(r) => write!(f, "{family} size ≡ {r} (mod 16)"),
                ValueCell::MulticastCtas(n) => write!(f, "{family} writes {n} CTAs in one step"),
            },
            Cell::Tx { balance } => write!(f, "mbarrier tx-count at the end: {balance:?}"),
        }
    }
}

/// What one program contributes, computed before it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    pub cells: Vec<Cell>,
    /// The reference's prediction under the campaign's profile.
    pub prediction: Prediction,
    /// The rule it is undefined by.
    pub rule: Option<String>,
    /// The swarm bits of its header.
    pub swarm: SwarmBits,
    /// The deviation it was generated with (undefined or racy).
    pub deviation: Option<Deviates>,
}

/// A program's deliberate run-time deviation, as a cell remembers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Deviates {
    Undefined,
    Racy,
}

impl Deviates {
    fn of(i: &Intent) -> Option<Deviates> {
        match i {
            Intent::Undefined { .. } => Some(Deviates::Undefined),
            Intent::Racy { .. } => Some(Deviates::Racy),
            Intent::WellDefined | Intent::Illegal { .. } => None,
        }
    }
    pub fn deviation(self) -> Deviation {
        match self {
            Deviates::Undefined => Deviation::Undefined,
            Deviates::Racy => Deviation::Racy,
        }
    }
}

/// What steering aims at to reach a cell again: the swarm bits and the deviation every program
/// that produced it had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aim {
    pub swarm: SwarmBits,
    pub deviation: Option<Deviates>,
}

/// A program's cells and prediction: `None` for an illegal program or one the reference cannot
/// run (the CPU oracles report those). `classes`: the value set's classes (single-stream
/// programs have none).
pub fn analyze(
    g: &Generated,
    classes: Option<ValueClasses>,
    swarm: SwarmBits,
    profile: Profile,
) -> Option<Analysis> {
    if matches!(g.intent, Intent::Illegal { .. }) {
        return None;
    }
    let ex = execute_with(
        &g.case,
        ExecOptions::of(profile).keeping(TraceDetail::Touches),
    )
    .ok()?;
    Some(analyze_executed(g, &ex, classes, swarm))
}

/// [`analyze`] over `ex`, the program's execution under the campaign's profile (the program is
/// not illegal).
pub fn analyze_executed(
    g: &Generated,
    ex: &Execution,
    classes: Option<ValueClasses>,
    swarm: SwarmBits,
) -> Analysis {
    let steps = parsed_steps(&g.case);
    let parsed: Vec<Option<&Instruction>> = steps
        .iter()
        .map(|st| Some(&st.as_deref()?.as_ref().ok()?.instr))
        .collect();
    let mut cells = BTreeSet::new();
    let target = g.case.target.to_string();
    let mut families = BTreeSet::new();
    for i in parsed.iter().flatten() {
        families.insert(i.family());
        cells.insert(Cell::Variant {
            row: i.row(),
            target: target.clone(),
        });
    }
    let rule = match &ex.outcome {
        Outcome::Undefined { ub, .. } => Some(ub.rule.to_string()),
        _ => None,
    };
    if let Some(r) = &rule {
        cells.insert(Cell::Rule { rule: r.clone() });
    }
    for p in &ex.departures {
        cells.insert(Cell::Position { id: p.id.into() });
    }
    for id in &ex.readings {
        cells.insert(Cell::Reading { id: (*id).into() });
    }
    let value = |family: &str, value| Cell::Value {
        family: family.into(),
        value,
    };
    for t in &ex.trace {
        let Some(i) = parsed.get(t.step).and_then(Option::as_ref) else {
            continue;
        };
        if !i.is_async_copy() {
            continue;
        }
        let fam = i.family();
        let mut ctas = BTreeSet::new();
        for x in t.touched.iter().filter(|x| !x.range.is_empty()) {
            let residue = |n: u64| (n % 16) as u8;
            match x.kind {
                TouchKind::Issue => {
                    cells.insert(value(fam, ValueCell::DstAlign(residue(x.range.start))));
                    cells.insert(value(
                        fam,
                        ValueCell::SizeResidue(residue(x.range.end - x.range.start)),
                    ));
                    ctas.insert(x.cta);
                }
                TouchKind::Read => {
                    cells.insert(value(fam, ValueCell::SrcAlign(residue(x.range.start))));
                }
                TouchKind::Land | TouchKind::Store => {}
            }
        }
        if ctas.len() > 1 {
            let n = u8::try_from(ctas.len()).unwrap_or(u8::MAX);
            cells.insert(value(fam, ValueCell::MulticastCtas(n)));
        }
    }
    if let Some(cl) = classes {
        for (n, c) in ValueClass::ALL.iter().enumerate() {
            if cl.contains(*c) {
                for fam in &families {
                    cells.insert(value(fam, ValueCell::Class(n as u8)));
                }
            }
        }
    }
    for m in ex.final_state.mbarriers.iter().flat_map(|m| m.values()) {
        if m.valid {
            let balance = match m.tx_count {
                Some(0) => TxBalance::Zero,
                Some(n) if n > 0 => TxBalance::Pending,
                Some(_) => TxBalance::Negative,
                None => TxBalance::Unknown,
            };
            cells.insert(Cell::Tx { balance });
        }
    }
    Analysis {
        cells: cells.into_iter().collect(),
        prediction: ex.prediction.clone(),
        rule,
        swarm,
        deviation: Deviates::of(&g.intent),
    }
}

/// What the map knows of one cell.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The probe produced it.
    #[serde(default)]
    pub probed: bool,
    /// Programs judged that had it.
    #[serde(default)]
    pub hits: u64,
    /// Hardware outcomes of those programs (rule and silicon-reading cells), by outcome.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outcomes: Vec<(HwOutcome, u64)>,
    /// The swarm bits every program that produced it had on, and the deviation all had.
    #[serde(default)]
    pub needs: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deviation: Option<Deviates>,
}

impl Entry {
    /// Take in what `seen`'s programs, which had this cell, had in common: the swarm bits all of
    /// them had on (and every program before), and their deviation where all agree (not their
    /// number: the caller counts hits, a probe none).
    fn saw(&mut self, seen: &Seen) {
        if !self.probed && self.hits == 0 {
            self.needs = seen.needs;
            self.deviation = seen.deviation;
        } else {
            self.needs &= seen.needs;
            if self.deviation != seen.deviation {
                self.deviation = None;
            }
        }
    }
}

/// What a run of programs with one cell had in common (an [`Entry`]'s part of them).
struct Seen {
    hits: u64,
    needs: u16,
    deviation: Option<Deviates>,
}

impl Seen {
    fn of(a: &Analysis) -> Seen {
        Seen {
            hits: 1,
            needs: a.swarm.0,
            deviation: a.deviation,
        }
    }

    /// Both runs of programs in one (in either order: the same).
    fn join(&mut self, other: Seen) {
        self.hits += other.hits;
        self.needs &= other.needs;
        if self.deviation != other.deviation {
            self.deviation = None;
        }
    }

    /// Add `seen` to cell `c`'s part of `into`.
    fn add<'c>(into: &mut HashMap<&'c Cell, Seen>, c: &'c Cell, seen: Seen) {
        match into.get_mut(c) {
            Some(s) => s.join(seen),
            None => {
                into.insert(c, seen);
            }
        }
    }
}

/// The map, serialized as a list of cells (`campaign.json`'s `coverage`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(from = "Vec<(Cell, Entry)>", into = "Vec<(Cell, Entry)>")]
pub struct CoverageMap {
    pub cells: BTreeMap<Cell, Entry>,
}

impl From<Vec<(Cell, Entry)>> for CoverageMap {
    fn from(v: Vec<(Cell, Entry)>) -> Self {
        CoverageMap {
            cells: v.into_iter().collect(),
        }
    }
}

impl From<CoverageMap> for Vec<(Cell, Entry)> {
    fn from(m: CoverageMap) -> Self {
        m.cells.into_iter().collect()
    }
}

/// Seed of the probe's programs, apart from any campaign's.
const PROBE_SEED: u64 = 0x0c0f_fee0_9b0b_e5ed;
/// Probe shapes and value sets per shape: 4,096 programs (variant cells vary by shape, most
/// value cells within one).
pub const PROBE_SHAPES: u64 = 2048;
const PROBE_VALUE_SETS: u64 = 2;

impl CoverageMap {
    /// Mark the cells of `shapes` × [`PROBE_VALUE_SETS`] programs the generator makes under
    /// `cfg` as reachable (programs of every value set count, whatever the campaign's K).
    pub fn probe(&mut self, cfg: &GenConfig, profile: Profile, shapes: u64) {
        let programs: Vec<(u64, u64)> = (0..shapes)
            .flat_map(|s| (0..PROBE_VALUE_SETS).map(move |j| (s, j)))
            .collect();
        let found: Vec<Analysis> = programs
            .par_iter()
            .filter_map(|&(s, j)| {
                let (g, classes, swarm) =
                    super::generate_analyzable(PROBE_SEED, s, j, PROBE_VALUE_SETS, cfg);
                analyze(&g, classes, swarm, profile)
            })
            .collect();
        for a in &found {
            for c in &a.cells {
                let e = self.cells.entry(c.clone()).or_default();
                e.saw(&Seen::of(a));
                e.probed = true;
            }
        }
    }

    /// The cells of a block's judged programs. Each distinct cell is looked up in the map
    /// once: a block's programs share few cells (a legal campaign on sm_90 has about 900 in
    /// all), and the map's keys are strings (a lookup per cell of each program had cost a
    /// campaign 2 s of 30, with the device idle). Parts of the block are summed on host threads.
    pub fn record_all(&mut self, analyses: &[&Analysis]) {
        let seen = analyses
            .par_chunks(1024)
            .map(|part| {
                let mut seen = HashMap::new();
                for a in part {
                    for c in &a.cells {
                        Seen::add(&mut seen, c, Seen::of(a));
                    }
                }
                seen
            })
            .reduce(HashMap::new, |mut all, part| {
                for (c, s) in part {
                    Seen::add(&mut all, c, s);
                }
                all
            });
        for (c, s) in seen {
            let e = match self.cells.get_mut(c) {
                Some(e) => e,
                None => self.cells.entry(c.clone()).or_default(),
            };
            e.saw(&s);
            e.hits += s.hits;
        }
    }

    /// What hardware did in a judged program (counted on its rule cell and on the cells of the
    /// silicon readings its run applied).
    pub fn outcome(&mut self, a: &Analysis, o: HwOutcome) {
        let rule = a.rule.iter().map(|r| Cell::Rule { rule: r.clone() });
        let readings = a
            .cells
            .iter()
            .filter(|c| matches!(c, Cell::Reading { .. }))
            .cloned();
        for c in rule.chain(readings) {
            let e = self.cells.entry(c).or_default();
            match e.outcomes.iter_mut().find(|(x, _)| *x == o) {
                Some((_, n)) => *n += 1,
                None => {
                    e.outcomes.push((o, 1));
                    e.outcomes.sort();
                }
            }
        }
    }

    /// Reachable cells (probed or hit) and those hit.
    pub fn counts(&self) -> (usize, usize) {
        let hit = self.cells.values().filter(|e| e.hits > 0).count();
        (self.cells.len(), hit)
    }

    /// Every reachable cell has been hit.
    pub fn complete(&self) -> bool {
        let (reachable, hit) = self.counts();
        reachable > 0 && hit == reachable
    }

    /// Has `a` a cell no program has hit yet?
    pub fn is_new(&self, c: &Cell) -> bool {
        self.cells.get(c).is_none_or(|e| e.hits == 0)
    }

    /// What steering aims at: `n` aims, shared equally by the kinds of cell whose least hit
    /// cells are hit least (so the few unhit rule cells are aimed at as often as the many unhit
    /// variant cells), within a kind its least hit cells (the last unhit cell of a kind takes
    /// all of the kind's aims), the first `n` of a kind by a hash of the cell, so that no end of
    /// the alphabet is favoured.
    pub fn targets(&self, n: usize) -> Vec<Aim> {
        let mut by_kind: BTreeMap<&'static str, Vec<(u64, u64, &Entry)>> = BTreeMap::new();
        for (c, e) in &self.cells {
            let tie = ptxconform_core::hash::fnv1a64(format!("{c:?}").as_bytes());
            by_kind.entry(c.kind()).or_default().push((e.hits, tie, e));
        }
        for cells in by_kind.values_mut() {
            cells.sort_unstable_by_key(|(hits, tie, _)| (*hits, *tie));
        }
        let least = by_kind.values().map(|c| c[0].0).min().unwrap_or(0);
        let kinds: Vec<&Vec<(u64, u64, &Entry)>> =
            by_kind.values().filter(|c| c[0].0 == least).collect();
        let per = n / kinds.len().max(1);
        kinds
            .iter()
            .flat_map(|cells| {
                let fewest = cells.iter().take_while(|x| x.0 == cells[0].0);
                fewest.take(per).cycle().take(per)
            })
            .map(|(_, _, e)| Aim {
                swarm: SwarmBits(e.needs),
                deviation: e.deviation,
            })
            .collect()
    }

    /// The summary line: `coverage 412/530 cells (78%): variant × target 120/160, …`.
    pub fn summary(&self) -> String {
        let (reachable, hit) = self.counts();
        let per: Vec<String> = self
            .by_kind()
            .iter()
            .map(|(k, (r, h))| format!("{k} {h}/{r}"))
            .collect();
        format!(
            "coverage {hit}/{reachable} reachable cells ({:.0}%): {}",
            100.0 * hit as f64 / reachable.max(1) as f64,
            per.join(", ")
        )
    }

    fn by_kind(&self) -> BTreeMap<&'static str, (usize, usize)> {
        let mut m: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
        for (c, e) in &self.cells {
            let k = m.entry(c.kind()).or_default();
            k.0 += 1;
            k.1 += usize::from(e.hits > 0);
        }
        m
    }

    /// The readable table (`campaign-coverage.md`).
    pub fn markdown(&self) -> String {
        let mut s = String::from(
            "# Campaign coverage\n\n\
             Written by `ptxconform fuzz`. A cell is *hit* when a program having it was judged \
             (on hardware; without one, by the CPU oracles). *Reachable*: the cells a probe \
             sample of the generator under this campaign's config produced, and every cell hit \
             (approximate: a cell the probe missed counts once hit). *Outcomes*: what hardware \
             did in the programs of a rule (the rule's own prediction beside it; a situation \
             of the rule may predict otherwise, e.g. a shared access past the allocation) or \
             of a silicon reading (the programs whose run applied it).\n\n",
        );
        s.push_str(&format!("{}\n", self.summary()));
        for (kind, (r, h)) in self.by_kind() {
            s.push_str(&format!(
                "\n## {kind} ({h}/{r})\n\n| cell | hits | outcomes | sm_90 prediction |\n| --- | ---: | --- | --- |\n"
            ));
            for (c, e) in self.cells.iter().filter(|(c, _)| c.kind() == kind) {
                let o: Vec<String> = e
                    .outcomes
                    .iter()
                    .map(|(o, n)| format!("{o} ×{n}"))
                    .collect();
                let predicted = match c {
                    Cell::Rule { rule } => rule_prediction(rule).to_string(),
                    _ => String::new(),
                };
                s.push_str(&format!(
                    "| {} | {} | {} | {predicted} |\n",
                    c.to_string().replace('|', "\\|"),
                    e.hits,
                    o.join(", ")
                ));
            }
        }
        s
    }
}
