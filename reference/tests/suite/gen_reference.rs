//! Generated cases against the reference executor: no panic, no executor error, classification
//! as intended (well defined, or undefined by the rule the generator injected).

use ptxconform_reference::case::init::SplitMix64;
use ptxconform_reference::gen::oracle::exec::{run, Outcome};
use ptxconform_reference::gen::oracle::{Oracle, Reference};
use ptxconform_reference::gen::{generate_bytes, GenConfig, BLOCK, HEADER};
use ptxconform_reference::sem::exec::execute;

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
fn example_cases_meet_their_expect_on_the_reference() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/examples");
    let mut n = 0;
    for (path, cases) in ptxconform_reference::case::load_dir(&dir) {
        for c in cases.unwrap_or_else(|e| panic!("{}: {e}", path.display())) {
            let ex = execute(&c).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            ex.meets(c.expect.as_ref())
                .unwrap_or_else(|why| panic!("{} `{}`: {why}", path.display(), c.name));
            n += 1;
        }
    }
    assert!(n > 0, "no example cases found");
}
