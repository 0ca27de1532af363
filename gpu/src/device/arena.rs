//! Memory shared by a supervisor and its worker, for the payloads of frames ([`super::frame`]).
//!
//! A batched launch moves tens of megabytes each way (every instance's buffers in, every dump and
//! global region back). Through a pipe each byte is copied into and out of the kernel in 64 KiB
//! steps, with a context switch per step; through shared memory it is copied once by its writer
//! and once by its reader. The supervisor creates an anonymous memory file (`memfd`) of two
//! halves, one per direction, and passes its `/proc` path to the worker, which maps it too.
//!
//! **Who writes when.** Each half has one writer. A frame's payloads are placed in the writer's
//! half before the frame is written to the pipe, and the reader copies them out when it reads the
//! frame, so the pipe orders every access. The supervisor starts its half over with each request
//! (it sends one only after the worker answered the last one in full); the worker starts its
//! half over when a request arrives (by then the supervisor has read every earlier answer).
//! Payloads that do not fit go through the pipe as before.

use memmap2::{Mmap, MmapMut, MmapOptions};
use std::fs::File;
use std::io;

/// Bytes of each direction. Pages are only allocated when written, so this bounds a frame's
/// payloads, not memory use.
const HALF: u64 = 1 << 30;

/// The environment variable that gives a worker the arena's path.
pub const ARENA_ENV: &str = "PTXCONFORM_ARENA";

/// Which half: written by the supervisor (requests) or by the worker (results).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    ToWorker,
    FromWorker,
}

impl Way {
    /// Where this direction's half lies in the file.
    fn half(self) -> MmapOptions {
        let mut o = MmapOptions::new();
        o.len(HALF as usize).offset(match self {
            Way::ToWorker => 0,
            Way::FromWorker => HALF,
        });
        o
    }
}

/// The shared memory file.
pub struct Arena {
    file: File,
}

impl Arena {
    /// A new anonymous memory file (Linux `memfd`); elsewhere `Unsupported`.
    pub fn create() -> io::Result<Arena> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{memfd_create, MemfdFlags};
            let fd = memfd_create("ptxconform-arena", MemfdFlags::CLOEXEC)?;
            let file = File::from(fd);
            file.set_len(2 * HALF)?;
            Ok(Arena { file })
        }
        #[cfg(not(target_os = "linux"))]
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "no anonymous memory files on this system",
        ))
    }

    /// The path under which a child process opens this file (the descriptor itself is not
    /// inherited: it is close-on-exec).
    pub fn path_for_child(&self) -> String {
        use std::os::fd::AsRawFd;
        format!("/proc/{}/fd/{}", std::process::id(), self.file.as_raw_fd())
    }

    /// The arena a supervisor created, from [`Arena::path_for_child`].
    pub fn open(path: &str) -> io::Result<Arena> {
        let file = File::options().read(true).write(true).open(path)?;
        if file.metadata()?.len() < 2 * HALF {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{path} is smaller than an arena"),
            ));
        }
        Ok(Arena { file })
    }

    /// The half this side writes.
    pub fn outbox(&self, way: Way) -> io::Result<Outbox> {
        // SAFETY: the file is an arena of this supervisor and its worker only, and this side is
        // the only writer of `way`'s half (see the module docs: the pipe orders every read of it
        // after the writes it reads).
        let map = unsafe { way.half().map_mut(&self.file)? };
        Ok(Outbox { map, next: 0 })
    }

    /// The half the other side writes.
    pub fn inbox(&self, way: Way) -> io::Result<Inbox> {
        // SAFETY: as for `outbox`; this side only reads ranges a frame it has received announced,
        // which their writer does not touch again before this side answers.
        let map = unsafe { way.half().map(&self.file)? };
        Ok(Inbox { map })
    }
}

/// The half a side writes payloads into, from its start after each [`Outbox::reset`].
pub struct Outbox {
    map: MmapMut,
    next: usize,
}

impl Outbox {
    /// Start over: every payload placed before has been read.
    pub fn reset(&mut self) {
        self.next = 0;
    }

    /// Copy `blobs` in after what is there (each 64-byte aligned); where each landed, or `None`
    /// (and nothing written) when they do not all fit.
    pub fn put(&mut self, blobs: &[Vec<u8>]) -> Option<Vec<(usize, usize)>> {
        let mut at = self.next;
        let mut places = Vec::with_capacity(blobs.len());
        for b in blobs {
            let start = at.next_multiple_of(64);
            let end = start.checked_add(b.len())?;
            if end > self.map.len() {
                return None;
            }
            places.push((start, b.len()));
            at = end;
        }
        for (b, &(start, len)) in blobs.iter().zip(&places) {
            self.map[start..start + len].copy_from_slice(b);
        }
        self.next = at;
        Some(places)
    }
}

/// The half the other side writes; read where its frames say.
pub struct Inbox {
    map: Mmap,
}

impl Inbox {
    /// A copy of `len` bytes at `offset`; `None` if that is not inside the half.
    pub fn get(&self, offset: usize, len: usize) -> Option<Vec<u8>> {
        let end = offset.checked_add(len)?;
        self.map.get(offset..end).map(<[u8]>::to_vec)
    }
}

/// Both halves as one side of the pair sees them.
pub struct Ends {
    pub outbox: Outbox,
    pub inbox: Inbox,
}

impl Ends {
    /// The supervisor's ends: it writes requests and reads results.
    pub fn supervisor(a: &Arena) -> io::Result<Ends> {
        Ok(Ends {
            outbox: a.outbox(Way::ToWorker)?,
            inbox: a.inbox(Way::FromWorker)?,
        })
    }

    /// The worker's ends, from the path in [`ARENA_ENV`] if it is set; `None` when it is not set
    /// or the arena cannot be opened (the worker then answers through its pipe only).
    pub fn worker_from_env() -> Option<Ends> {
        let path = std::env::var(ARENA_ENV).ok()?;
        let a = Arena::open(&path)
            .map_err(|e| eprintln!("ptxconform worker: arena {path}: {e}; payloads go by pipe"))
            .ok()?;
        Some(Ends {
            outbox: a.outbox(Way::FromWorker).ok()?,
            inbox: a.inbox(Way::ToWorker).ok()?,
        })
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn both_sides_see_each_others_payloads() {
        let a = Arena::create().unwrap();
        let b = Arena::open(&a.path_for_child()).unwrap();
        let mut sup = Ends::supervisor(&a).unwrap();
        let mut wk = Ends {
            outbox: b.outbox(Way::FromWorker).unwrap(),
            inbox: b.inbox(Way::ToWorker).unwrap(),
        };
        let places = sup.outbox.put(&[vec![1, 2, 3], vec![9; 100]]).unwrap();
        assert_eq!(places, vec![(0, 3), (64, 100)]);
        assert_eq!(wk.inbox.get(64, 100).unwrap(), vec![9; 100]);
        let back = wk.outbox.put(&[vec![7; 5]]).unwrap();
        assert_eq!(sup.inbox.get(back[0].0, 5).unwrap(), vec![7; 5]);
        // Requests do not land in the results' half.
        assert_eq!(wk.inbox.get(0, 3).unwrap(), vec![1, 2, 3]);
        sup.outbox.reset();
        assert_eq!(sup.outbox.put(&[vec![4]]).unwrap(), vec![(0, 1)]);
        assert_eq!(wk.inbox.get(0, 1).unwrap(), vec![4]);
    }

    #[test]
    fn what_does_not_fit_is_refused_whole_and_reads_stay_inside() {
        let a = Arena::create().unwrap();
        let mut sup = Ends::supervisor(&a).unwrap();
        sup.outbox.put(&[vec![1; 10]]).unwrap();
        let too_big = vec![vec![0u8; 16], vec![0u8; HALF as usize]];
        assert!(sup.outbox.put(&too_big).is_none());
        // Nothing was placed: the next payload follows the first.
        assert_eq!(sup.outbox.put(&[vec![2]]).unwrap(), vec![(64, 1)]);
        assert!(sup.inbox.get(HALF as usize - 1, 2).is_none());
        assert!(sup.inbox.get(usize::MAX, 2).is_none());
        assert!(Arena::open("/proc/self/fd/999999").is_err());
    }
}
