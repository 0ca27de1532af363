//! Driver errors: a failed call ([`DriverError`], with the driver's name for its code), and the
//! sticky launch-time codes that poison a context ([`TrapKind`], [`SyncError`]).

use std::ffi::{c_char, c_int, CStr};

use cudarc::driver::sys;
use serde::{Deserialize, Serialize};

use super::lookup;

/// A failed driver call: which call, the raw `CUresult`, and the driver's name for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriverError {
    pub call: String,
    pub code: i32,
    pub name: String,
}

impl std::fmt::Display for DriverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed: {} ({})", self.call, self.name, self.code)
    }
}

impl std::error::Error for DriverError {}

/// Name of a `CUresult` code as the driver spells it, falling back to our own table. Private:
/// only called once libcuda is known to be present.
pub(crate) fn error_name(code: i32) -> String {
    if code == 0 {
        return "CUDA_SUCCESS".into();
    }
    // SAFETY: only reached after `is_culib_present()` returned true, so `lookup` does not panic;
    // the code goes through a `c_int` parameter (the C ABI of the enum) so an unknown code is not
    // an invalid Rust enum; `cuGetErrorName` stores a pointer to a static NUL-terminated string
    // or fails, and we only read it on success.
    let from_driver = unsafe {
        match lookup::<unsafe extern "C" fn(c_int, *mut *const c_char) -> c_int>(
            b"cuGetErrorName\0",
        ) {
            Some(f) => {
                let mut p: *const c_char = std::ptr::null();
                if f(code, &mut p) == 0 && !p.is_null() {
                    Some(CStr::from_ptr(p).to_string_lossy().into_owned())
                } else {
                    None
                }
            }
            None => None,
        }
    };
    from_driver.unwrap_or_else(|| match TrapKind::from_code(code) {
        Some(k) => k.driver_name().to_string(),
        None => format!("CUresult({code})"),
    })
}

pub(super) fn check(call: &'static str, r: sys::CUresult) -> Result<(), DriverError> {
    let code = r as i32;
    if code == 0 {
        Ok(())
    } else {
        Err(DriverError {
            call: call.into(),
            code,
            name: error_name(code),
        })
    }
}
/// Sticky launch-time errors: after one of these the context is unusable, so the worker reports
/// the job and exits. Codes from `cudaError_enum` (CUDA 13.0 headers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrapKind {
    IllegalAddress,
    LaunchTimeout,
    Assert,
    HardwareStackError,
    IllegalInstruction,
    MisalignedAddress,
    InvalidAddressSpace,
    InvalidPc,
    LaunchFailed,
    TensorMemoryLeak,
    /// Any other 7xx code reported by the synchronize after a launch.
    Other(i32),
}

impl TrapKind {
    const TABLE: [(i32, TrapKind, &'static str); 10] = [
        (700, TrapKind::IllegalAddress, "CUDA_ERROR_ILLEGAL_ADDRESS"),
        (702, TrapKind::LaunchTimeout, "CUDA_ERROR_LAUNCH_TIMEOUT"),
        (710, TrapKind::Assert, "CUDA_ERROR_ASSERT"),
        (
            714,
            TrapKind::HardwareStackError,
            "CUDA_ERROR_HARDWARE_STACK_ERROR",
        ),
        (
            715,
            TrapKind::IllegalInstruction,
            "CUDA_ERROR_ILLEGAL_INSTRUCTION",
        ),
        (
            716,
            TrapKind::MisalignedAddress,
            "CUDA_ERROR_MISALIGNED_ADDRESS",
        ),
        (
            717,
            TrapKind::InvalidAddressSpace,
            "CUDA_ERROR_INVALID_ADDRESS_SPACE",
        ),
        (718, TrapKind::InvalidPc, "CUDA_ERROR_INVALID_PC"),
        (719, TrapKind::LaunchFailed, "CUDA_ERROR_LAUNCH_FAILED"),
        (
            721,
            TrapKind::TensorMemoryLeak,
            "CUDA_ERROR_TENSOR_MEMORY_LEAK",
        ),
    ];

    /// The trap a synchronize error code denotes; `None` for codes that do not poison the context.
    /// Assumption: every 7xx code other than the non-sticky ones below poisons the context.
    pub fn from_code(code: i32) -> Option<TrapKind> {
        if let Some((_, k, _)) = Self::TABLE.iter().find(|(c, _, _)| *c == code) {
            return Some(*k);
        }
        // 701 out of resources, 703 texturing, 704-713 peer/registration/context bookkeeping, and
        // 720 cooperative-too-large are reported at launch and leave the context usable.
        match code {
            701 | 703..=713 | 720 => None,
            700..=799 => Some(TrapKind::Other(code)),
            _ => None,
        }
    }

    pub fn code(self) -> i32 {
        match self {
            TrapKind::Other(c) => c,
            k => Self::TABLE
                .iter()
                .find(|(_, t, _)| *t == k)
                .map_or(0, |(c, _, _)| *c),
        }
    }

    fn driver_name(self) -> &'static str {
        Self::TABLE
            .iter()
            .find(|(_, t, _)| *t == self)
            .map_or("CUDA_ERROR_<sticky 7xx>", |(_, _, n)| n)
    }
}
/// Outcome of a failed synchronize.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyncError {
    /// A sticky error: the context is poisoned, the process must not issue more work.
    Trap(TrapKind),
    Other(DriverError),
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trap_codes_round_trip_and_non_sticky_codes_are_not_traps() {
        for (code, kind, _) in TrapKind::TABLE {
            assert_eq!(TrapKind::from_code(code), Some(kind));
            assert_eq!(kind.code(), code);
        }
        assert_eq!(TrapKind::from_code(715), Some(TrapKind::IllegalInstruction));
        assert_eq!(
            TrapKind::from_code(701),
            None,
            "out of resources is a launch error"
        );
        assert_eq!(TrapKind::from_code(720), None);
        assert_eq!(TrapKind::from_code(1), None);
        assert_eq!(
            TrapKind::from_code(912),
            None,
            "invalid cluster size is a launch error"
        );
        assert_eq!(TrapKind::from_code(799), Some(TrapKind::Other(799)));
        assert_eq!(TrapKind::Other(799).code(), 799);
    }
}
