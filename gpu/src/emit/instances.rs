//! Emission of many cases at once: cases that differ only in their regions' contents (instances
//! of one template, as the bench and sweeps make them) have one program, so it is emitted once
//! and each instance gets only its own initial shared image. Distinct programs of one text key
//! (the value sets of a fuzz shape) share one kernel text: it is printed once, and the others'
//! emission only walks their program to fill their parameter blocks.

use super::text_key::{text_key, Surround, TextKey};
use super::{
    emit_guarded, emit_parsed, err, shared_image, EmitError, Emitted, Footprint, Guards, Parsed,
};
use ptxconform_reference::case::{Case, Expect, Param, Step, StepOp};
use ptxconform_reference::layout::Layout;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// What of a case its emitted program depends on: everything but its name, description,
/// recorded observations and regions' initial contents. Compared whole (two cases share an
/// emission only when equal here), hashed in part: the steps and params, where programs differ
/// most (hashing is all a case whose program is new pays, e.g. every fuzz program).
#[derive(Debug, PartialEq)]
struct ProgramKey<'a> {
    surround: Surround<'a>,
    params: &'a BTreeMap<String, Param>,
    program: &'a [Step],
    expect: &'a Option<Expect>,
}

/// `Eq` as far as `HashMap` needs: a key that is not equal to itself (a NaN somewhere) only
/// keeps its case from sharing an emission.
impl Eq for ProgramKey<'_> {}

impl Hash for ProgramKey<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        for s in self.program {
            s.thread.hash(h);
            match &s.op {
                StepOp::Ptx(text) => text.hash(h),
                StepOp::WaitParity { mbar, parity } => (mbar, parity).hash(h),
                StepOp::Store { at, bytes } => (at, bytes).hash(h),
            }
        }
        for (name, p) in self.params {
            name.hash(h);
            match p {
                Param::Int(v) | Param::Typed { value: v, .. } => v.hash(h),
                Param::Mapa { mapa, cta } => (mapa, cta).hash(h),
            }
        }
    }
}

/// The [`ProgramKey`] of `case`.
fn program_key(case: &Case) -> ProgramKey<'_> {
    ProgramKey {
        surround: Surround::of(case),
        params: &case.params,
        program: &case.program,
        expect: &case.expect,
    }
}

/// [`super::emit`] of every case, in order, on host threads: one emission per distinct program,
/// the other cases with that program getting a copy with their own shared image. A case whose
/// emission fails is emitted alone (its error names it).
pub fn emit_all(cases: &[&Case]) -> Vec<Result<Emitted, EmitError>> {
    emit_all_guarded(cases, Guards::Runs)
}

/// [`emit_all`] with the steps guarded as `guards` says.
pub fn emit_all_guarded(cases: &[&Case], guards: Guards) -> Vec<Result<Emitted, EmitError>> {
    // Keys are hashed on host threads; the one pass in order that picks each program's first
    // case then costs a lookup per case (on 16 cores it had been most of emission's time).
    let span = ptxconform_core::trace::span("emit: keys", cases.len());
    let keys: Vec<Prehashed<ProgramKey<'_>>> = cases
        .par_iter()
        .map(|c| Prehashed::new(program_key(c)))
        .collect();
    let mut first: HashMap<&Prehashed<ProgramKey<'_>>, usize> = HashMap::new();
    let leader: Vec<usize> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| *first.entry(k).or_insert(i))
        .collect();
    let mut distinct: Vec<usize> = first.into_values().collect();
    distinct.sort_unstable();
    drop(span);
    let mut templates = emit_distinct(cases, &distinct, guards);
    let span = ptxconform_core::trace::span("emit: instances", cases.len());
    let others: Vec<Option<Result<Emitted, EmitError>>> = cases
        .par_iter()
        .zip(&leader)
        .enumerate()
        .map(|(i, (case, &f))| {
            (f != i).then(|| match &templates[&f] {
                Ok(t) => instance_of(t, case),
                Err(_) => emit_guarded(case, guards),
            })
        })
        .collect();
    drop(span);
    // The distinct programs' own emissions move out (no copy).
    others
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            r.or_else(|| templates.remove(&i))
                .unwrap_or_else(|| err(format!("internal: case {i} was not emitted")))
        })
        .collect()
}

/// [`emit`] of the cases `distinct` (indices into `cases`, each another program): the first of
/// each text key prints its kernel, the others walk theirs and take that text, where their walk
/// leaves the same [`Footprint`] (else they are emitted in full).
fn emit_distinct(
    cases: &[&Case],
    distinct: &[usize],
    guards: Guards,
) -> HashMap<usize, Result<Emitted, EmitError>> {
    // Parsing validates each program once; a case that fails is its own error.
    type Keyed<'a> = Result<(TextKey<'a>, Parsed<'a>), EmitError>;
    let span = ptxconform_core::trace::span("emit: parse", distinct.len());
    let parsed: Vec<(usize, Keyed<'_>)> = distinct
        .par_iter()
        .map(|&i| {
            (
                i,
                Parsed::guarded(cases[i], guards).map(|p| (text_key(&p), p)),
            )
        })
        .collect();
    drop(span);
    let span = ptxconform_core::trace::span("emit: bucket", distinct.len());
    // The first program of each text key prints, the others walk. A key's hash is cheap and
    // coarse (instruction families) and comparing keys is not, so programs are bucketed by hash
    // in order and each bucket compared on a host thread of its own.
    let mut out = HashMap::new();
    let mut buckets: HashMap<u64, Vec<(usize, TextKey<'_>, Parsed<'_>)>> = HashMap::new();
    for (i, p) in parsed {
        match p {
            Err(e) => {
                out.insert(i, Err(e));
            }
            Ok((k, p)) => buckets.entry(hash_of(&k)).or_default().push((i, k, p)),
        }
    }
    type Sorted<'a> = (Vec<(usize, Parsed<'a>)>, Vec<(usize, usize, Parsed<'a>)>);
    let sorted: Vec<Sorted<'_>> = buckets
        .into_values()
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|bucket| {
            let mut printers: Vec<(TextKey<'_>, usize)> = Vec::new();
            let (mut print, mut walk) = (Vec::new(), Vec::new());
            for (i, k, p) in bucket {
                match printers.iter().find(|(key, _)| *key == k) {
                    Some(&(_, printer)) => walk.push((i, printer, p)),
                    None => {
                        printers.push((k, i));
                        print.push((i, p));
                    }
                }
            }
            (print, walk)
        })
        .collect();
    let (mut print, mut walk) = (Vec::new(), Vec::new());
    for (p, w) in sorted {
        print.extend(p);
        walk.extend(w);
    }
    drop(span);
    let span = ptxconform_core::trace::span("emit: print", print.len());
    let printed: HashMap<usize, Result<(Emitted, Footprint), EmitError>> = print
        .into_par_iter()
        .map(|(i, p)| (i, emit_parsed(p, None)))
        .collect();
    drop(span);
    let _span = ptxconform_core::trace::span("emit: walk", walk.len());
    let walked: Vec<(usize, Result<Emitted, EmitError>)> = walk
        .into_par_iter()
        .map(|(i, printer, p)| {
            let em = match &printed[&printer] {
                Ok(t) => match emit_parsed(p, Some(t)) {
                    Ok((e, fp)) if fp == t.1 => Ok(e),
                    Ok(_) => emit_guarded(cases[i], guards),
                    Err(e) => Err(e),
                },
                Err(_) => emit_guarded(cases[i], guards),
            };
            (i, em)
        })
        .collect();
    out.extend(printed.into_iter().map(|(i, r)| (i, r.map(|(e, _)| e))));
    out.extend(walked);
    out
}

/// A key with its hash computed once (on whichever thread made it): hashing it again writes
/// that hash, equality compares the hashes before the keys.
#[derive(Debug)]
struct Prehashed<K> {
    hash: u64,
    key: K,
}

impl<K: Hash> Prehashed<K> {
    fn new(key: K) -> Self {
        Prehashed {
            hash: hash_of(&key),
            key,
        }
    }
}

impl<K: PartialEq> PartialEq for Prehashed<K> {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.key == other.key
    }
}

impl<K: Eq> Eq for Prehashed<K> {}

impl<K> Hash for Prehashed<K> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.hash);
    }
}

/// `key`'s hash under a fixed hasher (the same in every thread). foldhash, not SipHash: every
/// program's key is hashed (its steps' texts and params), and SipHash was about a tenth of the
/// host's preparation of a fuzz step; nothing here faces untrusted keys.
fn hash_of<K: Hash + ?Sized>(key: &K) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::default().hash_one(key)
}

/// `template`'s program with `case`'s initial shared image.
fn instance_of(template: &Emitted, case: &Case) -> Result<Emitted, EmitError> {
    let layout = Layout::of(case).map_err(|e| EmitError(e.0))?;
    let mut em = template.clone();
    em.shared_init = shared_image(case, &layout)?;
    Ok(em)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::emit;

    /// Every corpus case, three instances of each with different contents, and the corpus as it
    /// is: `emit_all` gives exactly what `emit` gives case by case.
    #[test]
    fn emit_all_equals_emit_case_by_case() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let (loaded, errors) = ptxconform_core::corpus::load_corpus(&[dir]);
        assert!(errors.is_empty(), "{errors:?}");
        let mut cases: Vec<Case> = loaded.iter().map(|l| l.case.clone()).collect();
        let from = cases.len();
        for l in loaded.iter().step_by(7) {
            cases.extend(ptxconform_core::corpus::instances(&l.case, 3));
        }
        let refs: Vec<&Case> = cases.iter().collect();
        let all = emit_all(&refs);
        assert_eq!(all.len(), cases.len());
        let mut shared = 0;
        for (c, got) in cases.iter().zip(&all) {
            let want = emit(c);
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "case `{}`", c.name);
            shared += usize::from(got.as_ref().is_ok_and(|e| !e.shared_init.is_empty()));
        }
        assert!(shared > 500, "{shared} cases with a shared image");
        // Copies of one program do get their own contents.
        let differ = all[from..]
            .chunks(3)
            .filter(|t| match t {
                [Ok(a), Ok(b), _] => a.shared_init != b.shared_init && a.ptx == b.ptx,
                _ => false,
            })
            .count();
        assert!(
            differ > 100,
            "{differ} templates whose instances differ in shared contents"
        );
        // Instances of one template share one program key; a change of program does not.
        let t = &loaded[0].case;
        let is = ptxconform_core::corpus::instances(t, 2);
        assert_eq!(program_key(&is[0]), program_key(&is[1]));
        let mut other = t.clone();
        other.launch.threads += 32;
        assert_ne!(program_key(t), program_key(&other));
    }

    /// Fuzz programs as a campaign draws them: K value sets of each shape. `emit_all` gives
    /// exactly what `emit` gives case by case, and most value sets reuse their shape's text
    /// (the very `Arc` of the first: printed once).
    #[test]
    fn emit_all_equals_emit_on_value_sets_of_shapes() {
        use ptxconform_reference::case::init::pattern;
        use ptxconform_reference::gen::{self, GenConfig, BLOCK, HEADER};
        const SHAPES: u64 = 60;
        const K: u64 = 8;
        let cfg = GenConfig::mixed().with_concurrency(64);
        let mut cases = Vec::new();
        for s in 0..SHAPES {
            let shape = pattern(0x5eed ^ s, HEADER + BLOCK * cfg.max_episodes);
            for v in 0..K {
                let values = pattern(s << 8 | v, gen::value_len(&cfg));
                cases.push(gen::generate_shaped(&shape, &values, &cfg).case);
            }
        }
        let refs: Vec<&Case> = cases.iter().collect();
        let all = emit_all(&refs);
        let (mut reused, mut ok) = (0, 0);
        for (k, (c, got)) in cases.iter().zip(&all).enumerate() {
            let want = emit(c);
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "case {k}");
            let first = &all[k - k % K as usize];
            if let (Ok(a), Ok(b)) = (got, first) {
                ok += 1;
                reused +=
                    usize::from(k % K as usize != 0 && std::sync::Arc::ptr_eq(&a.ptx, &b.ptx));
            }
        }
        let walkers = ok - ok / K as usize;
        eprintln!("{reused} of about {walkers} value sets reused their shape's text");
        assert!(
            reused * 10 > walkers * 9,
            "{reused} of about {walkers} value sets reused their shape's text"
        );
    }

    /// Corpus cases beside variants whose kernel texts differ from theirs (another grid, another
    /// thread running a step, the other parity awaited): `emit_all` still gives what `emit` gives,
    /// so no variant took another program's text.
    #[test]
    fn emit_all_keeps_apart_what_the_text_shows() {
        use ptxconform_reference::case::StepOp;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let (loaded, _) = ptxconform_core::corpus::load_corpus(&[dir]);
        let mut cases = Vec::new();
        for l in loaded.iter().step_by(3) {
            let c = &l.case;
            let mut grid = c.clone();
            grid.launch.grid[0] *= 2;
            let mut thread = c.clone();
            if let Some(s) = thread.program.last_mut() {
                s.thread = (s.thread + 1) % c.launch.threads.max(1);
            }
            let mut parity = c.clone();
            for s in &mut parity.program {
                if let StepOp::WaitParity { parity, .. } = &mut s.op {
                    *parity ^= 1;
                }
            }
            cases.extend([c.clone(), grid, thread, parity]);
        }
        let refs: Vec<&Case> = cases.iter().collect();
        let all = emit_all(&refs);
        let mut apart = 0;
        for (k, (c, got)) in cases.iter().zip(&all).enumerate() {
            let want = emit(c);
            assert_eq!(
                format!("{got:?}"),
                format!("{want:?}"),
                "case `{}` #{k}",
                c.name
            );
            if let (Ok(a), Ok(o)) = (got, &all[k - k % 4]) {
                apart += usize::from(k % 4 != 0 && a.ptx != o.ptx);
            }
        }
        assert!(apart > 300, "{apart} variants with another text");
    }

    /// A walk whose program differs from the one it would take the text of leaves another
    /// footprint: `emit_all` would emit it in full.
    #[test]
    fn a_walk_of_another_program_leaves_another_footprint() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let (loaded, _) = ptxconform_core::corpus::load_corpus(&[dir]);
        let a = loaded
            .iter()
            .map(|l| &l.case)
            .find(|c| c.program.len() > 1 && emit(c).is_ok())
            .expect("a corpus case of two steps");
        let mut b = a.clone();
        b.program.pop();
        let t = emit_parsed(Parsed::of(a).unwrap(), None).unwrap();
        let (_, same) = emit_parsed(Parsed::of(a).unwrap(), Some(&t)).unwrap();
        assert_eq!(same, t.1);
        let (_, other) = emit_parsed(Parsed::of(&b).unwrap(), Some(&t)).unwrap();
        assert_ne!(other, t.1);
    }
}
