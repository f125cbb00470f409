//! The allocator of the binary: the system's, but an allocation that fails is one line on
//! stderr and exit status 2, as every error of the program, instead of Rust's "memory
//! allocation of N bytes failed", a backtrace and an abort (SIGABRT).
//!
//! A table too large for the memory available is refused before any work
//! (`tables::set::check_fits`); this is for what no estimate foresees: a limit set on the
//! process (`ulimit -v`) or memory taken by other programs meanwhile, met anywhere.
//!
//! The message is written without allocating (the memory just ran out): into a buffer on the
//! stack, then to stderr, which has no buffer of its own.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// The system's allocator, whose failures end the program with one line.
pub struct OneLine;

// SAFETY: every call is the system allocator's, with the same arguments; only a null result
// (a failure) is acted on, by ending the process.
unsafe impl GlobalAlloc for OneLine {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on unchanged.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            exhausted(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            exhausted(layout.size());
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            exhausted(new_size);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as `alloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// A writer into a buffer on the stack: the message is made without allocating.
struct Line {
    bytes: [u8; 512],
    len: usize,
}

impl std::fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let room = self.bytes.len() - self.len;
        let n = s.len().min(room);
        self.bytes[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// Says that `bytes` could not be had and ends the program with status 2. An allocation
/// failing while this runs (the exit flushes stdout) aborts: there is nothing left to say it
/// with.
fn exhausted(bytes: usize) -> ! {
    static ENDING: AtomicBool = AtomicBool::new(false);
    if ENDING.swap(true, Ordering::SeqCst) {
        std::process::abort();
    }
    let mut line = Line {
        bytes: [0; 512],
        len: 0,
    };
    let gib = bytes as f64 / f64::from(1u32 << 30);
    let _ = std::fmt::write(
        &mut line,
        format_args!(
            "error: out of memory: {bytes} bytes ({gib:.2} GiB) more could not be had (the machine's memory, or a limit set on this process such as `ulimit -v`); free some memory, raise the limit, or play a smaller game (fewer boxes, a lower upper-bonus threshold)\n"
        ),
    );
    let mut err = std::io::stderr().lock();
    if err.is_terminal() {
        // A progress bar may be drawn on the line: the message starts a line of its own.
        let _ = err.write_all(b"\n");
    }
    let _ = err.write_all(&line.bytes[..line.len]);
    drop(err);
    // A temporary file of a write under way is left to the next write into its folder, which
    // removes those of processes gone (as after a `kill -9`): its clean-up here could wait
    // for a lock this thread holds.
    std::process::exit(2)
}
