//! Offline compile service: PTX text to cubin bytes with the pinned ptxas, cached in memory and on
//! disk across runs.
//!
//! A compiled module is identified by its [`Build`]: the compiler (its file identity and its
//! `ptxas --version` line), the architecture (`-arch`, e.g. `sm_90a`) and the options. The cache
//! key ([`CacheKey`]) is FNV-1a 128 over the PTX text (or the texts of one run's files, in
//! order), the version line, the architecture and the options — not over the compiler's file
//! identity, so reinstalling the same ptxas release (new path or mtime) keeps the disk cache,
//! while a different release misses it.
//!
//! Disk cache: `$PTXCONFORM_CACHE`, else `$XDG_CACHE_HOME/ptxconform/cubin`, else
//! `$HOME/.cache/ptxconform/cubin`; one file `<key hex>.cubin` per module, written atomically
//! (temporary file, then rename). A file is the cubin followed by a 16-byte trailer (a magic and
//! the FNV-1a 64 of the cubin), so it stays an ELF file that cuobjdump/nvdisasm read, and a
//! truncated or damaged file is detected: it counts as a miss and is recompiled and rewritten.
//! Disk cache failures (unwritable directory, …) never fail a compilation.

use crate::ptxas::{parse_errors, Ptxas};
use ptxconform_core::hash::{fnv1a128, fnv1a64, FNV128_OFFSET};
use ptxconform_reference::target::Target;
use rayon::prelude::*;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// Environment variable naming the disk cache directory (overrides the XDG/HOME default).
const CACHE_ENV: &str = "PTXCONFORM_CACHE";

/// The ptxas optimization level of a build unless [`Compiler::with_opt_level`] says otherwise.
pub const DEFAULT_OPT_LEVEL: u8 = ptxconform_reference::build::PTXAS_DEFAULT_LEVEL;

/// One compiled module, or why it did not compile.
pub type Compiled = Result<Arc<Vec<u8>>, String>;

/// A 128-bit cache key; its hex form names the disk file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey(pub u128);

impl fmt::Display for CacheKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

/// Which file a compiler path is: canonical path, size and modification time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileIdentity {
    pub path: PathBuf,
    pub len: u64,
    pub modified: Option<SystemTime>,
}

impl FileIdentity {
    /// The identity of the file at `path` (following links).
    pub fn of(path: &Path) -> Result<FileIdentity, String> {
        let path = path
            .canonicalize()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let md = std::fs::metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(FileIdentity {
            len: md.len(),
            modified: md.modified().ok(),
            path,
        })
    }
}

/// What a module is compiled with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Build {
    pub compiler: FileIdentity,
    /// The release line of `ptxas --version`.
    pub version: String,
    /// The `-arch` value, e.g. `sm_90a`.
    pub arch: String,
    pub options: Vec<String>,
}

impl Build {
    /// The cache key of `ptx` built this way: FNV-1a 128 over a format tag, the text, the compiler
    /// version, the architecture and the options, each length-prefixed (so no two different
    /// tuples concatenate to the same bytes).
    pub fn key(&self, ptx: &str) -> CacheKey {
        self.key_files(&[ptx])
    }

    /// The cache key of the cubin one run makes of `files` (in order) built this way; one file's
    /// is its [`Build::key`], several files' are tagged apart and counted.
    pub fn key_files(&self, files: &[&str]) -> CacheKey {
        let mut h = FNV128_OFFSET;
        let mut part = |b: &[u8]| {
            h = fnv1a128(h, &(b.len() as u64).to_le_bytes());
            h = fnv1a128(h, b);
        };
        if let [ptx] = files {
            part(b"ptxconform-cubin-v1");
            part(ptx.as_bytes());
        } else {
            part(b"ptxconform-cubin-files-v1");
            part(&(files.len() as u64).to_le_bytes());
            for ptx in files {
                part(ptx.as_bytes());
            }
        }
        part(self.version.as_bytes());
        part(self.arch.as_bytes());
        for o in &self.options {
            part(o.as_bytes());
        }
        CacheKey(h)
    }
}

/// The architecture of the PTX's `.target` directive (`.target sm_90a` or `.target sm_90a, debug`).
pub fn target_of(ptx: &str) -> Option<&str> {
    ptx.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix(".target")?;
        if !rest.starts_with(char::is_whitespace) {
            return None;
        }
        let arch = rest.split(',').next()?.trim();
        (!arch.is_empty()).then_some(arch)
    })
}

/// The default disk cache directory: `$PTXCONFORM_CACHE`, else `$XDG_CACHE_HOME/ptxconform/cubin`,
/// else `$HOME/.cache/ptxconform/cubin`; `None` when none of these is set.
pub fn default_cache_dir() -> Option<PathBuf> {
    cache_location(CACHE_ENV, "cubin")
}

/// `$ENV`, else `$XDG_CACHE_HOME/ptxconform/SUB`, else `$HOME/.cache/ptxconform/SUB` (empty
/// values count as unset): where the project keeps what it caches or installs.
pub fn cache_location(env: &str, sub: &str) -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    cache_dir_from(var(env), var("XDG_CACHE_HOME"), var("HOME"), sub)
}

/// The cache directory for given environment values (pure, for tests).
fn cache_dir_from(
    explicit: Option<PathBuf>,
    xdg_cache_home: Option<PathBuf>,
    home: Option<PathBuf>,
    sub: &str,
) -> Option<PathBuf> {
    explicit
        .or_else(|| xdg_cache_home.map(|x| x.join("ptxconform").join(sub)))
        .or_else(|| home.map(|h| h.join(".cache/ptxconform").join(sub)))
}

/// Counters of a [`Compiler`] since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompileStats {
    /// Modules (or compile errors) found in the in-memory cache.
    pub memory_hits: u64,
    /// Modules read from the disk cache.
    pub disk_hits: u64,
    /// ptxas runs that produced a module.
    pub compiled: u64,
    /// ptxas runs that failed.
    pub failed: u64,
    /// Wall time of the parallel compile phases of all calls.
    pub compile_wall: Duration,
    /// Sum of the durations of every ptxas run.
    pub compile_cpu: Duration,
}

impl fmt::Display for CompileStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} compiled, {} failed ({:.2} s wall, {:.2} s in ptxas), {} memory hits, {} disk hits",
            self.compiled,
            self.failed,
            self.compile_wall.as_secs_f64(),
            self.compile_cpu.as_secs_f64(),
            self.memory_hits,
            self.disk_hits
        )
    }
}

/// Bytes after the cubin in a disk cache file: this magic, then FNV-1a 64 of the cubin (LE).
const TRAILER_MAGIC: &[u8; 8] = b"PXCUBIN1";
const TRAILER_LEN: usize = 16;
const ELF_MAGIC: &[u8; 4] = b"\x7fELF";

/// Temporary directories of compilers in this process (one per [`Compiler`]).
static INSTANCE: AtomicU64 = AtomicU64::new(0);

/// The compile service: a located ptxas, an in-memory cache, an optional disk cache.
pub struct Compiler {
    ptxas: Ptxas,
    identity: FileIdentity,
    cache_dir: Option<PathBuf>,
    /// Where ptxas reads and writes (`<temp>/ptxconform-compile-<pid>-<instance>`), removed on drop.
    work_dir: PathBuf,
    /// Passed to every ptxas run besides `-arch` (part of each build's cache key).
    options: Vec<String>,
    counter: AtomicU64,
    memory: Mutex<HashMap<CacheKey, Compiled>>,
    stats: Mutex<CompileStats>,
}

impl fmt::Debug for Compiler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Compiler")
            .field("ptxas", &self.ptxas)
            .field("cache_dir", &self.cache_dir)
            .finish_non_exhaustive()
    }
}

impl Compiler {
    /// The service for [`Ptxas::find`], caching on disk in [`default_cache_dir`].
    pub fn find() -> Result<Compiler, String> {
        Compiler::new(Ptxas::find()?, default_cache_dir())
    }

    /// The service for `ptxas`, caching on disk in `cache_dir` (`None`: memory only).
    pub fn new(ptxas: Ptxas, cache_dir: Option<PathBuf>) -> Result<Compiler, String> {
        let identity = FileIdentity::of(&ptxas.path)?;
        let work_dir = std::env::temp_dir().join(format!(
            "ptxconform-compile-{}-{}",
            std::process::id(),
            INSTANCE.fetch_add(1, Ordering::Relaxed)
        ));
        Ok(Compiler {
            ptxas,
            identity,
            cache_dir,
            work_dir,
            options: vec![format!("-O{DEFAULT_OPT_LEVEL}")],
            counter: AtomicU64::new(0),
            memory: Mutex::new(HashMap::new()),
            stats: Mutex::new(CompileStats::default()),
        })
    }

    /// The same service compiling with `-O<level>` (0–3) instead.
    pub fn with_opt_level(mut self, level: u8) -> Result<Compiler, String> {
        if level > 3 {
            return Err(format!("ptxas optimization level {level}: expected 0 to 3"));
        }
        self.options = vec![format!("-O{level}")];
        Ok(self)
    }

    pub fn ptxas(&self) -> &Ptxas {
        &self.ptxas
    }

    /// The `-O` level of this service's builds.
    pub fn opt_level(&self) -> u8 {
        self.options
            .iter()
            .find_map(|o| o.strip_prefix("-O")?.parse().ok())
            .unwrap_or(DEFAULT_OPT_LEVEL)
    }

    /// How a module for `arch` (e.g. `sm_90a`) is built.
    pub fn build(&self, arch: &str) -> Build {
        Build {
            compiler: self.identity.clone(),
            version: self.ptxas.version.clone(),
            arch: arch.to_string(),
            options: self.options.clone(),
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> CompileStats {
        *lock(&self.stats)
    }

    /// Compile `ptx` for `target`.
    pub fn compile(&self, ptx: &str, target: Target) -> Compiled {
        self.compile_many(&[(ptx, target)]).remove(0)
    }

    /// Compile `ptx` for the architecture of its `.target` directive (tests).
    #[cfg(test)]
    fn compile_text(&self, ptx: &str) -> Compiled {
        let arch = target_of(ptx).ok_or("the PTX has no .target directive")?;
        self.compile_arch_many(&[(ptx, arch.to_string())]).remove(0)
    }

    /// Compile every `(ptx, target)`; results in input order. Jobs with the same key compile once;
    /// misses of both caches compile in parallel.
    pub fn compile_many(&self, jobs: &[(&str, Target)]) -> Vec<Compiled> {
        let jobs: Vec<(&str, String)> = jobs.iter().map(|(p, t)| (*p, t.to_string())).collect();
        self.compile_arch_many(&jobs)
    }

    /// [`Compiler::compile_many`] with `-arch` values given as text.
    pub fn compile_arch_many(&self, jobs: &[(&str, String)]) -> Vec<Compiled> {
        let files: Vec<[&str; 1]> = jobs.iter().map(|(ptx, _)| [*ptx]).collect();
        let jobs: Vec<(&[&str], &str)> = files
            .iter()
            .zip(jobs)
            .map(|(f, (_, arch))| (&f[..], arch.as_str()))
            .collect();
        self.compile_files(&jobs)
    }

    /// Compile each job's PTX files for its target in one ptxas run, into one cubin holding
    /// every file's kernels; results in input order. Each file keeps its own `.version` and
    /// `.target` directives, so kernels of several PTX versions share a run (a run's start costs
    /// about as much as a small kernel) without any kernel's text changing; the code of each is
    /// the code its file alone compiles to. Cached and run in parallel as
    /// [`Compiler::compile_many`].
    pub fn compile_files_many(&self, jobs: &[(Vec<&str>, Target)]) -> Vec<Compiled> {
        let archs: Vec<String> = jobs.iter().map(|(_, t)| t.to_string()).collect();
        let jobs: Vec<(&[&str], &str)> = jobs
            .iter()
            .zip(&archs)
            .map(|((files, _), arch)| (files.as_slice(), arch.as_str()))
            .collect();
        self.compile_files(&jobs)
    }

    /// The cache lookups and ptxas runs behind every `compile_*`: one run per job, of its files.
    fn compile_files(&self, jobs: &[(&[&str], &str)]) -> Vec<Compiled> {
        let keys: Vec<CacheKey> = jobs
            .iter()
            .map(|(files, arch)| self.build(arch).key_files(files))
            .collect();
        let mut done: HashMap<CacheKey, Compiled> = HashMap::new();
        // Distinct keys missing from memory, each with its first job.
        let mut missing: Vec<(CacheKey, usize)> = Vec::new();
        {
            let memory = lock(&self.memory);
            let mut hits = 0;
            for (i, k) in keys.iter().enumerate() {
                if done.contains_key(k) || missing.iter().any(|(m, _)| m == k) {
                    continue;
                }
                match memory.get(k) {
                    Some(r) => {
                        hits += 1;
                        done.insert(*k, r.clone());
                    }
                    None => missing.push((*k, i)),
                }
            }
            lock(&self.stats).memory_hits += hits;
        }
        let mut to_compile = Vec::new();
        let mut disk_hits = 0;
        for (k, i) in missing {
            match self.read_disk(k) {
                Some(cubin) => {
                    disk_hits += 1;
                    done.insert(k, Ok(Arc::new(cubin)));
                }
                None => to_compile.push((k, i)),
            }
        }
        let start = Instant::now();
        let compiled: Vec<(CacheKey, Compiled, Duration)> = to_compile
            .par_iter()
            .map(|&(k, i)| {
                let t = Instant::now();
                let _span = ptxconform_core::trace::span("ptxas", jobs[i].0.len());
                let r = self.run_ptxas(jobs[i].0, jobs[i].1);
                let took = t.elapsed();
                if let Ok(cubin) = &r {
                    self.write_disk(k, cubin);
                }
                (k, r.map(Arc::new), took)
            })
            .collect();
        {
            let mut s = lock(&self.stats);
            s.disk_hits += disk_hits;
            if !compiled.is_empty() {
                s.compile_wall += start.elapsed();
            }
            for (_, r, took) in &compiled {
                s.compile_cpu += *took;
                match r {
                    Ok(_) => s.compiled += 1,
                    Err(_) => s.failed += 1,
                }
            }
        }
        let mut memory = lock(&self.memory);
        for (k, r, _) in compiled {
            memory.insert(k, r.clone());
            done.insert(k, r);
        }
        for (k, r) in &done {
            memory.entry(*k).or_insert_with(|| r.clone());
        }
        drop(memory);
        keys.iter().map(|k| done[k].clone()).collect()
    }

    /// `ptxas -arch=<arch> <options> in-0.ptx in-1.ptx … -o out.cubin` in the work directory.
    fn run_ptxas(&self, files: &[&str], arch: &str) -> Result<Vec<u8>, String> {
        std::fs::create_dir_all(&self.work_dir)
            .map_err(|e| format!("cannot create {}: {e}", self.work_dir.display()))?;
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let inputs: Vec<PathBuf> = (0..files.len())
            .map(|i| self.work_dir.join(format!("{n}-{i}.ptx")))
            .collect();
        let output = self.work_dir.join(format!("{n}.cubin"));
        let written = inputs.iter().zip(files).try_for_each(|(input, ptx)| {
            std::fs::write(input, ptx).map_err(|e| format!("cannot write {}: {e}", input.display()))
        });
        let out = written.and_then(|()| {
            Command::new(&self.ptxas.path)
                .arg(format!("-arch={arch}"))
                .args(&self.options)
                .args(&inputs)
                .arg("-o")
                .arg(&output)
                .output()
                .map_err(|e| format!("cannot run {}: {e}", self.ptxas.path.display()))
        });
        let cubin = std::fs::read(&output);
        for input in &inputs {
            let _ = std::fs::remove_file(input);
        }
        let _ = std::fs::remove_file(&output);
        let out = out?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let errs = parse_errors(&stderr);
            let what = if errs.is_empty() {
                stderr.trim().to_string()
            } else {
                errs.iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            return Err(format!(
                "ptxas -arch={arch} failed ({}): {what}",
                out.status
            ));
        }
        let cubin = cubin.map_err(|e| format!("ptxas wrote no {}: {e}", output.display()))?;
        if !cubin.starts_with(ELF_MAGIC) {
            return Err(format!("ptxas -arch={arch} wrote a file that is not ELF"));
        }
        Ok(cubin)
    }

    fn disk_path(&self, k: CacheKey) -> Option<PathBuf> {
        Some(self.cache_dir.as_ref()?.join(format!("{k}.cubin")))
    }

    /// The cached cubin of `k`, or `None` when absent, unreadable or damaged.
    fn read_disk(&self, k: CacheKey) -> Option<Vec<u8>> {
        let mut bytes = std::fs::read(self.disk_path(k)?).ok()?;
        let body = bytes.len().checked_sub(TRAILER_LEN)?;
        let (cubin, trailer) = bytes.split_at(body);
        let sum = u64::from_le_bytes(trailer[8..].try_into().ok()?);
        if &trailer[..8] != TRAILER_MAGIC || sum != fnv1a64(cubin) || !cubin.starts_with(ELF_MAGIC)
        {
            return None;
        }
        bytes.truncate(body);
        Some(bytes)
    }

    /// Store `cubin` under `k` (temporary file, then rename); failures are ignored.
    fn write_disk(&self, k: CacheKey, cubin: &[u8]) {
        let (Some(dir), Some(path)) = (&self.cache_dir, self.disk_path(k)) else {
            return;
        };
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{k}.{}.{n}.tmp", std::process::id()));
        let mut data = Vec::with_capacity(cubin.len() + TRAILER_LEN);
        data.extend_from_slice(cubin);
        data.extend_from_slice(TRAILER_MAGIC);
        data.extend_from_slice(&fnv1a64(cubin).to_le_bytes());
        let ok = std::fs::create_dir_all(dir).is_ok()
            && std::fs::write(&tmp, &data).is_ok()
            && std::fs::rename(&tmp, &path).is_ok();
        if !ok {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

impl Drop for Compiler {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.work_dir);
    }
}

/// Lock `m`, recovering the data from a panicked holder (the caches stay consistent: every
/// update is a single insert or counter change).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptxas::for_tests;

    fn kernel(body: &str) -> String {
        format!(
            ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             .reg .b64 %rd<2>;\n.reg .b32 %r<2>;\nld.param.u64 %rd1, [p];\n{body}\nret;\n}}\n"
        )
    }

    /// A fresh cache directory for one test.
    fn temp_cache(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "ptxconform-cache-test-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn service(dir: &Path) -> Option<Compiler> {
        let p = for_tests()?;
        Some(Compiler::new(p, Some(dir.to_path_buf())).unwrap())
    }

    #[test]
    fn key_is_stable_and_separates_parts() {
        let b = Build {
            compiler: FileIdentity {
                path: "/x/ptxas".into(),
                len: 1,
                modified: None,
            },
            version: "Cuda compilation tools, release 13.0, V13.0.88".into(),
            arch: "sm_90a".into(),
            options: vec!["-O3".into()],
        };
        let k = b.key("ptx");
        assert_eq!(k, b.key("ptx"));
        assert_eq!(k.to_string().len(), 32);
        // The file identity is not part of the key.
        let mut moved = b.clone();
        moved.compiler.path = "/y/ptxas".into();
        assert_eq!(moved.key("ptx"), k);
        for changed in [
            Build {
                version: "release 13.1".into(),
                ..b.clone()
            },
            Build {
                arch: "sm_100a".into(),
                ..b.clone()
            },
            Build {
                options: vec![],
                ..b.clone()
            },
        ] {
            assert_ne!(changed.key("ptx"), k);
        }
        assert_ne!(b.key("ptx "), k);
        // Length prefixes: moving a byte between parts changes the key.
        let shifted = Build {
            arch: "0sm_90a".into(),
            ..b.clone()
        };
        let v = Build {
            version: format!("{}0", b.version),
            ..b.clone()
        };
        assert_ne!(shifted.key("ptx"), v.key("ptx"));
    }

    #[test]
    fn reads_target_and_cache_dir() {
        assert_eq!(target_of(&kernel("")), Some("sm_90a"));
        assert_eq!(
            target_of(".version 9.0\n  .target sm_100f, debug\n"),
            Some("sm_100f")
        );
        assert_eq!(target_of(".targets sm_90\n"), None);
        assert_eq!(target_of(""), None);
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(cache_dir_from(p("/c"), p("/x"), p("/h"), "cubin"), p("/c"));
        assert_eq!(
            cache_dir_from(None, p("/x"), p("/h"), "cubin"),
            p("/x/ptxconform/cubin")
        );
        assert_eq!(
            cache_dir_from(None, None, p("/h"), "cubin"),
            p("/h/.cache/ptxconform/cubin")
        );
        assert_eq!(cache_dir_from(None, None, None, "cubin"), None);
    }

    #[test]
    fn compiles_and_caches_in_memory_and_on_disk() {
        let dir = temp_cache("hits");
        let Some(c) = service(&dir) else { return };
        let ptx = kernel("st.global.u32 [%rd1], 7;");
        let cubin = c.compile(&ptx, Target::SM_90A).unwrap();
        assert!(cubin.starts_with(b"\x7fELF"), "{:?}", &cubin[..4]);
        assert_eq!(c.stats().compiled, 1);
        assert!(c.stats().compile_wall > Duration::ZERO);
        let again = c.compile(&ptx, Target::SM_90A).unwrap();
        assert_eq!(again, cubin);
        let s = c.stats();
        assert_eq!((s.memory_hits, s.disk_hits, s.compiled), (1, 0, 1), "{s}");
        // The `.target` of the text gives the same key.
        assert_eq!(c.compile_text(&ptx).unwrap(), cubin);
        assert_eq!(c.stats().memory_hits, 2);
        let key = c.build("sm_90a").key(&ptx);
        assert!(dir.join(format!("{key}.cubin")).is_file());
        drop(c);

        let fresh = service(&dir).unwrap();
        assert_eq!(fresh.compile(&ptx, Target::SM_90A).unwrap(), cubin);
        let s = fresh.stats();
        assert_eq!((s.memory_hits, s.disk_hits, s.compiled), (0, 1, 0), "{s}");
        // Another optimization level is another build: its own key, compiled anew.
        let o0 = service(&dir).unwrap().with_opt_level(0).unwrap();
        assert_ne!(o0.build("sm_90a").key(&ptx), key);
        assert!(o0
            .compile(&ptx, Target::SM_90A)
            .unwrap()
            .starts_with(b"\x7fELF"));
        assert_eq!(o0.stats().compiled, 1);
        assert!(service(&dir).unwrap().with_opt_level(4).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn corrupt_cache_file_is_recompiled() {
        let dir = temp_cache("corrupt");
        let Some(c) = service(&dir) else { return };
        let ptx = kernel("st.global.u32 [%rd1], 8;");
        let cubin = c.compile(&ptx, Target::SM_90A).unwrap();
        let file = dir.join(format!("{}.cubin", c.build("sm_90a").key(&ptx)));
        let good = std::fs::read(&file).unwrap();
        // Truncated, one flipped byte, and empty: all misses.
        let mut flipped = good.clone();
        flipped[good.len() / 2] ^= 0x55;
        for bad in [good[..good.len() / 2].to_vec(), flipped, Vec::new()] {
            std::fs::write(&file, &bad).unwrap();
            let fresh = service(&dir).unwrap();
            assert_eq!(fresh.compile(&ptx, Target::SM_90A).unwrap(), cubin);
            let s = fresh.stats();
            assert_eq!((s.disk_hits, s.compiled), (0, 1), "{s}");
            // ... and rewritten whole.
            assert_eq!(std::fs::read(&file).unwrap(), good);
        }
        // A directory where the file should be: still a miss, never an error.
        std::fs::remove_file(&file).unwrap();
        std::fs::create_dir(&file).unwrap();
        let fresh = service(&dir).unwrap();
        assert_eq!(fresh.compile(&ptx, Target::SM_90A).unwrap(), cubin);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn invalid_ptx_names_the_error() {
        let dir = temp_cache("invalid");
        let Some(c) = service(&dir) else { return };
        let ptx = kernel("bogus.instr;");
        let e = c.compile(&ptx, Target::SM_90A).unwrap_err();
        assert!(e.contains("line 9") && e.contains("bogus"), "{e}");
        assert!(e.contains("-arch=sm_90a"), "{e}");
        assert_eq!(c.stats().failed, 1);
        // Remembered in memory, never written to disk.
        assert_eq!(c.compile(&ptx, Target::SM_90A).unwrap_err(), e);
        assert_eq!((c.stats().failed, c.stats().memory_hits), (1, 1));
        assert!(std::fs::read_dir(&dir).map_or(true, |mut d| d.next().is_none()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn compile_many_compiles_distinct_kernels_once() {
        let dir = temp_cache("many");
        let Some(c) = service(&dir) else { return };
        let texts: Vec<String> = (0..8)
            .map(|i| kernel(&format!("st.global.u32 [%rd1], {i};")))
            .collect();
        // Every kernel twice, plus one that fails among them.
        let bad = kernel("bogus.instr;");
        let mut jobs: Vec<(&str, Target)> = texts
            .iter()
            .chain(&texts)
            .map(|t| (t.as_str(), Target::SM_90A))
            .collect();
        jobs.insert(3, (bad.as_str(), Target::SM_90A));
        let rs = c.compile_many(&jobs);
        assert_eq!(rs.len(), 17);
        assert!(rs[3].is_err());
        let ok: Vec<&Arc<Vec<u8>>> = rs
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 3)
            .map(|(_, r)| r.as_ref().unwrap())
            .collect();
        assert!(ok.iter().all(|b| b.starts_with(b"\x7fELF")));
        for i in 0..8 {
            assert!(Arc::ptr_eq(ok[i], ok[i + 8]), "job {i} not shared");
        }
        let s = c.stats();
        assert_eq!(
            (s.compiled, s.failed, s.memory_hits, s.disk_hits),
            (8, 1, 0, 0),
            "{s}"
        );
        // The same text for another target is another module (here one ptxas refuses, with an
        // unlocated fatal error).
        let r = c.compile_many(&[
            (texts[0].as_str(), Target::SM_90A),
            (texts[0].as_str(), Target::SM_100A),
        ]);
        assert!(Arc::ptr_eq(r[0].as_ref().unwrap(), ok[0]));
        let e = r[1].as_ref().unwrap_err();
        assert!(
            e.contains("cannot be compiled to future architecture"),
            "{e}"
        );
        let s = c.stats();
        assert_eq!((s.failed, s.memory_hits), (2, 1), "{s}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The bytes of the ELF64 section `name` of `elf` (tests read the code of one kernel).
    fn section<'a>(elf: &'a [u8], name: &str) -> Option<&'a [u8]> {
        let u16_at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]) as usize;
        let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize;
        let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize;
        let (shoff, size, count, names) = (u64_at(0x28), u16_at(0x3A), u16_at(0x3C), u16_at(0x3E));
        let header = |i: usize| shoff + i * size;
        let strtab = u64_at(header(names) + 0x18);
        (0..count).find_map(|i| {
            let h = header(i);
            let at = strtab + u32_at(h);
            let end = at + elf[at..].iter().position(|&b| b == 0)?;
            let (off, len) = (u64_at(h + 0x18), u64_at(h + 0x20));
            (&elf[at..end] == name.as_bytes()).then(|| &elf[off..off + len])
        })
    }

    #[test]
    fn files_of_several_ptx_versions_compile_in_one_run() {
        let dir = temp_cache("files");
        let Some(c) = service(&dir) else { return };
        let a = kernel("st.global.u32 [%rd1], 1;").replace(".entry k(", ".entry ka(");
        let b = kernel("st.global.u32 [%rd1], 2;")
            .replace(".entry k(", ".entry kb(")
            .replace(".version 9.0", ".version 8.0");
        let bad = kernel("bogus.instr;").replace(".entry k(", ".entry kc(");
        let rs = c.compile_files_many(&[
            (vec![a.as_str(), b.as_str()], Target::SM_90A),
            (vec![a.as_str(), bad.as_str()], Target::SM_90A),
        ]);
        let both = rs[0].as_ref().unwrap();
        assert!(rs[1].is_err(), "one bad file fails its run");
        // One run, one cubin: each kernel's code is what its file alone compiles to.
        for (text, entry) in [(&a, "ka"), (&b, "kb")] {
            let alone = c.compile(text, Target::SM_90A).unwrap();
            let code = format!(".text.{entry}");
            let ours = section(both, &code).unwrap_or_else(|| panic!("{code} missing"));
            assert_eq!(Some(ours), section(&alone, &code), "{entry}");
        }
        let s = c.stats();
        assert_eq!((s.compiled, s.failed), (3, 1), "{s}");
        // A list of files is its own key: neither one file's nor the same files in another order.
        let build = c.build("sm_90a");
        assert_eq!(build.key_files(&[&a]), build.key(&a));
        assert_ne!(build.key_files(&[&a, &b]), build.key_files(&[&b, &a]));
        assert_ne!(build.key_files(&[&a, &b]), build.key(&format!("{a}{b}")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
