//! `yahtzee serve`: the web advisor, a page and a JSON API over the same library calls as the
//! command line.
//!
//! The server listens on one address (127.0.0.1 unless told otherwise; with `--lan`, the
//! network address and loopback, every request needing the token of [`lan`]) and answers:
//!
//! - `GET /`, `/app.js`, `/style.css`, `/manifest.webmanifest`, `/favicon.ico` and the icons:
//!   the page, embedded in the binary (nothing is fetched from elsewhere: its
//!   Content-Security-Policy allows only this server);
//! - `GET /openapi.yaml`: the description of the API (the file `openapi.yaml` of the
//!   repository);
//! - `/api/...`: one endpoint per task, each answering with the JSON the command line prints
//!   for the same task ([`api`]), and the games played on the page ([`play`]).
//!
//! Every answer comes from the library: advice from [`yahtzee_core::batch`] (an `/api/advise`
//! request body is a batch line), the card from [`yahtzee_core::game::rules::RulesCard`] and
//! [`yahtzee_core::game::state::ScoreCard`], games from the referee [`yahtzee_core::play::Game`], reviews from
//! [`yahtzee_core::play::review`]. A bad request gets status 400 and `{"error": "..."}` with the message
//! the command line prints for the same mistake; a body over the endpoint's limit gets 413
//! (at once when its `Content-Length` says so); an unknown path 404 and a wrong method 405,
//! also as `{"error": "..."}`. No request names a file: the only files the server writes are
//! the tables of its cache, as every command does, and the score pad's records in its games
//! folder ([`pad`]), under names of its own.
//!
//! What a client may ask of it is bounded ([`limits`]): a request that does not name its
//! host once as RFC 9112 asks (no `Host` in HTTP/1.1, two of them, or a target in absolute
//! form naming another) gets 400, a request from another origin (an `Origin` header that is
//! not the server's own) 403, a POST body that is not declared `application/json` 415, a head
//! not read within [`limits::HEADER_TIMEOUT`] closes the connection, a body not read within
//! [`limits::BODY_TIMEOUT`] gets 408; at most [`limits::MAX_CONNECTIONS`] connections are
//! held at once (more wait, unaccepted, until one closes); the long computations run a few at
//! a time (503 with `Retry-After` past the queue), and stop when their client is gone.
//!
//! Tables are loaded (or built) once per rules and shared by every request ([`tables`]);
//! work on them runs on tokio's blocking threads, never on the threads that serve
//! connections, so a build or a long computation does not stall the page.

pub mod api;
pub mod lan;
pub mod limits;
pub mod outlook;
pub mod pad;
pub mod play;
pub mod tables;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http_body_util::BodyExt;
use serde::Serialize;

use yahtzee_core::game::rules::{RuleSet, Rules};
use yahtzee_core::text::excerpt;

pub use tables::{TableHint, TableStore};
pub use yahtzee_core::tables::set::TableKind;

/// The page.
const INDEX_HTML: &str = include_str!("assets/index.html");
/// The page's script.
const APP_JS: &str = include_str!("assets/app.js");
/// The page's score pad.
const PAD_JS: &str = include_str!("assets/pad.js");
/// The page's style.
const STYLE_CSS: &str = include_str!("assets/style.css");
/// The web app manifest: the page on a phone's home screen.
const MANIFEST: &str = include_str!("assets/manifest.webmanifest");
/// The page's icons (made by `scripts/icons.py`).
const ICON_192: &[u8] = include_bytes!("assets/icon-192.png");
const ICON_512: &[u8] = include_bytes!("assets/icon-512.png");
const FAVICON: &[u8] = include_bytes!("assets/favicon.ico");
/// The description of the API.
pub const OPENAPI_YAML: &str = include_str!("../openapi.yaml");

/// The most bytes of a request body, for every endpoint but `/api/review`: far more than
/// any query (a batch line is about 200 bytes), little enough to read at once.
pub const BODY_LIMIT: usize = 64 * 1024;

/// The most bytes of a game record sent to `/api/review`: a record of ten players is about
/// 150 kB.
pub const RECORD_LIMIT: usize = 1024 * 1024;

/// The most threads that work on tables at once (advice, statistics, builds, reviews).
const BLOCKING_THREADS: usize = 16;

/// What `yahtzee serve` was asked for.
#[derive(Clone)]
pub struct ServeOptions {
    /// Where to listen.
    pub addr: SocketAddr,
    /// A second address to listen on, at the same port (`serve --lan`: loopback beside the
    /// network address).
    pub also: Option<IpAddr>,
    /// The secret every request must carry (`serve --lan`), see [`lan`]; `None`: none, and
    /// only a loopback `Host` is answered when the address is loopback.
    pub token: Option<String>,
    /// The rules the page opens with; their table is loaded at start.
    pub rules: Rules,
    /// How to explain a table that cannot be loaded.
    pub hint: TableHint,
    /// Build in the background from the start every table the page's objectives need for
    /// `rules` ([`TableStore::prebuild`]); false (`serve --no-prebuild`): the expected-score
    /// table alone, the others when first asked for.
    pub prebuild: bool,
    /// The score pad's games folder (`serve --games DIR`): one record file per game.
    pub games: std::path::PathBuf,
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The address cannot be listened on (a port in use, an address not of this machine).
    /// Fix: choose another port, or an address of this machine.
    #[error("cannot listen on {addr}: {cause}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        cause: std::io::Error,
    },
    /// The threads of the server cannot be started. Fix: free some resources.
    #[error("cannot start the server's threads: {0}")]
    Runtime(std::io::Error),
    /// The server stopped on an error of the network. Fix: start it again.
    #[error("the server stopped: {0}")]
    Serve(std::io::Error),
}

/// True when `ip` can be reached only from this machine.
pub fn is_local(ip: IpAddr) -> bool {
    ip.is_loopback()
}

/// The state every request shares.
pub struct Server {
    /// The tables.
    pub tables: Arc<TableStore>,
    /// The games being played on the page.
    pub games: play::Games,
    /// The score pad's games, kept in their folder.
    pub pads: pad::Pads,
    /// The rules the page opens with.
    pub rules: Rules,
    /// The exact statistics computed so far, by rules.
    pub stats: api::StatsCache,
    /// The distributions of the final score under the target and win policies, being
    /// computed or kept.
    pub outlooks: outlook::Outlooks,
    /// Answer only requests whose `Host` names this machine by a loopback name (the server
    /// listens on a loopback address): see [`host_is_local`].
    pub loopback_only: bool,
    /// The address bound: its origin (`http://ADDRESS:PORT`) is the server's own, as is
    /// that of the request's `Host` (see [`same_origin`]).
    pub addr: SocketAddr,
    /// The bound on long computations.
    pub limits: limits::Limits,
    /// The token every request must carry (`serve --lan`).
    pub token: Option<String>,
}

/// Runs the server until the process ends: binds `options.addr` (and `options.also` at the
/// same port), calls `ready` with the addresses bound (the port chosen when it was 0),
/// starts loading the table of `options.rules`, and answers requests.
pub fn run(options: ServeOptions, ready: impl FnOnce(&[SocketAddr])) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS)
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.addr)
            .await
            .map_err(|cause| ServeError::Bind {
                addr: options.addr,
                cause,
            })?;
        let addr = listener.local_addr().map_err(|cause| ServeError::Bind {
            addr: options.addr,
            cause,
        })?;
        let mut bound = vec![addr];
        let second = match options.also.filter(|ip| *ip != addr.ip()) {
            Some(ip) => {
                let also = SocketAddr::new(ip, addr.port());
                let l = tokio::net::TcpListener::bind(also)
                    .await
                    .map_err(|cause| ServeError::Bind { addr: also, cause })?;
                bound.push(also);
                Some(l)
            }
            None => None,
        };
        let server = Arc::new(Server {
            tables: Arc::new(TableStore::new(options.hint.clone())),
            games: play::Games::default(),
            pads: pad::Pads::open(options.games.clone()),
            rules: options.rules,
            stats: api::StatsCache::default(),
            outlooks: outlook::Outlooks::default(),
            // With a token, the token keeps out the pages of other names (DNS rebinding): a
            // page elsewhere cannot know it.
            loopback_only: options.token.is_none() && is_local(addr.ip()),
            addr,
            limits: limits::Limits::default(),
            token: options.token.clone(),
        });
        server.tables.start(options.rules, TableKind::ExpectedScore);
        if options.prebuild {
            // The target and distribution tables after it, one at a time, before the first
            // phone connects: a target or win question meanwhile is answered at once with
            // the expected-score advice, marked provisional.
            server.tables.prebuild(options.rules);
        } else {
            // The distribution table (the page's chart) is loaded at start only when it is
            // in the cache: the page asks before a build.
            let distribution = yahtzee_core::tables::default_table_path_of(
                &options.rules,
                yahtzee_core::solve::vector::DISTRIBUTION,
            );
            if distribution.symlink_metadata().is_ok() {
                server.tables.start(options.rules, TableKind::Distribution);
            }
        }
        ready(&bound);
        let app = router(server);
        // One count of the connections held, for both addresses.
        let slots = Arc::new(tokio::sync::Semaphore::new(limits::MAX_CONNECTIONS));
        match second {
            Some(second) => {
                let other = tokio::spawn(accept(second, app.clone(), Arc::clone(&slots)));
                let first = accept(listener, app, slots).await;
                other.abort();
                first
            }
            None => accept(listener, app, slots).await,
        }
    })
}

/// Answers the connections of `listener` with `app`, each on a task of its own, HTTP/1 with
/// [`limits::HEADER_TIMEOUT`] to read each request's head (`axum::serve` sets none). A
/// connection is accepted only with one of the `slots` free ([`limits::MAX_CONNECTIONS`]),
/// held until it closes: past the cap, new connections wait in the system's queue of the
/// listener, costing the server nothing, until a held one closes (an idle one within the
/// head timeout).
async fn accept(
    listener: tokio::net::TcpListener,
    app: Router,
    slots: Arc<tokio::sync::Semaphore>,
) -> Result<(), ServeError> {
    loop {
        // The semaphore is never closed: no slot means no server.
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
            return Ok(());
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // A connection reset before it was accepted is the client's affair; out of file
            // descriptors, wait for some to be closed.
            Err(e) if is_connection_error(&e) => continue,
            Err(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            // Held while the connection is.
            let _slot = slot;
            // A connection's error (a timeout, garbage, a reset) ends that connection alone.
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(limits::HEADER_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    )
}

/// Every route of the server.
pub fn router(server: Arc<Server>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { page(INDEX_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(|| async { page(APP_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/pad.js",
            get(|| async { page(PAD_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/style.css",
            get(|| async { page(STYLE_CSS, "text/css; charset=utf-8") }),
        )
        .route(
            "/manifest.webmanifest",
            get(|| async { page(MANIFEST, "application/manifest+json") }),
        )
        .route(
            "/icon-192.png",
            get(|| async { page(ICON_192, "image/png") }),
        )
        .route(
            "/icon-512.png",
            get(|| async { page(ICON_512, "image/png") }),
        )
        .route(
            "/favicon.ico",
            get(|| async { page(FAVICON, "image/x-icon") }),
        )
        .route(
            "/openapi.yaml",
            get(|| async { page(OPENAPI_YAML, "application/yaml; charset=utf-8") }),
        )
        .merge(api::routes())
        .merge(play::routes())
        .merge(pad::routes())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&server),
            check_request,
        ))
        .with_state(server)
}

/// True when `host` (a `Host` header: a name or address, with or without a port) names this
/// machine by loopback: `localhost` or a name under it, `127.x.y.z`, `[::1]`.
pub fn host_is_local(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        // [::1] or [::1]:8080
        match rest.split_once(']') {
            Some((ip, port)) if port.is_empty() || port.starts_with(':') => {
                return ip
                    .parse::<std::net::Ipv6Addr>()
                    .is_ok_and(|ip| ip.is_loopback());
            }
            _ => return false,
        }
    } else {
        host.rsplit_once(':').map_or(host, |(name, _)| name)
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost"
        || name.ends_with(".localhost")
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// True when `origin` (an `Origin` header) is the server's own: `http://` and the request's
/// `host` (its `Host` header), or `http://` and the address bound, `addr`. Compared without
/// regard to case; `null` (a sandboxed page, a file) is no one's origin.
pub fn same_origin(origin: &str, host: Option<&str>, addr: SocketAddr) -> bool {
    let Some(rest) = origin
        .get(..7)
        .filter(|s| s.eq_ignore_ascii_case("http://"))
    else {
        return false;
    };
    let rest = &origin[rest.len()..];
    let bound = match addr {
        SocketAddr::V4(a) => format!("{}:{}", a.ip(), a.port()),
        SocketAddr::V6(a) => format!("[{}]:{}", a.ip(), a.port()),
    };
    host.is_some_and(|h| !h.is_empty() && rest.eq_ignore_ascii_case(h))
        || rest.eq_ignore_ascii_case(&bound)
}

/// True when the media type of a `Content-Type` is `application/json` (parameters such as
/// `charset` aside).
pub fn is_json(content_type: &str) -> bool {
    is_media_type(content_type, "application/json")
}

/// True when the media type of `content_type` is `media_type`, parameters aside.
fn is_media_type(content_type: &str, media_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case(media_type))
}

/// The host a request names, as RFC 9112 (section 3.2) has a server find it: the `Host`
/// header, which an HTTP/1.1 request must have, once, with a valid `host[:port]` (or empty);
/// a target in absolute form (`GET http://host/path`) must name the same host. `None`: an
/// HTTP/1.0 request without `Host` or an absolute target. Anything else is a 400 that names
/// what is wrong.
pub fn request_host(
    version: axum::http::Version,
    uri: &axum::http::Uri,
    headers: &axum::http::HeaderMap,
) -> Result<Option<String>, ApiError> {
    let rfc = "(RFC 9112, section 3.2)";
    let mut hosts = headers.get_all(header::HOST).iter();
    let host = match (hosts.next(), hosts.next()) {
        (Some(_), Some(_)) => {
            let count = headers.get_all(header::HOST).iter().count();
            return Err(ApiError::bad(format!(
                "the request has {count} Host headers: a request names its host in one {rfc}"
            )));
        }
        (Some(value), None) => {
            let text = value
                .to_str()
                .ok()
                .filter(|t| t.is_empty() || is_host_and_port(t));
            let Some(text) = text else {
                return Err(ApiError::bad(format!(
                    "the Host header {} is not a host and port, like localhost:8080 {rfc}",
                    excerpt(&String::from_utf8_lossy(value.as_bytes()))
                )));
            };
            Some(text.to_string())
        }
        (None, _) => None,
    };
    match (uri.authority(), host) {
        (Some(target), Some(host)) if !target.as_str().eq_ignore_ascii_case(&host) => {
            Err(ApiError::bad(format!(
                "the request's target names the host {} but its Host header {}: a request names one host {rfc}",
                excerpt(target.as_str()),
                excerpt(&host)
            )))
        }
        (Some(target), _) => Ok(Some(target.as_str().to_string())),
        (None, None) if version >= axum::http::Version::HTTP_11 => Err(ApiError::bad(format!(
            "an HTTP/1.1 request needs a Host header naming the server, like Host: localhost:8080 {rfc}"
        ))),
        (None, host) => Ok(host),
    }
}

/// True when `text` is `host` or `host:port` (RFC 9112's `uri-host [ ":" port ]`): no user
/// information, a port of digits.
fn is_host_and_port(text: &str) -> bool {
    let Ok(authority) = text.parse::<axum::http::uri::Authority>() else {
        return false;
    };
    let host = authority.host();
    !text.contains('@')
        && !host.is_empty()
        && text[host.len()..]
            .strip_prefix(':')
            .map_or(text.len() == host.len(), |port| {
                port.bytes().all(|b| b.is_ascii_digit())
            })
}

/// Checks where a request comes from and what it carries, before any endpoint reads it:
///
/// - a request that does not name its one host as RFC 9112 asks is refused (400,
///   [`request_host`]);
/// - a server on a loopback address refuses a request whose host is not a loopback name
///   (403): a page elsewhere whose name was made to resolve to 127.0.0.1 (DNS rebinding)
///   sends its own name, and must not read or drive the local API. An HTTP/1.0 request
///   without `Host` (not a browser) passes;
/// - a request whose `Origin` is not the server's own ([`same_origin`]) is refused (403):
///   any page the user visits can send requests to the local server, and a browser names
///   that page's origin on each (on every POST, and on every cross-origin fetch);
/// - a POST whose body is not declared `application/json` is refused (415): a page elsewhere
///   can send `text/plain` or a form without asking the server first. A POST with no body
///   may leave its `Content-Type` out; game records to `/api/review` or `/api/rating` may also be declared
///   `application/x-ndjson` (its lines are JSON objects), as `openapi.yaml` describes it.
async fn check_request(
    axum::extract::State(server): axum::extract::State<Arc<Server>>,
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let host = match request_host(request.version(), request.uri(), request.headers()) {
        Ok(host) => host,
        Err(e) => return e.into_response(),
    };
    let mut set_cookie = None;
    if let Some(token) = &server.token {
        match check_token(&mut request, token) {
            Ok(cookie) => set_cookie = cookie,
            Err(e) if wants_a_page(&request) => return no_token_page(e),
            Err(e) => return e.into_response(),
        }
    }
    let headers = request.headers();
    if server.loopback_only
        && let Some(host) = &host
        && !host_is_local(host)
    {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            format!(
                "the Host {} is not this machine: the server listens on a loopback address and answers only localhost, 127.0.0.1 or [::1] (give --host to listen elsewhere)",
                excerpt(host)
            ),
        )
        .into_response();
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let host = host.as_deref();
        if !origin
            .to_str()
            .is_ok_and(|o| same_origin(o, host, server.addr))
        {
            let own = match host {
                Some(h) => format!("http://{}", excerpt(h)),
                None => format!("http://{}", server.addr),
            };
            return ApiError::new(
                StatusCode::FORBIDDEN,
                format!(
                    "a request from the page of {} is refused: the server answers only its own page, {own}",
                    excerpt(&String::from_utf8_lossy(origin.as_bytes()))
                ),
            )
            .into_response();
        }
    }
    if request.method() == Method::POST {
        let declared = headers.get(header::CONTENT_TYPE);
        let has_body = headers.contains_key(header::TRANSFER_ENCODING)
            || headers
                .get(header::CONTENT_LENGTH)
                .is_some_and(|n| n.as_bytes() != b"0");
        let review = matches!(request.uri().path(), "/api/review" | "/api/rating");
        let json = declared.is_some_and(|t| {
            t.to_str()
                .is_ok_and(|t| is_json(t) || (review && is_media_type(t, "application/x-ndjson")))
        });
        if !json && (declared.is_some() || has_body) {
            let got = match declared {
                Some(t) => format!("`{}`", excerpt(&String::from_utf8_lossy(t.as_bytes()))),
                None => "none".to_string(),
            };
            return ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "the body of a POST is JSON: send it with Content-Type: application/json (got {got})"
                ),
            )
            .into_response();
        }
    }
    let mut response = next.run(request).await;
    if let Some(cookie) = set_cookie {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// True when `request` is a browser's for a page to show (a GET of HTML, a phone opening an
/// address), not a call of the API.
fn wants_a_page(request: &axum::extract::Request) -> bool {
    matches!(*request.method(), Method::GET | Method::HEAD)
        && request
            .headers()
            .get_all(header::ACCEPT)
            .iter()
            .any(|v| v.to_str().is_ok_and(|v| is_media_type_in(v, "text/html")))
}

/// True when the `Accept` list `accept` names `media_type`.
fn is_media_type_in(accept: &str, media_type: &str) -> bool {
    accept.split(',').any(|t| is_media_type(t, media_type))
}

/// The page a browser gets without the token (403): what to do, in words a phone shows
/// (the error of the API, `refusal`, under it).
fn no_token_page(refusal: ApiError) -> Response {
    let body = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Yahtzee: scan the QR code again</title>\n</head>\n<body>\n<main>\n<h1>Scan the QR code again</h1>\n<p>This page opens only with the address that <code>yahtzee serve --lan</code> printed, with its token: scan the QR code in its terminal again with the phone's camera (or type the address with its <code>?token=...</code>).</p>\n<p>A server started with <code>--new-token</code> shuts out the pages opened with its old token.</p>\n<p><small>{}</small></p>\n</main>\n</body>\n</html>\n",
        html_escape(&refusal.message)
    );
    let mut r = page(body, "text/html; charset=utf-8");
    *r.status_mut() = refusal.status;
    r
}

/// `text` with the characters HTML gives a meaning escaped.
fn html_escape(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            '\'' => "&#39;".to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// Checks the token of a request to a server with one (`serve --lan`): in the
/// [`lan::TOKEN_HEADER`] header, the [`lan::TOKEN_COOKIE`] cookie or the `token` query
/// parameter (taken out of the query before the endpoint reads it). Without it, 403. With it
/// in the query and not in a cookie, the cookie to set: the page's own files and links then
/// carry it.
fn check_token(
    request: &mut axum::extract::Request,
    token: &str,
) -> Result<Option<HeaderValue>, ApiError> {
    let headers = request.headers();
    let by_header = headers
        .get(lan::TOKEN_HEADER)
        .is_some_and(|v| lan::token_matches(v.as_bytes(), token));
    let by_cookie = headers.get_all(header::COOKIE).iter().any(|v| {
        v.as_bytes().split(|&b| b == b';').any(|pair| {
            let pair = pair.trim_ascii();
            pair.strip_prefix(lan::TOKEN_COOKIE.as_bytes())
                .and_then(|rest| rest.strip_prefix(b"="))
                .is_some_and(|t| lan::token_matches(t, token))
        })
    });
    let query = request.uri().query().unwrap_or("");
    let mut in_query = None;
    let rest: Vec<&str> = query
        .split('&')
        .filter(|part| match part.strip_prefix("token=") {
            Some(t) => {
                in_query = Some(t);
                false
            }
            None => !part.is_empty(),
        })
        .collect();
    let by_query = in_query.is_some_and(|t| lan::token_matches(t.as_bytes(), token));
    if !(by_header || by_cookie || by_query) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "this server answers only with its token: open the address with ?token=... that `yahtzee serve --lan` printed (or scan its QR code)",
        ));
    }
    if in_query.is_some() {
        let path = request.uri().path();
        let path_and_query = if rest.is_empty() {
            path.to_string()
        } else {
            format!("{path}?{}", rest.join("&"))
        };
        let mut parts = request.uri().clone().into_parts();
        parts.path_and_query = path_and_query.parse().ok();
        if let Ok(uri) = axum::http::Uri::from_parts(parts) {
            *request.uri_mut() = uri;
        }
    }
    Ok((by_query && !by_cookie)
        .then(|| {
            HeaderValue::from_str(&format!(
                "{}={token}; Path=/; Max-Age={}; HttpOnly; SameSite=Strict",
                lan::TOKEN_COOKIE,
                lan::COOKIE_MAX_AGE
            ))
            .ok()
        })
        .flatten())
}

/// An embedded asset, with a policy that lets the page load nothing from elsewhere.
fn page(body: impl Into<Body>, content_type: &'static str) -> Response {
    let mut r = Response::new(body.into());
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
        ),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

async fn not_found(uri: axum::http::Uri) -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        format!(
            "no such page or endpoint `{}`: the page is /, the endpoints are described in /openapi.yaml",
            excerpt(uri.path())
        ),
    )
    .into_response()
}

async fn method_not_allowed(method: Method, uri: axum::http::Uri) -> Response {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!(
            "{} is not allowed on {}: see /openapi.yaml for the method of each endpoint",
            excerpt(method.as_str()),
            excerpt(uri.path())
        ),
    )
    .into_response()
}

/// An answer other than success: the status and `{"error": message}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// 400 for a bad request, 403 for a request to another host name (see
    /// [`host_is_local`]) or from another origin (see [`same_origin`]), 404, 405, 408 for a
    /// body that does not arrive in time, 413 for a body too large, 415 for a POST body that
    /// is not JSON, 500 for the server's own trouble (a table that cannot be loaded), 503 for
    /// a long request over the bound of [`limits`] (with `Retry-After`).
    pub status: StatusCode,
    /// One line saying what was wrong and what is allowed.
    pub message: String,
}

impl ApiError {
    /// An error of `status` saying `message`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// A bad request (400).
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// The server's own trouble (500).
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.message }).to_string();
        let mut r = (self.status, body).into_response();
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(limits::RETRY_AFTER));
        }
        r
    }
}

/// A JSON answer with status 200.
pub fn json<T: Serialize>(value: &T) -> Response {
    match serde_json::to_string(value) {
        Ok(body) => json_text(body),
        Err(e) => {
            ApiError::internal(format!("cannot write the answer as JSON: {e}")).into_response()
        }
    }
}

/// Text that is JSON already, with status 200.
pub fn json_text(body: String) -> Response {
    let mut r = Response::new(Body::from(body));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// Runs `work` on a blocking thread (table work: advice, statistics, builds, reviews). A
/// panic there, which would be a bug, is a 500, never a dead server.
pub async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(_) => Err(ApiError::internal(
            "internal error: the request's computation failed; please report it with the request",
        )),
    }
}

/// Reads a request body of at most `limit` bytes: more is a 413, at once when the length was
/// announced, else once the limit is passed; a body not read within
/// [`limits::BODY_TIMEOUT`] is a 408.
pub async fn read_body(body: Body, limit: usize, endpoint: &str) -> Result<Vec<u8>, ApiError> {
    use axum::body::HttpBody as _;
    if body.size_hint().lower() > limit as u64 {
        return Err(too_large(limit, endpoint));
    }
    tokio::time::timeout(limits::BODY_TIMEOUT, read_all(body, limit, endpoint))
        .await
        .unwrap_or_else(|_| {
            Err(ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} seconds: send the whole body at once",
                    limits::BODY_TIMEOUT.as_secs()
                ),
            ))
        })
}

fn too_large(limit: usize, endpoint: &str) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the request body is over the limit of {limit} bytes of {endpoint}"),
    )
}

async fn read_all(body: Body, limit: usize, endpoint: &str) -> Result<Vec<u8>, ApiError> {
    let too_large = || too_large(limit, endpoint);
    let mut body = body;
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame =
            frame.map_err(|e| ApiError::bad(format!("cannot read the request body: {e}")))?;
        if let Ok(data) = frame.into_data() {
            if bytes.len() + data.len() > limit {
                return Err(too_large());
            }
            bytes.extend_from_slice(&data);
        }
    }
    Ok(bytes)
}

/// The parameters of a query string, each once, each one of `allowed`.
pub fn query_pairs(
    raw: Option<&str>,
    allowed: &[&str],
    endpoint: &str,
) -> Result<Vec<(String, String)>, ApiError> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for part in raw.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        let key = percent_decode(key);
        let value = percent_decode(value);
        if !allowed.contains(&key.as_str()) {
            let list = match allowed {
                [] => format!("{endpoint} takes no query parameters"),
                [one] => format!("the only parameter of {endpoint} is {one}"),
                [init @ .., last] => format!(
                    "the parameters of {endpoint} are {} and {last}",
                    init.join(", ")
                ),
            };
            return Err(ApiError::bad(format!(
                "unknown query parameter `{}`: {list}",
                excerpt(&key)
            )));
        }
        if pairs.iter().any(|(k, _)| *k == key) {
            return Err(ApiError::bad(format!(
                "query parameter `{key}` is given twice: give it once"
            )));
        }
        pairs.push((key, value));
    }
    Ok(pairs)
}

/// The value of `key` among `pairs`.
pub fn param<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The rules of `rules=NAME&upper_first=BOOL` (absent: `default`'s rule set, any order).
/// The `stream` parameter of a long request: `true` for lines of JSON as they come (`what`
/// says what the lines are), `false` or absent for one answer at the end.
pub fn stream_param(pairs: &[(String, String)], what: &str) -> Result<bool, ApiError> {
    match param(pairs, "stream") {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(other) => Err(ApiError::bad(format!(
            "stream must be true ({what}) or false, not `{}`",
            excerpt(other)
        ))),
    }
}

/// A JSON answer with status 200: `result` with where it comes from, as the command line's
/// `--json` states it.
pub fn stamped_json<T: Serialize>(
    result: &T,
    provenance: yahtzee_core::report::Provenance,
) -> Response {
    json(&yahtzee_core::report::Stamped { result, provenance })
}

pub fn rules_param(pairs: &[(String, String)], default: Rules) -> Result<Rules, ApiError> {
    let set = match param(pairs, "rules") {
        None => default.set,
        Some(name) => RuleSet::from_name(name).ok_or_else(|| {
            ApiError::bad(format!(
                "unknown rule set `{}`: the rule sets are {}",
                excerpt(name),
                RuleSet::names().join(", ")
            ))
        })?,
    };
    let upper_first = match param(pairs, "upper_first") {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(ApiError::bad(format!(
                "upper_first must be true or false, not `{}`",
                excerpt(other)
            )));
        }
    };
    Ok(Rules::with_order(
        set,
        yahtzee_core::game::rules::Order::upper_first(upper_first),
    ))
}

/// `%41` to `A` and `+` to a space; a `%` not followed by two hexadecimal digits stays as
/// it is, and bytes that are not UTF-8 become U+FFFD.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let digit = |k: usize| bytes.get(k).and_then(|&b| hex(b));
                match (digit(i + 1), digit(i + 2)) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 2;
                    }
                    _ => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_decoded_and_checked() {
        assert_eq!(percent_decode("a%20b+c%2"), "a b c%2");
        assert_eq!(percent_decode("%"), "%");
        assert_eq!(percent_decode("%4"), "%4");
        assert_eq!(percent_decode("%41"), "A");
        assert_eq!(percent_decode("%ff"), "\u{fffd}");
        let pairs = query_pairs(
            Some("rules=yacht&upper_first=true"),
            &["rules", "upper_first"],
            "/api/x",
        )
        .unwrap();
        let rules = rules_param(&pairs, Rules::new(RuleSet::YAHTZEE)).unwrap();
        assert_eq!(rules.label(), "yacht (upper first)");
        let e = query_pairs(Some("rules=a&rules=b"), &["rules"], "/api/x").unwrap_err();
        assert!(e.message.contains("given twice"), "{e:?}");
        let e = query_pairs(Some("x=1"), &["rules", "upper_first"], "/api/x").unwrap_err();
        assert_eq!(
            e.message,
            "unknown query parameter `x`: the parameters of /api/x are rules and upper_first"
        );
        let pairs = query_pairs(Some("rules=chess"), &["rules"], "/api/x").unwrap();
        let e = rules_param(&pairs, Rules::new(RuleSet::YAHTZEE)).unwrap_err();
        assert!(
            e.message
                .starts_with("unknown rule set `chess`: the rule sets are yahtzee,")
        );
    }

    /// Issue 45: two `Host` headers (only the first was checked), HTTP/1.1 without `Host`,
    /// and `GET http://evil.example/...` with `Host: 127.0.0.1` were answered 200. RFC 9112
    /// asks for 400.
    #[test]
    fn a_request_names_its_one_host_as_rfc_9112_asks() {
        use axum::http::{HeaderMap, HeaderValue, Uri, Version};
        let headers = |hosts: &[&str]| {
            let mut h = HeaderMap::new();
            for host in hosts {
                h.append(header::HOST, HeaderValue::from_str(host).unwrap());
            }
            h
        };
        let path: Uri = "/api/status".parse().unwrap();
        let absolute: Uri = "http://evil.example/api/status".parse().unwrap();
        let host = |v, uri: &Uri, hosts: &[&str]| request_host(v, uri, &headers(hosts));
        let v11 = Version::HTTP_11;
        assert_eq!(
            host(v11, &path, &["127.0.0.1:8080"]),
            Ok(Some("127.0.0.1:8080".to_string()))
        );
        assert_eq!(host(Version::HTTP_10, &path, &[]), Ok(None));
        let e = host(v11, &path, &["127.0.0.1", "evil.example"]).unwrap_err();
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        assert!(e.message.contains("2 Host headers"), "{e:?}");
        let e = host(v11, &path, &[]).unwrap_err();
        assert!(e.message.contains("needs a Host header"), "{e:?}");
        let e = host(v11, &absolute, &["127.0.0.1"]).unwrap_err();
        assert!(e.message.contains("names the host evil.example"), "{e:?}");
        assert_eq!(
            host(v11, &absolute, &["EVIL.example"]),
            Ok(Some("evil.example".to_string()))
        );
        for bad in ["a b", "user@127.0.0.1", "127.0.0.1:x"] {
            let e = host(v11, &path, &[bad]).unwrap_err();
            assert!(e.message.contains("is not a host and port"), "{bad}: {e:?}");
        }
        assert_eq!(host(v11, &path, &[""]), Ok(Some(String::new())));
    }

    #[test]
    fn loopback_host_names_are_local_and_others_are_not() {
        for host in [
            "localhost",
            "localhost:8080",
            "LOCALHOST.",
            "app.localhost:3000",
            "127.0.0.1",
            "127.0.0.1:8080",
            "127.1.2.3:80",
            "[::1]",
            "[::1]:8080",
        ] {
            assert!(host_is_local(host), "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:8080",
            "localhost.evil.example",
            "192.168.1.2:8080",
            "[::2]:8080",
            "[::1]x",
            "",
            "127.0.0.1.evil.example",
        ] {
            assert!(!host_is_local(host), "{host}");
        }
    }
}
