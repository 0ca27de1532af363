//! Every tcgen05 case (`cases/tcgen05/`) emits a kernel that ptxas assembles for sm_100a, and
//! cases that check Tensor Memory get the epilogue's tcgen05.ld loop and dump section.

use ptxconform_gpu::emit::{emit, STATICALLY_REJECTED};
use ptxconform_gpu::ptxas;
use ptxconform_reference::case::load_dir;
use std::path::Path;

#[test]
fn tcgen05_cases_emit_and_assemble_for_sm_100a() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/tcgen05");
    let mut cases = Vec::new();
    for (path, r) in load_dir(&root) {
        cases.extend(r.unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    }
    assert!(cases.len() >= 60, "{} tcgen05 cases", cases.len());
    let p = ptxas::for_tests();
    let mut assembled = 0;
    for c in &cases {
        let e = emit(c).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert!(e.ptx.contains(".target sm_100a"), "{}", c.name);
        if c.check
            .iter()
            .any(|n| c.memory.tmem.iter().any(|t| &t.name == n))
        {
            assert!(
                e.ptx.contains("tcgen05.ld.sync.aligned.32x32b.x1.b32"),
                "{}: no Tensor Memory readback",
                c.name
            );
            assert_eq!(e.dump_layout.tmem.len(), 1, "{}", c.name);
            assert!(
                e.dump_layout.total_bytes >= e.dump_layout.tmem_at + 128 * 32 * 4,
                "{}",
                c.name
            );
        }
        assert!(
            e.assemblable(),
            "{}: PTX {} is newer than the pinned ptxas",
            c.name,
            e.version
        );
        if let Some(p) = &p {
            let res = p.assemble(&e.ptx, c.target);
            if STATICALLY_REJECTED.contains(&c.name.as_str()) {
                // Finding: ptxas 13.0 rejects the program the manual only calls undefined.
                let errs = res.expect_err(&c.name);
                assert!(
                    format!("{errs:?}").contains("cta_group"),
                    "{}: {errs:?}",
                    c.name
                );
                continue;
            }
            if let Err(errs) = res {
                let numbered = ptxconform_gpu::test_kernel::numbered(&e.ptx);
                panic!(
                    "{}: ptxas rejects the emitted kernel: {errs:?}\n{numbered}",
                    c.name
                );
            }
            assembled += 1;
        }
    }
    eprintln!(
        "{} tcgen05 cases emitted, {assembled} assembled",
        cases.len()
    );
}
