#![no_main]
// Generated case → it validates, print-parses, is statically legal as intended, and the reference
// executor never panics and classifies it as intended. (The YAML round trip, the costliest check,
// has its own target, `yaml_roundtrip`, over the same generator.)
use libfuzzer_sys::fuzz_target;
use ptxconform_reference::gen::{
    generate_input,
    oracle::{Oracle, Reference, StaticLegality, Validates},
};

fuzz_target!(|data: &[u8]| {
    let g = generate_input(data, ptxconform_fuzz::config());
    for o in [&Validates as &dyn Oracle, &StaticLegality, &Reference] {
        if let Err(v) = o.check(&g) {
            panic!("{v}");
        }
    }
});
