//! `cases/reduce/special/`, the reduction special-value corpus of `gen::special_values`: the
//! committed files are what the generator writes (cases compared field by field with recorded
//! observations set aside, the README as text; `PTXCONFORM_REGENERATE=1` rewrites them); every
//! `.redOp` × type legal on sm_90 has its case, read back from the files' instructions and maps;
//! every case is well defined under both profiles, and the bulk f32 / f64 adds meet the positions
//! where the readings differ.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ptxconform_reference::case::{load_dir, load_file, load_str, Case, Observation, StepOp};
use ptxconform_reference::gen::special_values::{self, combos, Form};
use ptxconform_reference::ptx::bulk::{BulkOp, RedDst};
use ptxconform_reference::ptx::common::{RedOp, RedType};
use ptxconform_reference::ptx::tensor::TensorOp;
use ptxconform_reference::ptx::Instruction;
use ptxconform_reference::sem::exec::tensor::reduce_type;
use ptxconform_reference::sem::exec::{execute_with, ExecOptions, Outcome};
use ptxconform_reference::sem::profile::Profile;
use ptxconform_reference::target::Target;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(special_values::DIR)
}

fn committed() -> Vec<Case> {
    let mut out = Vec::new();
    for (path, r) in load_dir(&dir()) {
        out.extend(r.unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    }
    out
}

fn without_observations(mut cs: Vec<Case>) -> Vec<Case> {
    for c in &mut cs {
        c.observed.clear();
    }
    cs
}

#[test]
fn committed_files_are_what_the_generator_writes() {
    let dir = dir();
    let observed: BTreeMap<String, Vec<Observation>> = if dir.exists() {
        committed()
            .into_iter()
            .map(|c| (c.name, c.observed))
            .collect()
    } else {
        BTreeMap::new()
    };
    let files = special_values::files(&|name| observed.get(name).cloned().unwrap_or_default());
    if std::env::var("PTXCONFORM_REGENERATE").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in &files {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }
    let hint = "regenerate with `PTXCONFORM_REGENERATE=1 cargo test -p ptxconform-reference \
                --test reduce_special`";
    for (name, text) in &files {
        let path = dir.join(name);
        let on_disk = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}; {hint}", path.display()));
        if name.ends_with(".yaml") {
            let want = without_observations(load_str(text, name).unwrap());
            let got = without_observations(load_file(&path).unwrap());
            assert!(want == got, "{} is stale: {hint}", path.display());
        } else {
            assert!(on_disk == *text, "{} is stale: {hint}", path.display());
        }
    }
    // No file the generator no longer writes.
    for e in std::fs::read_dir(&dir).unwrap() {
        let n = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            files.iter().any(|(f, _)| *f == n),
            "{n}: not generated; {hint}"
        );
    }
}

/// What a case reduces: (form, op, type) read from its instruction (and its map).
fn reduction_of(c: &Case) -> Option<(Form, RedOp, RedType)> {
    c.program.iter().find_map(|s| {
        let StepOp::Ptx(text) = &s.op else {
            return None;
        };
        let i = Instruction::parse(text).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert!(
            i.requirement().min_ptx_for(Target::SM_90).is_ok(),
            "{}: `{text}` is not legal on sm_90",
            c.name
        );
        match i {
            Instruction::Bulk(BulkOp::Reduce(r)) => Some((
                match r.dst_kind {
                    RedDst::Global => Form::Global,
                    RedDst::Cluster { .. } => Form::Cluster,
                },
                r.op,
                r.ty,
            )),
            Instruction::Tensor(TensorOp::Reduce(r)) => {
                let dt = c.memory.tensor_maps[0].map.tensor_data_type;
                let ty = reduce_type(r.op, dt).unwrap_or_else(|| panic!("{}: no type", c.name));
                Some((Form::Tensor(dt), r.op, ty))
            }
            _ => None,
        }
    })
}

#[test]
fn every_redop_and_type_legal_on_sm_90_has_a_case() {
    let found: Vec<(Form, RedOp, RedType)> = committed()
        .iter()
        .map(|c| reduction_of(c).unwrap_or_else(|| panic!("{}: no reduction", c.name)))
        .collect();
    // Independently of the generator's list: every bulk variant the model admits on sm_90, every
    // .redOp × tensor-map type the tensor table admits.
    let mut legal = Vec::new();
    for i in Instruction::all_variants() {
        if i.requirement().min_ptx_for(Target::SM_90).is_err() {
            continue;
        }
        if let Instruction::Bulk(BulkOp::Reduce(r)) = i {
            let form = match r.dst_kind {
                RedDst::Global => Form::Global,
                RedDst::Cluster { .. } => Form::Cluster,
            };
            legal.push((form, r.op, r.ty));
        }
    }
    for op in RedOp::ALL {
        for dt in ptxconform_reference::sem::tensor::tensormap::DataType::ALL {
            if let Some(ty) = reduce_type(op, dt) {
                legal.push((Form::Tensor(dt), op, ty));
            }
        }
    }
    legal.dedup();
    let missing: Vec<_> = legal.iter().filter(|l| !found.contains(l)).collect();
    assert!(missing.is_empty(), "no case for {missing:?}");
    let extra: Vec<_> = found.iter().filter(|f| !legal.contains(f)).collect();
    assert!(
        extra.is_empty(),
        "cases for combinations not legal on sm_90: {extra:?}"
    );
    assert_eq!(found.len(), combos().len(), "one case per combination");
    // The tables of §9.7.9.25.4.2 / §9.7.9.25.5.3 as read by the model: 27 + 12 + 30.
    let count = |f: fn(&Form) -> bool| found.iter().filter(|x| f(&x.0)).count();
    assert_eq!(count(|f| *f == Form::Global), 27);
    assert_eq!(count(|f| *f == Form::Cluster), 12);
    assert_eq!(count(|f| matches!(f, Form::Tensor(_))), 30);
}

#[test]
fn every_case_is_well_defined_and_the_bulk_float_adds_tell_the_readings_apart() {
    let cases = committed();
    assert!(!cases.is_empty());
    for c in &cases {
        let run = |profile| execute_with(c, ExecOptions::of(profile)).unwrap();
        let (spec, sm90) = (run(Profile::Spec), run(Profile::Sm90));
        for x in [&spec, &sm90] {
            assert_eq!(x.outcome, Outcome::Defined, "{}", c.name);
            x.meets(c.expect.as_ref())
                .unwrap_or_else(|e| panic!("{}: {e}", c.name));
        }
        let ids: Vec<&str> = sm90.departures.iter().map(|p| p.id).collect();
        let want: &[&str] = match c.name.as_str() {
            "reduce.special.global.add.f32" => &["P-RED-F32-SUBNORMALS"],
            "reduce.special.global.add.f64" => &["P-RED-F64-NAN-OPERAND"],
            "reduce.special.tensor.add.float32" => &["P-RED-TENSOR-F32-SUBNORMALS"],
            _ => &[],
        };
        assert_eq!(ids, want, "{}", c.name);
    }
}

/// The results the files' comments state (the generator's arithmetic per pair) are the bytes the
/// executor leaves in the destination, under each profile: the pairs land where the comments
/// say (1-D and 2-D maps, the peer CTA's window), and the judge expects what a reader sees.
#[test]
fn the_executor_leaves_the_results_the_comments_state() {
    let cases = committed();
    for combo in combos() {
        let case = cases
            .iter()
            .find(|c| c.name == combo.name())
            .unwrap_or_else(|| panic!("{}: missing", combo.name()));
        let (pairs, _) = special_values::layout(&combo);
        let key = match combo.form {
            Form::Cluster => "dst@cta1",
            _ => "out",
        };
        let n = combo.ty.bytes();
        for (profile, pick) in [
            (
                Profile::Sm90,
                (|r: (u64, u64)| r.0) as fn((u64, u64)) -> u64,
            ),
            (Profile::Spec, |r| r.1),
        ] {
            let x = execute_with(case, ExecOptions::of(profile)).unwrap();
            let got = x.final_region(key).unwrap().to_vec();
            assert_eq!(got.len(), pairs.len() * n, "{}", case.name);
            for (i, p) in pairs.iter().enumerate() {
                let want = pick(special_values::results(&combo, p)).to_le_bytes();
                let have: Vec<Option<u8>> =
                    got[i * n..(i + 1) * n].iter().map(|b| b.known()).collect();
                let want: Vec<Option<u8>> = want[..n].iter().map(|b| Some(*b)).collect();
                assert_eq!(have, want, "{} pair {i} under {profile}", case.name);
            }
        }
    }
}
