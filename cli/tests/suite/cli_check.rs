//! `ptxconform check` and the module reader behind `syntax` on real PTX: the harness's own
//! emitted kernels, hand-written CUTLASS/Triton-style kernels (tests/data/ptx/), located errors.

use ptxconform::commands::check::check;
use ptxconform_gpu::emit::{emit, STATICALLY_REJECTED};
use ptxconform_reference::case::{load_dir, StepOp};
use ptxconform_reference::ptx::{read_source, Parsed, Statement};
use ptxconform_reference::target::Target;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ptxconform"))
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/ptx")
        .join(name)
}

fn targets() -> Vec<Target> {
    ["sm_80", "sm_90a", "sm_100a"]
        .iter()
        .map(|t| t.parse().unwrap())
        .collect()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A scratch file holding `src`, removed on drop.
struct Scratch(PathBuf);
impl Scratch {
    fn new(name: &str, src: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("ptxconform-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, src).unwrap();
        Scratch(p)
    }
}
impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn emitted_corpus_reads_without_errors_and_lists_its_instructions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    let mut kernels = 0;
    for (path, r) in load_dir(&root) {
        let cases = r.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for c in cases {
            let Ok(e) = emit(&c) else { continue };
            kernels += 1;
            let items = read_source(&e.ptx);
            let errors: Vec<String> = items
                .iter()
                .filter_map(|i| match &i.parsed {
                    Parsed::Error(at, err) => Some(format!("{at}: {err}")),
                    _ => None,
                })
                .collect();
            assert!(errors.is_empty(), "{}: {errors:?}\n{}", c.name, e.ptx);
            let skipped = items
                .iter()
                .filter(|i| matches!(i.parsed, Parsed::Skipped(..)))
                .count();
            assert!(skipped > 10, "{}: the scaffolding is read too", c.name);
            let found: BTreeSet<String> = items
                .iter()
                .filter_map(|i| match &i.parsed {
                    Parsed::Instr(_, s) => Some(s.instr.row()),
                    _ => None,
                })
                .collect();
            // Every instruction of the case's program is among the modelled ones of its kernel.
            for step in &c.program {
                let StepOp::Ptx(t) = &step.op else { continue };
                let row = Statement::parse(t).unwrap().instr.row();
                assert!(
                    found.contains(&row),
                    "{}: `{t}` not listed: {found:?}",
                    c.name
                );
            }
            // The kernel is legal for its own target and version, as ptxas finds it (the
            // statically rejected case mixes `.cta_group`s across instructions: ptxas refuses
            // the module, while each instruction is legal on its own).
            if STATICALLY_REJECTED.contains(&c.name.as_str()) {
                continue;
            }
            let r = check(&c.name, &e.ptx, &targets());
            let illegal: Vec<_> = r
                .instructions
                .iter()
                .filter(|f| !f.module.as_ref().unwrap().legal)
                .map(|f| (&f.instruction, &f.module))
                .collect();
            assert_eq!(r.exit_code(), 0, "{}: {illegal:?}", c.name);
        }
    }
    assert!(kernels > 100, "only {kernels} kernels emitted");
}

/// The Hopper fixture's verdicts: (row prefix, legal on sm_80, on sm_90a, on sm_100a).
const HOPPER: &[(&str, bool, bool, bool)] = &[
    ("mbarrier.init.shared::cta", true, true, true),
    ("fence.mbarrier_init.release.cluster", false, true, true),
    ("fence.proxy.async.shared::cta", false, true, true),
    ("mbarrier.arrive.expect_tx.shared::cta", false, true, true),
    (
        "cp.async.bulk.tensor.2d.shared::cluster.global",
        false,
        true,
        true,
    ),
    ("mbarrier.try_wait.parity.shared::cta", false, true, true),
    ("cp.async.ca.shared.global", true, true, true),
    ("cp.async.cg.shared.global", true, true, true),
    ("cp.async.commit_group", true, true, true),
    ("cp.async.wait_group", true, true, true),
    ("fence.proxy.async.shared::cta", false, true, true),
    (
        "cp.async.bulk.tensor.2d.global.shared::cta",
        false,
        true,
        true,
    ),
    ("cp.async.bulk.commit_group", false, true, true),
    ("cp.async.bulk.wait_group.read", false, true, true),
];

#[test]
fn hopper_gemm_fixture_legality_per_target() {
    let path = fixture("tma_gemm_sm90a.ptx");
    let out = bin()
        .arg("check")
        .arg(&path)
        .args(["--targets", "sm_80,sm_90a,sm_100a", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = &v["files"][0];
    assert_eq!(f["version"], "8.0");
    assert_eq!(f["target"], "sm_90a");
    assert_eq!(f["skipped"], 46, "ld/st/mov/bra/wgmma/call… are read");
    let instrs = f["instructions"].as_array().unwrap();
    assert_eq!(instrs.len(), HOPPER.len(), "{instrs:#?}");
    for (i, (row, sm80, sm90a, sm100a)) in instrs.iter().zip(HOPPER) {
        let r = i["row"].as_str().unwrap();
        assert!(r.starts_with(row), "{r} is not {row}");
        assert_eq!(i["function"], "gemm_tma_ws", "{r}");
        assert_eq!(i["module"]["legal"], true, "{r}");
        let legal: Vec<bool> = i["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["legal"].as_bool().unwrap())
            .collect();
        assert_eq!(legal, [*sm80, *sm90a, *sm100a], "{r}");
        // PTX ISA 8.6 introduced sm_100a: every instruction needs it there.
        assert_eq!(i["targets"][2]["min_ptx"], "8.6", "{r}");
        assert_eq!(i["targets"][2]["above_module_version"], true, "{r}");
        assert_eq!(i["targets"][1]["above_module_version"], false, "{r}");
        if !sm80 {
            let why = i["targets"][0]["reason"].as_str().unwrap();
            assert!(why.contains("sm_90+"), "{r}: {why}");
        }
    }
    // The TMA load spans two lines; the wait sits in a scoped block after a label.
    assert_eq!(
        (&instrs[4]["line"], &instrs[4]["col"]),
        (&68.into(), &2.into())
    );
    assert_eq!(instrs[5]["line"], 74);
}

#[test]
fn hopper_gemm_fixture_text_report() {
    let out = bin()
        .arg("check")
        .arg(fixture("tma_gemm_sm90a.ptx"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("tma_gemm_sm90a.ptx:68:2: [gemm_tma_ws] cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r7, %r5}], [%r4];\n    module (.target sm_90a .version 8.0): legal from PTX 8.0\n    sm_80: illegal: cp.async.bulk.tensor: needs sm_90+ (PTX 8.0)\n"),
        "{s}"
    );
    assert!(
        s.contains(
            ".version 8.0 .target sm_90a: 14 modelled instructions, 46 skipped (not modelled)"
        ),
        "{s}"
    );
}

#[test]
fn blackwell_fixture_is_target_specific_and_skips_mma() {
    let r = check(
        "tcgen05_sm100a.ptx",
        &std::fs::read_to_string(fixture("tcgen05_sm100a.ptx")).unwrap(),
        &["sm_90a".parse().unwrap(), "sm_100f".parse().unwrap()],
    );
    assert_eq!(r.exit_code(), 0, "{:?}", r.errors);
    assert_eq!(r.modelled, 8);
    assert_eq!(
        r.skipped, 10,
        "tcgen05.mma is out of the model's scope: skipped"
    );
    for f in &r.instructions {
        assert!(f.module.as_ref().unwrap().legal, "{}", f.instruction);
        assert!(!f.targets[0].legal, "{} on sm_90a", f.instruction);
        // Legal on sm_100f, but only from PTX 8.8, newer than the module's 8.6.
        assert!(f.targets[1].legal, "{}", f.instruction);
        assert_eq!(f.targets[1].min_ptx.as_deref(), Some("8.8"));
        assert!(
            f.target_specific.iter().any(|t| t.contains("sm_100a")),
            "{}: {:?}",
            f.instruction,
            f.target_specific
        );
    }
    assert!(r
        .instructions
        .iter()
        .any(|f| f.row.contains(".cta_group::2")));
}

#[test]
fn illegal_for_the_modules_own_target_or_version_exits_1() {
    let src = std::fs::read_to_string(fixture("tma_gemm_sm90a.ptx")).unwrap();
    // The same kernel declared for sm_80: everything but cp.async and mbarrier.init is illegal.
    let sm80 = Scratch::new("sm80.ptx", &src.replace(".target sm_90a", ".target sm_80"));
    let out = bin().arg("check").arg(&sm80.0).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains(": error: ")).collect();
    assert_eq!(lines.len(), 9, "{err}");
    assert!(
        lines[3].starts_with(&format!(
            "{}:68:2: error: `cp.async.bulk.tensor.2d.shared::cluster.global",
            sm80.0.display()
        )),
        "{err}"
    );
    assert!(lines[3].ends_with("is not legal for .target sm_80 .version 8.0: cp.async.bulk.tensor: needs sm_90+ (PTX 8.0)"), "{err}");

    // A `.shared::cta` destination for cp.async.bulk needs PTX 8.6: too new for `.version 8.0`.
    let newer = src.replace(
        "\tcp.async.commit_group;",
        "\tcp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r3], [%rd6], 16, [%r4];\n\tcp.async.commit_group;",
    );
    let r = check("v80.ptx", &newer, &targets());
    assert_eq!(r.exit_code(), 1);
    let bad: Vec<_> = r
        .instructions
        .iter()
        .filter_map(|f| f.module.as_ref().and_then(|m| m.reason.clone()))
        .collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].starts_with("needs PTX 8.6 on sm_90a"), "{bad:?}");
    let with_86 = newer.replace(".version 8.0", ".version 8.6");
    assert_eq!(check("v86.ptx", &with_86, &targets()).exit_code(), 0);
}

#[test]
fn malformed_modelled_instruction_in_a_good_module_is_located() {
    let src = std::fs::read_to_string(fixture("tma_gemm_sm90a.ptx")).unwrap();
    let bad = Scratch::new(
        "bad.ptx",
        &src.replace(
            "cp.async.ca.shared.global \t[%r9], [%rd6], 16;",
            "cp.async.ca.shared.global \t[%r9], [%rd6, 16;",
        ),
    );
    for cmd in ["syntax", "check"] {
        let out = bin().arg(cmd).arg(&bad.0).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let errors: Vec<&str> = err.lines().filter(|l| l.contains(": error: ")).collect();
        assert_eq!(errors.len(), 1, "{cmd}: {err}");
        assert!(
            errors[0].starts_with(&format!("{}:96:", bad.0.display())),
            "{cmd}: {err}"
        );
        assert!(errors[0].contains("error: expected "), "{cmd}: {err}");
        assert_eq!(
            out.status.code(),
            Some(if cmd == "syntax" { 1 } else { 2 }),
            "{cmd}: {err}"
        );
    }
    // check still lists the other 13 instructions.
    let r = check(
        "bad.ptx",
        &std::fs::read_to_string(&bad.0).unwrap(),
        &targets(),
    );
    assert_eq!(r.instructions.len(), HOPPER.len() - 1);
}

#[test]
fn unreadable_input_exits_2() {
    let out = bin()
        .args(["check", "/nonexistent/k.ptx"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("/nonexistent/k.ptx"), "{}", text(&out));
    let out = bin()
        .args(["check", "--targets", "sm80"])
        .arg(fixture("tma_gemm_sm90a.ptx"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a bad target is a usage error");
    // So is a well-formed target ptxas does not know: no verdict on an invented target.
    let out = bin()
        .args(["check", "--targets", "sm_90a,sm_99"])
        .arg(fixture("tma_gemm_sm90a.ptx"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("`sm_99` is not a target the pinned ptxas knows"),
        "{}",
        text(&out)
    );
}

#[test]
fn syntax_listing_of_a_kernel_reassembles() {
    // `syntax` prints the whole module back (modelled instructions canonically): still PTX.
    let out = bin()
        .arg("syntax")
        .arg(fixture("tma_gemm_sm90a.ptx"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let listing = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        listing.contains("    add.f32 %f1, %f1, %f2;  // skipped: not modelled\n"),
        "{listing}"
    );
    assert!(listing.contains("\n        LAB_WAIT:\n        mbarrier.try_wait.parity.shared::cta.b64 P1, [%r4], %r6;\n"), "{listing}");
    let Some(p) = ptxconform_gpu::ptxas::for_tests() else {
        return;
    };
    let r = p.assemble(&listing, "sm_90a".parse().unwrap());
    assert!(r.is_ok(), "{r:?}");
}

fn stdout_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// `--summary`: one line per kernel (not five per instruction), then the totals; `-q`: only the
/// problems (stderr) and the totals line.
#[test]
fn summary_and_quiet_forms() {
    let src = std::fs::read_to_string(fixture("tma_gemm_sm90a.ptx")).unwrap();
    let sm80 = Scratch::new(
        "quiet80.ptx",
        &src.replace(".target sm_90a", ".target sm_80"),
    );
    let run = |flag: &str| bin().args(["check", flag]).arg(&sm80.0).output().unwrap();

    let full = run("--targets=sm_80,sm_90a");
    let summary = run("--summary");
    let lines = stdout_lines(&summary);
    assert_eq!(summary.status.code(), Some(1), "{}", text(&summary));
    assert!(stdout_lines(&full).len() > 50, "{}", text(&full));
    // The module's header, its one kernel, the totals.
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert!(
        lines[1].ends_with(&format!(
            ": {} modelled instructions; module (.target sm_80 .version 8.0): 9 illegal; \
             sm_80: 9 illegal; sm_90a: all legal; sm_100a: all legal",
            HOPPER.len()
        )),
        "{lines:#?}"
    );
    let total = format!(
        "total: 1 files, 1 kernels, {} modelled instructions",
        HOPPER.len()
    );
    assert!(lines[2].starts_with(&total), "{lines:#?}");
    assert!(lines[2].contains("; 9 illegal for their module's target and version; 0 unreadable"));

    let quiet = run("-q");
    assert_eq!(quiet.status.code(), Some(1));
    let lines = stdout_lines(&quiet);
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(lines[0].starts_with(&total), "{lines:#?}");
    let err = String::from_utf8_lossy(&quiet.stderr);
    assert_eq!(err.lines().count(), 9, "{err}");
    assert!(err.lines().all(|l| l.contains(": error: ")), "{err}");

    let both = bin()
        .args(["check", "-q", "--summary"])
        .arg(&sm80.0)
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2), "one form at a time");
}

/// Garbage read as PTX is a screenful of errors and a count, not an error per line.
#[test]
fn a_flood_of_errors_is_capped_with_a_count() {
    let junk: String = (0..20_000)
        .map(|i| format!("cp.async.ca.shared.global [%r{i}], [%rd1, 16;\n"))
        .collect();
    let f = Scratch::new("junk.ptx", &junk);
    let out = bin().arg("check").arg(&f.0).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 21, "{}", &err[..err.len().min(2000)]);
    assert_eq!(lines[20], "… and 19,980 more errors");
    assert!(
        lines[0].starts_with(&format!("{}:1:", f.0.display())),
        "{err}"
    );
    let total = stdout_lines(&out).pop().unwrap();
    assert!(total.ends_with("; 20000 unreadable"), "{total}");
}
