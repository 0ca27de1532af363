//! The host's own speed when a bench ran, timed on fixed work before the rows: what tells a
//! slower machine from a slower commit. Starts of one machine kind differ (on the one-H200 kind
//! the same code's legal fuzz row ran from about 17,100 to 22,500 programs/s in one day), and a
//! host's speed moves within a start: on one H200 start these readings moved by a third, minutes
//! apart (10,491-15,867 programs/s, 19.4-25.7 ms a kernel). A reading is of its moment (`reports/bench/README.md`,
//! h200-2026-12-01x).

use crate::fuzz::campaign::generate_analyzable;
use ptxconform_gpu::compile::Compiler;
use ptxconform_gpu::ptxas::Ptxas;
use ptxconform_reference::gen::GenConfig;
use ptxconform_reference::target::Target;
use serde::Serialize;
use std::time::Instant;

/// The calibration's campaign seed: fixed, so that every bench times the same programs.
const SEED: u64 = 0x5eed_ca1b;

/// Programs the reference draws and runs on one thread, a round, and rounds (the median is
/// kept), after a round that warms the process's memory and caches and is not counted.
const PROGRAMS: u64 = 2048;
const ROUNDS: usize = 3;

/// Kernels a ptxas run (a legal fuzz block's runs hold about a dozen), and runs: the median is
/// kept of all but the first, which brings ptxas into the page cache.
const KERNELS_A_RUN: usize = 8;
const RUNS: usize = 6;

/// The host's speed on fixed work, measured alone (nothing else of the bench running).
#[derive(Clone, Debug, Serialize)]
pub struct HostSpeed {
    /// CPUs the process may use, and the first CPU's model name (`/proc/cpuinfo`).
    pub cpus: usize,
    pub cpu_model: String,
    /// Programs of the legal all-families generator (seed fixed, sm_90a only, a value set a
    /// shape, no steering) drawn and evaluated by the reference on one thread, a second.
    pub programs_one_thread_per_s: f64,
    /// Wall time of one ptxas process a kernel, over fixed fuzz kernels (sm_90a, the default
    /// optimization level, no cache): the median of the runs. `None` without ptxas, or where
    /// ptxas failed on them (a warning says so).
    pub ptxas_ms_per_kernel: Option<f64>,
}

impl HostSpeed {
    /// Time the fixed work: the reference on one thread, then ptxas where `ptxas` is given (a
    /// ptxas failure costs only its own reading).
    pub fn measure(ptxas: Option<Ptxas>) -> Result<HostSpeed, String> {
        let programs_one_thread_per_s = programs_one_thread()?;
        let ptxas_ms_per_kernel = ptxas.and_then(|p| {
            ptxas_ms_per_kernel(p)
                .map_err(|e| eprintln!("ptxconform: warning: {e}"))
                .ok()
        });
        Ok(HostSpeed {
            cpus: ptxconform_core::pools::host_cpus(),
            cpu_model: cpu_model().unwrap_or_else(|| "unknown".into()),
            programs_one_thread_per_s,
            ptxas_ms_per_kernel,
        })
    }

    /// One line for the console.
    pub fn describe(&self) -> String {
        format!(
            "host: {} CPUs ({}); on fixed work: the reference draws and evaluates {:.0} fuzz \
             programs/s on one thread, ptxas {} a fuzz kernel",
            self.cpus,
            self.cpu_model,
            self.programs_one_thread_per_s,
            self.ptxas_ms_per_kernel
                .map_or("not found".into(), |ms| format!("{ms:.1} ms"))
        )
    }
}

fn config() -> GenConfig {
    GenConfig {
        targets: vec![Target::SM_90A],
        ..GenConfig::default()
    }
}

/// Shape `shape`'s first value set of the calibration's campaign.
fn program(shape: u64, cfg: &GenConfig) -> ptxconform_reference::gen::Generated {
    generate_analyzable(SEED, shape, 0, 1, cfg).0
}

/// The model name of the first CPU (Linux), where the system says.
fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find_map(|l| l.strip_prefix("model name")?.split_once(':'))
        .map(|(_, name)| name.trim().to_string())
}

/// [`HostSpeed::programs_one_thread_per_s`].
fn programs_one_thread() -> Result<f64, String> {
    let cfg = config();
    // Every round the same programs: the same work.
    let round = || {
        let t = Instant::now();
        let mut evaluated = 0u64;
        for shape in 0..PROGRAMS {
            let g = program(shape, &cfg);
            let (result, _) = ptxconform_core::evaluate::evaluate("calibration", &g.case);
            evaluated += u64::from(!result.verdict.is_failure());
        }
        std::hint::black_box(evaluated);
        PROGRAMS as f64 / t.elapsed().as_secs_f64()
    };
    super::on_one_thread(|| {
        round();
        super::median_of(ROUNDS, || Ok(round())).map(|(rate, _)| rate)
    })?
}

/// The fixed kernels: the first [`RUNS`] × [`KERNELS_A_RUN`] shapes of the calibration's
/// campaign that emit, one module each.
fn kernels() -> Vec<String> {
    let cfg = config();
    let want = RUNS * KERNELS_A_RUN;
    // A bound on the shapes tried, so that a generator whose programs stopped emitting ends the
    // search (the caller then says how many emitted).
    (0..4 * want as u64)
        .filter_map(|shape| {
            // Renamed as the engine's modules name it, so that a run's kernels do not clash.
            ptxconform_gpu::emit::emit(&program(shape, &cfg).case)
                .ok()
                .map(|e| ptxconform_gpu::emit::link(&[&e]))
        })
        .take(want)
        .collect()
}

/// [`HostSpeed::ptxas_ms_per_kernel`]: one ptxas process at a time, [`KERNELS_A_RUN`] kernels
/// each.
fn ptxas_ms_per_kernel(ptxas: Ptxas) -> Result<f64, String> {
    let compiler = Compiler::new(ptxas, None)?;
    let kernels = kernels();
    // The first run is not counted: at least one more.
    if kernels.len() < 2 * KERNELS_A_RUN {
        return Err(format!(
            "host calibration: {} of the fixed fuzz programs emit, {} needed",
            kernels.len(),
            2 * KERNELS_A_RUN
        ));
    }
    // Kernels a second of each run; the first run is not counted.
    let counted = kernels.len() / KERNELS_A_RUN - 1;
    let mut runs = kernels.chunks_exact(KERNELS_A_RUN).map(|run| {
        let files: Vec<&str> = run.iter().map(String::as_str).collect();
        let t = Instant::now();
        match compiler
            .compile_files_many(&[(files, Target::SM_90A)])
            .first()
        {
            Some(Err(e)) => Err(format!("host calibration: {e}")),
            _ => Ok(KERNELS_A_RUN as f64 / t.elapsed().as_secs_f64()),
        }
    });
    runs.next().transpose()?;
    let (rate, _) = super::median_of(counted, || {
        runs.next()
            .unwrap_or_else(|| Err("host calibration: a run short".into()))
    })?;
    Ok(1000.0 / rate)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixed kernels are the same every time, distinct, and enough for every run.
    #[test]
    fn kernels_are_fixed_and_distinct() {
        let (a, b) = (kernels(), kernels());
        assert_eq!(a, b);
        assert_eq!(a.len(), RUNS * KERNELS_A_RUN);
        let distinct: std::collections::HashSet<&String> = a.iter().collect();
        assert_eq!(distinct.len(), a.len());
    }

    /// Every fixed program evaluates on the reference without a failure: a rate over programs
    /// that fail would time something else.
    #[test]
    fn programs_pass_the_reference() {
        let cfg = config();
        for shape in 0..64 {
            let (result, _) = ptxconform_core::evaluate::evaluate("t", &program(shape, &cfg).case);
            assert!(!result.verdict.is_failure(), "shape {shape}: {result:?}");
        }
    }

    /// Where ptxas is installed, every fixed kernel assembles and the reading is taken.
    #[test]
    fn measures_ptxas_where_installed() {
        let ptxas = ptxconform_gpu::ptxas::for_tests();
        let installed = ptxas.is_some();
        let speed = HostSpeed::measure(ptxas).unwrap();
        assert!(speed.programs_one_thread_per_s.is_finite());
        assert_eq!(speed.ptxas_ms_per_kernel.is_some(), installed);
    }
}
