#![no_main]
// Generated case → to_yaml → load → the same case.
use libfuzzer_sys::fuzz_target;
use ptxconform_reference::gen::{
    generate_input,
    oracle::{Oracle, YamlRoundTrip},
};

fuzz_target!(|data: &[u8]| {
    let g = generate_input(data, ptxconform_fuzz::config());
    if let Err(v) = YamlRoundTrip.check(&g) {
        panic!("{v}");
    }
});
