//! Where a run's time goes, span by span, when `PTXCONFORM_TRACE` names a file: each stage of
//! the pipeline and of a campaign (drawing a block, a step's reference side, its preparation,
//! the backend's run, decoding and judging, compiles ahead) records a span on the thread that
//! ran it, and [`write`] saves them in the Chrome trace event format, which Perfetto and
//! `chrome://tracing` show as a timeline. Without the variable a span costs one relaxed load.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// The environment variable naming the trace file.
pub const TRACE_ENV: &str = "PTXCONFORM_TRACE";

/// Spans kept at most: about a minute of a campaign's stages (each block and step records a
/// few); past it, spans are dropped and the file says how many.
const MOST_SPANS: usize = 1 << 20;

/// 0: not decided yet, 1: off, 2: on.
static STATE: AtomicU8 = AtomicU8::new(0);

struct Log {
    start: Instant,
    spans: Vec<Recorded>,
    dropped: u64,
}

struct Recorded {
    name: &'static str,
    thread: String,
    from_us: u64,
    to_us: u64,
    items: usize,
}

fn log() -> &'static Mutex<Log> {
    static LOG: OnceLock<Mutex<Log>> = OnceLock::new();
    LOG.get_or_init(|| {
        Mutex::new(Log {
            start: Instant::now(),
            spans: Vec::new(),
            dropped: 0,
        })
    })
}

/// Whether spans are recorded: `PTXCONFORM_TRACE` is set and not empty.
pub fn on() -> bool {
    match STATE.load(Ordering::Relaxed) {
        0 => {
            let on = std::env::var_os(TRACE_ENV).is_some_and(|v| !v.is_empty());
            STATE.store(if on { 2 } else { 1 }, Ordering::Relaxed);
            on
        }
        s => s == 2,
    }
}

/// A stage's span, recorded when dropped (only while tracing is [`on`]).
#[must_use = "a span lasts until it is dropped"]
pub struct Span {
    name: &'static str,
    from: Option<Instant>,
    items: usize,
}

/// A span named `name` over `items` things (cases, modules; 0 where none apply), from now.
pub fn span(name: &'static str, items: usize) -> Span {
    Span {
        name,
        // The clock starts before the first span does.
        from: on().then(|| {
            let _ = log();
            Instant::now()
        }),
        items,
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        let Some(from) = self.from else { return };
        let to = Instant::now();
        let thread = std::thread::current()
            .name()
            .unwrap_or("unnamed")
            .to_string();
        let mut log = log().lock().unwrap_or_else(|e| e.into_inner());
        if log.spans.len() >= MOST_SPANS {
            log.dropped += 1;
            return;
        }
        let us = |t: Instant| t.saturating_duration_since(log.start).as_micros() as u64;
        let (from_us, to_us) = (us(from), us(to));
        log.spans.push(Recorded {
            name: self.name,
            thread,
            from_us,
            to_us,
            items: self.items,
        });
    }
}

/// The spans recorded so far as a Chrome trace (JSON object format), threads numbered in
/// the order they first recorded.
fn chrome_json() -> serde_json::Value {
    use serde_json::json;
    let log = log().lock().unwrap_or_else(|e| e.into_inner());
    let mut threads: Vec<&str> = Vec::new();
    let mut events = Vec::with_capacity(log.spans.len() + 16);
    for s in &log.spans {
        let tid = match threads.iter().position(|t| *t == s.thread) {
            Some(i) => i,
            None => {
                threads.push(&s.thread);
                threads.len() - 1
            }
        };
        events.push(json!({
            "name": s.name, "ph": "X", "pid": 1, "tid": tid,
            "ts": s.from_us, "dur": s.to_us.saturating_sub(s.from_us),
            "args": { "items": s.items },
        }));
    }
    for (tid, t) in threads.iter().enumerate() {
        events.push(json!({
            "name": "thread_name", "ph": "M", "pid": 1, "tid": tid, "args": { "name": t },
        }));
    }
    json!({ "traceEvents": events, "otherData": { "dropped_spans": log.dropped } })
}

/// Save the spans recorded so far to the file `PTXCONFORM_TRACE` names (nothing when tracing
/// is off). Returns the path written.
pub fn write() -> Result<Option<std::path::PathBuf>, String> {
    if !on() {
        return Ok(None);
    }
    let Some(path) = std::env::var_os(TRACE_ENV).map(std::path::PathBuf::from) else {
        return Ok(None);
    };
    let text = serde_json::to_string(&chrome_json()).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spans recorded while on come out as complete events on their thread, named, with their
    /// items; the threads are named by metadata events.
    #[test]
    fn spans_become_chrome_trace_events() {
        STATE.store(2, Ordering::Relaxed);
        std::thread::Builder::new()
            .name("tracer-test".into())
            .spawn(|| {
                let _s = span("test stage", 7);
                std::thread::sleep(std::time::Duration::from_millis(2));
            })
            .unwrap()
            .join()
            .unwrap();
        let v = chrome_json();
        let events = v["traceEvents"].as_array().unwrap();
        let ev = events
            .iter()
            .find(|e| e["name"] == "test stage")
            .expect("the span is recorded");
        assert_eq!(ev["ph"], "X");
        assert_eq!(ev["args"]["items"], 7);
        assert!(ev["dur"].as_u64().unwrap() >= 2000, "{ev}");
        let tid = &ev["tid"];
        assert!(events
            .iter()
            .any(|e| e["ph"] == "M" && &e["tid"] == tid && e["args"]["name"] == "tracer-test"));
    }
}
