//! `ptxconform explain CASE_FILE [--case NAME]`: run a case on the reference model and print a
//! step-by-step trace — each op, the byte ranges it touched (exact or uncertain) and the mbarrier
//! states after it — then the outcome and the final state of the checked regions.
//!
//! With `--svg FILE`, a case with tensor loads is also drawn: for each load, the shared-memory
//! destination as a grid (one 128-byte line per row, one cell per unit of the map's element type),
//! each written cell coloured by the tensor coordinate it came from (hue by the dimension-1..n
//! row, lightness by the dimension-0 column), OOB-filled cells grey and hatched, bytes the load
//! does not write left white. A swizzle shows as the permutation of the colours within each line.

use crate::judge::expected_regions;
use crate::report::ExpectedByte;
use crate::run::reference::evaluate;
use ptxconform_reference::case::load_file;
use ptxconform_reference::sem::exec::Outcome;
use std::path::PathBuf;

#[derive(clap::Args, Debug, Clone)]
pub struct ExplainArgs {
    /// A YAML case file.
    pub file: PathBuf,
    /// The case to explain (default: every case of the file).
    #[arg(long)]
    pub case: Option<String>,
    /// Bytes of each region to print (0 = all).
    #[arg(long, default_value_t = 64)]
    pub bytes: usize,
    /// Draw the shared-memory destination of the case's tensor loads into this SVG file.
    #[arg(long)]
    pub svg: Option<PathBuf>,
}

/// Width of one drawn shared-memory line in bytes.
const LINE: u64 = 128;
const CELL_PX: u64 = 14;

/// The SVG of the tensor loads of `case` (None when it has none).
pub fn tensor_svg(case: &ptxconform_reference::case::Case) -> Option<String> {
    use ptxconform_reference::sem::exec::tensor::load_pictures;
    use std::fmt::Write;
    let pics = load_pictures(case);
    if pics.is_empty() {
        return None;
    }
    let mut body = String::new();
    let mut y = 10u64;
    let mut width = 400u64;
    for pic in &pics {
        let p = match pic {
            Ok(p) => p,
            Err(e) => {
                let _ = writeln!(
                    body,
                    r#"<text x="10" y="{}" class="err">{}</text>"#,
                    y + 12,
                    esc(e)
                );
                y += 24;
                continue;
            }
        };
        let unit = p.plan.transfers.first().map_or(1, |t| t.smem_bytes.max(1));
        let per_line = (LINE / unit).max(1);
        let line = per_line * unit;
        let lines = p.dst_size.div_ceil(line);
        width = width.max(20 + per_line * CELL_PX + 10);
        let _ = writeln!(
            body,
            r#"<text x="10" y="{}">step {} (cta {}): {} — `{}` {} bytes, {:?}</text>"#,
            y + 12,
            p.step,
            p.cta,
            esc(&p.text),
            esc(&p.dst),
            p.dst_size,
            p.map.swizzle
        );
        y += 20;
        let top = y;
        for r in 0..lines {
            for c in 0..per_line {
                let _ = writeln!(
                    body,
                    r#"<rect class="free" x="{}" y="{}" width="{CELL_PX}" height="{CELL_PX}"/>"#,
                    10 + c * CELL_PX,
                    top + r * CELL_PX
                );
            }
        }
        // Colour scale: rows (dimensions 1..) by hue, dimension 0 by lightness.
        let rows_of = |t: &ptxconform_reference::sem::tensor::Transfer| -> i64 {
            t.coords
                .iter()
                .skip(1)
                .rev()
                .fold(0i64, |a, &c| a.wrapping_mul(7).wrapping_add(c))
        };
        let (c0_min, c0_max) = p
            .plan
            .transfers
            .iter()
            .fold((i64::MAX, i64::MIN), |(a, b), t| {
                (a.min(t.coords[0]), b.max(t.coords[0]))
            });
        for t in &p.plan.transfers {
            let Some(off) = t.smem.checked_sub(p.dst_start) else {
                continue;
            };
            let (r, c) = (off / line, (off % line) / unit);
            let (x, yy) = (10 + c * CELL_PX, top + r * CELL_PX);
            let coords = t
                .coords
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            if t.global.is_none() {
                let _ = writeln!(
                    body,
                    r#"<rect class="oob" x="{x}" y="{yy}" width="{CELL_PX}" height="{CELL_PX}"><title>OOB ({coords}) at +{off}</title></rect>"#
                );
            } else {
                let hue = (rows_of(t).rem_euclid(12) * 30) as u64;
                let span = (c0_max - c0_min).max(1) as f64;
                let light = 35.0 + 40.0 * ((t.coords[0] - c0_min) as f64 / span);
                let _ = writeln!(
                    body,
                    r#"<rect class="el" x="{x}" y="{yy}" width="{CELL_PX}" height="{CELL_PX}" fill="hsl({hue},70%,{light:.0}%)"><title>({coords}) at +{off}</title></rect>"#
                );
            }
        }
        y = top + lines * CELL_PX + 16;
    }
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y}" font-family="monospace" font-size="11">"#
    );
    o.push_str(r##"<defs><pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="4" height="4" fill="#bbb"/><line x1="0" y1="0" x2="0" y2="4" stroke="#666" stroke-width="1.5"/></pattern></defs>"##);
    o.push('\n');
    o.push_str("<style>.free{fill:#fff;stroke:#ddd;stroke-width:0.5}.el{stroke:#333;stroke-width:0.3}.oob{fill:url(#hatch);stroke:#333;stroke-width:0.3}.err{fill:#b00}</style>\n");
    o.push_str(&body);
    o.push_str("</svg>\n");
    Some(o)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn show(b: &ExpectedByte) -> String {
    match b {
        ExpectedByte::Known(v) => format!("{v:02x}"),
        ExpectedByte::OneOf(s) if s.len() == 2 => format!("{{{:02x}|{:02x}}}", s[0], s[1]),
        ExpectedByte::OneOf(s) => format!("{{{} values}}", s.len()),
        ExpectedByte::Any => "??".into(),
    }
}

pub fn explain_text(file: &str, case: &ptxconform_reference::case::Case, bytes: usize) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let (r, ex) = evaluate(file, case);
    let _ = writeln!(o, "case {} ({}), target {}", case.name, file, case.target);
    match ex {
        Err(e) => {
            let _ = writeln!(o, "cannot execute: {e}");
        }
        Ok(x) => {
            for t in &x.trace {
                let _ = write!(o, "{t}");
            }
            match &x.outcome {
                Outcome::Defined => {
                    let _ = writeln!(
                        o,
                        "outcome: well defined; hardware expected to {:?}",
                        x.expected_hw
                    );
                }
                Outcome::Undefined { ub, step } => {
                    let _ = writeln!(
                        o,
                        "outcome: UNDEFINED at step {step}: {} (§{}) — {}; hardware expected: {:?}",
                        ub.rule, ub.section, ub.detail, x.expected_hw
                    );
                }
            }
            for (name, exp) in expected_regions(case, &x) {
                let n = if bytes == 0 {
                    exp.len()
                } else {
                    exp.len().min(bytes)
                };
                let shown: Vec<String> = exp[..n].iter().map(show).collect();
                let more = if n < exp.len() {
                    format!(" … ({} bytes)", exp.len())
                } else {
                    String::new()
                };
                let _ = writeln!(o, "  {name}: {}{more}", shown.join(" "));
            }
        }
    }
    let _ = writeln!(
        o,
        "verdict: {}{}",
        r.verdict.name(),
        if r.detail.is_empty() {
            String::new()
        } else {
            format!(" — {}", r.detail)
        }
    );
    o
}

pub fn main(args: &ExplainArgs) -> Result<i32, String> {
    let cases = load_file(&args.file).map_err(|e| e.to_string())?;
    let file = args.file.display().to_string();
    let mut n = 0;
    for c in cases
        .iter()
        .filter(|c| args.case.as_ref().is_none_or(|w| &c.name == w))
    {
        print!("{}", explain_text(&file, c, args.bytes));
        println!();
        n += 1;
    }
    if n == 0 {
        return Err(format!(
            "{file}: no case named {}",
            args.case.clone().unwrap_or_default()
        ));
    }
    if let Some(path) = &args.svg {
        let svgs: Vec<String> = cases
            .iter()
            .filter(|c| args.case.as_ref().is_none_or(|w| &c.name == w))
            .filter_map(tensor_svg)
            .collect();
        let Some(svg) = svgs.into_iter().next() else {
            return Err(format!(
                "{file}: no tensor load to draw (pick a case with --case)"
            ));
        };
        std::fs::write(path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxconform_reference::case::load_str;

    #[test]
    fn trace_shows_steps_uncertainty_and_outcome() {
        let c = load_str(
            r#"
name: t
target: sm_90a
memory:
  global: [ { name: src, size: 16, init: { fill: 7 } } ]
  shared: [ { name: buf, size: 16 } ]
program:
  - ptx: cp.async.ca.shared.global [buf], [src], 4
check: [buf]
"#,
            "t.yaml",
        )
        .unwrap()
        .remove(0);
        let t = explain_text("t.yaml", &c, 8);
        assert!(
            t.contains("#0 cta 0 thread 0: cp.async.ca.shared.global [buf], [src], 4"),
            "{t}"
        );
        assert!(
            t.contains("uncertain"),
            "no completing wait: the copy's bytes are uncertain\n{t}"
        );
        assert!(
            t.contains("buf@cta0: {00|07} {00|07} {00|07} {00|07} 00"),
            "{t}"
        );
        assert!(t.contains("outcome: well defined"), "{t}");
        assert!(tensor_svg(&c).is_none(), "no tensor load, no picture");
    }

    #[test]
    fn svg_of_a_128b_swizzled_tile_has_one_cell_per_element_and_marks_oob() {
        // 32 x 4 f32 box from row 1 of a 64 x 3 tensor: rows 1-2 inside, rows 3-4 OOB.
        let c = load_str(
            r#"
name: sw
target: sm_90a
memory:
  global: [ { name: src, size: 768, init: { pattern: 1 } } ]
  shared: [ { name: dst, size: 512, align: 1024 } ]
  mbarriers: [ { name: bar } ]
  tensor_maps:
    - { name: tm, global: src, map: { encode: tiled, tensor_data_type: float32, global_dim: [64, 3], global_strides: [256], box_dim: [32, 4], swizzle: 128b } }
program:
  - ptx: mbarrier.init.shared::cta.b64 [bar], 1
  - ptx: mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 512
  - ptx: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst], [tm, {0, 1}], [bar]
  - wait_parity: { mbar: bar, parity: 0 }
"#,
            "sw.yaml",
        )
        .unwrap()
        .remove(0);
        let svg = tensor_svg(&c).expect("a tensor load");
        assert_eq!(
            svg.matches(r#"class="el""#).count(),
            64,
            "two in-bound rows of 32"
        );
        assert_eq!(
            svg.matches(r#"class="oob""#).count(),
            64,
            "two OOB rows of 32"
        );
        assert_eq!(
            svg.matches(r#"class="free""#).count(),
            128,
            "4 lines of 32 cells drawn under the copy"
        );
        // 128B swizzle: line 1 (tensor row 2) has its 16-byte chunks XORed with 1, so element
        // (0, 2) sits in chunk 1 (cells 4-7), element (4, 2) in chunk 0.
        let cell_x = |coords: &str| -> u64 {
            let at = svg
                .find(&format!("<title>({coords}) "))
                .unwrap_or_else(|| panic!("({coords}) not drawn"));
            let rect = &svg[svg[..at].rfind("<rect").unwrap()..at];
            rect.split("x=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        assert_eq!(cell_x("0, 1"), 10);
        assert_eq!(cell_x("0, 2"), 10 + 4 * CELL_PX);
        assert_eq!(cell_x("4, 2"), 10);
        assert!(svg.contains("OOB (0, 3)"));
    }
}
