//! Device and page-locked host memory: allocation, copies and fills, freed on drop.

use cudarc::driver::sys;

use super::{check, Context, DriverError};

impl Context {
    /// Allocate `size` bytes of device global memory (`cuMemAlloc`, never managed memory).
    pub fn alloc(&self, size: usize) -> Result<DeviceBuffer<'_>, DriverError> {
        let mut p: sys::CUdeviceptr = 0;
        // SAFETY: `p` is a valid out-pointer; a zero-size request is rejected by the driver with an
        // error, not UB. The context is current.
        check("cuMemAlloc", unsafe {
            sys::cuMemAlloc_v2(&mut p, size.max(1))
        })?;
        Ok(DeviceBuffer {
            ptr: p,
            size,
            _ctx: std::marker::PhantomData,
        })
    }

    /// Allocate `size` bytes of page-locked host memory (`cuMemAllocHost`): copies between it
    /// and the device go by DMA directly, not through the driver's staging in pieces.
    pub fn alloc_host(&self, size: usize) -> Result<PinnedBuffer<'_>, DriverError> {
        let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
        // SAFETY: `p` is a valid out-pointer; the context is current.
        check("cuMemAllocHost", unsafe {
            sys::cuMemAllocHost_v2(&mut p, size.max(1))
        })?;
        Ok(PinnedBuffer {
            ptr: p.cast(),
            size,
            _ctx: std::marker::PhantomData,
        })
    }
}

/// A `cuMemAlloc` allocation, freed on drop.
#[derive(Debug)]
pub struct DeviceBuffer<'c> {
    ptr: sys::CUdeviceptr,
    size: usize,
    _ctx: std::marker::PhantomData<&'c Context>,
}

impl Drop for DeviceBuffer<'_> {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `cuMemAlloc` and is freed exactly once.
        let _ = unsafe { sys::cuMemFree_v2(self.ptr) };
    }
}

/// A `cuMemAllocHost` allocation, freed on drop.
#[derive(Debug)]
pub struct PinnedBuffer<'c> {
    ptr: *mut u8,
    size: usize,
    _ctx: std::marker::PhantomData<&'c Context>,
}

impl Drop for PinnedBuffer<'_> {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `cuMemAllocHost` and is freed exactly once.
        let _ = unsafe { sys::cuMemFreeHost(self.ptr.cast()) };
    }
}

impl PinnedBuffer<'_> {
    pub fn len(&self) -> usize {
        self.size
    }

    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: `ptr` is a live allocation of `size` bytes owned by this value, borrowed
        // mutably here; the driver writes it only inside calls that borrow it.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.size) }
    }
}

impl DeviceBuffer<'_> {
    pub fn addr(&self) -> u64 {
        self.ptr
    }

    pub fn len(&self) -> usize {
        self.size
    }

    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    fn range(&self, offset: usize, len: usize, call: &'static str) -> Result<(), DriverError> {
        match offset.checked_add(len) {
            Some(end) if end <= self.size => Ok(()),
            _ => Err(DriverError {
                call: call.into(),
                code: 1,
                name: "range outside the allocation".into(),
            }),
        }
    }

    pub fn write(&mut self, offset: usize, data: &[u8]) -> Result<(), DriverError> {
        self.range(offset, data.len(), "cuMemcpyHtoD")?;
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: the destination range lies inside this allocation (checked above); `data` is a
        // valid host slice of `data.len()` bytes.
        check("cuMemcpyHtoD", unsafe {
            sys::cuMemcpyHtoD_v2(self.ptr + offset as u64, data.as_ptr().cast(), data.len())
        })
    }

    pub fn fill(&mut self, byte: u8) -> Result<(), DriverError> {
        // SAFETY: the range [ptr, ptr+size) is this allocation.
        check("cuMemsetD8", unsafe {
            sys::cuMemsetD8_v2(self.ptr, byte, self.size)
        })
    }

    pub fn read(&self, offset: usize, len: usize) -> Result<Vec<u8>, DriverError> {
        let mut out = vec![0u8; len];
        self.read_into(offset, &mut out)?;
        Ok(out)
    }

    /// Copy `out.len()` bytes from `offset` into `out`.
    pub fn read_into(&self, offset: usize, out: &mut [u8]) -> Result<(), DriverError> {
        let len = out.len();
        self.range(offset, len, "cuMemcpyDtoH")?;
        if len == 0 {
            return Ok(());
        }
        // SAFETY: the source range lies inside this allocation; `out` has `len` writable bytes.
        check("cuMemcpyDtoH", unsafe {
            sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), self.ptr + offset as u64, len)
        })
    }
}
