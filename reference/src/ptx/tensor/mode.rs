//! Qualifiers shared by the tensor-copy instructions: `.dim` and the `.load_mode` sets of each
//! direction, with the rank rules the load modes impose.

use super::operands::Operands;
use crate::ptx::lex::SyntaxError;
use crate::ptx::opcode::Quals;
use crate::ptx::operand::Value;
use crate::target::{Requirement, Support};

/// `.dim`: the tensor rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    D1,
    D2,
    D3,
    D4,
    D5,
}

impl Dim {
    pub const ALL: [Dim; 5] = [Dim::D1, Dim::D2, Dim::D3, Dim::D4, Dim::D5];
    const CHOICES: [(&'static str, Dim); 5] = [
        ("1d", Dim::D1),
        ("2d", Dim::D2),
        ("3d", Dim::D3),
        ("4d", Dim::D4),
        ("5d", Dim::D5),
    ];

    pub fn rank(self) -> usize {
        match self {
            Dim::D1 => 1,
            Dim::D2 => 2,
            Dim::D3 => 3,
            Dim::D4 => 4,
            Dim::D5 => 5,
        }
    }
    pub fn ptx(self) -> &'static str {
        Self::CHOICES[self.rank() - 1].0
    }
    pub fn take(q: &mut Quals) -> Result<Dim, SyntaxError> {
        q.need(&Self::CHOICES, "tensor dimension `.dim`")
    }
}

/// `.tile` is the default load mode; whether it was written is kept so printing round-trips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tile {
    Implicit,
    Explicit,
}

impl Tile {
    fn ptx(self) -> &'static str {
        match self {
            Tile::Implicit => "",
            Tile::Explicit => "tile",
        }
    }
}

/// `.tile::gather4` / `.tile::scatter4` take 5 coordinates {col, row0..row3}, not `.dim` of them.
const FOUR_ROW_COORDS: usize = 5;

/// §5.5.3.4: "these modes work only on 2D tensor data".
fn only_2d(req: &mut Requirement, dim: Dim, qual: &str) {
    if dim != Dim::D2 {
        req.push(Support::never(format!(
            "`.{qual}` only with `.2d` (§5.5.3.4)"
        )));
    }
}

/// §5.5.4 / §9.7.9.25.5.2: "In .im2col and .im2col::* modes, the tensor has to be at least
/// 3-dimensional" (ptxas: "Modifier '.2d' cannot be combined with modifier '.im2col::w'").
fn at_least_3d(req: &mut Requirement, dim: Dim, qual: &str) {
    if dim.rank() < 3 {
        req.push(Support::never(format!(
            "`.{qual}` needs `.3d`–`.5d` (§5.5.4)"
        )));
    }
}

/// The load modes of the instructions that read the tensor from global memory
/// (cp.async.bulk.tensor global→shared and cp.async.bulk.prefetch.tensor). The im2col modes carry
/// their `im2colInfo` vector, which ptxas requires whenever the mode is given.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FetchMode {
    Tile(Tile),
    Gather4,
    /// `{i2cOffW, i2cOffH, i2cOffD}` truncated to `.dim - 2` offsets.
    Im2col(Vec<Value>),
    /// `{wHalo, wOffset}`.
    Im2colW(Vec<Value>),
    /// `{wHalo, wOffset}`.
    Im2colW128(Vec<Value>),
}

/// A fetch mode as its qualifier, before its `im2colInfo` operand is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchKind {
    Tile(Tile),
    Gather4,
    Im2col,
    Im2colW,
    Im2colW128,
}

impl FetchKind {
    const CHOICES: [(&'static str, FetchKind); 5] = [
        ("tile", FetchKind::Tile(Tile::Explicit)),
        ("tile::gather4", FetchKind::Gather4),
        ("im2col", FetchKind::Im2col),
        ("im2col::w", FetchKind::Im2colW),
        ("im2col::w::128", FetchKind::Im2colW128),
    ];
    pub const ALL: [FetchKind; 6] = [
        FetchKind::Tile(Tile::Implicit),
        FetchKind::Tile(Tile::Explicit),
        FetchKind::Gather4,
        FetchKind::Im2col,
        FetchKind::Im2colW,
        FetchKind::Im2colW128,
    ];

    /// Take the optional `.load_mode` qualifier (absent means `.tile`).
    pub fn take(q: &mut Quals) -> Result<FetchKind, SyntaxError> {
        Ok(q.take(&Self::CHOICES, "load mode")?
            .unwrap_or(FetchKind::Tile(Tile::Implicit)))
    }

    pub fn ptx(self) -> &'static str {
        match self {
            FetchKind::Tile(t) => t.ptx(),
            FetchKind::Gather4 => "tile::gather4",
            FetchKind::Im2col => "im2col",
            FetchKind::Im2colW => "im2col::w",
            FetchKind::Im2colW128 => "im2col::w::128",
        }
    }

    /// Number of tensor coordinates (§9.7.9.25.5.2 tensorCoords table).
    pub fn coords(self, dim: Dim) -> usize {
        match self {
            FetchKind::Gather4 => FOUR_ROW_COORDS,
            _ => dim.rank(),
        }
    }

    /// Read the `im2colInfo` operand this mode needs (if any) and build the mode. A vector where
    /// no mode asks for one is an error (im2colInfo "can be specified only when .load_mode is
    /// .im2col or .im2col::w or .im2col::w::128").
    pub fn finish(self, dim: Dim, ops: &mut Operands<'_>) -> Result<FetchMode, SyntaxError> {
        let info =
            |ops: &mut Operands<'_>, n: usize, what: &str| -> Result<Vec<Value>, SyntaxError> {
                let at = ops.offset();
                let v = ops.vector(&format!("im2colInfo {what} of `.{}`", self.ptx()))?;
                if v.len() != n {
                    return Err(SyntaxError::new(
                        at,
                        format!(
                            "im2colInfo of `.{}` with `.{}`: {n} elements ({what})",
                            self.ptx(),
                            dim.ptx()
                        ),
                        format!("{} elements", v.len()),
                    ));
                }
                Ok(v)
            };
        Ok(match self {
            FetchKind::Tile(t) => {
                ops.no_vector("im2colInfo only with `.im2col`, `.im2col::w` or `.im2col::w::128`")?;
                FetchMode::Tile(t)
            }
            FetchKind::Gather4 => {
                ops.no_vector("im2colInfo only with `.im2col`, `.im2col::w` or `.im2col::w::128`")?;
                FetchMode::Gather4
            }
            FetchKind::Im2col => {
                // The offsets vector has `.dim - 2` elements: below .3d it cannot be written at all
                // (ptxas rejects `{}` as a parse error and any other size as a size mismatch).
                if dim.rank() < 3 {
                    return Err(SyntaxError::new(ops.offset(), "`.im2col` with `.3d`, `.4d` or `.5d` (offsets vector of .dim − 2 elements)", format!("`.{}`", dim.ptx())));
                }
                FetchMode::Im2col(info(ops, dim.rank() - 2, "the .dim − 2 im2col offsets")?)
            }
            FetchKind::Im2colW => FetchMode::Im2colW(info(ops, 2, "{wHalo, wOffset}")?),
            FetchKind::Im2colW128 => FetchMode::Im2colW128(info(ops, 2, "{wHalo, wOffset}")?),
        })
    }

    /// Placeholder `im2colInfo` for [`FetchKind::finish`]'s variants.
    pub fn placeholder(self, dim: Dim) -> Option<FetchMode> {
        let regs = |names: &[&str]| names.iter().map(|n| Value::reg(n)).collect::<Vec<_>>();
        Some(match self {
            FetchKind::Tile(t) => FetchMode::Tile(t),
            FetchKind::Gather4 => FetchMode::Gather4,
            FetchKind::Im2col if dim.rank() < 3 => return None,
            FetchKind::Im2col => {
                FetchMode::Im2col(regs(&["i2cOffW", "i2cOffH", "i2cOffD"][..dim.rank() - 2]))
            }
            FetchKind::Im2colW => FetchMode::Im2colW(regs(&["wHalo", "wOffset"])),
            FetchKind::Im2colW128 => FetchMode::Im2colW128(regs(&["wHalo", "wOffset"])),
        })
    }
}

impl FetchMode {
    pub fn kind(&self) -> FetchKind {
        match self {
            FetchMode::Tile(t) => FetchKind::Tile(*t),
            FetchMode::Gather4 => FetchKind::Gather4,
            FetchMode::Im2col(_) => FetchKind::Im2col,
            FetchMode::Im2colW(_) => FetchKind::Im2colW,
            FetchMode::Im2colW128(_) => FetchKind::Im2colW128,
        }
    }
    pub fn info(&self) -> Option<&Vec<Value>> {
        match self {
            FetchMode::Im2col(v) | FetchMode::Im2colW(v) | FetchMode::Im2colW128(v) => Some(v),
            _ => None,
        }
    }
    pub fn info_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            FetchMode::Im2col(v) | FetchMode::Im2colW(v) | FetchMode::Im2colW128(v) => Some(v),
            _ => None,
        }
    }
    /// The rank rules no target relaxes.
    pub fn rank_rules(&self, dim: Dim, req: &mut Requirement) {
        let k = self.kind();
        match k {
            FetchKind::Gather4 => only_2d(req, dim, k.ptx()),
            FetchKind::Im2col | FetchKind::Im2colW | FetchKind::Im2colW128 => {
                at_least_3d(req, dim, k.ptx())
            }
            FetchKind::Tile(_) => {}
        }
    }
}

/// Load modes of cp.async.bulk.tensor shared::cta→global (§9.7.9.25.5.2, third syntax block).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoreMode {
    Tile(Tile),
    Scatter4,
    Im2colNoOffs,
}

impl StoreMode {
    pub const ALL: [StoreMode; 4] = [
        StoreMode::Tile(Tile::Implicit),
        StoreMode::Tile(Tile::Explicit),
        StoreMode::Scatter4,
        StoreMode::Im2colNoOffs,
    ];
    const CHOICES: [(&'static str, StoreMode); 3] = [
        ("tile", StoreMode::Tile(Tile::Explicit)),
        ("tile::scatter4", StoreMode::Scatter4),
        ("im2col_no_offs", StoreMode::Im2colNoOffs),
    ];

    pub fn take(q: &mut Quals, instr: &str) -> Result<StoreMode, SyntaxError> {
        reject_foreign_modes(q, instr, &Self::CHOICES)?;
        Ok(q.take(&Self::CHOICES, "load mode")?
            .unwrap_or(StoreMode::Tile(Tile::Implicit)))
    }
    pub fn ptx(self) -> &'static str {
        match self {
            StoreMode::Tile(t) => t.ptx(),
            StoreMode::Scatter4 => "tile::scatter4",
            StoreMode::Im2colNoOffs => "im2col_no_offs",
        }
    }
    pub fn coords(self, dim: Dim) -> usize {
        match self {
            StoreMode::Scatter4 => FOUR_ROW_COORDS,
            _ => dim.rank(),
        }
    }
    pub fn rank_rules(self, dim: Dim, req: &mut Requirement) {
        match self {
            StoreMode::Scatter4 => only_2d(req, dim, self.ptx()),
            StoreMode::Im2colNoOffs => at_least_3d(req, dim, self.ptx()),
            StoreMode::Tile(_) => {}
        }
    }
}

/// Load modes of cp.reduce.async.bulk.tensor: `{ .tile, .im2col_no_offs }` (§9.7.9.25.5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceMode {
    Tile(Tile),
    Im2colNoOffs,
}

impl ReduceMode {
    pub const ALL: [ReduceMode; 3] = [
        ReduceMode::Tile(Tile::Implicit),
        ReduceMode::Tile(Tile::Explicit),
        ReduceMode::Im2colNoOffs,
    ];
    const CHOICES: [(&'static str, ReduceMode); 2] = [
        ("tile", ReduceMode::Tile(Tile::Explicit)),
        ("im2col_no_offs", ReduceMode::Im2colNoOffs),
    ];

    pub fn take(q: &mut Quals, instr: &str) -> Result<ReduceMode, SyntaxError> {
        reject_foreign_modes(q, instr, &Self::CHOICES)?;
        Ok(q.take(&Self::CHOICES, "load mode")?
            .unwrap_or(ReduceMode::Tile(Tile::Implicit)))
    }
    pub fn ptx(self) -> &'static str {
        match self {
            ReduceMode::Tile(t) => t.ptx(),
            ReduceMode::Im2colNoOffs => "im2col_no_offs",
        }
    }
    pub fn coords(self, dim: Dim) -> usize {
        dim.rank()
    }
    pub fn rank_rules(self, dim: Dim, req: &mut Requirement) {
        if self == ReduceMode::Im2colNoOffs {
            at_least_3d(req, dim, self.ptx());
        }
    }
}

/// Every load-mode spelling of any tensor instruction.
const ALL_MODE_NAMES: [&str; 7] = [
    "tile",
    "tile::gather4",
    "tile::scatter4",
    "im2col",
    "im2col::w",
    "im2col::w::128",
    "im2col_no_offs",
];

/// A load mode of another direction gets an error naming the modes this one takes, rather than
/// the generic "unknown qualifier".
fn reject_foreign_modes<T>(q: &Quals, instr: &str, ok: &[(&str, T)]) -> Result<(), SyntaxError> {
    for t in &q.toks {
        if ALL_MODE_NAMES.contains(&t.text.as_str()) && !ok.iter().any(|(s, _)| *s == t.text) {
            let names = ok
                .iter()
                .map(|(s, _)| format!("`.{s}`"))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(SyntaxError::new(
                t.at,
                format!("a load mode of {instr}: {names}"),
                format!("`.{}`", t.text),
            ));
        }
    }
    Ok(())
}
