//! What the server grants a client, so that no page and no script can make it burn the
//! machine: the timeouts of a request's head and body (see [`HEADER_TIMEOUT`] and
//! [`BODY_TIMEOUT`]), and the long computations (advice against opponents, the exact
//! statistics, reviews) run a few at a time, each stopped when its client is gone.
//!
//! A long request is admitted while fewer than [`AT_ONCE`] + [`WAITING`] are running or
//! waiting, else answered 503 with `Retry-After` at once; it waits its turn without holding a
//! thread, and leaves the queue when its connection closes. Once running, its work sees a
//! [`Cancel`] token (the core's, [`yahtzee_core::cancel`]), set when the request is dropped
//! (the client closed the connection): the solve of the best response against opponents
//! checks it as each card of its backward pass starts (in
//! [`yahtzee_core::policy::advise`], as for every front end), so abandoned advice stops within
//! a card's work instead of running to its end.
//!
//! A long request may also answer as it goes ([`long_stream`]): its work sends lines of JSON
//! (a review, decision by decision) that the client reads as they come, in one chunked
//! answer; the client's closing the connection sets the [`Cancel`] flag as above.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::http::StatusCode;
use serde::Serialize;

use super::{ApiError, Server, blocking};
pub use yahtzee_core::cancel::Cancel;

/// The longest wait for a request's head (its request line and headers), from the moment
/// the connection is ready for one: an idle connection, or a client sending a byte at a
/// time, is closed after it.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest wait for a request's whole body, once its head is read: a body that does not
/// arrive in time is answered 408.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(5);

/// The most connections the server holds at once, on all its addresses: far more than its
/// page uses (a browser keeps at most six to a server; a family's phones and a laptop, about
/// thirty), far fewer than the files a process may open (1024 by default). Past it, a new
/// connection is not accepted until a held one closes (an idle one within
/// [`HEADER_TIMEOUT`]): it waits in the system's queue of the listener, costing the server
/// no file and no memory.
pub const MAX_CONNECTIONS: usize = 128;

/// The long computations that run at once (one per core of a small machine).
pub const AT_ONCE: usize = 2;

/// The long requests that may wait for their turn; one more is answered 503.
pub const WAITING: usize = 8;

/// The seconds a client told 503 is asked to wait (the `Retry-After` header).
pub const RETRY_AFTER: u64 = 10;

/// The bound on long computations of a server.
pub struct Limits {
    /// One permit per computation running.
    permits: Arc<tokio::sync::Semaphore>,
    /// Long requests admitted: running or waiting.
    admitted: Arc<AtomicUsize>,
    /// Computations running.
    running: Arc<AtomicUsize>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            permits: Arc::new(tokio::sync::Semaphore::new(AT_ONCE)),
            admitted: Arc::default(),
            running: Arc::default(),
        }
    }
}

/// Where the long computations stand (in `/api/status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LongWork {
    /// Computations running (at most `at_once`), those of requests gone included until they
    /// stop.
    pub running: usize,
    /// Requests admitted and not yet answered, running or waiting (at most `at_once` +
    /// `waiting`).
    pub admitted: usize,
    /// The most computations that run at once.
    pub at_once: usize,
    /// The most requests that wait for their turn.
    pub waiting: usize,
}

/// A request admitted: counted until dropped.
pub struct Admission(Arc<AtomicUsize>);

impl Drop for Admission {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A computation running: counted until dropped.
struct Running(Arc<AtomicUsize>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The answer to a long request over the bound.
pub fn busy(endpoint: &str) -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        format!(
            "the server is busy: {} long computations are running or waiting, the most it takes ({AT_ONCE} at once, {WAITING} waiting); ask {endpoint} again in {RETRY_AFTER} seconds",
            AT_ONCE + WAITING
        ),
    )
}

/// The answer of a computation stopped because its client is gone (no one reads it).
pub fn stopped() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "the computation was stopped: no request waits for it any more",
    )
}

impl Limits {
    /// Admits one more long request, or says the server is busy (503).
    pub fn admit(&self, endpoint: &str) -> Result<Admission, ApiError> {
        let most = AT_ONCE + WAITING;
        self.admitted
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < most).then_some(n + 1)
            })
            .map_err(|_| busy(endpoint))?;
        Ok(Admission(Arc::clone(&self.admitted)))
    }

    /// Where the long computations stand.
    pub fn status(&self) -> LongWork {
        LongWork {
            running: self.running.load(Ordering::Acquire),
            admitted: self.admitted.load(Ordering::Acquire),
            at_once: AT_ONCE,
            waiting: WAITING,
        }
    }
}

/// Cancels its token when dropped (with the request's future that holds it): the request
/// is gone, the computation's answer will not be read.
struct SetOnDrop(Cancel);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Runs the long computation `work` of a request to `endpoint`: admitted (else 503), in its
/// turn (at most [`AT_ONCE`] at once), on a blocking thread, with a [`Cancel`] set when
/// the request is dropped. Work whose request is gone before its turn never starts; the
/// turn is held until the work ends, even after the request is gone.
pub async fn long_work<T: Send + 'static>(
    server: &Server,
    endpoint: &str,
    work: impl FnOnce(&Cancel) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let admission = server.limits.admit(endpoint)?;
    let permit = Arc::clone(&server.limits.permits)
        .acquire_owned()
        .await
        .map_err(|_| ApiError::internal("internal error: the server's queue is closed"))?;
    let cancel = Cancel::new();
    let _gone = SetOnDrop(cancel.clone());
    server.limits.running.fetch_add(1, Ordering::AcqRel);
    let running = Running(Arc::clone(&server.limits.running));
    blocking(move || {
        let _held = (permit, admission, running);
        if cancel.is_cancelled() {
            return Err(stopped());
        }
        work(&cancel)
    })
    .await
}

/// The lines of a streamed answer as they come, with the flag its closing sets (the client
/// gone: the answer's body dropped).
struct Lines {
    lines: tokio::sync::mpsc::UnboundedReceiver<String>,
    _gone: SetOnDrop,
}

impl hyper::body::Body for Lines {
    type Data = hyper::body::Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        self.lines
            .poll_recv(cx)
            .map(|line| line.map(|l| Ok(hyper::body::Frame::data(l.into()))))
    }
}

/// One line of a streamed answer: `value` as JSON and a newline.
pub fn line<T: Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string(value).unwrap_or_else(|e| {
        format!(r#"{{"type":"error","status":500,"error":"cannot write the answer as JSON: {e}"}}"#)
    });
    text.push('\n');
    text
}

/// An error as the last line of a streamed answer (its status is 200 already).
#[derive(Serialize)]
struct ErrorLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    status: u16,
    error: &'a str,
}

/// The line of `e` ending a streamed answer: `{"type": "error", "status": ..., "error": ...}`.
pub fn error_line(e: &ApiError) -> String {
    line(&ErrorLine {
        kind: "error",
        status: e.status.as_u16(),
        error: &e.message,
    })
}

/// Runs the long computation `work` of a request to `endpoint` as [`long_work`] does
/// (admitted, else 503 at once; in its turn; stopped when the client is gone), answering at
/// once with `application/x-ndjson` whose lines `work` sends as it goes (`send`), then the
/// line it returns, or the error as `{"type": "error", "status": ..., "error": ...}`. A line
/// `{"type": "waiting"}` comes first while the work waits for its turn.
pub fn long_stream(
    server: &Server,
    endpoint: &str,
    work: impl FnOnce(&Cancel, &(dyn Fn(String) + Sync)) -> Result<String, ApiError> + Send + 'static,
) -> Result<axum::response::Response, ApiError> {
    let admission = server.limits.admit(endpoint)?;
    let (tx, cancel, response) = streamed();
    let permits = Arc::clone(&server.limits.permits);
    let running = Arc::clone(&server.limits.running);
    let _ = tx.send("{\"type\":\"waiting\"}\n".to_string());
    tokio::spawn(async move {
        // A client gone while the work waits for its turn leaves the queue.
        let permit = tokio::select! {
            permit = permits.acquire_owned() => permit,
            () = tx.closed() => return,
        };
        let Ok(permit) = permit else {
            return;
        };
        running.fetch_add(1, Ordering::AcqRel);
        let running = Running(running);
        let _ = blocking(move || {
            let _held = (permit, admission, running);
            if cancel.is_cancelled() {
                return Ok(());
            }
            let send = |text: String| {
                let _ = tx.send(text);
            };
            let last = match work(&cancel, &send) {
                Ok(last) => last,
                Err(e) => error_line(&e),
            };
            send(last);
            Ok(())
        })
        .await;
    });
    Ok(response)
}

/// A streamed answer (`application/x-ndjson`, not stored) of the lines sent on the channel
/// returned with it, as they come; the [`Cancel`] is set when the client is gone (the
/// answer's body dropped), and the channel then closed.
pub fn streamed() -> (
    tokio::sync::mpsc::UnboundedSender<String>,
    Cancel,
    axum::response::Response,
) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let cancel = Cancel::new();
    let gone = SetOnDrop(cancel.clone());
    let mut response = axum::response::Response::new(axum::body::Body::new(Lines {
        lines: rx,
        _gone: gone,
    }));
    let headers = response.headers_mut();
    headers.insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/x-ndjson"),
    );
    headers.insert(
        axum::http::header::CACHE_CONTROL,
        axum::http::HeaderValue::from_static("no-store"),
    );
    (tx, cancel, response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_over_the_bound_are_busy() {
        let limits = Limits::default();
        let admitted: Vec<Admission> = (0..AT_ONCE + WAITING)
            .map(|_| limits.admit("/api/x").unwrap())
            .collect();
        let e = limits.admit("/api/x").err().unwrap();
        assert_eq!(e.status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(e.message.starts_with("the server is busy"), "{}", e.message);
        assert_eq!(limits.status().admitted, AT_ONCE + WAITING);
        drop(admitted);
        assert_eq!(limits.status().admitted, 0);
        assert!(limits.admit("/api/x").is_ok());
    }
}
