//! `PTXCONFORM_YAML_NODES` sets the node limit of case loading: a file over it is one located
//! error per file naming the limit and how to raise it, never a panic; a bad value is an error
//! too. (Its own test binary: the variable is process-wide.)

use ptxconform_reference::case::{load_each, load_str};

const FILE: &str = "\
- name: a
  target: sm_80
  program: [ { ptx: cp.async.wait_all } ]
- name: b
  target: sm_80
  program: [ { ptx: cp.async.wait_all } ]
";

#[test]
fn node_limit_from_the_environment() {
    // The root, and 10 nodes a case: its mapping, 3 keys, 2 values, and the program's sequence,
    // mapping, key and value.
    std::env::set_var("PTXCONFORM_YAML_NODES", "21");
    assert_eq!(load_str(FILE, "f.yaml").unwrap().len(), 2);

    std::env::set_var("PTXCONFORM_YAML_NODES", "20");
    let (cases, errors) = load_each(FILE, "f.yaml");
    assert!(cases.is_empty());
    assert_eq!(
        errors.len(),
        1,
        "one error for the file, not one per case: {errors:?}"
    );
    let msg = errors[0].to_string();
    assert!(msg.starts_with("f.yaml:6:21: node-limit: "), "{msg}");
    assert!(msg.contains("more than 20 YAML nodes"), "{msg}");
    assert!(msg.contains("PTXCONFORM_YAML_NODES=80"), "{msg}");

    std::env::set_var("PTXCONFORM_YAML_NODES", "1_000");
    assert!(load_str(FILE, "f.yaml").is_ok());

    for bad in ["lots", "0", "-5"] {
        std::env::set_var("PTXCONFORM_YAML_NODES", bad);
        let e = load_str(FILE, "f.yaml").unwrap_err();
        assert_eq!(
            (e.line, e.col, e.path.as_str()),
            (1, 1, "node-limit"),
            "{e}"
        );
        assert!(
            e.message.contains("PTXCONFORM_YAML_NODES") && e.message.contains(bad),
            "{e}"
        );
    }
    std::env::remove_var("PTXCONFORM_YAML_NODES");
}
