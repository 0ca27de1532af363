#![no_main]
// Generated case → the reference executor never panics and classifies it as intended.
use libfuzzer_sys::fuzz_target;
use ptxconform_reference::gen::{generate_bytes, oracle::{static_oracles, Oracle, Reference}};

fuzz_target!(|data: &[u8]| {
    let g = generate_bytes(data, ptxconform_fuzz::config());
    for o in static_oracles().iter().map(|o| o.as_ref()).chain([&Reference as &dyn Oracle]) {
        if let Err(v) = o.check(&g) {
            panic!("{v}");
        }
    }
});
