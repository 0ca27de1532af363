//! Case files at scale: a region's bytes written as hundreds of thousands of elements on one
//! line, or a file of more nodes than serde-saphyr's default budget (250,000), load, and errors at
//! the end of a very long line are located at the right column. Nothing here is timed: before
//! positions were computed from a line index with bounded work per lookup, the one-line forms
//! took minutes (each node's column was counted from the start of its line), and the node
//! budget refused them; the loc module's unit tests assert the bounded work.

use ptxconform_reference::case::{load_each, load_str, Init};

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
