//! The connections of a server: how many, and for how long (issue 38).
//!
//! A server that waits without limit for a request's head, and takes every
//! connection it is offered, can be starved by one client: under the common
//! limit of 1,024 open files, 1,100 connections that never finish their
//! headers left `arena serve` with no file to accept anyone else's. So
//! [`serve`] accepts every connection at once (none waits in the backlog)
//! and keeps it only within [`Limits`]:
//!
//! * at most [`Limits::per_address`] connections from one address (an IPv6
//!   address counts by its /64 network, which one host may hold whole) and
//!   [`Limits::total`] in all; a connection over either cap is closed at
//!   once, unread. An open event stream (server-sent events, which the pages
//!   follow) is a connection like any other;
//! * a request's head must arrive within [`Limits::header_read`], a
//!   kept-alive connection may wait for its next request [`Limits::idle`],
//!   and a request must be answered, its answer's body sent, within
//!   [`Limits::request`]: past its time, the connection is closed. An event
//!   stream (`text/event-stream`) has no time limit: it is meant to stay.
//!
//! These times are kept by the connection's own clock, not by
//! hyper's header read timeout, which also counts the wait between two
//! requests and so cannot tell the head's time from the idle time.
//!
//! An error of `accept` when the process or the system is out of files
//! (`EMFILE`, `ENFILE`) or memory neither stops the server nor makes it spin:
//! it waits [`ACCEPT_PAUSE`] and accepts again, saying nothing (the server's
//! standard output is its address, and a flood must not flood the log).
//!
//! On shutdown the server stops accepting, closes the connections that wait
//! (between requests, or for a head) and the event streams at once, gives
//! the requests being answered [`GRACE`] to finish, and returns. The
//! client's address reaches the handlers as [`ConnectInfo<SocketAddr>`].

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, Response, header};
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::{Service, service_fn};
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rustix::io::Errno;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

/// The default of [`Limits::per_address`].
const PER_ADDRESS: usize = 64;

/// The default of [`Limits::total`] where the limit of open files allows it.
const TOTAL: usize = 512;

/// The open files [`Limits::default`] leaves to the rest of the server
/// (journals, the bots it starts and their pipes) below the process's soft
/// limit of open files.
const RESERVED_FILES: u64 = 64;

/// How long [`serve`] waits after `accept` failed for want of files or memory.
pub const ACCEPT_PAUSE: Duration = Duration::from_millis(50);

/// How long a request being answered when the server shuts down has to finish.
pub const GRACE: Duration = Duration::from_secs(5);

/// The limits on a server's connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most connections open at once from one address (an IPv6 address counts by its /64 network).
    pub per_address: usize,
    /// The most connections open at once in all.
    pub total: usize,
    /// The longest a request's head may take to arrive: from the connection's start for its first request,
    /// from its first byte for the next ones.
    pub header_read: Duration,
    /// The longest a kept-alive connection may wait for the first byte of its next request.
    pub idle: Duration,
    /// The longest a request may take to be answered, from its head to the last byte of its answer; an
    /// event stream (`text/event-stream`) has no limit.
    pub request: Duration,
}

impl Default for Limits {
    /// 64 connections per address; 512 in all, or fewer where the process's soft limit of open files less
    /// a reserve of 64 (for journals, bots and their pipes) is lower; 10 s for a request's head, 30 s
    /// between two requests, 60 s for a request's answer.
    fn default() -> Limits {
        let open_files = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
        Limits {
            per_address: PER_ADDRESS,
            total: total_for(open_files),
            header_read: Duration::from_secs(10),
            idle: Duration::from_secs(30),
            request: Duration::from_secs(60),
        }
    }
}

/// The default cap on all connections under a soft limit of `open_files` (`None`: no limit): [`TOTAL`], or
/// the limit less [`RESERVED_FILES`] where that is lower, but at least one.
fn total_for(open_files: Option<u64>) -> usize {
    let room = open_files.map_or(u64::MAX, |limit| limit.saturating_sub(RESERVED_FILES));
    usize::try_from(room).map_or(TOTAL, |room| room.min(TOTAL)).max(1)
}

/// Serves `app` on the connections of `listener` within `limits` until `shutdown` completes; then stops
/// accepting, lets the requests being answered finish within [`GRACE`], and returns. Handlers find the
/// client's address as [`ConnectInfo<SocketAddr>`]. Fails only when the listener cannot accept any more.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let mut connections = Connections::new(app, limits);
    let mut shutdown = pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => connections.take(stream, peer),
                Err(error) => tokio::time::sleep(pause_after(error)?).await,
            },
            Some(_) = connections.tasks.join_next(), if !connections.tasks.is_empty() => {}
        }
    }
    drop(listener);
    connections.close().await;
    Ok(())
}

/// The connections a server serves.
#[derive(Debug)]
struct Connections {
    app: Router,
    limits: Limits,
    gate: Gate,
    /// Dropped, it tells every connection that the server is closing.
    closing: watch::Sender<()>,
    /// The task of each connection.
    tasks: JoinSet<()>,
}

impl Connections {
    fn new(app: Router, limits: Limits) -> Connections {
        Connections {
            app,
            limits,
            gate: Gate::new(&limits),
            closing: watch::Sender::new(()),
            tasks: JoinSet::new(),
        }
    }

    /// Serves `stream`, from `peer`, if the caps leave it a place; else drops it: closed, unread.
    fn take(&mut self, stream: TcpStream, peer: SocketAddr) {
        if let Some(permit) = self.gate.admit(peer.ip()) {
            let connection = Connection {
                peer,
                app: self.app.clone(),
                limits: self.limits,
                closing: self.closing.subscribe(),
                _permit: permit,
            };
            self.tasks.spawn(connection.serve(stream));
        }
    }

    /// Tells every connection that the server closes, and waits until they have.
    async fn close(self) {
        let Connections { closing, mut tasks, .. } = self;
        drop(closing);
        while tasks.join_next().await.is_some() {}
    }
}

/// How long to wait after `error` from `accept` before accepting again: none when only the connection
/// failed, [`ACCEPT_PAUSE`] otherwise (out of files or memory: accepting again at once would spin); the
/// error itself when the listener is broken.
fn pause_after(error: io::Error) -> io::Result<Duration> {
    match (error.kind(), Errno::from_io_error(&error)) {
        (_, Some(Errno::BADF | Errno::INVAL | Errno::NOTSOCK | Errno::FAULT)) => Err(error),
        (io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionRefused, _) => {
            Ok(Duration::ZERO)
        }
        _ => Ok(ACCEPT_PAUSE),
    }
}

/// The caps on the connections open at once: per address, and in all.
#[derive(Debug)]
struct Gate {
    per_address: usize,
    total: Arc<Semaphore>,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// A connection's place under the caps, given back when it is dropped.
#[derive(Debug)]
struct Permit {
    address: IpAddr,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
    _total: OwnedSemaphorePermit,
}

impl Gate {
    fn new(limits: &Limits) -> Gate {
        Gate {
            per_address: limits.per_address,
            total: Arc::new(Semaphore::new(limits.total.min(Semaphore::MAX_PERMITS))),
            open: Arc::default(),
        }
    }

    /// A place for a connection from `ip`, if both caps leave one.
    fn admit(&self, ip: IpAddr) -> Option<Permit> {
        let address = counted(ip);
        let mut open = lock(&self.open);
        if open.get(&address).copied().unwrap_or(0) >= self.per_address {
            return None;
        }
        let total = Arc::clone(&self.total).try_acquire_owned().ok()?;
        *open.entry(address).or_insert(0) += 1;
        Some(Permit {
            address,
            open: Arc::clone(&self.open),
            _total: total,
        })
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut open = lock(&self.open);
        if let Some(count) = open.get_mut(&self.address) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.address);
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The address a connection from `ip` counts against: an IPv4 address (also when mapped into IPv6) as it
/// is, an IPv6 address by its /64 network.
fn counted(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & (u128::MAX << 64))),
        v4 => v4,
    }
}

/// An accepted connection, with what serving it needs.
#[derive(Debug)]
struct Connection {
    peer: SocketAddr,
    app: Router,
    limits: Limits,
    /// Changes (its sender dropped) when the server closes.
    closing: watch::Receiver<()>,
    _permit: Permit,
}

impl Connection {
    /// Serves the requests of `stream` until the client closes it, its clock runs out, or the server closes.
    async fn serve(self, stream: TcpStream) {
        let clock = Clock::new(self.limits);
        let io = TokioIo::new(Heard {
            stream,
            clock: clock.clone(),
        });
        let answering = answering(self.app, self.peer, clock.clone());
        let connection = http1::Builder::new().keep_alive(true).serve_connection(io, answering);
        let mut connection = pin!(connection);
        tokio::select! {
            _ = connection.as_mut() => return,
            () = clock.expired() => return,
            () = closed(self.closing) => {}
        }
        // The server closes: a connection that waits, or streams, is closed now; an answer gets its grace.
        if clock.phase() != Phase::Answering {
            return;
        }
        connection.as_mut().graceful_shutdown();
        let finished = async {
            tokio::select! {
                _ = connection => {}
                () = clock.expired() => {}
            }
        };
        let _ = tokio::time::timeout(GRACE, finished).await;
    }
}

/// Completes when the server closes: when the sender of `closing` is dropped.
async fn closed(mut closing: watch::Receiver<()>) {
    while closing.changed().await.is_ok() {}
}

/// The service that answers a connection's requests with `app`: each request carries the client's address
/// `peer`, and marks the connection's `clock` as answering until its answer's body is sent (or as streaming
/// when the answer is an event stream).
fn answering(
    app: Router,
    peer: SocketAddr,
    clock: Clock,
) -> impl Service<Request<Incoming>, Response = Response<Answer>, Error = Infallible, Future: Send> {
    let app = TowerToHyperService::new(app);
    service_fn(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        let answering = Answering::start(clock.clone());
        let answer = app.call(request);
        async move {
            let response = answer.await?;
            if is_event_stream(&response) {
                answering.streaming();
            }
            Ok(response.map(|body| Answer {
                body,
                _answering: answering,
            }))
        }
    })
}

/// Whether `response` is an event stream (server-sent events).
fn is_event_stream(response: &Response<Body>) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"))
}

/// Where a connection is, which says how long it may stay there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Reading a request's head: [`Limits::header_read`].
    Head,
    /// Waiting for the next request: [`Limits::idle`].
    Idle,
    /// Answering a request: [`Limits::request`].
    Answering,
    /// Sending an event stream: no limit.
    Streaming,
}

/// A connection's clock: its [`Phase`] and since when, shared by its stream, its service and its task.
#[derive(Debug, Clone)]
struct Clock {
    limits: Limits,
    phase: watch::Sender<(Phase, Instant)>,
}

impl Clock {
    /// The clock of a new connection, whose first request's head is awaited.
    fn new(limits: Limits) -> Clock {
        Clock {
            limits,
            phase: watch::Sender::new((Phase::Head, Instant::now())),
        }
    }

    fn phase(&self) -> Phase {
        self.phase.borrow().0
    }

    /// The connection is now in `phase`.
    fn enter(&self, phase: Phase) {
        self.phase.send_replace((phase, Instant::now()));
    }

    /// Bytes came: a connection that waited for its next request now reads its head.
    fn heard(&self) {
        self.phase.send_if_modified(|(phase, since)| {
            let waited = *phase == Phase::Idle;
            if waited {
                (*phase, *since) = (Phase::Head, Instant::now());
            }
            waited
        });
    }

    /// When a connection in `phase` since `since` has overstayed (`None`: never).
    fn deadline(&self, (phase, since): (Phase, Instant)) -> Option<Instant> {
        let limit = match phase {
            Phase::Head => self.limits.header_read,
            Phase::Idle => self.limits.idle,
            Phase::Answering => self.limits.request,
            Phase::Streaming => return None,
        };
        since.checked_add(limit)
    }

    /// Completes when the connection has stayed in a phase past its limit.
    async fn expired(&self) {
        let mut watched = self.phase.subscribe();
        loop {
            let now = *watched.borrow_and_update();
            let changed = watched.changed();
            match self.deadline(now) {
                Some(deadline) => tokio::select! {
                    () = tokio::time::sleep_until(deadline) => return,
                    _ = changed => {}
                },
                // The clock holds a sender: `changed` fails only when the clock is gone.
                None => changed.await.unwrap_or(()),
            }
        }
    }
}

/// A request being answered: the connection's clock says so until this is dropped, with the answer's body.
#[derive(Debug)]
struct Answering(Clock);

impl Answering {
    fn start(clock: Clock) -> Answering {
        clock.enter(Phase::Answering);
        Answering(clock)
    }

    /// The answer is an event stream.
    fn streaming(&self) {
        self.0.enter(Phase::Streaming);
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.enter(Phase::Idle);
    }
}

/// An answer's body, which keeps its request [`Answering`] until it is sent (or dropped).
#[derive(Debug)]
struct Answer {
    body: Body,
    _answering: Answering,
}

impl http_body::Body for Answer {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A connection's stream, which tells its clock when bytes arrive.
#[derive(Debug)]
struct Heard {
    stream: TcpStream,
    clock: Clock,
}

impl AsyncRead for Heard {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let read = Pin::new(&mut this.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.clock.heard();
        }
        read
    }
}

impl AsyncWrite for Heard {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_leaves_a_reserve_of_files() {
        assert_eq!(total_for(None), TOTAL);
        assert_eq!(total_for(Some(1_048_576)), TOTAL);
        assert_eq!(total_for(Some(1_024)), TOTAL);
        assert_eq!(total_for(Some(256)), 192);
        assert_eq!(total_for(Some(10)), 1);
    }

    #[test]
    fn an_ipv6_host_counts_by_its_network() {
        let ip = |text: &str| text.parse::<IpAddr>().unwrap();
        assert_eq!(counted(ip("192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(counted(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(counted(ip("2001:db8:1:2:aaaa::1")), ip("2001:db8:1:2::"));
        assert_eq!(counted(ip("2001:db8:1:2:bbbb::9")), ip("2001:db8:1:2::"));
    }

    #[test]
    fn the_caps_hold_and_free_their_places() {
        let gate = Gate::new(&Limits {
            per_address: 2,
            total: 3,
            ..Limits::default()
        });
        let one = "127.0.0.1".parse().unwrap();
        let two = "127.0.0.2".parse().unwrap();
        let first = gate.admit(one).unwrap();
        let _second = gate.admit(one).unwrap();
        assert!(gate.admit(one).is_none(), "over the cap per address");
        let _third = gate.admit(two).unwrap();
        assert!(
            gate.admit("127.0.0.3".parse().unwrap()).is_none(),
            "over the cap in all"
        );
        drop(first);
        assert!(gate.admit(one).is_some(), "a closed connection frees its place");
    }

    #[test]
    fn a_lack_of_files_pauses_and_a_broken_listener_stops() {
        let os = |errno: Errno| io::Error::from_raw_os_error(errno.raw_os_error());
        assert_eq!(pause_after(os(Errno::MFILE)).unwrap(), ACCEPT_PAUSE);
        assert_eq!(pause_after(os(Errno::NFILE)).unwrap(), ACCEPT_PAUSE);
        assert_eq!(pause_after(os(Errno::CONNABORTED)).unwrap(), Duration::ZERO);
        assert!(pause_after(os(Errno::BADF)).is_err());
    }
}
