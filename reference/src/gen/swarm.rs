//! Swarm testing: each program enables a random subset of the families and operand forms the
//! config allows, so that rare combinations are not drowned by common ones.

use super::bytes::Chunk;
use super::{Deviation, GenConfig};

/// Generator families (one module each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    CpAsync,
    BulkCopy,
    BulkReduce,
    BulkPrefetch,
    Mbarrier,
    Store,
    Tcgen05,
    Tensor,
}

impl Family {
    pub const ALL: [Family; 8] = [
        Family::CpAsync,
        Family::BulkCopy,
        Family::BulkReduce,
        Family::BulkPrefetch,
        Family::Mbarrier,
        Family::Store,
        Family::Tcgen05,
        Family::Tensor,
    ];
    fn bit(self) -> u8 {
        1 << Self::ALL.iter().position(|f| *f == self).unwrap_or(0)
    }
    /// Least `sm` the family's episodes need.
    pub fn min_sm(self) -> u32 {
        match self {
            Family::CpAsync | Family::Mbarrier | Family::Store => 80,
            Family::BulkCopy | Family::BulkReduce | Family::BulkPrefetch | Family::Tensor => 90,
            // sm_100a / sm_100f (the episode checks the target class itself).
            Family::Tcgen05 => 100,
        }
    }
    /// Which deviations the family's episodes can produce.
    pub fn can(self, d: Deviation) -> bool {
        match self {
            Family::CpAsync | Family::BulkCopy => true,
            Family::BulkReduce | Family::Mbarrier | Family::Tcgen05 | Family::Tensor => {
                d != Deviation::Racy
            }
            Family::BulkPrefetch => d == Deviation::Illegal,
            Family::Store => false,
        }
    }
}

/// A set of families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Families(pub u8);

impl Families {
    pub const ALL: Families = Families(0b1111_1111);
    pub const NONE: Families = Families(0);
    pub fn of(fs: &[Family]) -> Families {
        Families(fs.iter().fold(0, |a, f| a | f.bit()))
    }
    pub fn contains(self, f: Family) -> bool {
        self.0 & f.bit() != 0
    }
    pub fn list(self) -> Vec<Family> {
        Family::ALL
            .iter()
            .copied()
            .filter(|f| self.contains(*f))
            .collect()
    }
}

/// The feature list, written once: each feature's field (its doc says what it enables), its name
/// (`Features::NAMES`, what `avoid:` of a known divergence and the docs use) and its bit in the
/// swarm's feature byte (the order of the list) all come from it.
macro_rules! features {
    ($($(#[doc = $doc:literal])* $name:ident,)*) => {
        /// Operand forms and qualifiers a program may use (each program's swarm enables a random
        /// subset of them).
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct Features {
            $($(#[doc = $doc])* pub $name: bool,)*
        }

        impl Features {
            /// Feature names, in the order of their bits in the swarm's feature byte.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            pub fn from_bits(f: u8) -> Features {
                let mut bit = 0u32;
                let mut next = || {
                    let on = (f >> bit) & 1 == 1;
                    bit += 1;
                    on
                };
                // Fields are initialised in the order written: the list's order.
                Features { $($name: next(),)* }
            }

            pub fn bits(self) -> u8 {
                [$(self.$name),*]
                    .iter()
                    .enumerate()
                    .fold(0, |a, (i, on)| a | (u8::from(*on) << i))
            }
        }
    };
}

features! {
    /// Sizes, counts and masks from `params` registers instead of immediates.
    reg_operands,
    /// `.L2::cache_hint` with a `cache-policy` register.
    cache_hint,
    /// `.shared::cta` spelling (else `.shared` where both exist).
    shared_cta,
    /// cp.async `.L2::{64,128,256}B` prefetch sizes.
    prefetch_size,
    /// cp.async `src-size` / `ignore-src`.
    fill,
    /// `.multicast::cluster` with a ctaMask.
    multicast,
    /// `.cp_mask` with a byteMask (sm_100+).
    cp_mask,
    /// `.sem.scope` qualifiers on mbarrier arrive / wait.
    order,
}

impl Features {
    /// The feature called `name` alone.
    pub fn named(name: &str) -> Option<Features> {
        let i = Self::NAMES.iter().position(|n| *n == name)?;
        Some(Features::from_bits(1 << i))
    }
    pub fn union(self, o: Features) -> Features {
        Features::from_bits(self.bits() | o.bits())
    }
    pub fn intersects(self, o: Features) -> bool {
        self.bits() & o.bits() != 0
    }

    /// The features a program visibly uses, read from the spelling of its `ptx:` steps.
    /// `reg_operands` and `fill` leave no mark of their own and are never reported.
    pub fn used_by(case: &crate::case::Case) -> Features {
        let text: Vec<&str> = case.program.iter().filter_map(|s| s.op.ptx()).collect();
        let any = |marks: &[&str]| text.iter().any(|t| marks.iter().any(|m| t.contains(m)));
        Features {
            reg_operands: false,
            cache_hint: any(&[".L2::cache_hint"]),
            shared_cta: any(&[".shared::cta"]),
            prefetch_size: any(&[".L2::64B", ".L2::128B", ".L2::256B"]),
            fill: false,
            multicast: any(&[".multicast::cluster"]),
            cp_mask: any(&[".cp_mask"]),
            order: any(&[".release", ".acquire", ".relaxed"]),
        }
    }
}

/// Where the swarm's draw sits in a program's header ([`super::HEADER`] bytes): after the
/// deviation byte `gen::build` reads first, the families byte, then the features byte.
pub const DEVIATION_BYTE: usize = 0;
pub const FAMILIES_BYTE: usize = 1;
pub const FEATURES_BYTE: usize = 2;

/// A deviation byte that asks for `d` under `cfg`'s rates, as `gen::build` reads it (below
/// `illegal_per_256`: illegal, then `undefined_per_256` undefined, then `racy_per_256` racy);
/// `None` where `cfg` never deviates so. Steering's hook: a campaign aiming at a rule cell.
pub fn deviation_byte(cfg: &GenConfig, d: Deviation) -> Option<u8> {
    let (i, u, r) = (
        u16::from(cfg.illegal_per_256),
        u16::from(cfg.undefined_per_256),
        u16::from(cfg.racy_per_256),
    );
    let (from, n) = match d {
        Deviation::Illegal => (0, i),
        Deviation::Undefined => (i, u),
        Deviation::Racy => (i + u, r),
    };
    (n > 0).then(|| u8::try_from(from).ok()).flatten()
}

/// A swarm draw as one word, families in the low byte and features in the high one: what a
/// campaign steering toward its least covered cells reads off a header and writes into one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SwarmBits(pub u16);

impl SwarmBits {
    /// The bits the draw of header `head` enables under `cfg` (before the target restricts it).
    pub fn of_header(head: &[u8], cfg: &GenConfig) -> SwarmBits {
        let s = Swarm::draw(
            &mut Chunk::new(head.get(FAMILIES_BYTE..).unwrap_or(&[])),
            cfg,
        );
        SwarmBits(u16::from(Families::of(&s.families).0) | u16::from(s.features.bits()) << 8)
    }
    /// Make `head`'s draw enable exactly these bits (as far as `cfg` allows them).
    pub fn write(self, head: &mut [u8]) {
        let [families, features] = self.0.to_le_bytes();
        if let Some(b) = head.get_mut(FAMILIES_BYTE) {
            *b = families;
        }
        if let Some(b) = head.get_mut(FEATURES_BYTE) {
            *b = features;
        }
    }
    pub fn contains(self, o: SwarmBits) -> bool {
        self.0 & o.0 == o.0
    }
}

/// The families and features one program enables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Swarm {
    pub families: Vec<Family>,
    pub features: Features,
}

impl Swarm {
    pub fn none() -> Swarm {
        Swarm {
            families: vec![Family::Store],
            features: Features::default(),
        }
    }
    /// Draw the swarm (two header bytes); the target restricts it later ([`Swarm::restrict`]).
    pub fn draw(c: &mut Chunk<'_>, cfg: &GenConfig) -> Swarm {
        let fam = Families(c.byte() & cfg.families.0);
        let fam = if fam.0 == 0 { cfg.families } else { fam };
        let features = Features::from_bits(c.byte() & !cfg.avoid.bits());
        Swarm {
            families: fam.list(),
            features,
        }
    }
    /// Drop what the target cannot run; never leaves the family list empty.
    pub fn restrict(&mut self, sm: u32) {
        self.families.retain(|f| f.min_sm() <= sm);
        if self.families.is_empty() {
            self.families.push(Family::Store);
        }
        if sm < 100 {
            self.features.cp_mask = false;
        }
        if sm < 90 {
            self.features.multicast = false;
            self.features.order = false;
        }
    }
    /// The family of an episode: from the byte, among those enabled; a deviating episode takes
    /// the first enabled family that can deviate that way (from the byte on), if any.
    pub fn pick(&self, b: u8, dev: Option<Deviation>) -> Family {
        let n = self.families.len();
        let start = b as usize % n.max(1);
        if let Some(d) = dev {
            for i in 0..n {
                let f = self.families[(start + i) % n];
                if f.can(d) {
                    return f;
                }
            }
        }
        self.families.get(start).copied().unwrap_or(Family::Store)
    }
}
