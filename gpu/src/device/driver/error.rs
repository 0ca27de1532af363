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
    from_driver.unwrap_or_else(|| match sticky(code) {
        Some(k) => driver_name(k),
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
/// The sticky error a trapped launch leaves (the case format's type: what the judge decides on).
pub use ptxconform_reference::case_model::TrapKind;

/// The trap a synchronize error code denotes; `None` for codes that do not poison the context.
/// Assumption: every 7xx code other than the non-sticky ones below poisons the context, so the
/// worker reports the job and exits.
pub fn sticky(code: i32) -> Option<TrapKind> {
    // 701 out of resources, 703 texturing, 704-713 peer/registration/context bookkeeping, and
    // 720 cooperative-too-large are reported at launch and leave the context usable.
    let kind = TrapKind::from_code(code);
    match code {
        _ if !matches!(kind, TrapKind::Other(_)) => Some(kind),
        701 | 703..=713 | 720 => None,
        700..=799 => Some(kind),
        _ => None,
    }
}

/// The driver's spelling of a trap (`IllegalAddress` → `CUDA_ERROR_ILLEGAL_ADDRESS`), for when
/// the driver cannot name it itself.
fn driver_name(k: TrapKind) -> String {
    if let TrapKind::Other(c) = k {
        return format!("CUDA_ERROR_<sticky {c}>");
    }
    let mut name = String::from("CUDA_ERROR");
    for ch in k.to_string().chars() {
        if ch.is_ascii_uppercase() {
            name.push('_');
        }
        name.push(ch.to_ascii_uppercase());
    }
    name
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
        for code in [700, 702, 710, 714, 715, 716, 717, 718, 719, 721, 799] {
            let kind = sticky(code).unwrap();
            assert_eq!(kind.code(), code);
        }
        assert_eq!(sticky(715), Some(TrapKind::IllegalInstruction));
        assert_eq!(sticky(701), None, "out of resources is a launch error");
        assert_eq!(sticky(720), None);
        assert_eq!(sticky(1), None);
        assert_eq!(sticky(912), None, "invalid cluster size is a launch error");
        assert_eq!(sticky(799), Some(TrapKind::Other(799)));
    }

    #[test]
    fn traps_are_named_as_the_driver_names_them() {
        assert_eq!(
            driver_name(TrapKind::IllegalAddress),
            "CUDA_ERROR_ILLEGAL_ADDRESS"
        );
        assert_eq!(driver_name(TrapKind::InvalidPc), "CUDA_ERROR_INVALID_PC");
        assert_eq!(
            driver_name(TrapKind::HardwareStackError),
            "CUDA_ERROR_HARDWARE_STACK_ERROR"
        );
    }
}
