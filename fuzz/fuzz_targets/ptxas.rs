#![no_main]
// Generated case → its instructions assemble with ptxas exactly when the model says legal.
use libfuzzer_sys::fuzz_target;
use ptxconform_reference::gen::generate_input;

fuzz_target!(|data: &[u8]| {
    let Some(p) = ptxconform_fuzz::ptxas() else {
        return;
    };
    let g = generate_input(data, ptxconform_fuzz::config());
    if let Err(v) = ptxconform_fuzz::check_ptxas(p, &g) {
        panic!("{v}");
    }
});
