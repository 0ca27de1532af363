//! Every case of the corpus emits a kernel that ptxas assembles for the case's target.

use ptxconform_gpu::emit::{emit, link, Emitted};
use ptxconform_gpu::ptxas;
use ptxconform_reference::case::{load_dir, Case};
use ptxconform_reference::target::Target;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

fn corpus() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    let mut out = Vec::new();
    for (path, r) in load_dir(&root) {
        match r {
            Ok(cases) => out.extend(cases),
            Err(e) => panic!("{}: {e}", path.display()),
        }
    }
    out
}

#[test]
fn corpus_emits_and_assembles() {
    let cases = corpus();
    assert!(cases.len() >= 4, "corpus not found: {} cases", cases.len());
    let p = ptxas::for_tests();
    // Cases of one shape emit identical PTX (`Emitted::shape_key`); distinct shapes of one
    // preamble are linked into modules of several kernels as the engine does, and the modules
    // assembled in parallel. A module ptxas rejects is assembled shape by shape to name the case.
    let mut emitted = Vec::new();
    let mut shapes: HashMap<u64, usize> = HashMap::new();
    for c in &cases {
        let e = emit(c).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert!(
            e.ptx.contains(&format!(".target {}", c.target)),
            "{}",
            e.ptx
        );
        if !e.assemblable() {
            eprintln!(
                "{}: PTX ISA {} is newer than the pinned ptxas; reference only",
                c.name, e.version
            );
            continue;
        }
        if ptxconform_gpu::emit::STATICALLY_REJECTED.contains(&c.name.as_str()) {
            continue; // ptxas refuses it (a finding; tests/emit_tcgen05.rs checks the refusal)
        }
        let next = emitted.len();
        let first = *shapes.entry(e.shape_key).or_insert(next);
        if first != next {
            // One shape key, one text: the engine compiles one kernel per key.
            let (_, f): &(&Case, Emitted) = &emitted[first];
            assert_eq!(f.ptx, e.ptx, "{}: shape_key collision", c.name);
        }
        emitted.push((c, e));
    }
    let mut groups: BTreeMap<(String, Target), Vec<&(&Case, Emitted)>> = BTreeMap::new();
    for (i, ce) in emitted.iter().enumerate() {
        if shapes[&ce.1.shape_key] == i {
            let key = (ce.1.preamble().to_string(), ce.0.target);
            groups.entry(key).or_default().push(ce);
        }
    }
    let modules: Vec<(Target, Vec<&(&Case, Emitted)>)> = groups
        .into_iter()
        .flat_map(|((_, t), m)| m.chunks(64).map(|c| (t, c.to_vec())).collect::<Vec<_>>())
        .collect();
    if let Some(p) = &p {
        let texts: Vec<(String, Target)> = modules
            .iter()
            .map(|(t, m)| (link(&m.iter().map(|(_, e)| e).collect::<Vec<_>>()), *t))
            .collect();
        let results = p.assemble_all(&texts);
        for ((t, members), r) in modules.iter().zip(results) {
            if r.is_ok() {
                continue;
            }
            for (c, e) in members {
                if let Err(errs) = p.assemble(&e.ptx, *t) {
                    let numbered = ptxconform_gpu::test_kernel::numbered(&e.ptx);
                    panic!(
                        "{}: ptxas rejects the emitted kernel: {errs:?}\n{numbered}",
                        c.name
                    );
                }
            }
            panic!(
                "a linked module of {} kernels is rejected: {r:?}",
                members.len()
            );
        }
    }
    eprintln!(
        "{} cases emitted, {} assemblable, {} distinct shapes in {} modules{}",
        cases.len(),
        emitted.len(),
        shapes.len(),
        modules.len(),
        if p.is_some() {
            ", all assembled"
        } else {
            " (no ptxas)"
        }
    );
}

#[test]
#[ignore]
fn show() {
    for c in corpus() {
        println!("==== {}\n{}", c.name, emit(&c).unwrap().ptx);
    }
}

/// Emit and assemble every case under `$PTXCONFORM_EMIT_DIR` (a corpus outside this tree).
#[test]
#[ignore]
fn external_dir_emits_and_assembles() {
    let Some(dir) = std::env::var_os("PTXCONFORM_EMIT_DIR") else {
        return;
    };
    let p = ptxas::for_tests();
    let (mut ok, mut bad) = (0, 0);
    for (path, r) in load_dir(Path::new(&dir)) {
        let cases = match r {
            Ok(c) => c,
            Err(e) => {
                println!("LOAD {}: {e}", path.display());
                bad += 1;
                continue;
            }
        };
        for c in cases {
            match emit(&c) {
                Err(e) => {
                    println!("EMIT {} {}: {e}", path.display(), c.name);
                    bad += 1;
                }
                Ok(e) if std::env::var("PTXCONFORM_EMIT_SHOW").is_ok_and(|n| n == c.name) => {
                    println!("{}", e.ptx)
                }
                Ok(e) if !e.assemblable() => {
                    println!("SKIP {}: PTX ISA {} (reference only)", c.name, e.version)
                }
                Ok(e) => match p.as_ref().map(|p| p.assemble(&e.ptx, c.target)) {
                    Some(Err(errs)) => {
                        let lines: Vec<&str> = e.ptx.lines().collect();
                        let at: Vec<String> = errs
                            .iter()
                            .map(|x| {
                                format!(
                                    "{x} `{}`",
                                    x.line.and_then(|l| lines.get(l - 1)).unwrap_or(&"")
                                )
                            })
                            .collect();
                        println!("PTXAS {} {}: {at:?}", path.display(), c.name);
                        bad += 1;
                    }
                    _ => ok += 1,
                },
            }
        }
    }
    println!("{ok} ok, {bad} failed");
}
