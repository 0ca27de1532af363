//! Blocks of a campaign drawn and checked ahead of the hardware, one after another, on a thread
//! of their own, and their shapes compiled ahead, one block after another, on another.
//!
//! A block's kernels compile once it is drawn, and its first step waits for them. Drawn one
//! block ahead, a block's drawing and compiling ran one after the other while the device ran
//! the block before, and took longer: on an H200 a block of 16,384 took 0.4-0.6 s to draw and
//! 0.6-0.8 s to compile, the block before 0.7-1.0 s on the device, and each block's first step
//! waited up to 0.4 s for its kernels (a `PTXCONFORM_TRACE` of a 20 s campaign,
//! `reports/bench/README.md`, h200-2026-12-01w). Drawn further ahead, a block is drawn while
//! the one before it compiles.
//!
//! The compiles go one block at a time, in order. Run at once on the compiling pool, a block's
//! compile waiting for its last ptxas took up the next block's compile on the same thread and
//! returned only when that one had: on an H200 (h200-2026-12-01y) a block's kernels, compiled by
//! 5.17 s, were handed over at 6.07 s, while its first step waited 0.85 s for them.

use super::{check_block, Block, BlockSpec};
use ptxconform_core::differential::Prepare;
use ptxconform_core::pools::{self, Stage};
use ptxconform_reference::case::Case;
use std::collections::VecDeque;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// A drawn block: its first program, the block, and how long drawing and checking it took.
type Drawn = (u64, Block, Duration);

/// Blocks asked for, drawn in the order asked.
pub(super) struct Drawer {
    ask: mpsc::Sender<(BlockSpec, Range<u64>)>,
    got: mpsc::Receiver<Drawn>,
    /// The programs of each block asked for and not taken yet, in order.
    asked: VecDeque<Range<u64>>,
    /// The oldest block asked for, drawn and looked at ([`Drawer::peek`]) but not taken yet.
    peeked: Option<Drawn>,
    /// Set when the campaign is done with the drawer: blocks still waiting for their compile
    /// are not compiled.
    ended: Arc<AtomicBool>,
}

impl Drop for Drawer {
    fn drop(&mut self) {
        self.ended.store(true, Ordering::Relaxed);
    }
}

impl Drawer {
    pub(super) fn new() -> Result<Drawer, String> {
        let (ask, asks) = mpsc::channel::<(BlockSpec, Range<u64>)>();
        let (give, got) = mpsc::channel();
        let ended = Arc::new(AtomicBool::new(false));
        let compile = compiler(Arc::clone(&ended))?;
        std::thread::Builder::new()
            .name("drawer".into())
            .spawn(move || {
                for (spec, ks) in asks {
                    let (k, t) = (ks.start, std::time::Instant::now());
                    let (block, firsts) = check_block(&spec, ks);
                    if let Some(w) = spec.warm.filter(|_| !firsts.is_empty()) {
                        // The compiling thread ended only if it panicked: batches then
                        // compile the shapes themselves, which costs time, not results.
                        let _ = compile.send((w, firsts));
                    }
                    // The campaign ended: nobody takes the block.
                    if give.send((k, block, t.elapsed())).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| format!("cannot start the drawing thread: {e}"))?;
        Ok(Drawer {
            ask,
            got,
            asked: VecDeque::new(),
            peeked: None,
            ended,
        })
    }

    /// Draw programs `ks` (a block) with `spec`, after the blocks asked before.
    pub(super) fn ask(&mut self, spec: BlockSpec, ks: Range<u64>) -> Result<(), String> {
        self.asked.push_back(ks.clone());
        self.ask
            .send((spec, ks))
            .map_err(|_| "the drawing thread ended".to_string())
    }

    /// Blocks asked for and not taken yet.
    pub(super) fn pending(&self) -> usize {
        self.asked.len()
    }

    /// The first program of the block asked next (the end of the last asked, if any).
    pub(super) fn next_start(&self) -> Option<u64> {
        self.asked.back().map(|r| r.end)
    }

    /// The first program of the oldest block not taken yet.
    pub(super) fn first_start(&self) -> Option<u64> {
        self.asked.front().map(|r| r.start)
    }

    /// The oldest block asked for and not taken, once drawn.
    pub(super) fn take(&mut self) -> Result<(Block, Duration), String> {
        let want = self
            .asked
            .pop_front()
            .ok_or("no block was asked for")?
            .start;
        let drawn = match self.peeked.take() {
            Some(d) => Ok(d),
            None => self.got.recv(),
        };
        match drawn {
            Ok((k, block, took)) if k == want => Ok((block, took)),
            Ok((k, ..)) => Err(format!("drew the block at {k} where {want} was next")),
            Err(_) => Err("program generation panicked".into()),
        }
    }

    /// The oldest block asked for and not taken, if it is drawn already (without waiting).
    pub(super) fn peek(&mut self) -> Option<&mut Block> {
        let want = self.asked.front()?.start;
        if self.peeked.is_none() {
            self.peeked = self.got.try_recv().ok();
        }
        self.peeked
            .as_mut()
            .filter(|d| d.0 == want)
            .map(|d| &mut d.1)
    }
}

/// A block's shapes to compile ahead: the hardware's host side and one program of each shape.
type ToCompile = (Arc<dyn Prepare>, Vec<Case>);

/// The thread that compiles drawn blocks' shapes, one block after another in the order given,
/// on the compiling pool (below the hardware stage's priority, and ptxas with it). A batch that
/// needs a shape still compiling waits for it; one that reaches a shape not handed over yet
/// compiles it itself. Once the drawer is `ended`, blocks not started are dropped (a campaign's
/// last blocks drawn ahead run nowhere); the thread ends once the drawing thread has.
fn compiler(ended: Arc<AtomicBool>) -> Result<mpsc::Sender<ToCompile>, String> {
    let (send, blocks) = mpsc::channel::<ToCompile>();
    std::thread::Builder::new()
        .name("compile-ahead".into())
        .spawn(move || {
            for (w, firsts) in blocks {
                if ended.load(Ordering::Relaxed) {
                    continue;
                }
                pools::install(Stage::Compile, || {
                    let _span = ptxconform_core::trace::span("block: compile ahead", firsts.len());
                    w.warm(&firsts.iter().collect::<Vec<_>>())
                })
            }
        })
        .map_err(|e| format!("cannot start the compiling thread: {e}"))?;
    Ok(send)
}
