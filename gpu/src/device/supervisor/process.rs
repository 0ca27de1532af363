//! A worker process as the supervisor sees it: spawning it (with the shared arena when there is
//! one), waiting for `Ready`, the thread that turns its stdout into events, and killing it.

use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::{placeholder_device, SupervisorConfig};
use crate::device::arena::{Arena, Ends, Outbox, ARENA_ENV};
use crate::device::driver::DeviceInfo;
use crate::device::protocol::{FromWorker, ToWorker};

pub(super) enum Event {
    Msg(FromWorker),
    Corrupt(String),
    Eof,
}

/// A running worker process, killed on drop.
pub(super) struct Worker {
    child: Child,
    pub(super) stdin: ChildStdin,
    pub(super) events: Receiver<Event>,
    pub(super) device: DeviceInfo,
    /// Jobs this worker has finished.
    pub(super) ran: usize,
    /// Modules sent to this worker (it keeps them).
    pub(super) has: std::collections::HashSet<u64>,
    /// Where requests' payloads go, when the worker mapped the arena.
    pub(super) outbox: Option<Outbox>,
}

impl Worker {
    pub(super) fn spawn(cfg: &SupervisorConfig) -> Result<Worker, String> {
        let c = &cfg.command;
        // Without an arena (not Linux, no memory files) payloads go through the pipes.
        let arena = Arena::create().ok();
        let ends = arena.as_ref().and_then(|a| Ends::supervisor(a).ok());
        let mut command = Command::new(&c.program);
        if let (Some(a), Some(_)) = (&arena, &ends) {
            command.env(ARENA_ENV, a.path_for_child());
        }
        let mut child = command
            .args(&c.args)
            .envs(c.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("spawn {}: {e}", c.program.display()))?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("worker pipes missing".into());
            }
        };
        let (outbox, inbox) = match ends {
            Some(Ends { outbox, inbox }) => (Some(outbox), Some(inbox)),
            None => (None, None),
        };
        let (tx, events) = mpsc::channel();
        let reader = std::thread::Builder::new().name("worker-reader".into());
        let spawned = reader.spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Ok(Some(f)) = crate::device::frame::read_via(&mut r, inbox.as_ref()) {
                let ev = match FromWorker::parse_frame(f) {
                    None => continue, // not ours (library chatter, test harness output)
                    Some(Ok(m)) => Event::Msg(m),
                    Some(Err(e)) => Event::Corrupt(e),
                };
                if tx.send(ev).is_err() {
                    return;
                }
            }
            let _ = tx.send(Event::Eof);
        });
        if let Err(e) = spawned {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("worker reader thread: {e}"));
        }
        let mut w = Worker {
            child,
            stdin,
            events,
            device: placeholder_device(),
            ran: 0,
            has: Default::default(),
            outbox: None,
        };
        let ready = w.events.recv_timeout(cfg.start_timeout);
        // The worker has opened the arena (or given up on it) by now; the mappings stay.
        drop(arena);
        match ready {
            Ok(Event::Msg(FromWorker::Ready { device, shared })) => {
                w.device = device;
                w.outbox = outbox.filter(|_| shared);
                Ok(w)
            }
            Ok(Event::Msg(FromWorker::InitFailed { message })) => Err(message),
            Ok(Event::Msg(_)) | Ok(Event::Corrupt(_)) => Err("worker spoke before Ready".into()),
            Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                Err(format!("worker exited during start-up ({})", w.status()))
            }
            Err(RecvTimeoutError::Timeout) => {
                Err(format!("worker not ready after {:?}", cfg.start_timeout))
            }
        }
    }

    pub(super) fn status(&mut self) -> String {
        match self.child.wait() {
            Ok(s) => s.to_string(),
            Err(e) => format!("wait: {e}"),
        }
    }

    pub(super) fn kill(&mut self) {
        // Only our own child, by its handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = writeln!(
            self.stdin,
            "{}",
            serde_json::to_string(&ToWorker::Shutdown).unwrap_or_default()
        );
        let _ = self.stdin.flush();
        // Give a healthy worker a moment to exit on its own, then kill.
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.kill();
    }
}
