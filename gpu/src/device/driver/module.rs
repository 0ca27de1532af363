//! Modules (PTX through the JIT, or cubins), their kernel functions, and launching a kernel on
//! the default stream, then waiting for it.

use std::ffi::{c_uint, c_void, CString};

use cudarc::driver::sys;
use serde::{Deserialize, Serialize};

use super::{check, Context, DriverError, SyncError};

/// Why a module did not load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModuleError {
    /// The PTX text contains a NUL byte and cannot be passed as a C string.
    InteriorNul,
    /// The JIT rejected the PTX: the driver's error plus its error log.
    Jit { error: DriverError, log: String },
}

/// A loaded module. The JIT info log (warnings) is kept for reports.
#[derive(Debug)]
pub struct Module<'c> {
    raw: sys::CUmodule,
    pub info_log: String,
    _ctx: std::marker::PhantomData<&'c Context>,
}

impl Drop for Module<'_> {
    fn drop(&mut self) {
        // SAFETY: `raw` was returned by a successful `cuModuleLoadDataEx` and is unloaded once.
        let _ = unsafe { sys::cuModuleUnload(self.raw) };
    }
}

const JIT_LOG_BYTES: usize = 64 * 1024;

fn log_text(buf: &[u8], used: usize) -> String {
    let used = used.min(buf.len());
    let end = buf[..used].iter().position(|&b| b == 0).unwrap_or(used);
    String::from_utf8_lossy(&buf[..end]).trim_end().to_string()
}

/// Dimensions and shared memory for one launch; `cluster: None` is a plain launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchDims {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    #[serde(default)]
    pub cluster: Option<[u32; 3]>,
    #[serde(default)]
    pub dynamic_smem: u32,
}

/// Above this, a kernel must opt in via `MAX_DYNAMIC_SHARED_SIZE_BYTES`.
pub const DEFAULT_DYNAMIC_SMEM_LIMIT: u32 = 48 * 1024;
/// Portable cluster size limit; larger clusters need `NON_PORTABLE_CLUSTER_SIZE_ALLOWED`.
pub const PORTABLE_CLUSTER_SIZE: u32 = 8;

impl Context {
    /// JIT-compile PTX with `cuModuleLoadDataEx`, capturing the info and error logs.
    pub fn load_module(&self, ptx: &str) -> Result<Module<'_>, ModuleError> {
        self.load_module_at(ptx, None)
    }

    /// [`Context::load_module`] at JIT optimization level `level` (0–4; `None`: the driver's
    /// default).
    pub fn load_module_at(&self, ptx: &str, level: Option<u8>) -> Result<Module<'_>, ModuleError> {
        let image = CString::new(ptx).map_err(|_| ModuleError::InteriorNul)?;
        self.load_image(image.as_bytes_with_nul(), level)
    }

    /// The machine code the driver's JIT makes of `ptx` at `level` (0–4), as a cubin: the same
    /// compiler `cuModuleLoadDataEx` runs, through the linker API (`cuLinkCreate` /
    /// `cuLinkAddData` / `cuLinkComplete`), which hands the image back.
    pub fn jit_cubin(&self, ptx: &str, level: u8) -> Result<Vec<u8>, ModuleError> {
        let image = CString::new(ptx).map_err(|_| ModuleError::InteriorNul)?;
        let mut err = vec![0u8; JIT_LOG_BYTES];
        use sys::CUjit_option as O;
        let mut opts = [
            O::CU_JIT_ERROR_LOG_BUFFER,
            O::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            O::CU_JIT_OPTIMIZATION_LEVEL,
        ];
        let mut vals: [*mut c_void; 3] = [
            err.as_mut_ptr().cast(),
            std::ptr::without_provenance_mut(JIT_LOG_BYTES),
            std::ptr::without_provenance_mut(usize::from(level.min(4))),
        ];
        let fail = |error: DriverError, err: &[u8], used: usize| ModuleError::Jit {
            error,
            log: log_text(err, used),
        };
        let mut state: sys::CUlinkState = std::ptr::null_mut();
        // SAFETY: `opts` and `vals` have equal length 3, the log buffer is JIT_LOG_BYTES long and
        // outlives the link state (destroyed below); the context is current.
        check("cuLinkCreate", unsafe {
            sys::cuLinkCreate_v2(3, opts.as_mut_ptr(), vals.as_mut_ptr(), &mut state)
        })
        .map_err(|e| fail(e, &err, 0))?;
        let bytes = image.as_bytes_with_nul();
        // SAFETY: `bytes` is NUL-terminated PTX alive for the call; the name is a C string; no
        // per-input options.
        let added = check("cuLinkAddData", unsafe {
            sys::cuLinkAddData_v2(
                state,
                sys::CUjitInputType::CU_JIT_INPUT_PTX,
                bytes.as_ptr() as *mut c_void,
                bytes.len(),
                c"kernel.ptx".as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        });
        let mut out: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: `state` is live; on success the image stays valid until cuLinkDestroy, and it is
        // copied out before that.
        let done = added.and_then(|()| {
            check("cuLinkComplete", unsafe {
                sys::cuLinkComplete(state, &mut out, &mut size)
            })
        });
        let cubin = done.map(|()| {
            // SAFETY: `out` points at `size` bytes owned by the link state, alive until destroyed.
            unsafe { std::slice::from_raw_parts(out as *const u8, size) }.to_vec()
        });
        // SAFETY: created above, destroyed once.
        let _ = unsafe { sys::cuLinkDestroy(state) };
        cubin.map_err(|e| fail(e, &err, vals[1].addr()))
    }

    /// Load a compiled module (a cubin from offline ptxas) with `cuModuleLoadDataEx`.
    pub fn load_cubin(&self, cubin: &[u8]) -> Result<Module<'_>, ModuleError> {
        if cubin.len() < 4 || &cubin[..4] != b"\x7fELF" {
            return Err(ModuleError::Jit {
                error: DriverError {
                    call: "cuModuleLoadDataEx".into(),
                    code: 200,
                    name: "CUDA_ERROR_INVALID_IMAGE".into(),
                },
                log: "not an ELF cubin".into(),
            });
        }
        self.load_image(cubin, None)
    }

    /// `image`: NUL-terminated PTX or an ELF cubin.
    fn load_image(&self, image: &[u8], level: Option<u8>) -> Result<Module<'_>, ModuleError> {
        let mut info = vec![0u8; JIT_LOG_BYTES];
        let mut err = vec![0u8; JIT_LOG_BYTES];
        use sys::CUjit_option as O;
        let mut opts = vec![
            O::CU_JIT_INFO_LOG_BUFFER,
            O::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            O::CU_JIT_ERROR_LOG_BUFFER,
            O::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            O::CU_JIT_LOG_VERBOSE,
        ];
        // Size options are passed by value in the pointer slot and overwritten with bytes used.
        let mut vals: Vec<*mut c_void> = vec![
            info.as_mut_ptr().cast(),
            std::ptr::without_provenance_mut(JIT_LOG_BYTES),
            err.as_mut_ptr().cast(),
            std::ptr::without_provenance_mut(JIT_LOG_BYTES),
            std::ptr::without_provenance_mut(1),
        ];
        if let Some(l) = level {
            opts.push(O::CU_JIT_OPTIMIZATION_LEVEL);
            vals.push(std::ptr::without_provenance_mut(usize::from(l.min(4))));
        }
        let mut m: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: `image` is a NUL-terminated PTX string or a cubin, alive for the call; `opts` and `vals` have
        // equal length (5 or 6); the log buffers are JIT_LOG_BYTES long as declared and outlive the call;
        // this context is current on this thread.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut m,
                image.as_ptr().cast(),
                opts.len() as c_uint,
                opts.as_mut_ptr(),
                vals.as_mut_ptr(),
            )
        };
        let info_log = log_text(&info, vals[1].addr());
        match check("cuModuleLoadDataEx", r) {
            Ok(()) => Ok(Module {
                raw: m,
                info_log,
                _ctx: std::marker::PhantomData,
            }),
            Err(error) => {
                let mut log = log_text(&err, vals[3].addr());
                if !info_log.is_empty() {
                    log = if log.is_empty() {
                        info_log
                    } else {
                        format!("{log}\n{info_log}")
                    };
                }
                Err(ModuleError::Jit { error, log })
            }
        }
    }
    /// Launch `f` on the default stream. With `dims.cluster` set this is a cluster launch via the
    /// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION` attribute. `params` holds one byte image per kernel
    /// parameter, in order, each at least as large as the kernel's parameter.
    pub fn launch(
        &self,
        f: &Function<'_>,
        dims: &LaunchDims,
        params: &mut [ParamImage],
    ) -> Result<(), DriverError> {
        if dims.dynamic_smem > DEFAULT_DYNAMIC_SMEM_LIMIT {
            f.set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dims.dynamic_smem as i32,
                "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
            )?;
        }
        if let Some(c) = dims.cluster {
            if c.iter().map(|&v| v as u64).product::<u64>() > PORTABLE_CLUSTER_SIZE as u64 {
                f.set_attribute(
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                    1,
                    "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)",
                )?;
            }
        }
        // SAFETY: an all-zero `CUlaunchAttribute` is a valid value (id IGNORE, zero padding).
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        let mut num_attrs = 0;
        if let Some([x, y, z]) = dims.cluster {
            attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attr.value.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 { x, y, z };
            num_attrs = 1;
        }
        let config = sys::CUlaunchConfig {
            gridDimX: dims.grid[0],
            gridDimY: dims.grid[1],
            gridDimZ: dims.grid[2],
            blockDimX: dims.block[0],
            blockDimY: dims.block[1],
            blockDimZ: dims.block[2],
            sharedMemBytes: dims.dynamic_smem,
            hStream: std::ptr::null_mut(),
            attrs: &mut attr,
            numAttrs: num_attrs,
        };
        let mut ptrs: Vec<*mut c_void> = params.iter_mut().map(|p| p.as_mut_ptr()).collect();
        // SAFETY: `config` and `attr` live across the call; `ptrs` has one pointer per kernel
        // parameter into `params`' storage, which outlives the call (the driver copies the values
        // at launch); `extra` is null. Whether the parameter count/sizes match the kernel is the
        // caller's contract: a mismatch makes the kernel read wrong bytes, it does not corrupt host
        // memory because each image is sized at least as large as the declared parameter.
        let r = unsafe {
            sys::cuLaunchKernelEx(
                &config,
                f.raw,
                if ptrs.is_empty() {
                    std::ptr::null_mut()
                } else {
                    ptrs.as_mut_ptr()
                },
                std::ptr::null_mut(),
            )
        };
        check("cuLaunchKernelEx", r)
    }

    /// Wait for all work on the default stream; map a sticky error to a trap.
    pub fn synchronize(&self) -> Result<(), SyncError> {
        // SAFETY: null is the legacy default stream of the current context.
        let r = unsafe { sys::cuStreamSynchronize(std::ptr::null_mut()) };
        check("cuStreamSynchronize", r).map_err(|e| match super::error::sticky(e.code) {
            Some(kind) => SyncError::Trap(kind),
            None => SyncError::Other(e),
        })
    }
}
/// One kernel parameter's bytes. Stored in `u128` words so any parameter (including a 128-byte,
/// 64-byte-aligned `CUtensorMap`) is suitably aligned for the driver to copy from.
#[derive(Clone, Debug)]
pub struct ParamImage(Vec<u128>);

impl ParamImage {
    pub fn from_bytes(b: &[u8]) -> ParamImage {
        let mut words = vec![0u128; b.len().div_ceil(16).max(1)];
        for (i, chunk) in b.chunks(16).enumerate() {
            let mut w = [0u8; 16];
            w[..chunk.len()].copy_from_slice(chunk);
            words[i] = u128::from_le_bytes(w);
        }
        ParamImage(words)
    }

    fn as_mut_ptr(&mut self) -> *mut c_void {
        self.0.as_mut_ptr().cast()
    }
}

#[derive(Debug)]
pub struct Function<'m> {
    raw: sys::CUfunction,
    _module: std::marker::PhantomData<&'m Module<'m>>,
}

impl Module<'_> {
    pub fn function(&self, name: &str) -> Result<Function<'_>, DriverError> {
        let cname = CString::new(name).map_err(|_| DriverError {
            call: "cuModuleGetFunction".into(),
            code: 500,
            name: "kernel name contains NUL".into(),
        })?;
        let mut f: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: `cname` is NUL-terminated and alive; `self.raw` is a loaded module.
        check("cuModuleGetFunction", unsafe {
            sys::cuModuleGetFunction(&mut f, self.raw, cname.as_ptr())
        })?;
        Ok(Function {
            raw: f,
            _module: std::marker::PhantomData,
        })
    }
}

impl Function<'_> {
    fn set_attribute(
        &self,
        a: sys::CUfunction_attribute,
        v: i32,
        call: &'static str,
    ) -> Result<(), DriverError> {
        // SAFETY: `self.raw` is a function of a loaded module; `a` is a settable attribute.
        check(call, unsafe { sys::cuFuncSetAttribute(self.raw, a, v) })
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jit_log_is_cut_at_nul_and_used_length() {
        let mut b = b"ptxas error: bad\n\0garbage".to_vec();
        b.resize(64, 0);
        assert_eq!(log_text(&b, 64), "ptxas error: bad");
        assert_eq!(log_text(&b, 5), "ptxas");
        assert_eq!(log_text(&b, 1000), "ptxas error: bad");
    }

    #[test]
    fn param_image_is_aligned_and_zero_padded() {
        let mut p = ParamImage::from_bytes(&[1, 2, 3]);
        assert_eq!(p.as_mut_ptr() as usize % 16, 0);
        assert_eq!(
            p.0,
            vec![u128::from_le_bytes([
                1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
            ])]
        );
        assert_eq!(ParamImage::from_bytes(&[0u8; 128]).0.len(), 8);
        assert_eq!(ParamImage::from_bytes(&[]).0.len(), 1);
    }
}
