#![no_main]
// Arbitrary bytes → the case loader (and the located checker) never panic.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = ptxconform_reference::case::load_bytes(data, "fuzz");
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = ptxconform_reference::case::check_str(text, "fuzz");
    }
});
