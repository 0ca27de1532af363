//! Case files at scale: a region's bytes written as hundreds of thousands of elements on one
//! line, or a file of more nodes than serde-saphyr's default budget (250,000), load, and errors at
//! the end of a very long line are located at the right column. Nothing here is timed: before
//! positions were computed from a line index with bounded work per lookup, the one-line forms
//! took minutes (each node's column was counted from the start of its line), and the node
//! budget refused them; the loc module's unit tests assert the bounded work.

use ptxconform_reference::case::init::hash;
use ptxconform_reference::case::{load_each, load_file, load_str, Init};
use ptxconform_reference::sem::exec::{execute, Outcome};

/// Elements in the long lists: more than serde-saphyr's default node budget.
const N: usize = 260_000;

fn byte(i: usize) -> String {
    ((i * 37) % 256).to_string()
}

/// One case whose global region `src` (of `size` bytes) has `bytes` on one line or, with
/// `per_line`, that many to a line; the element at `bad` (if any) is 256.
fn case(size: usize, per_line: Option<usize>, bad: Option<usize>) -> String {
    let els: Vec<String> = (0..N)
        .map(|i| {
            if Some(i) == bad {
                "256".to_string()
            } else {
                byte(i)
            }
        })
        .collect();
    let body = match per_line {
        None => format!("[{}]", els.join(", ")),
        Some(k) => {
            let lines: Vec<String> = els.chunks(k).map(|c| c.join(", ")).collect();
            format!("[\n          {}\n        ]", lines.join(",\n          "))
        }
    };
    format!(
        "name: big.bytes
target: sm_80
memory:
  global:
    - name: src
      size: {size}
      init:
        bytes: {body}
  shared:
    - {{ name: buf, size: 16 }}
program:
  - ptx: cp.async.ca.shared.global [buf], [src], 4
  - ptx: cp.async.wait_all
"
    )
}

/// Line and column (1-based, characters) of the last element of the list in `text`.
fn last_element(text: &str) -> (usize, usize) {
    let end = text[..text.find(']').unwrap()].trim_end().len();
    let start = text[..end].rfind([' ', '[']).unwrap() + 1;
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    (
        text[..start].matches('\n').count() + 1,
        text[line_start..start].chars().count() + 1,
    )
}

#[test]
fn one_line_of_bytes_loads() {
    let cases = load_str(&case(N, None, None), "big.yaml").unwrap();
    let Init::Bytes(b) = &cases[0].memory.global[0].init else {
        panic!("{:?}", cases[0].memory.global[0].init)
    };
    assert_eq!(b.len(), N);
    assert!(b.iter().enumerate().all(|(i, &v)| v.to_string() == byte(i)));
}

/// A value serde rejects (256 for a byte) at the end of the line: located by serde-saphyr, mapped
/// to its field path through the located tree.
#[test]
fn serde_error_at_end_of_long_line() {
    for per_line in [None, Some(1000)] {
        let text = case(N, per_line, Some(N - 1));
        let e = load_str(&text, "big.yaml").unwrap_err();
        let (line, col) = last_element(&text);
        assert_eq!(
            (e.line, e.col, e.path.as_str()),
            (
                line,
                col,
                format!("memory.global[0].init.bytes[{}]", N - 1).as_str()
            ),
            "{per_line:?}: {e}"
        );
        if per_line.is_none() {
            assert!(col > 1_000_000, "the line is long: column {col}");
        }
    }
}

/// A validation problem (one byte more than the region holds) at the end of the line: located
/// from its field path.
#[test]
fn validation_error_at_end_of_long_line() {
    let text = case(N - 1, None, None);
    let e = load_str(&text, "big.yaml").unwrap_err();
    let (line, col) = last_element(&text);
    assert_eq!((e.line, e.col), (line, col), "{e}");
    assert_eq!(e.path, format!("memory.global[0].init.bytes[{}]", N - 1));
}

/// Many cases past serde-saphyr's default node budget load, and a bad one among them is still
/// an error of its own at its line while the others load.
#[test]
fn many_cases_past_the_default_budget() {
    let one = |i: usize| {
        format!(
            "- name: c{i}
  target: sm_80
  memory:
    global: [ {{ name: src, size: 16, init: {{ bytes: [1, 2, 3, 4] }} }} ]
    shared: [ {{ name: buf, size: 16 }} ]
  program:
    - ptx: cp.async.ca.shared.global [buf], [src], 4
    - ptx: cp.async.wait_all
"
        )
    };
    let n = 10_400; // 25 nodes a case: 260,000 nodes
    let mut text: String = (0..n).map(one).collect();
    let (cases, errors) = load_each(&text, "many.yaml");
    assert_eq!((cases.len(), errors.len()), (n, 0), "{errors:?}");
    // The last case misspells a field: loaded item by item, it alone is lost.
    text = text.replace(
        &format!("- name: c{}\n  target", n - 1),
        &format!("- name: c{}\n  targt", n - 1),
    );
    let (cases, errors) = load_each(&text, "many.yaml");
    assert_eq!(cases.len(), n - 1);
    assert_eq!(errors.len(), 1, "{errors:?}");
    let line = 8 * (n - 1) + 2;
    assert_eq!((errors[0].line, errors[0].col), (line, 3), "{}", errors[0]);
    assert_eq!(errors[0].path, format!("[{}].targt", n - 1));
}

/// A 4 MiB region given by `init: { hash: KEY }` (a few bytes of YAML) runs on the reference: a
/// copy from its last 16 bytes leaves the keyed hash of those indices, stated as `expect: bytes`
/// and checked byte by byte against [`hash`].
#[test]
fn four_mib_hash_region_runs_on_the_reference() {
    const SIZE: u64 = 4 << 20;
    let want: String = (SIZE - 16..SIZE)
        .map(|i| format!("{:02x}", hash(11, i)))
        .collect();
    let text = format!(
        "name: big.hash
target: sm_80
memory:
  global: [ {{ name: src, size: {SIZE}, init: {{ hash: 11 }} }} ]
  shared: [ {{ name: buf, size: 16 }} ]
program:
  - ptx: cp.async.cg.shared.global [buf], [src+{}], 16
  - ptx: cp.async.wait_all
expect: {{ bytes: {{ buf@cta0: \"{want}\" }} }}
",
        SIZE - 16
    );
    assert!(text.len() < 500, "no data in the file");
    let case = load_str(&text, "big.yaml").unwrap().remove(0);
    let ex = execute(&case).unwrap();
    assert_eq!(ex.outcome, Outcome::Defined);
    assert_eq!(ex.meets(case.expect.as_ref()), Ok(()));
    assert_eq!(
        ex.final_region("src")
            .map(ptxconform_reference::sem::memory::RegionBytes::len),
        Some(SIZE as usize)
    );
    // Another key gives other bytes, so the expectation fails.
    let other = text.replace("hash: 11", "hash: 12");
    let case = load_str(&other, "big.yaml").unwrap().remove(0);
    let e = execute(&case).unwrap().meets(case.expect.as_ref());
    assert!(e.unwrap_err().starts_with("`buf@cta0` byte "));
}

/// A file of several MiB of explicit data loads from disk: a 3 MiB region as one hex string
/// (6 MiB of text, one YAML node) and a 1 MiB region as a `bytes` list (a node per byte, past
/// serde-saphyr's default budget), in a temporary directory.
#[test]
fn multi_mib_file_loads() {
    const HEX_BYTES: usize = 3 << 20;
    const LIST_BYTES: usize = 1 << 20;
    let data: Vec<u8> = (0..HEX_BYTES).map(|i| (i * 37 % 251) as u8).collect();
    let hex: String = data.iter().map(|b| format!("{b:02x}")).collect();
    let list: Vec<String> = (0..LIST_BYTES).map(byte).collect();
    let case = |name: &str, size: usize, init: String| {
        format!(
            "- name: {name}
  target: sm_80
  memory:
    global:
    - name: src
      size: {size}
      init: {init}
    shared: [ {{ name: buf, size: 16 }} ]
  program:
  - ptx: cp.async.ca.shared.global [buf], [src], 4
  - ptx: cp.async.wait_all
"
        )
    };
    let text = case("big.hex", HEX_BYTES, format!("{{ hex: {hex} }}"))
        + &case(
            "big.list",
            LIST_BYTES,
            format!("{{ bytes: [{}] }}", list.join(",")),
        );
    assert!(text.len() > 9 << 20, "{} bytes", text.len());
    let dir = std::env::temp_dir().join(format!("ptxconform-large-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.yaml");
    std::fs::write(&path, &text).unwrap();
    let loaded = load_file(&path);
    std::fs::remove_dir_all(&dir).unwrap();
    let cases = loaded.unwrap();
    assert_eq!(cases.len(), 2);
    assert_eq!(cases[0].memory.global[0].init, Init::Hex(data));
    let Init::Bytes(b) = &cases[1].memory.global[0].init else {
        panic!("{:?}", cases[1].memory.global[0].init)
    };
    assert_eq!(b.len(), LIST_BYTES);
}

/// Bad hex in a long string is an error at the string's place, naming the digit's offset.
#[test]
fn bad_hex_is_located() {
    let hex = "00".repeat(100_000) + "0g";
    let text = format!(
        "name: bad.hex
target: sm_80
memory:
  global: [ {{ name: src, size: 100000, init: {{ hex: {hex} }} }} ]
program: [ {{ ptx: cp.async.wait_all }} ]
"
    );
    // (Not `unwrap_err`: its panic would print the whole case.)
    let Err(e) = load_str(&text, "bad.yaml") else {
        panic!("bad hex loaded")
    };
    assert_eq!(
        (e.line, e.path.as_str()),
        (4, "memory.global[0].init.hex"),
        "{e}"
    );
    assert!(e.message.contains("bad hex at 200001"), "{e}");
    // More bytes than the region holds: located at the string.
    let text = text.replace("0g", "00");
    let Err(e) = load_str(&text, "bad.yaml") else {
        panic!("100001 bytes loaded into 100000")
    };
    assert_eq!(
        (e.line, e.path.as_str()),
        (4, "memory.global[0].init.hex"),
        "{e}"
    );
    assert!(
        e.message
            .contains("100001 bytes do not fit in a 100000-byte region"),
        "{e}"
    );
}
