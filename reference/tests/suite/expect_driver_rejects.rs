//! `expect: driver_rejects`: on the reference it holds when the driver model
//! (`sem::tensor::predict_driver`) refuses a tensor map of the case; the execution names the
//! refused maps.

use ptxconform_reference::case::{load_file, load_str, Expect};
use ptxconform_reference::sem::exec::execute;
use std::path::Path;

fn example() -> ptxconform_reference::case::Case {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/examples/driver_rejects.yaml");
    load_file(&path).unwrap().remove(0)
}

#[test]
fn refused_map_meets_driver_rejects() {
    let c = example();
    assert_eq!(c.expect, Some(Expect::DriverRejects));
    let x = execute(&c).unwrap();
    let refused: Vec<(&str, &str)> = x
        .driver_rejects
        .iter()
        .map(|(m, why)| (m.as_str(), why.rule))
        .collect();
    assert_eq!(refused, [("tm", "global-stride-multiple-16")]);
    assert_eq!(x.meets(c.expect.as_ref()), Ok(()));
    // The same case does not meet `pass`: the program uses the refused map.
    assert!(x.meets(Some(&Expect::Pass)).is_err());
}

#[test]
fn accepted_map_fails_driver_rejects() {
    let mut c = example();
    // A 256-byte stride is a multiple of 16: the driver model accepts the map.
    let map = &mut c.memory.tensor_maps[0].map;
    map.global_strides = vec![256];
    let x = execute(&c).unwrap();
    assert!(x.driver_rejects.is_empty());
    let e = x.meets(c.expect.as_ref()).unwrap_err();
    assert!(
        e.starts_with("expected the driver to refuse a tensor map"),
        "{e}"
    );
    // A case without tensor maps cannot meet it either.
    let none = load_str(
        "name: n\ntarget: sm_80\nprogram: [ { ptx: cp.async.wait_all } ]\nexpect: driver_rejects\n",
        "n.yaml",
    )
    .unwrap()
    .remove(0);
    assert!(execute(&none).unwrap().meets(none.expect.as_ref()).is_err());
}
