//! The HTTP server around the router: accepting connections up to a cap,
//! timeouts for slow clients, request bodies read within a size and time
//! limit, and the errors of the HTTP layer itself in the APIs' shapes.
//!
//! axum's own `serve` has no header or body timeouts and no connection cap;
//! a few hundred slow sockets used to exhaust the process's descriptors
//! (RocksDB's included). Here every connection is HTTP/1.1 on hyper, and
//! one that has no request running and has not completed a request head
//! within the header timeout is closed (slow headers, idle keep-alive,
//! answers not read); bodies are read by [`read_body`]; connections past
//! `serve.max_connections` are answered 503 and closed at once.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use super::v2::V2Error;
use super::v3::V3Error;
use super::ApiConfig;

/// An error in the shape of the API the path belongs to: v2's envelope
/// under `/api/v2`, v3's `{"error"}` elsewhere.
pub fn api_error(v2: bool, status: StatusCode, message: impl Into<String>) -> Response {
    if v2 {
        super::v2::error_response(V2Error::new(status.as_u16(), message))
    } else {
        V3Error::new(status, message).into_response()
    }
}

pub(crate) fn is_v2_path(path: &str) -> bool {
    path == "/api/v2" || path.starts_with("/api/v2/")
}

/// Limits of request bodies (the `[serve]` settings).
#[derive(Debug, Clone, Copy)]
pub struct BodyLimits {
    pub max_bytes: usize,
    pub timeout: Duration,
}

impl BodyLimits {
    pub fn from_config(cfg: &ApiConfig) -> Self {
        Self {
            max_bytes: cfg.max_body_bytes,
            timeout: Duration::from_millis(cfg.body_timeout_ms),
        }
    }
}

/// Reads a request's whole body before the handler runs: at most
/// `max_bytes` (413 otherwise, also when `Content-Length` says so up
/// front) within `timeout` (408, and the connection is closed).
pub async fn read_body(limits: BodyLimits, req: Request) -> Result<Request, Response> {
    // A request without a body (every GET) passes as it is.
    if axum::body::HttpBody::is_end_stream(req.body()) {
        return Ok(req);
    }
    let v2 = is_v2_path(req.uri().path());
    let too_large = || {
        closing(api_error(
            v2,
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("request body too large: at most {} bytes", limits.max_bytes),
        ))
    };
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limits.max_bytes as u64) {
        return Err(too_large());
    }
    let (parts, body) = req.into_parts();
    let limited = http_body_util::Limited::new(body, limits.max_bytes);
    match tokio::time::timeout(limits.timeout, limited.collect()).await {
        Err(_) => Err(closing(api_error(
            v2,
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "request body not received within {} ms",
                limits.timeout.as_millis()
            ),
        ))),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Ok(Err(e)) => Err(closing(api_error(
            v2,
            StatusCode::BAD_REQUEST,
            format!("cannot read the request body: {e}"),
        ))),
        Ok(Ok(collected)) => Ok(Request::from_parts(parts, Body::from(collected.to_bytes()))),
    }
}

/// The response, with the connection closed after it.
fn closing(mut resp: Response) -> Response {
    resp.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    resp
}

/// Connection settings (the `[serve]` settings, fitted to the open-file
/// limit by [`connection_limits`]).
#[derive(Debug, Clone, Copy)]
pub struct ConnLimits {
    /// Open connections at most.
    pub max_connections: usize,
    /// Connections over the cap looked at (a health check served, the
    /// rest answered 503) at once; past these, accepting waits.
    pub max_refusing: usize,
    /// Time to send a request's headers; idle keep-alive connections too.
    pub header_timeout: Duration,
}

/// Connections over the cap that are looked at at once (each holds a
/// descriptor for at most [`REFUSE_TIME`], a health check a little longer):
/// a health check among them is served, the rest are answered 503. While
/// all of these are busy, no connection is accepted.
pub const MAX_REFUSING: usize = 256;
/// The longest a connection over the cap may take to be refused (its 503) before it is dropped.
pub const REFUSE_TIME: Duration = Duration::from_millis(300);
/// How long open connections may finish their requests after shutdown
/// begins.
const DRAIN_TIME: Duration = Duration::from_secs(5);

/// Serves `app` on `listener` until `shutdown` completes, then lets open
/// requests finish for a few seconds.
pub async fn serve(
    listener: TcpListener,
    app: super::App,
    limits: ConnLimits,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let open = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let refusing = Arc::new(Semaphore::new(limits.max_refusing));
    // Shutdown: every connection is told (`stop`), then the server waits
    // for their tasks (each holds a `drained` sender) at most DRAIN_TIME.
    // (hyper-util's GracefulShutdown does not take upgradeable connections.)
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let (drained_tx, mut drained_rx) = tokio::sync::mpsc::channel::<()>(1);
    // hyper's own header timeout arms a timer for every request head (a
    // few per cent of a small request's cost); the watchdog below checks
    // each connection a few times per timeout instead.
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(None)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors or a transient error: back off
                    // rather than spin.
                    tracing::warn!("accepting a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let Ok(permit) = Arc::clone(&open).try_acquire_owned() else {
            // While every refusal slot is busy the loop waits here, and new
            // clients wait in the kernel's accept queue instead of being
            // closed unanswered.
            let Ok(refusal) = Arc::clone(&refusing).acquire_owned().await else {
                continue;
            };
            // Over the cap: a health check is still served (a monitor must
            // see a busy server as alive), anything else gets a 503.
            let app = app.clone();
            let mut builder = builder.clone();
            tokio::spawn(async move {
                let _refusal = refusal;
                if is_health_check(&stream).await {
                    let io = TokioIo::new(ShapedErrors::new(stream));
                    builder.keep_alive(false);
                    let conn = builder.serve_connection(io, TowerToHyperService::new(app));
                    let _ = tokio::time::timeout(limits.header_timeout, conn).await;
                } else {
                    let _ = tokio::time::timeout(REFUSE_TIME, refuse(stream)).await;
                }
            });
            continue;
        };
        let io = TokioIo::new(ShapedErrors::new(stream));
        let activity = Arc::new(Activity::new());
        // Shared with a WebSocket the connection is upgraded to: the slot
        // is free only once both are gone.
        let permit = ConnSlot {
            _held: Arc::new(permit),
        };
        let service = Tracked {
            app: app.clone(),
            activity: Arc::clone(&activity),
            peer,
            slot: permit.clone(),
        };
        // With upgrades: Streaming API v2's WebSocket takes the socket over.
        let conn = builder
            .serve_connection(io, TowerToHyperService::new(service))
            .with_upgrades();
        let mut stop = stop_rx.clone();
        let drained = drained_tx.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let _drained = drained;
            let mut stopping = false;
            tokio::pin!(conn);
            let mut check =
                tokio::time::interval((limits.header_timeout / 4).max(Duration::from_millis(1)));
            let mut idle = Idle::new();
            loop {
                tokio::select! {
                    done = &mut conn => {
                        if let Err(e) = done {
                            tracing::debug!("connection: {e}");
                        }
                        break;
                    }
                    _ = check.tick() => {
                        if idle.look(&activity) >= limits.header_timeout {
                            // Dropping the connection closes the socket.
                            break;
                        }
                    }
                    _ = stop.changed(), if !stopping => {
                        // Finish the request in flight, then close.
                        stopping = true;
                        conn.as_mut().graceful_shutdown();
                    }
                }
            }
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    drop(drained_tx);
    if tokio::time::timeout(DRAIN_TIME, drained_rx.recv())
        .await
        .is_err()
    {
        tracing::warn!("open connections did not finish within {DRAIN_TIME:?}");
    }
    Ok(())
}

/// What a connection has done, for the watchdog that closes idle ones: a
/// count of events that count (a request head arrived, so the handler was
/// called; a handler finished) and the requests in flight. The watchdog
/// looks a few times per header timeout; a connection with no request in
/// flight whose count has not moved for the timeout is closed: a client
/// still sending its headers (slowloris), an idle keep-alive socket, or
/// one that will not read its answer. Requests bump a counter rather than
/// read the clock.
struct Activity {
    events: AtomicU64,
    in_flight: AtomicUsize,
}

impl Activity {
    fn new() -> Self {
        Self {
            events: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
        }
    }

    fn touch(&self) {
        self.events.fetch_add(1, Ordering::Relaxed);
    }
}

/// The connection a request came on, for an answer that streams after its
/// handler returned (server-sent events): while it holds an
/// [`ActivityHold`], the watchdog does not take the connection for idle.
#[derive(Clone)]
pub struct StreamActivity(Arc<Activity>);

impl StreamActivity {
    /// Counts the stream as a request in flight until the hold is dropped.
    pub fn hold(&self) -> ActivityHold {
        self.0.in_flight.fetch_add(1, Ordering::Relaxed);
        self.0.touch();
        ActivityHold(Arc::clone(&self.0))
    }
}

/// A streaming answer in flight on its connection (see [`StreamActivity`]).
pub struct ActivityHold(Arc<Activity>);

impl ActivityHold {
    /// Something was sent.
    pub fn touch(&self) {
        self.0.touch();
    }
}

impl Drop for ActivityHold {
    fn drop(&mut self) {
        self.0.touch();
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The watchdog's view of one connection between its looks.
struct Idle {
    events: u64,
    since: std::time::Instant,
}

impl Idle {
    fn new() -> Self {
        Self {
            events: 0,
            since: std::time::Instant::now(),
        }
    }

    /// How long the connection has been idle, as of this look (zero while
    /// a request runs or when something happened since the last look).
    fn look(&mut self, activity: &Activity) -> Duration {
        let events = activity.events.load(Ordering::Relaxed);
        let now = std::time::Instant::now();
        if events != self.events || activity.in_flight.load(Ordering::Relaxed) > 0 {
            self.events = events;
            self.since = now;
        }
        now.saturating_duration_since(self.since)
    }
}

/// The router as one connection's service, noting its activity.
#[derive(Clone)]
struct Tracked {
    app: super::App,
    activity: Arc<Activity>,
    /// The client's address, for per-address rate limits.
    peer: std::net::SocketAddr,
    slot: ConnSlot,
}

/// A connection's place under `serve.max_connections`: a WebSocket that
/// takes the connection over keeps it (a flood of streams is capped as a
/// flood of requests is).
#[derive(Clone)]
pub struct ConnSlot {
    _held: Arc<tokio::sync::OwnedSemaphorePermit>,
}

impl tower_service::Service<Request<hyper::body::Incoming>> for Tracked {
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut req: Request<hyper::body::Incoming>) -> Self::Future {
        req.extensions_mut()
            .insert(axum::extract::ConnectInfo(self.peer));
        req.extensions_mut()
            .insert(StreamActivity(Arc::clone(&self.activity)));
        req.extensions_mut().insert(self.slot.clone());
        self.activity.in_flight.fetch_add(1, Ordering::Relaxed);
        self.activity.touch();
        // hyper's adapter cloned this service for the request already.
        let call = tower_service::Service::call(&mut self.app, req);
        let activity = Arc::clone(&self.activity);
        Box::pin(async move {
            let resp = call.await;
            activity.touch();
            activity.in_flight.fetch_sub(1, Ordering::Relaxed);
            resp
        })
    }
}

/// Whether the request waiting on `stream` (looked at for a moment, not
/// consumed) is `GET` or `HEAD /healthcheck`.
async fn is_health_check(stream: &TcpStream) -> bool {
    let mut head = [0u8; 24];
    let n = tokio::time::timeout(Duration::from_millis(200), stream.peek(&mut head))
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or(0);
    let head = &head[..n];
    ["GET /healthcheck", "HEAD /healthcheck"].iter().any(|p| {
        head.strip_prefix(p.as_bytes())
            .is_some_and(|rest| matches!(rest.first(), Some(b' ' | b'?')))
    })
}

/// Answers a connection over the cap with a 503 in the shape of the API
/// its request line names, then closes it. The request head is read first,
/// and what else arrived is discarded after the answer: closing a socket
/// with unread data resets it, and the client would lose the answer.
async fn refuse(mut stream: TcpStream) {
    use tokio::io::AsyncReadExt;
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    let _ = tokio::time::timeout(Duration::from_millis(100), async {
        while head.len() < 8192 && !head.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(&chunk[..n]),
            }
        }
    })
    .await;
    let v2 = request_family(&head).unwrap_or(false);
    let body = error_body(v2, 503, "too many open connections; try again");
    let resp = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    if stream.write_all(resp.as_bytes()).await.is_err() {
        return;
    }
    let _ = stream.shutdown().await;
    // Discard what already arrived past the head (a body), without waiting
    // for more: the client has its answer.
    while matches!(stream.try_read(&mut chunk), Ok(n) if n > 0) {}
}

/// The JSON error body of the API a path belongs to.
fn error_body(v2: bool, code: u16, message: &str) -> String {
    let message = serde_json::Value::String(message.to_string());
    if v2 {
        format!(
            "{{\"ok\":false,\"error\":{message},\"code\":{code},\"@extra\":\"{}:_:0.000\"}}",
            super::unix_now()
        )
    } else {
        format!("{{\"error\":{message}}}")
    }
}

/// Whether the request line at the start of `chunk` is for v2 (`Some(true)`),
/// another path (`Some(false)`), or `chunk` does not start a request.
fn request_family(chunk: &[u8]) -> Option<bool> {
    let space = chunk.iter().take(16).position(|&b| b == b' ')?;
    if space == 0 || !chunk[..space].iter().all(u8::is_ascii_uppercase) {
        return None;
    }
    let path = &chunk[space + 1..];
    if !path.starts_with(b"/") {
        return None;
    }
    Some(path.starts_with(b"/api/v2/") || path.starts_with(b"/api/v2?") || path == b"/api/v2")
}

/// A connection whose automatic error responses from the HTTP parser (400
/// for a malformed request, 414 for a URI over 64 KiB, 431 for headers
/// too large; hyper writes them with no body) get a JSON body in the shape
/// of the API the request was for. Everything else passes through.
pub struct ShapedErrors<S> {
    inner: S,
    /// The request most recently started on this connection was for v2.
    v2: bool,
    /// A rewritten response being written in place of hyper's.
    pending: Option<Pending>,
}

struct Pending {
    bytes: Vec<u8>,
    written: usize,
    /// Bytes of hyper's response it replaces.
    replaces: usize,
}

impl<S> ShapedErrors<S> {
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            v2: false,
            pending: None,
        }
    }
}

/// hyper's bodiless error response `head`, rewritten with a JSON body.
fn shape_parser_error(head: &[u8], v2: bool) -> Option<Vec<u8>> {
    let rest = head.strip_prefix(b"HTTP/1.1 ")?;
    let (code, message) = match rest.get(..3)? {
        b"400" => (400, "malformed HTTP request"),
        b"414" => (414, "URI too long: at most 65534 bytes"),
        b"431" => (431, "request header fields too large"),
        _ => return None,
    };
    let text = std::str::from_utf8(head).ok()?;
    let (head_text, after) = text.split_once("\r\n\r\n")?;
    if !after.is_empty() {
        return None;
    }
    let mut lines = head_text.split("\r\n");
    let status_line = lines.next()?;
    let mut headers = Vec::new();
    let mut empty_body = false;
    for line in lines {
        let lower = line.to_ascii_lowercase();
        if lower.starts_with("content-type:") {
            return None;
        }
        if let Some(len) = lower.strip_prefix("content-length:") {
            empty_body = len.trim() == "0";
            continue;
        }
        headers.push(line);
    }
    if !empty_body {
        return None;
    }
    let body = error_body(v2, code, message);
    let mut out = format!("{status_line}\r\n");
    for h in headers {
        out.push_str(h);
        out.push_str("\r\n");
    }
    out.push_str(&format!(
        "content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    ));
    Some(out.into_bytes())
}

impl<S: AsyncRead + Unpin> AsyncRead for ShapedErrors<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        ready!(Pin::new(&mut self.inner).poll_read(cx, buf))?;
        if let Some(v2) = request_family(&buf.filled()[before..]) {
            self.v2 = v2;
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> ShapedErrors<S> {
    /// Writes the rest of a rewritten response; ready with the length of
    /// the response it replaces once all of it is out.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        loop {
            let Some(p) = self.pending.as_mut() else {
                return Poll::Ready(Ok(0));
            };
            if p.written == p.bytes.len() {
                let n = p.replaces;
                self.pending = None;
                return Poll::Ready(Ok(n));
            }
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &p.bytes[p.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            p.written += n;
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for ShapedErrors<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.pending.is_none() && buf.starts_with(b"HTTP/1.1 4") {
            if let Some(bytes) = shape_parser_error(buf, this.v2) {
                this.pending = Some(Pending {
                    bytes,
                    written: 0,
                    replaces: buf.len(),
                });
            }
        }
        if this.pending.is_some() {
            return this.poll_pending(cx);
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let first = bufs.iter().find(|b| !b.is_empty());
        let maybe_error = first.is_some_and(|b| b.starts_with(b"HTTP/1.1 4"));
        if self.pending.is_some() || maybe_error {
            // Errors are written one buffer at a time, which a vectored
            // write may always do.
            let first: &[u8] = first.map_or(&[], |b| b);
            return self.poll_write(cx, first);
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.pending.is_some() {
            ready!(self.poll_pending(cx))?;
        }
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Raises the soft open-file limit to the hard one and fits the
/// connection settings under it beside what RocksDB holds open: the
/// follower keeps every table file of `db_dir` open, so twice their count
/// (room to grow) plus a margin is set aside first. Never more than
/// `cfg.max_connections` connections.
pub fn connection_limits(cfg: &ApiConfig, db_dir: &std::path::Path) -> ConnLimits {
    let wanted = ConnLimits {
        max_connections: cfg.max_connections,
        max_refusing: MAX_REFUSING,
        header_timeout: Duration::from_millis(cfg.header_timeout_ms),
    };
    let Some(limit) = raise_nofile_limit() else {
        return wanted;
    };
    let tables = std::fs::read_dir(db_dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "sst"))
                .count()
        })
        .unwrap_or(0);
    let reserved = 2 * tables as u64 + 256;
    let available = limit.saturating_sub(reserved) as usize;
    if available >= wanted.max_connections + wanted.max_refusing {
        return wanted;
    }
    let max_refusing = (available / 4).min(MAX_REFUSING);
    let max_connections = available.saturating_sub(max_refusing).max(16);
    tracing::warn!(
        "open-file limit {limit}: serving at most {max_connections} connections (serve.max_connections = {}); {reserved} descriptors are kept for the database",
        cfg.max_connections
    );
    ConnLimits {
        max_connections,
        max_refusing,
        ..wanted
    }
}

/// The soft `RLIMIT_NOFILE` after raising it as far as allowed.
#[cfg(target_os = "linux")]
fn raise_nofile_limit() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit write and read the struct we pass.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return None;
        }
        if lim.rlim_cur < lim.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: lim.rlim_max,
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim = raised;
            }
        }
    }
    Some(lim.rlim_cur)
}

#[cfg(not(target_os = "linux"))]
fn raise_nofile_limit() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines_tell_the_api() {
        assert_eq!(
            request_family(b"GET /api/v2/getMasterchainInfo HTTP/1.1"),
            Some(true)
        );
        assert_eq!(request_family(b"POST /api/v2/jsonRPC HTTP/1.1"), Some(true));
        assert_eq!(
            request_family(b"GET /api/v3/blocks?x HTTP/1.1"),
            Some(false)
        );
        assert_eq!(request_family(b"GET /api/v20 HTTP/1.1"), Some(false));
        assert_eq!(request_family(b"aaaa=bbbb&cccc"), None);
        assert_eq!(request_family(b" /api/v2/"), None);
    }

    #[test]
    fn parser_errors_get_a_json_body() {
        let head = b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\ndate: Wed, 25 Nov 2026 00:00:00 GMT\r\n\r\n";
        let out = String::from_utf8(shape_parser_error(head, false).unwrap()).unwrap();
        let (h, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(h.starts_with("HTTP/1.1 414 URI Too Long\r\n"));
        assert!(h.contains("date: Wed"));
        assert!(h.contains(&format!("content-length: {}", body.len())));
        let j: serde_json::Value = serde_json::from_str(body).unwrap();
        assert!(j["error"].as_str().unwrap().contains("URI too long"));
        let out = shape_parser_error(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\r\n",
            true,
        )
        .unwrap();
        let body = String::from_utf8(out).unwrap();
        let j: serde_json::Value =
            serde_json::from_str(body.split_once("\r\n\r\n").unwrap().1).unwrap();
        assert_eq!(
            (j["ok"].as_bool(), j["code"].as_u64()),
            (Some(false), Some(431))
        );
        // Our own responses (a body, a content type) pass untouched.
        assert!(shape_parser_error(
            b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n",
            false
        )
        .is_none());
        assert!(shape_parser_error(
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n",
            false
        )
        .is_none());
    }
}
