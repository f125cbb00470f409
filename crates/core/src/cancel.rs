//! The one way long work is stopped before its end: a [`Cancel`] token, set by whoever no
//! longer wants the answer (a page whose player pressed Cancel, a server whose client is
//! gone), and checked by the work as each card or depth of its solve starts
//! ([`Cancel::until`]). The table set stops a build with it (`TableSet::cancel`), and
//! `policy::advise` the solve of an answer, for every front end alike.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A flag that stops the work that watches it: clones share it, and once set it stays set.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

/// The marker of a computation stopped by [`Cancel::until`].
struct Stopped;

impl Cancel {
    /// A token not set (for work nobody stops: the command line, a batch).
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Stops the work that watches this token, at its next check.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// True once [`Cancel::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Runs `work`, giving it a check to call now and then (from any thread of its solve),
    /// which stops it (unwinding out of it, without a panic message) once the token is set:
    /// the value of `work`, or `None` when stopped. Only for computations that leave nothing
    /// shared half-done when unwound (a solve saves nothing before its end); a real panic of
    /// `work` goes on as a panic.
    pub fn until<R>(&self, work: impl FnOnce(&(dyn Fn() + Sync)) -> R) -> Option<R> {
        let check = || {
            if self.is_cancelled() {
                resume_unwind(Box::new(Stopped));
            }
        };
        match catch_unwind(AssertUnwindSafe(|| work(&check))) {
            Ok(r) => Some(r),
            Err(payload) if payload.is::<Stopped>() => None,
            Err(payload) => resume_unwind(payload),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    #[test]
    fn a_stopped_computation_gives_none_and_a_panic_stays_a_panic() {
        let cancel = Cancel::new();
        let calls = AtomicU32::new(0);
        let out = cancel.until(|check| {
            for _ in 0..10 {
                if calls.fetch_add(1, Ordering::Relaxed) == 2 {
                    cancel.cancel();
                }
                check();
            }
            7
        });
        assert_eq!(out, None);
        assert_eq!(calls.load(Ordering::Relaxed), 3);
        assert!(cancel.clone().is_cancelled());
        let never = Cancel::new();
        assert_eq!(
            never.until(|check| {
                check();
                7
            }),
            Some(7)
        );
        let panicked = catch_unwind(|| never.until(|_| -> u8 { panic!("a bug") }));
        assert!(panicked.is_err());
    }
}
