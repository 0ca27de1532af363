//! `Param::Mapa` (a remote `.shared::cluster` address computed with `mapa`). The YAML form only
//! loads once the variant is in the case model (and validation accepts it as an address); until
//! then these tests say so and return.

use ptxconform_gpu::emit::emit;
use ptxconform_gpu::ptxas;
use ptxconform_reference::case::{load_str, Case};

pub const REMOTE: &str = r#"
name: t.remote
target: sm_90a
launch: { grid: [2, 1, 1], cluster: [2, 1, 1] }
memory:
  shared:
    - { name: src, size: 64, init: { pattern: 81 } }
    - { name: dst, size: 64, init: { fill: 0xAA } }
  mbarriers: [ { name: bar } ]
params:
  rdst: { mapa: dst, cta: 1 }
  rbar: { mapa: bar, cta: 1 }
program:
  - cta: all
    ptx: mbarrier.init.shared::cta.b64 [bar], 1
  - cta: 1
    ptx: mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 64
  - ptx: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [rdst], [src], 64, [rbar]
  - cta: 1
    wait_parity: { mbar: bar, parity: 0 }
"#;

fn load(yaml: &str) -> Option<Case> {
    match load_str(yaml, "t.yaml") {
        Ok(mut v) => Some(v.remove(0)),
        Err(e) => {
            eprintln!("Param::Mapa not in the case model yet: {e}");
            None
        }
    }
}

#[test]
fn mapa_params_become_mapa_instructions() {
    let Some(c) = load(REMOTE) else { return };
    let e = emit(&c).unwrap();
    let lines: Vec<&str> = e.ptx.lines().collect();
    let cp = lines
        .iter()
        .position(|l| l.starts_with("cp.async.bulk.shared::cluster.shared::cta"))
        .unwrap();
    let regs: Vec<&str> = lines[cp].split(['[', ']']).collect();
    let (dst, bar) = (regs[1], regs[5]);
    for r in [dst, bar] {
        assert!(
            lines[..cp]
                .iter()
                .any(|l| l.starts_with(&format!("mapa.shared::cluster.u32 {r}, "))),
            "{r}\n{}",
            e.ptx
        );
    }
    // the rank travels in the pblock (value 1, after the region offset 128)
    assert!(
        e.pblock.windows(2).any(|w| w == [128, 1]),
        "dst at 128 in rank 1: {:?}",
        e.pblock
    );
    if let Some(p) = ptxas::for_tests() {
        assert_eq!(p.assemble(&e.ptx, c.target), Ok(()), "{}", e.ptx);
    }
    // another rank: same kernel
    let other = load(&REMOTE.replace("{ mapa: dst, cta: 1 }", "{ mapa: dst, cta: 0 }")).unwrap();
    assert_eq!(emit(&other).unwrap().shape_key, e.shape_key);
}
