//! Generated cases against the reference executor: no panic, no executor error, classification
//! as intended (well defined, or undefined by the rule the generator injected).

use ptxconform_reference::case::init::SplitMix64;
use ptxconform_reference::gen::oracle::exec::{run, Outcome};
use ptxconform_reference::gen::oracle::{check_reference, Oracle, Reference};
use ptxconform_reference::gen::{generate_bytes, GenConfig, BLOCK, HEADER};

#[test]
fn generated_cases_run_as_intended_on_the_reference() {
    let mut rng = SplitMix64(7);
    let (mut defined, mut undefined) = (0, 0);
    for cfg in [GenConfig::legal(), GenConfig::mixed()] {
        for _ in 0..500 {
            let len = (rng.next().unwrap_or(0) % (HEADER + 8 * BLOCK) as u64) as usize;
            let bytes: Vec<u8> = (0..len).map(|_| rng.next().unwrap_or(0) as u8).collect();
            let g = generate_bytes(&bytes, &cfg);
            if let Err(v) = Reference.check(&g) {
                panic!(
                    "{v}\n{}",
                    ptxconform_reference::case::to_yaml(std::slice::from_ref(&g.case))
                );
            }
            match run(&g.case) {
                Some(Ok(Outcome::Defined)) => defined += 1,
                Some(Ok(Outcome::Undefined(_))) => undefined += 1,
                _ => {}
            }
        }
    }
    // The executor really ran: most cases are well defined, the mixed config's deviations are not.
    assert!(
        defined > 700 && undefined > 50,
        "defined {defined}, undefined {undefined}"
    );
}

#[test]
fn example_cases_pass_the_reference_oracle() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/examples");
    for (path, cases) in ptxconform_reference::case::load_dir(&dir) {
        for c in cases.unwrap_or_default() {
            // Only cases that claim to be well defined or undefined by a known rule.
            if matches!(
                c.expect,
                None | Some(ptxconform_reference::case::Expect::Pass)
            ) {
                check_reference(&c).unwrap_or_else(|v| panic!("{}: {v}", path.display()));
            }
        }
    }
}
