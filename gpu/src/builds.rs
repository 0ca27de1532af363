//! Code generators: what turns a case's PTX into the machine code that runs on the device.
//!
//! A hardware result departs from the model for one of three reasons: the silicon, the model, or
//! the code generator. Running one program under several *builds* — the driver's JIT at an
//! optimization level, or an offline ptxas release at an `-O` level — separates the third from the
//! other two (see [`crate::attribution`]). Offline releases other than the pinned one live in a
//! toolchain directory that `tools/install-toolchains.sh` fills from PyPI; the SASS of a build is
//! read with `nvdisasm` from the same place.

use crate::ptxas::Ptxas;
use ptxconform_reference::ptx::bulk::BulkOp;
use ptxconform_reference::ptx::cp_async::CpAsyncOp;
use ptxconform_reference::ptx::sync::{Spelling, SyncOp};
use ptxconform_reference::ptx::tensor::TensorOp;
use ptxconform_reference::ptx::{Instruction, Statement};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::str::FromStr;

/// Environment variable naming the toolchain directory.
const TOOLCHAINS_ENV: &str = "PTXCONFORM_TOOLCHAINS";

pub use ptxconform_reference::build::{Codegen, JIT_DEFAULT_LEVEL};

/// Builds named on a command line: `jit-O4,ptxas-13.0-O0,…` ([`parse_list`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildList(pub Vec<Codegen>);

impl FromStr for BuildList {
    type Err = String;
    fn from_str(s: &str) -> Result<BuildList, String> {
        parse_list(s).map(BuildList)
    }
}

/// A comma-separated list of builds (`--builds`), duplicates dropped.
pub fn parse_list(s: &str) -> Result<Vec<Codegen>, String> {
    let mut out: Vec<Codegen> = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let cg: Codegen = part.parse()?;
        if !out.contains(&cg) {
            out.push(cg);
        }
    }
    if out.is_empty() {
        return Err("no build named".into());
    }
    Ok(out)
}

/// The CUDA release of a `ptxas --version` line (`… release 13.0, V13.0.88` → `13.0`).
pub fn release_of(version_line: &str) -> Option<String> {
    let rest = &version_line[version_line.find("release ")? + "release ".len()..];
    let r: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    (!r.is_empty()).then_some(r)
}

/// Where extra toolchains live: `$PTXCONFORM_TOOLCHAINS`, else
/// `$XDG_CACHE_HOME/ptxconform/toolchains`, else `$HOME/.cache/ptxconform/toolchains`.
fn toolchains_dir() -> Option<PathBuf> {
    crate::compile::cache_location(TOOLCHAINS_ENV, "toolchains")
}

/// Installed packages of `tool` in `dir` (`<tool>-<version>` folders), newest version first.
fn installed(dir: &Path, tool: &str) -> Vec<(Vec<u32>, PathBuf)> {
    let mut found: Vec<(Vec<u32>, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let v = name.strip_prefix(&format!("{tool}-"))?;
            let nums: Option<Vec<u32>> = v.split('.').map(|p| p.parse().ok()).collect();
            Some((nums?, e.path()))
        })
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0));
    found
}

/// The ptxas of CUDA release `release`: the pinned one when it is that release, else the
/// newest installed package of it in the toolchain directory.
pub fn ptxas_of(release: &str) -> Result<Ptxas, String> {
    if let Ok(p) = Ptxas::find() {
        if release_of(&p.version).as_deref() == Some(release) {
            return Ok(p);
        }
    }
    let dir = toolchains_dir().ok_or("no toolchain directory (set PTXCONFORM_TOOLCHAINS)")?;
    let want: Vec<u32> = release.split('.').filter_map(|p| p.parse().ok()).collect();
    for (v, path) in installed(&dir, "nvcc") {
        if v.starts_with(&want) {
            let bin = path.join("nvidia/cu13/bin/ptxas");
            if bin.is_file() {
                let p = Ptxas::at(&bin)?;
                if release_of(&p.version).as_deref() == Some(release) {
                    return Ok(p);
                }
            }
        }
    }
    Err(format!(
        "ptxas of CUDA {release} not found in {} (install it with `tools/install-toolchains.sh`, \
         or set {TOOLCHAINS_ENV})",
        dir.display()
    ))
}

/// The builds that can be made here for attribution: the JIT, the pinned ptxas at -O0 and every
/// other installed ptxas release at the default level.
pub fn available() -> Vec<Codegen> {
    let mut out = vec![Codegen::Jit {
        level: JIT_DEFAULT_LEVEL,
    }];
    if let Some(r) = Ptxas::find().ok().and_then(|p| release_of(&p.version)) {
        out.push(Codegen::Ptxas {
            release: r,
            level: 0,
        });
    }
    if let Some(dir) = toolchains_dir() {
        for (v, _) in installed(&dir, "nvcc") {
            let release = format!("{}.{}", v.first().unwrap_or(&0), v.get(1).unwrap_or(&0));
            let cg = Codegen::Ptxas {
                release,
                level: crate::compile::DEFAULT_OPT_LEVEL,
            };
            if !out.contains(&cg)
                && matches!(&cg, Codegen::Ptxas { release, .. } if ptxas_of(release).is_ok())
            {
                out.push(cg);
            }
        }
    }
    out
}

/// nvdisasm: `$NVDISASM`, `PATH`, `$CUDA_HOME/bin`, the newest package in the toolchain
/// directory.
pub fn nvdisasm() -> Option<PathBuf> {
    let var = |k| std::env::var_os(k).filter(|v| !v.is_empty());
    let mut cands: Vec<PathBuf> = Vec::new();
    cands.extend(var("NVDISASM").map(PathBuf::from));
    if let Some(p) = var("PATH") {
        cands.extend(std::env::split_paths(&p).map(|d| d.join("nvdisasm")));
    }
    cands.extend(var("CUDA_HOME").map(|h| PathBuf::from(h).join("bin/nvdisasm")));
    if let Some(dir) = toolchains_dir() {
        cands.extend(
            installed(&dir, "nvdisasm")
                .into_iter()
                .map(|(_, p)| p.join("nvidia/cu13/bin/nvdisasm")),
        );
    }
    cands.into_iter().find(|p| p.is_file())
}

/// The SASS of `entry` in `cubin` (`nvdisasm -c`), the function's section only.
pub fn sass(cubin: &[u8], entry: &str) -> Result<String, String> {
    let tool = nvdisasm().ok_or(
        "nvdisasm not found (install it with `tools/install-toolchains.sh`, or set NVDISASM)",
    )?;
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let file = std::env::temp_dir().join(format!(
        "ptxconform-sass-{}-{}.cubin",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::write(&file, cubin).map_err(|e| format!("{}: {e}", file.display()))?;
    let out = Command::new(&tool).arg("-c").arg(&file).output();
    let _ = std::fs::remove_file(&file);
    let out = out.map_err(|e| format!("cannot run {}: {e}", tool.display()))?;
    if !out.status.success() {
        return Err(format!(
            "nvdisasm failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(function_section(&text, entry).unwrap_or(&text).to_string())
}

/// The lines of `entry`'s `.text.<entry>` section in an nvdisasm listing.
fn function_section<'a>(listing: &'a str, entry: &str) -> Option<&'a str> {
    let head = format!(".section\t.text.{entry},");
    let start = listing.find(&head)?;
    let body = &listing[start..];
    let end = body[head.len()..]
        .find("\t.section\t")
        .map_or(body.len(), |e| e + head.len());
    Some(&body[..end])
}

/// SASS opcodes that carry an instruction's work on sm_90 (how a reader finds a step in the
/// listing): cp.async → LDGSTS (+ LDGDEPBAR / DEPBAR for its groups), bulk copy / prefetch /
/// reduce → UBLKCP / UBLKPF / UBLKRED, tensor copies → UTMALDG / UTMASTG / UTMAPF / UTMAREDG,
/// mbarrier → SYNCS.*, `fence` (not `membar`) → FENCE.
fn opcodes_of(instr: &Instruction) -> &'static [&'static str] {
    match instr {
        Instruction::Tensor(TensorOp::Prefetch(_)) | Instruction::Bulk(BulkOp::Prefetch(_)) => {
            &["UBLKPF", "UTMAPF"]
        }
        Instruction::Tensor(_) => &["UTMALDG", "UTMASTG", "UTMAPF", "UTMAREDG", "UTMACCTL"],
        Instruction::Bulk(BulkOp::Reduce(_)) => &["UBLKRED"],
        Instruction::Bulk(_) => &["UBLKCP", "DEPBAR", "SYNCS"],
        Instruction::CpAsync(CpAsyncOp::MbarrierArrive { .. }) => &["ARRIVES", "SYNCS"],
        Instruction::CpAsync(_) => &["LDGSTS", "LDGDEPBAR", "DEPBAR"],
        Instruction::Mbarrier(_) => &["SYNCS"],
        Instruction::Sync(
            SyncOp::Membar { .. }
            | SyncOp::Proxy {
                spelling: Spelling::Membar,
                ..
            }
            | SyncOp::ClusterArrive { .. }
            | SyncOp::ClusterWait { .. },
        ) => &[],
        Instruction::Sync(_) => &["FENCE"],
        Instruction::Tcgen05(_) | Instruction::Tensormap(_) => &[],
    }
}

/// `sass` with every instruction of the steps in `steps` (PTX text of each) marked: a line
/// whose opcode belongs to a step's family gets `>>` and the steps it may carry.
pub fn mark(sass: &str, steps: &[(usize, String)]) -> String {
    // Each step's opcodes by its parsed instruction (a step that does not parse marks nothing).
    let carriers: Vec<(usize, &[&str])> = steps
        .iter()
        .map(|(i, t)| {
            let ops = Statement::parse(t).map_or(&[][..], |st| opcodes_of(&st.instr));
            (*i, ops)
        })
        .collect();
    let mut out = String::with_capacity(sass.len() + 64 * steps.len());
    out.push_str(
        "// `>>`: SASS instructions of the opcode classes that carry the marked PTX steps\n",
    );
    for (i, t) in steps {
        out.push_str(&format!("//   step {i}: {t}\n"));
    }
    for line in sass.lines() {
        let code = line
            .split_once("*/")
            .map(|(_, r)| r.trim_start())
            .unwrap_or("");
        // Skip a predicate guard (`@P0 LDGSTS …`).
        let code = match code.strip_prefix('@') {
            Some(r) => r.split_once(' ').map_or("", |(_, rest)| rest.trim_start()),
            None => code,
        };
        let opcode = code.split([' ', ';']).next().unwrap_or("");
        let hits: Vec<String> = carriers
            .iter()
            .filter(|(_, ops)| {
                ops.iter()
                    .any(|o| !opcode.is_empty() && opcode.split('.').next() == Some(o))
            })
            .map(|(i, _)| i.to_string())
            .collect();
        if hits.is_empty() || !line.trim_start().starts_with("/*") {
            out.push_str("   ");
        } else {
            out.push_str(">> ");
        }
        out.push_str(line);
        if !hits.is_empty() && line.trim_start().starts_with("/*") {
            out.push_str(&format!("   // step {}", hits.join("|")));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_is_read_from_the_version_line() {
        assert_eq!(
            release_of("Cuda compilation tools, release 13.0, V13.0.88").as_deref(),
            Some("13.0")
        );
        assert_eq!(release_of("no version"), None);
    }

    #[test]
    fn installed_packages_sort_newest_first() {
        let d = std::env::temp_dir().join(format!("ptxc-toolchains-{}", std::process::id()));
        for v in [
            "nvcc-13.0.88",
            "nvcc-13.5.37",
            "nvcc-13.10.1",
            "nvcc-x",
            "nvdisasm-13.5.37",
        ] {
            std::fs::create_dir_all(d.join(v)).unwrap();
        }
        let v: Vec<Vec<u32>> = installed(&d, "nvcc").into_iter().map(|(v, _)| v).collect();
        assert_eq!(v, vec![vec![13, 10, 1], vec![13, 5, 37], vec![13, 0, 88]]);
        std::fs::remove_dir_all(d).ok();
    }

    /// The SASS classes follow the parsed instruction: a tensor prefetch is a prefetch, a tensor
    /// store a tensor copy, and `membar` is not `fence`.
    #[test]
    fn opcodes_follow_the_instruction() {
        let ops = |t: &str| opcodes_of(&Statement::parse(t).unwrap().instr);
        let tensor = ["UTMALDG", "UTMASTG", "UTMAPF", "UTMAREDG", "UTMACCTL"];
        assert_eq!(
            ops("cp.async.bulk.prefetch.tensor.1d.L2.global [m, {x}]"),
            ["UBLKPF", "UTMAPF"]
        );
        assert_eq!(
            ops("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [m, {x}], [s]"),
            tensor
        );
        assert_eq!(
            ops("cp.async.bulk.global.shared::cta.bulk_group [d], [s], 16"),
            ["UBLKCP", "DEPBAR", "SYNCS"]
        );
        assert_eq!(
            ops("cp.async.mbarrier.arrive.b64 [bar]"),
            ["ARRIVES", "SYNCS"]
        );
        assert_eq!(ops("fence.proxy.async"), ["FENCE"]);
        assert!(ops("membar.proxy.async").is_empty());
        assert!(ops("tcgen05.wait::ld.sync.aligned").is_empty());
    }

    #[test]
    fn marks_the_opcodes_of_a_step() {
        let sass = "\t.section\t.text.k,\"ax\",@progbits\n\
            /*0010*/  LDGSTS.E.BYPASS.128 [R3], desc[UR4][R4.64] ;\n\
            /*0020*/  @P0 LDGDEPBAR ;\n\
            /*0030*/  STG.E desc[UR4][R2.64], R5 ;\n\
            /*0040*/  SYNCS.EXCH.64 URZ, [UR4], UR6 ;\n\
            /*0050*/  UBLKCP.S.G [UR4], [UR6], UR8 ;\n";
        let m = mark(
            sass,
            &[
                (2, "cp.async.cg.shared.global [b], [s], 16".into()),
                // A guarded step is marked by its instruction, not by its guard.
                (
                    3,
                    "@p cp.async.bulk.global.shared::cta.bulk_group [d], [s], 16".into(),
                ),
            ],
        );
        let marked: Vec<&str> = m.lines().filter(|l| l.starts_with(">>")).collect();
        assert_eq!(marked.len(), 4, "{m}");
        assert!(marked[0].contains("LDGSTS") && marked[0].ends_with("// step 2"));
        assert!(marked[1].contains("LDGDEPBAR") && marked[1].ends_with("// step 2"));
        assert!(marked[2].contains("SYNCS") && marked[2].ends_with("// step 3"));
        assert!(marked[3].contains("UBLKCP") && marked[3].ends_with("// step 3"));
        assert!(m.contains("//   step 2: cp.async.cg"));
        assert_eq!(
            function_section(
                "x\n\t.section\t.text.a,\"ax\"\nA\n\t.section\t.text.b,\"ax\"\nB\n",
                "a"
            ),
            Some(".section\t.text.a,\"ax\"\nA\n")
        );
    }
}
