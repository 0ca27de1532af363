//! Blocks of a campaign drawn and checked ahead of the hardware, one after another, on a thread
//! of their own.
//!
//! A block's kernels compile once it is drawn, and its first step waits for them. Drawn one
//! block ahead, a block's drawing and compiling ran one after the other while the device ran
//! the block before, and took longer: on an H200 a block of 16,384 took 0.4-0.6 s to draw and
//! 0.6-0.8 s to compile, the block before 0.7-1.0 s on the device, and each block's first step
//! waited up to 0.4 s for its kernels (a `PTXCONFORM_TRACE` of a 20 s campaign,
//! `reports/bench/README.md`, h200-2026-12-01w). Drawn further ahead, a block is drawn while
//! the one before it compiles.

use super::{check_block, Block, BlockSpec};
use std::collections::VecDeque;
use std::ops::Range;
use std::sync::mpsc;
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
}

impl Drawer {
    pub(super) fn new() -> Result<Drawer, String> {
        let (ask, asks) = mpsc::channel::<(BlockSpec, Range<u64>)>();
        let (give, got) = mpsc::channel();
        std::thread::Builder::new()
            .name("drawer".into())
            .spawn(move || {
                for (spec, ks) in asks {
                    let (k, t) = (ks.start, std::time::Instant::now());
                    let block = check_block(&spec, ks);
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
