//! `ptxconform`: differential conformance suite for PTX asynchronous copies.

use clap::{Parser, Subcommand};
use ptxconform::{commands as cli, legality};

/// The reference, emission and decoding make many small allocations on every core, and the
/// worker reads back megabytes per launch. On the 16-core H200 host, mimalloc against glibc's
/// allocator: the reference on one thread 60-70% faster, end to end at fixed shapes 20-80%.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (its place in `mi_option_e`, mimalloc.h; libmimalloc-sys
/// names only some options).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keep freed memory instead of returning it to the system a second after it was freed (unless
/// `MIMALLOC_PURGE_DELAY` says otherwise). A campaign frees and takes back gigabytes a minute on
/// every core, and purged pages come back through page faults, zeroed by the kernel (a seventh
/// of the host-only fuzz path's CPU on the development host). `fuzz --config legal` on an H200,
/// 20 s: 11,735 programs/s against 10,372 and 11,345 with purging (`reports/bench/README.md`,
/// h200-2026-11-29c).
fn keep_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: a plain integer option, set before any other thread of the process exists.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
    }
}

#[derive(Parser)]
#[command(
    name = "ptxconform",
    version,
    about = "Differential conformance suite and fuzzer for PTX asynchronous copies"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Parse PTX (FILE or stdin), print modelled instructions canonically, report syntax errors.
    Syntax(cli::syntax::SyntaxArgs),
    /// List the modelled instructions of PTX modules with their legality per target and PTX version.
    Check(cli::check::CheckArgs),
    /// Static legality: the model's verdicts against ptxas for every variant and target.
    Legality(legality::LegalityArgs),
    /// Run the case corpus on the reference model and, where a GPU is present, on hardware.
    Run(ptxconform::run::RunArgs),
    /// Emit the PTX kernel of a case.
    Emit(cli::emit::EmitArgs),
    /// Explain a case's outcome step by step.
    Explain(cli::explain::ExplainArgs),
    /// Coverage of variants and rows by the corpus.
    Coverage(cli::coverage::CoverageArgs),
    /// Compare the tensor-map model's driver prediction with cuTensorMapEncode* (GPU optional).
    Tensormaps(cli::tensormaps::TensormapsArgs),
    /// The mutation schema: each mutant of the reference against the corpus's recorded silicon
    /// (build with `--features mutants`).
    Mutants(cli::mutants::MutantsArgs),
    /// Throughput of every path (reference, end to end at fixed shapes, naive, fuzz), as a table and JSON.
    Bench(ptxconform::bench::BenchArgs),
    /// Litmus campaign: one racy case run many times per launch, a histogram of its outcomes.
    Litmus(ptxconform::litmus::LitmusArgs),
    /// Differential fuzzing campaign: generated programs on the reference and hardware, minimized regressions.
    Fuzz(ptxconform::fuzz::FuzzArgs),
    /// Random truth sweep: random tensor-copy configurations, the sm_90 profile's prediction scored per class.
    Sweep(ptxconform::sweep::SweepArgs),
    /// Join the result folders of `run --shard` into one report.
    Merge(ptxconform::merge::MergeArgs),
    /// The undefined-behaviour rules the model classifies (a Markdown table).
    Rules(cli::rules::RulesArgs),
    /// The JSON Schema of case files (docs/case.schema.json, for editors), summary.json or a
    /// journal.jsonl line.
    Schema(cli::schema::SchemaArgs),
    /// Print a commented starter case for an instruction family (--list: the families).
    New(cli::new::NewArgs),
}

fn main() {
    keep_freed_memory();
    // The GPU worker process (see `gpu` module docs): spawned by the supervisor, never by users.
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some(ptxconform_gpu::device::WORKER_SUBCOMMAND) {
        std::process::exit(ptxconform_gpu::device::worker_main(&args[2..]));
    }
    if args.get(1).map(String::as_str) == Some(ptxconform_gpu::device::JIT_CUBIN_SUBCOMMAND) {
        std::process::exit(ptxconform_gpu::device::jit_cubin_main(&args[2..]));
    }
    let cmd = Cli::parse().cmd;
    // ptxas processes bound `legality`, not the pools' threads: every CPU unless `--jobs` or
    // `RAYON_NUM_THREADS` says otherwise.
    let (threads, most) = match &cmd {
        Cmd::Legality(a) => (a.jobs, usize::MAX),
        _ => (None, ptxconform_core::pools::MAX_DEFAULT_THREADS),
    };
    if let Err(e) = ptxconform_core::pools::size_global(threads, most) {
        eprintln!("ptxconform: error: cannot start the thread pool: {e}");
        std::process::exit(2);
    }
    let r = match cmd {
        Cmd::Syntax(a) => cli::syntax::main(&a),
        Cmd::Check(a) => cli::check::main(&a),
        Cmd::Legality(a) => legality::main(&a),
        Cmd::Run(a) => ptxconform::run::main(&a),
        Cmd::Emit(a) => cli::emit::main(&a),
        Cmd::Explain(a) => cli::explain::main(&a),
        Cmd::Coverage(a) => cli::coverage::main(
            &a,
            Some(&|c| {
                !ptxconform_core::evaluate::evaluate("", c)
                    .0
                    .verdict
                    .is_failure()
            }),
        ),
        Cmd::Tensormaps(a) => cli::tensormaps::main(&a),
        Cmd::Mutants(a) => cli::mutants::main(&a),
        Cmd::Bench(a) => ptxconform::bench::main(&a),
        Cmd::Litmus(a) => ptxconform::litmus::main(&a),
        Cmd::Fuzz(a) => ptxconform::fuzz::main(&a),
        Cmd::Sweep(a) => ptxconform::sweep::main(&a),
        Cmd::Merge(a) => ptxconform::merge::main(&a),
        Cmd::Rules(a) => cli::rules::main(&a),
        Cmd::Schema(a) => cli::schema::main(&a),
        Cmd::New(a) => cli::new::main(&a),
    };
    match ptxconform_core::trace::write() {
        Ok(Some(path)) => eprintln!("trace: {}", path.display()),
        Ok(None) => {}
        Err(e) => eprintln!("ptxconform: warning: trace not written: {e}"),
    }
    match r {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("ptxconform: error: {e}");
            std::process::exit(2);
        }
    }
}

#[cfg(test)]
mod tests {
    /// The option set is mimalloc's purge delay: its default (a second) before, never after;
    /// a delay the environment gives is read by mimalloc and kept.
    #[test]
    fn freed_memory_is_kept() {
        use super::MI_OPTION_PURGE_DELAY;
        // SAFETY: reads and sets a plain integer option.
        let before = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        super::keep_freed_memory();
        let after = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        match std::env::var("MIMALLOC_PURGE_DELAY") {
            Err(_) => {
                assert_eq!(before, 1000, "mimalloc v3's default purge delay (ms)");
                assert_eq!(after, -1);
            }
            // The environment's setting is mimalloc's, and stays.
            Ok(v) => assert_eq!((before, after), (v.parse().unwrap_or(before), before)),
        }
    }
}
