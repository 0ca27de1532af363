//! `ptxconform explain CASE_FILE [--case NAME]`: run a case on the reference model and print a
//! step-by-step trace — each op, the byte ranges it touched (exact or uncertain) and the mbarrier
//! states after it — then the outcome and the final state of the checked regions.
//!
//! With `--svg FILE`, every tensor load of the explained case(s) is drawn into that one SVG file,
//! stacked in program order (case by case): a caption naming the step, then the box over the
//! global tensor (dimensions 0 and 1, OOB cells red and crossed) beside the shared-memory tile
//! (128-byte lines of 16-byte chunks, each element where the reference's swizzle puts it,
//! coloured by its source chunk and labelled by its source row, OOB fill grey and crossed). The
//! drawing is [`crate::report::tensor_svg`], which the HTML report embeds as well.

use crate::report::tensor_svg;
use ptxconform_core::evaluate::evaluate;
use ptxconform_core::judge::expected_regions;
use ptxconform_core::result::ExpectedByte;
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
    /// Draw every tensor load of the explained case(s) into this SVG file (stacked, in program
    /// order): the box over the global tensor and the shared-memory tile.
    #[arg(long)]
    pub svg: Option<PathBuf>,
}

fn show(b: &ExpectedByte) -> String {
    match b {
        ExpectedByte::Known(v) => format!("{v:02x}"),
        ExpectedByte::OneOf(s) if s.len() == 2 => format!("{{{:02x}|{:02x}}}", s[0], s[1]),
        ExpectedByte::OneOf(s) => format!("{{{} values}}", s.len()),
        ExpectedByte::Any => "??".into(),
    }
}

fn explain_text(file: &str, case: &ptxconform_reference::case::Case, bytes: usize) -> String {
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
                        "outcome: well defined; hardware expected: {}",
                        x.prediction
                    );
                }
                Outcome::Undefined { ub, step } => {
                    let _ = writeln!(
                        o,
                        "outcome: UNDEFINED at step {step}: {} (§{}) — {}; hardware expected: {}",
                        ub.rule, ub.section, ub.detail, x.prediction
                    );
                }
            }
            // Proxy rules that left bytes uncertain (or an mbarrier.init unreleased).
            for n in &x.notes {
                let _ = writeln!(o, "note: {n}");
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
    let chosen: Vec<&ptxconform_reference::case::Case> = cases
        .iter()
        .filter(|c| args.case.as_ref().is_none_or(|w| &c.name == w))
        .collect();
    if chosen.is_empty() {
        return Err(match &args.case {
            Some(name) => format!(
                "{file}: no case named {name} (the file has {}; `ptxconform run {file} --list` lists them)",
                match cases.len() {
                    1 => "1 case".to_string(),
                    n => format!("{n} cases"),
                }
            ),
            None => format!("{file}: no cases"),
        });
    }
    // A picture that cannot be drawn is refused before the traces are printed.
    let svg = match &args.svg {
        Some(path) => match tensor_svg::document(&chosen) {
            Some(svg) => Some((path, svg)),
            None => return Err(format!("{file}: --svg: no tensor load to draw")),
        },
        None => None,
    };
    for c in &chosen {
        print!("{}", explain_text(&file, c, args.bytes));
        println!();
    }
    if let Some((path, svg)) = svg {
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
        assert!(
            t.contains("outcome: well defined; hardware expected: completes"),
            "{t}"
        );
        assert!(
            tensor_svg::document(&[&c]).is_none(),
            "no tensor load, no picture"
        );
    }

    #[test]
    fn notes_name_the_proxy_rule() {
        let c = load_str(
            r#"
name: t
target: sm_90a
memory:
  global: [ { name: out, size: 16, init: { fill: 1 } } ]
  shared: [ { name: buf, size: 16, align: 16 } ]
program:
  - store: { at: buf, bytes: [9] }
  - ptx: cp.async.bulk.global.shared::cta.bulk_group [out], [buf], 16
  - ptx: cp.async.bulk.wait_group 0
"#,
            "t.yaml",
        )
        .unwrap()
        .remove(0);
        let t = explain_text("t.yaml", &c, 2);
        assert!(
            t.contains("note: step 1 cta 0: [proxy.generic_write_async_read] (§8.6, 9.7.9.25.2)"),
            "{t}"
        );
    }

    #[test]
    fn svg_draws_a_128b_swizzled_tile_and_the_box_partly_out_of_bounds() {
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
        let svg = tensor_svg::document(&[&c]).expect("a tensor load");
        assert_eq!(svg.matches("<svg").count(), 1, "one document");
        assert!(
            svg.contains("sw: step 2 (cta 0)") && svg.contains(">cp.async.bulk.tensor.2d"),
            "{svg}"
        );
        assert_eq!(
            svg.matches(r#"class="el""#).count(),
            64,
            "two in-bound rows of 32 in the tile"
        );
        assert_eq!(
            svg.matches(r#"class="fill""#).count(),
            64 + 1,
            "two OOB-filled rows of 32 in the tile, and the legend"
        );
        assert_eq!(
            svg.matches(r#"class="oob""#).count(),
            64 + 1,
            "two OOB rows of 32 over the tensor, and the legend"
        );
        assert_eq!(
            svg.matches(r#"class="free""#).count(),
            4 + 1,
            "4 lines under the copy, and the legend"
        );
        // 128B swizzle: line 1 (tensor row 2) has its 16-byte chunks XORed with 1, so element
        // (0, 2) sits in chunk 1 (cells 4-7), element (4, 2) in chunk 0.
        let cell_x = |coords: &str| tensor_svg::tests::rect_at(&svg, &format!("({coords}) ")).0;
        let chunk = |k: u64| tensor_svg::TILE_X0 + k * 16 * tensor_svg::BYTE_PX;
        assert_eq!(cell_x("0, 1"), chunk(0));
        assert_eq!(cell_x("0, 2"), chunk(1));
        assert_eq!(cell_x("4, 2"), chunk(0));
        assert!(svg.contains("OOB fill (0, 3)"));
        assert!(
            svg.contains("<title>(0, 3): OOB</title>"),
            "box cell marked OOB"
        );
    }
}
