//! Pictures of the tensor loads of a case, drawn from the reference's copy plans
//! ([`load_pictures`]): where the box sits over the global tensor, and where each element lands in
//! the shared-memory tile. The reference computes every coordinate, bound and address (the swizzle
//! included); this module only draws what the plan says. Used by `explain --svg` and the HTML
//! report.
//!
//! - The *box* picture: the tensor's dimensions 0 and 1 as a grid (dimension 0 across, in
//!   addressing units), the box's elements at their coordinates; a cell outside the tensor (or
//!   out of bounds in a higher dimension) is red and crossed. A tensor much larger than the box
//!   is drawn as a window around the box, its edges marked.
//! - The *tile* picture: the destination as 128-byte lines (rows) of eight 16-byte chunks, each
//!   element drawn where the plan puts it; its hue is the 16-byte chunk of the box row it came
//!   from (so a swizzle shows as a permutation of the hues within a line), its shade alternates
//!   with the source row, the chunk's label names the source row; OOB-filled elements are grey
//!   and crossed, bytes the load does not write are white.

use super::esc;
use ptxconform_core::result::RegionDiff;
use ptxconform_reference::case::Case;
use ptxconform_reference::sem::exec::tensor::{load_pictures, LoadPicture};
use ptxconform_reference::sem::tensor::access::Unit;
use ptxconform_reference::sem::tensor::tensormap::Geometry;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Shared-memory line drawn as one row of the tile picture, and the chunk the swizzles permute.
const LINE: u64 = 128;
const CHUNK: u64 = 16;
/// Pixels per shared-memory byte (a 16-byte chunk is 64 px wide), and per tile row.
pub const BYTE_PX: u64 = 4;
const ROW_PX: u64 = 18;
/// Left margin of the tile rows (offset labels).
pub const TILE_X0: u64 = 64;
/// Lines drawn at most per tile (a 32 KiB box); the caption says when more exist.
const MAX_LINES: u64 = 256;
/// Cells of a tensor axis drawn in full; beyond, the view is a window around the box.
const MAX_VIEW: i64 = 64;

const STYLE: &str = "<style>.cap{font-size:12px;font-weight:bold}.lbl{fill:#444}.tensor{fill:#e8eef7;stroke:none}.edge{fill:none;stroke:#000;stroke-width:1.5}.grid{stroke:#c6d0de;stroke-width:0.5}.in{fill:#4c78a8;stroke:#fff;stroke-width:0.5}.oob{fill:#e45756;stroke:#fff;stroke-width:0.5}.part{fill:#f58518;stroke:#fff;stroke-width:0.5}.boxline{fill:none;stroke:#111;stroke-width:1.5;stroke-dasharray:4 2}.free{fill:#fff;stroke:#e4e4e4;stroke-width:0.5}.el{stroke:#fff;stroke-width:0.5}.fill{fill:#b0b0b0;stroke:#fff;stroke-width:0.5}.x{stroke:#333;stroke-width:0.8}.chunk{fill:none;stroke:#555;stroke-width:0.8}.err{fill:#b00}.bad{fill:none;stroke:#d62728;stroke-width:2}</style>";

/// An SVG drawing: its size and its elements (no enclosing `<svg>`), so that drawings can be
/// stacked into one document.
#[derive(Clone, Debug, Default)]
pub struct Svg {
    pub width: u64,
    pub height: u64,
    pub body: String,
}

impl Svg {
    /// A standalone `<svg>` element (also valid inline in HTML).
    pub fn document(&self) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"monospace\" font-size=\"10\">{STYLE}\n{}</svg>\n",
            self.body,
            w = self.width,
            h = self.height
        )
    }

    /// `parts` one below the other, each shifted right by its x.
    fn stack(parts: Vec<(u64, Svg)>) -> Svg {
        let mut out = Svg::default();
        for (x, p) in parts {
            let _ = writeln!(
                out.body,
                "<g transform=\"translate({x},{})\">{}</g>",
                out.height, p.body
            );
            out.width = out.width.max(x + p.width);
            out.height += p.height;
        }
        out
    }

    /// `parts` side by side, top-aligned, `gap` pixels apart.
    fn beside(parts: Vec<Svg>, gap: u64) -> Svg {
        let mut out = Svg::default();
        for p in parts {
            let x = if out.width == 0 { 0 } else { out.width + gap };
            let _ = writeln!(out.body, "<g transform=\"translate({x},0)\">{}</g>", p.body);
            out.width = x + p.width;
            out.height = out.height.max(p.height);
        }
        out
    }
}

fn text(width: u64, class: &str, s: &str) -> Svg {
    Svg {
        width,
        height: 18,
        body: format!("<text x=\"0\" y=\"13\" class=\"{class}\">{}</text>", esc(s)),
    }
}

/// A cross over a cell (what marks OOB without relying on colour).
fn cross(x: f64, y: f64, w: f64, h: f64) -> String {
    format!(
        "<path class=\"x\" d=\"M{x:.1},{y:.1}l{w:.1},{h:.1}M{:.1},{y:.1}l{:.1},{h:.1}\"/>",
        x + w,
        -w
    )
}

fn coords_text(c: &[i64]) -> String {
    c.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

/// One tensor load of a case: a caption and its two pictures.
pub struct LoadFigure {
    /// The case, step and CTA of the load.
    pub caption: String,
    /// The load instruction, canonically printed.
    pub instruction: String,
    pub tensor: Svg,
    pub tile: Svg,
}

/// The figures of every tensor load of `case`, in program order; Err says why a load could not
/// be planned (e.g. its UB). Elements of a tile whose bytes differ in `diffs` (the divergence of
/// region `DST@ctaN`) are outlined in red.
pub fn figures(case: &Case, diffs: &[RegionDiff]) -> Vec<Result<LoadFigure, String>> {
    load_pictures(case)
        .into_iter()
        .map(|p| {
            p.map(|p| LoadFigure {
                tile: tile_picture(&p, &differing(&p, diffs)),
                caption: format!("{}: step {} (cta {})", case.name, p.step, p.cta),
                instruction: p.text.clone(),
                tensor: box_picture(&p),
            })
        })
        .collect()
}

/// Every tensor load of `cases` in one SVG document, one below the other (caption, then the box
/// over the tensor beside the shared-memory tile); None when no case has a tensor load.
pub fn document(cases: &[&Case]) -> Option<String> {
    let mut parts = vec![];
    for c in cases {
        for f in figures(c, &[]) {
            match f {
                Ok(f) => {
                    parts.push((0, text(800, "cap", &f.caption)));
                    parts.push((0, text(800, "lbl", &f.instruction)));
                    parts.push((0, Svg::beside(vec![f.tensor, f.tile], 32)));
                }
                Err(e) => parts.push((0, text(800, "err", &format!("{}: {e}", c.name)))),
            }
            parts.push((0, text(10, "lbl", "")));
        }
    }
    (!parts.is_empty()).then(|| Svg::stack(parts).document())
}

/// The byte offsets (from the destination's start) that differ in the region a load writes.
fn differing(p: &LoadPicture, diffs: &[RegionDiff]) -> BTreeSet<u64> {
    let region = ptxconform_core::judge::shared_key(&p.dst, p.cta as usize);
    diffs
        .iter()
        .filter(|d| d.region == region)
        .flat_map(|d| {
            d.expected
                .iter()
                .zip(&d.observed)
                .enumerate()
                .filter(|(_, (e, o))| !e.allows(**o))
                .map(|(i, _)| i as u64)
        })
        .collect()
}

/// The figures of `case` as HTML (a `<figure>` per load with inline SVGs), the elements whose
/// bytes differ in `diffs` outlined; empty without loads.
pub fn html(case: &Case, diffs: &[RegionDiff]) -> String {
    let mut h = String::new();
    for f in figures(case, diffs) {
        match f {
            Ok(f) => {
                let _ = write!(
                    h,
                    "<figure class=\"tensor\"><figcaption>{}<br>{}</figcaption>{}{}</figure>",
                    esc(&f.caption),
                    esc(&f.instruction),
                    f.tensor.document(),
                    f.tile.document()
                );
            }
            Err(e) => {
                let _ = write!(
                    h,
                    "<p class=\"fail\">tensor load not drawn: {}</p>",
                    esc(&e)
                );
            }
        }
    }
    h
}

/// The part of one tensor axis drawn: all of `[min(0, lo), max(extent, hi))` when small,
/// otherwise a window of a few cells around the box `[lo, hi)`.
fn view(lo: i64, hi: i64, extent: i64) -> (i64, i64) {
    let (a, b) = (lo.min(0), hi.max(extent));
    if b - a <= MAX_VIEW {
        (a, b)
    } else {
        ((lo - 4).max(a), (hi + 4).min(b))
    }
}

/// The box over the tensor's dimensions 0 and 1.
fn box_picture(p: &LoadPicture) -> Svg {
    let unit = Unit::of_map(&p.map);
    let values = unit.values.max(1) as i64;
    let dim = &p.map.global_dim;
    let gx = dim[0].div_ceil(values as u64) as i64;
    let gy = dim.get(1).copied().unwrap_or(1) as i64;
    // Per drawn cell: (elements in bounds, elements OOB), over all higher-dimension positions.
    let mut cells: BTreeMap<(i64, i64), (u64, u64)> = BTreeMap::new();
    for t in &p.plan.transfers {
        let at = (
            t.coords[0].div_euclid(values),
            t.coords.get(1).copied().unwrap_or(0),
        );
        let e = cells.entry(at).or_default();
        if t.global.is_some() {
            e.0 += 1;
        } else {
            e.1 += 1;
        }
    }
    let oob = p.plan.oob_count();
    let total = p.plan.transfers.len();
    let mut head = format!(
        "tensor {} ({}); box of {total} elements",
        dim.iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(" × "),
        p.map.ty
    );
    if let Geometry::Tiled { box_dim } = &p.map.geometry {
        let _ = write!(
            head,
            " (boxDim {})",
            box_dim
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(" × ")
        );
    }
    let _ = write!(head, ", {oob} OOB");
    if cells.is_empty() {
        return text(480, "lbl", &head);
    }
    let (bx0, bx1) = (
        cells.keys().map(|k| k.0).min().unwrap_or(0),
        cells.keys().map(|k| k.0).max().unwrap_or(0) + 1,
    );
    let (by0, by1) = (
        cells.keys().map(|k| k.1).min().unwrap_or(0),
        cells.keys().map(|k| k.1).max().unwrap_or(0) + 1,
    );
    let (vx0, vx1) = view(bx0, bx1, gx);
    let (vy0, vy1) = view(by0, by1, gy);
    let cell = (480 / (vx1 - vx0)).min(360 / (vy1 - vy0)).clamp(3, 20);
    let (ox, oy) = (40i64, 62i64);
    let px = |x: i64| ox + (x - vx0) * cell;
    let py = |y: i64| oy + (y - vy0) * cell;
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<text x=\"0\" y=\"12\" class=\"lbl\">{}</text><text x=\"0\" y=\"26\" class=\"lbl\">dimension 0 → (units of {} B), dimension 1 ↓{}</text>",
        esc(&head),
        unit.global_bytes,
        if p.map.rank > 2 {
            "; higher dimensions folded onto these cells"
        } else {
            ""
        }
    );
    // The tensor's part of the view, its grid and its edges.
    let (tx0, tx1, ty0, ty1) = (vx0.max(0), vx1.min(gx), vy0.max(0), vy1.min(gy));
    if tx0 < tx1 && ty0 < ty1 {
        let _ = writeln!(
            b,
            "<rect class=\"tensor\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
            px(tx0),
            py(ty0),
            (tx1 - tx0) * cell,
            (ty1 - ty0) * cell
        );
        if cell >= 6 {
            for x in tx0..=tx1 {
                let _ = write!(
                    b,
                    "<line class=\"grid\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>",
                    px(x),
                    py(ty0),
                    py(ty1)
                );
            }
            for y in ty0..=ty1 {
                let _ = write!(
                    b,
                    "<line class=\"grid\" y1=\"{0}\" y2=\"{0}\" x1=\"{1}\" x2=\"{2}\"/>",
                    py(y),
                    px(tx0),
                    px(tx1)
                );
            }
            b.push('\n');
        }
        // Only the edges that fall inside the view are the tensor's bounds.
        let edges = [
            (tx0 == 0, px(0), py(ty0), px(0), py(ty1)),
            (tx1 == gx, px(gx), py(ty0), px(gx), py(ty1)),
            (ty0 == 0, px(tx0), py(0), px(tx1), py(0)),
            (ty1 == gy, px(tx0), py(gy), px(tx1), py(gy)),
        ];
        for (shown, x1, y1, x2, y2) in edges {
            if shown {
                let _ = write!(
                    b,
                    "<line class=\"edge\" x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\"/>"
                );
            }
        }
    }
    for (&(x, y), &(inb, out)) in &cells {
        if x < vx0 || x >= vx1 || y < vy0 || y >= vy1 {
            continue;
        }
        let (class, what) = match (inb, out) {
            (_, 0) => ("in", "in bounds"),
            (0, _) => ("oob", "OOB"),
            _ => ("part", "partly OOB (a higher dimension)"),
        };
        let _ = write!(
            b,
            "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{cell}\" height=\"{cell}\"><title>({x}, {y}): {what}</title></rect>",
            px(x),
            py(y)
        );
        if out > 0 {
            b.push_str(&cross(
                px(x) as f64 + 1.0,
                py(y) as f64 + 1.0,
                cell as f64 - 2.0,
                cell as f64 - 2.0,
            ));
        }
        b.push('\n');
    }
    let _ = writeln!(
        b,
        "<rect class=\"boxline\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
        px(bx0),
        py(by0),
        (bx1 - bx0) * cell,
        (by1 - by0) * cell
    );
    // Axis labels: the view's ends, the tensor's edges and the box's corners.
    let mut xs: BTreeSet<i64> = [vx0, vx1, bx0, bx1].into();
    xs.extend([0, gx].into_iter().filter(|x| (vx0..=vx1).contains(x)));
    let mut last = i64::MIN / 2;
    for x in xs {
        if px(x) - last < 28 {
            continue;
        }
        last = px(x);
        let _ = write!(
            b,
            "<text x=\"{}\" y=\"{}\" class=\"lbl\" text-anchor=\"middle\">{}</text>",
            px(x),
            oy - 6,
            x * values
        );
    }
    let mut ys: BTreeSet<i64> = [vy0, vy1, by0, by1].into();
    ys.extend([0, gy].into_iter().filter(|y| (vy0..=vy1).contains(y)));
    let mut last = i64::MIN / 2;
    for y in ys {
        if py(y) - last < 11 {
            continue;
        }
        last = py(y);
        let _ = write!(
            b,
            "<text x=\"{}\" y=\"{}\" class=\"lbl\" text-anchor=\"end\">{y}</text>",
            ox - 4,
            py(y) + 4
        );
    }
    let bottom = py(vy1) + 8;
    let mut note = String::new();
    if vx0 > bx0.min(0) || vx1 < bx1.max(gx) || vy0 > by0.min(0) || vy1 < by1.max(gy) {
        note = "  (tensor continues beyond the window)".into();
    }
    let legend = [
        ("in", "in bounds"),
        ("oob", "out of bounds"),
        ("part", "partly OOB"),
    ];
    let mut lx = 0;
    for (class, what) in legend {
        let _ = write!(
            b,
            "<rect class=\"{class}\" x=\"{lx}\" y=\"{bottom}\" width=\"12\" height=\"12\"/><text x=\"{}\" y=\"{}\" class=\"lbl\">{what}</text>",
            lx + 16,
            bottom + 10
        );
        lx += 16 + 7 * what.len() as i64 + 12;
    }
    let _ = write!(
        b,
        "<line class=\"edge\" x1=\"{lx}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\"/><text x=\"{2}\" y=\"{3}\" class=\"lbl\">tensor edge{note}</text>",
        bottom + 6,
        lx + 14,
        lx + 18,
        bottom + 10
    );
    let width = (px(vx1) + 10)
        .max(lx + 120 + 6 * note.len() as i64)
        .max(480);
    Svg {
        width: width as u64,
        height: (bottom + 22) as u64,
        body: b,
    }
}

/// The shared-memory tile: 128-byte lines of 16-byte chunks, each element where the plan's
/// (swizzled) address puts it.
fn tile_picture(p: &LoadPicture, bad: &BTreeSet<u64>) -> Svg {
    let unit = Unit::of_map(&p.map);
    let values = unit.values.max(1) as i64;
    let ts = &p.plan.transfers;
    let (Some(lo), Some(hi)) = (
        ts.iter().map(|t| t.smem).min(),
        ts.iter().map(|t| t.smem + t.smem_bytes).max(),
    ) else {
        return text(480, "lbl", "no element to draw");
    };
    let base = lo / LINE * LINE;
    let lines = hi.div_ceil(LINE) - base / LINE;
    let drawn = lines.min(MAX_LINES);
    let c0_min = ts.iter().map(|t| t.coords[0]).min().unwrap_or(0);
    let top = 34u64;
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<text x=\"0\" y=\"12\" class=\"lbl\">shared `{}` from +{:#x}: {lines} line{} × 8 chunks of 16 B, {} swizzle{}</text><text x=\"0\" y=\"26\" class=\"lbl\">offset</text>",
        esc(&p.dst),
        base.saturating_sub(p.dst_start),
        if lines == 1 { "" } else { "s" },
        p.map.swizzle,
        if drawn < lines {
            format!(" (first {drawn} lines drawn)")
        } else {
            String::new()
        }
    );
    for l in 0..drawn {
        let y = top + l * ROW_PX;
        let _ = write!(
            b,
            "<text x=\"{}\" y=\"{}\" class=\"lbl\" text-anchor=\"end\">+{:#05x}</text><rect class=\"free\" x=\"{TILE_X0}\" y=\"{y}\" width=\"{}\" height=\"{ROW_PX}\"/>",
            TILE_X0 - 6,
            y + 12,
            (base + l * LINE).saturating_sub(p.dst_start),
            LINE * BYTE_PX
        );
    }
    b.push('\n');
    // The source rows each chunk holds (for its label).
    let mut rows_in: BTreeMap<u64, BTreeSet<Vec<i64>>> = BTreeMap::new();
    let mut src_chunks = 0;
    let mut bad_elements = 0;
    for t in ts {
        let off = t.smem - base;
        if off / LINE >= drawn {
            continue;
        }
        let (x, y) = (
            TILE_X0 + (off % LINE) * BYTE_PX,
            top + (off / LINE) * ROW_PX,
        );
        let w = t.smem_bytes * BYTE_PX;
        // Narrow elements (1-byte types) without their separating stroke, which would hide them.
        let thin = if w < 8 { " style=\"stroke:none\"" } else { "" };
        let c = coords_text(&t.coords);
        let at = t.smem.saturating_sub(p.dst_start);
        if t.global.is_none() {
            let _ = write!(
                b,
                "<rect class=\"fill\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{ROW_PX}\"{thin}><title>OOB fill ({c}) at +{at:#x}</title></rect>{}",
                cross(x as f64 + 1.0, y as f64 + 1.0, w as f64 - 2.0, ROW_PX as f64 - 2.0)
            );
        } else {
            // Which 16-byte chunk of its (unswizzled) box row the element came from.
            let src_chunk = ((t.coords[0] - c0_min) / values) as u64 * unit.smem_bytes / CHUNK;
            src_chunks = src_chunks.max(src_chunk + 1);
            let row = t.coords.iter().skip(1).sum::<i64>();
            let _ = write!(
                b,
                "<rect class=\"el\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{ROW_PX}\" fill=\"{}\"{thin}><title>({c}) at +{at:#x}</title></rect>",
                colour(src_chunk, row)
            );
        }
        if bad.range(at..at + t.smem_bytes).next().is_some() {
            bad_elements += 1;
            let _ = write!(
                b,
                "<rect class=\"bad\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
                x + 1,
                y + 1,
                w - 2,
                ROW_PX - 2
            );
        }
        b.push('\n');
        rows_in
            .entry(off / CHUNK)
            .or_default()
            .insert(t.coords[1.min(t.coords.len() - 1)..].to_vec());
    }
    // Chunk outlines over the elements, and the source row of each chunk holding one row.
    for l in 0..drawn {
        for k in 0..LINE / CHUNK {
            let (x, y) = (TILE_X0 + k * CHUNK * BYTE_PX, top + l * ROW_PX);
            let _ = write!(
                b,
                "<rect class=\"chunk\" x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{ROW_PX}\"/>",
                CHUNK * BYTE_PX
            );
            if let Some(rows) = rows_in.get(&(l * LINE / CHUNK + k)) {
                if rows.len() == 1 && ts[0].coords.len() > 1 {
                    let r = rows
                        .iter()
                        .next()
                        .map(|r| coords_text(r))
                        .unwrap_or_default();
                    let _ = write!(
                        b,
                        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"9\">y={}</text>",
                        x + CHUNK * BYTE_PX / 2,
                        y + 12,
                        esc(&r)
                    );
                }
            }
        }
        b.push('\n');
    }
    // Legend: the source chunk hues, the OOB fill, the unwritten bytes.
    let mut y = top + drawn * ROW_PX + 10;
    let _ = write!(
        b,
        "<text x=\"0\" y=\"{}\" class=\"lbl\">colour = source bytes of the box row (darker: even row, lighter: odd row); label = source row</text>",
        y + 10
    );
    y += 18;
    for k in 0..src_chunks.clamp(1, 8) {
        let x = (k % 4) * 130;
        let yy = y + (k / 4) * 16;
        let more = if src_chunks > 8 { " (+128·n)" } else { "" };
        let _ = write!(
            b,
            "<rect x=\"{x}\" y=\"{yy}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" class=\"lbl\">{}–{}{more}</text>",
            colour(k, 0),
            x + 16,
            yy + 10,
            k * CHUNK,
            k * CHUNK + CHUNK - 1
        );
    }
    y += src_chunks.clamp(1, 8).div_ceil(4) * 16 + 2;
    let _ = write!(
        b,
        "<rect class=\"fill\" x=\"0\" y=\"{y}\" width=\"12\" height=\"12\"/>{}<text x=\"16\" y=\"{}\" class=\"lbl\">OOB fill</text><rect class=\"free\" x=\"130\" y=\"{y}\" width=\"12\" height=\"12\"/><text x=\"146\" y=\"{}\" class=\"lbl\">not written</text>",
        cross(1.0, y as f64 + 1.0, 10.0, 10.0),
        y + 10,
        y + 10
    );
    if !bad.is_empty() {
        y += 18;
        let _ = write!(
            b,
            "<rect class=\"bad\" x=\"1\" y=\"{}\" width=\"10\" height=\"10\"/><text x=\"16\" y=\"{}\" class=\"lbl\">elements that differ on the hardware: {bad_elements} ({} differing bytes in the region)</text>",
            y + 1,
            y + 10,
            bad.len()
        );
    }
    Svg {
        width: TILE_X0 + LINE * BYTE_PX + 10,
        height: y + 20,
        body: b,
    }
}

/// The fill of an element from source chunk `k` of source row `row`: a hue per chunk (eight,
/// one 128-byte line's worth), two shades alternating by row.
fn colour(k: u64, row: i64) -> String {
    let light = if row.rem_euclid(2) == 0 { 52 } else { 70 };
    format!("hsl({},65%,{light}%)", (k % 8) * 45)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use ptxconform_reference::case::load_str;
    use ptxconform_reference::sem::tensor::swizzle::Pattern;

    /// A case loading a `bx` × `by` f32 box at (x, y) of a `gx` × `gy` tensor into `dst`.
    fn case(swizzle: &str, g: (u32, u32), bx: (u32, u32), at: (i32, i32)) -> Case {
        let bytes = g.0 * g.1 * 4;
        let dst = bx.0 * bx.1 * 4;
        let yaml = format!(
            r#"
name: pic
target: sm_90a
memory:
  global: [ {{ name: src, size: {bytes}, init: {{ pattern: 1 }} }} ]
  shared: [ {{ name: dst, size: {dst}, align: 1024 }} ]
  mbarriers: [ {{ name: bar }} ]
  tensor_maps:
    - {{ name: tm, global: src, map: {{ encode: tiled, tensor_data_type: float32, global_dim: [{}, {}], global_strides: [{}], box_dim: [{}, {}], swizzle: {swizzle} }} }}
program:
  - ptx: mbarrier.init.shared::cta.b64 [bar], 1
  - ptx: mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], {dst}
  - ptx: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst], [tm, {{{}, {}}}], [bar]
  - wait_parity: {{ mbar: bar, parity: 0 }}
"#,
            g.0,
            g.1,
            g.0 * 4,
            bx.0,
            bx.1,
            at.0,
            at.1
        );
        load_str(&yaml, "pic.yaml").unwrap().remove(0)
    }

    /// The x and y attributes of the rect whose title starts with `title`.
    /// The (x, y) of the `<rect>` drawn just before the `<title>` that starts with `title`.
    pub(crate) fn rect_at(svg: &str, title: &str) -> (u64, u64) {
        let at = svg
            .find(&format!("<title>{title}"))
            .unwrap_or_else(|| panic!("{title} not drawn"));
        let rect = &svg[svg[..at].rfind("<rect").unwrap()..at];
        let attr = |n: &str| -> u64 {
            rect.split(&format!(" {n}=\""))
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        (attr("x"), attr("y"))
    }

    /// Where the reference's swizzle puts byte `logical` of a tile at the 1024-aligned `dst`:
    /// (line, byte in line).
    fn swizzled(p: Pattern, logical: u64) -> (u64, u64) {
        let a = p.apply(1024 + logical) - 1024;
        (a / LINE, a % LINE)
    }

    #[test]
    fn tile_places_elements_where_the_reference_swizzle_says() {
        for (name, pattern) in [("128b", Pattern::B128), ("none", Pattern::None)] {
            let c = case(name, (32, 8), (32, 8), (0, 0));
            let f = figures(&c, &[]).remove(0).unwrap();
            let svg = f.tile.document();
            assert_eq!(svg.matches("class=\"el\"").count(), 256, "{name}");
            // The mode is named as the case file writes it (`128b`), not as the model's type.
            assert!(svg.contains(&format!("{name} swizzle")), "{svg}");
            for (x, y) in [(0u64, 0u64), (4, 1), (0, 3), (13, 5), (31, 7)] {
                // Box row y is 128 bytes (32 f32): logical offset y*128 + x*4.
                let (line, byte) = swizzled(pattern, y * 128 + x * 4);
                assert_eq!(
                    rect_at(&svg, &format!("({x}, {y}) ")),
                    (TILE_X0 + byte * BYTE_PX, 34 + line * ROW_PX),
                    "{name}: element ({x}, {y})"
                );
            }
        }
        // 128B: row 1's first chunk moves to chunk 1; no swizzle leaves it in chunk 0.
        let sw = figures(&case("128b", (32, 8), (32, 8), (0, 0)), &[])
            .remove(0)
            .unwrap();
        assert_eq!(rect_at(&sw.tile.body, "(0, 1) ").0, TILE_X0 + 16 * BYTE_PX);
    }

    #[test]
    fn box_marks_oob_cells_and_tile_marks_oob_fill() {
        // 32 x 4 f32 box from row 1 of a 64 x 3 tensor: rows 1-2 inside, rows 3-4 OOB.
        let c = case("128b", (64, 3), (32, 4), (0, 1));
        let f = figures(&c, &[]).remove(0).unwrap();
        let b = f.tensor.document();
        assert_eq!(b.matches("class=\"in\"").count(), 64 + 1, "+1 legend");
        assert_eq!(b.matches("class=\"oob\"").count(), 64 + 1, "+1 legend");
        assert!(b.contains("<title>(0, 3): OOB</title>"), "{b}");
        assert!(b.contains("<title>(31, 2): in bounds</title>"));
        assert!(!b.contains("(0, 0): "), "row 0 is not in the box");
        // The OOB cell is drawn one row below the last in-bounds one, and crossed.
        let (x3, y3) = rect_at(&b, "(0, 3): OOB");
        let (x2, y2) = rect_at(&b, "(0, 2): in bounds");
        assert_eq!(x3, x2);
        assert!(y3 > y2);
        assert!(b.contains("class=\"x\""));
        assert!(b.contains("64 OOB"), "caption counts OOB elements");
        let t = f.tile.document();
        assert_eq!(t.matches("class=\"fill\"").count(), 64 + 1, "+1 legend");
        // Box row 3 is tile line 2, whose chunks the 128B swizzle XORs with 2.
        assert!(t.contains("OOB fill (0, 3) at +0x120"), "{t}");
    }

    #[test]
    fn a_large_tensor_is_drawn_as_a_window_around_the_box() {
        let c = case("none", (4096, 2), (8, 2), (1024, 0));
        let f = figures(&c, &[]).remove(0).unwrap();
        assert!(f.tensor.body.contains("tensor continues beyond the window"));
        assert!(f.tensor.width < 1000, "{}", f.tensor.width);
        assert_eq!(f.tensor.body.matches("class=\"in\"").count(), 16 + 1);
    }

    #[test]
    fn document_stacks_every_load_and_none_without_loads() {
        let a = case("none", (32, 8), (32, 8), (0, 0));
        let b = case("64b", (32, 8), (16, 8), (0, 0));
        let d = document(&[&a, &b]).unwrap();
        assert_eq!(d.matches("<svg").count(), 1, "one document");
        assert_eq!(d.matches("cp.async.bulk.tensor").count(), 2, "two captions");
        let plain = load_str(
            "name: p\ntarget: sm_90a\nmemory:\n  mbarriers: [ { name: bar } ]\nprogram:\n  - ptx: mbarrier.init.shared::cta.b64 [bar], 1\n",
            "p.yaml",
        )
        .unwrap()
        .remove(0);
        assert!(document(&[&plain]).is_none());
        assert!(html(&plain, &[]).is_empty());
    }

    #[test]
    fn tile_outlines_the_elements_whose_bytes_differ() {
        use ptxconform_core::result::ExpectedByte;
        let c = case("128b", (32, 8), (32, 8), (0, 0));
        let mut expected = vec![ExpectedByte::Known(0); 1024];
        expected[0x94] = ExpectedByte::OneOf(vec![1, 2]);
        let mut observed = vec![0u8; 1024];
        // Bytes 0x90..0x94 are element (0, 1) (line 1, chunk 0 ^ 1 = 1); 0x94 is allowed.
        for b in &mut observed[0x90..0x95] {
            *b = 1;
        }
        let d = RegionDiff {
            region: "dst@cta0".into(),
            expected,
            observed,
        };
        let f = figures(&c, std::slice::from_ref(&d)).remove(0).unwrap();
        let t = f.tile.body;
        assert_eq!(
            t.matches("class=\"bad\"").count(),
            1 + 1,
            "one element, and the legend"
        );
        let (x, y) = rect_at(&t, "(0, 1) at +0x90");
        assert!(t.contains(&format!(
            "<rect class=\"bad\" x=\"{}\" y=\"{}\"",
            x + 1,
            y + 1
        )));
        assert!(
            t.contains("differ on the hardware: 1 (4 differing bytes in the region)"),
            "{t}"
        );
        let other = RegionDiff {
            region: "dst@cta1".into(),
            ..d
        };
        let f = figures(&c, &[other]).remove(0).unwrap();
        assert!(
            !f.tile.body.contains("class=\"bad\""),
            "another CTA's region"
        );
    }
}
