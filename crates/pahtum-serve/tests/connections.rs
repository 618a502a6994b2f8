//! [`pahtum_serve::connections::serve`] with small limits, against a tiny
//! application: the caps per address and in all, the time for a request's
//! head, between two requests and for an answer, the event stream that stays,
//! the client's address for the handlers, and the shutdown that closes the
//! waiting connections at once and lets an answer finish. Every wait is a
//! read with a deadline. The same server under 2,000 slow connections, as
//! `arena serve`, is `crates/arena/tests/serve_connections.rs`.

use std::convert::Infallible;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{ConnectInfo, State};
use axum::response::sse::{Event, Sse};
use axum::routing::get;
use futures_util::StreamExt;
use pahtum_serve::connections::{Limits, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;

const HEADER_READ: Duration = Duration::from_millis(300);
const IDLE: Duration = Duration::from_millis(1_500);
const REQUEST: Duration = Duration::from_millis(300);
/// The most any awaited answer or close may take here: far past every limit.
const AT_MOST: Duration = Duration::from_secs(5);

/// Small limits for the tests of time.
fn short() -> Limits {
    Limits {
        header_read: HEADER_READ,
        idle: IDLE,
        request: REQUEST,
        ..Limits::default()
    }
}

/// What a handler of `/held` tells the test and waits for.
#[derive(Debug, Default)]
struct Held {
    entered: Notify,
    release: Notify,
}

/// A server of the tiny application on a free loopback port.
struct Server {
    address: SocketAddr,
    held: Arc<Held>,
    stop: oneshot::Sender<()>,
    serving: JoinHandle<io::Result<()>>,
}

impl Server {
    async fn start(limits: Limits) -> Server {
        let held = Arc::new(Held::default());
        let app = Router::new()
            .route("/", get(|| async { "ok" }))
            .route(
                "/peer",
                get(|ConnectInfo(peer): ConnectInfo<SocketAddr>| async move { peer.ip().to_string() }),
            )
            .route("/never", get(std::future::pending::<&'static str>))
            .route("/events", get(events))
            .route("/held", get(held_answer))
            .with_state(Arc::clone(&held));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let serving = tokio::spawn(serve(listener, app, limits, async {
            let _ = stopped.await;
        }));
        Server {
            address,
            held,
            stop,
            serving,
        }
    }
}

/// An event stream that sends one event, then nothing, forever.
async fn events() -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
    let first = futures_util::stream::once(async { Ok(Event::default().data("hello")) });
    Sse::new(first.chain(futures_util::stream::pending()))
}

/// Says it is answering, and answers when released.
async fn held_answer(State(held): State<Arc<Held>>) -> &'static str {
    held.entered.notify_one();
    held.release.notified().await;
    "released"
}

/// A connection to `server` from `source` (any address of 127.0.0.0/8).
async fn connect_from(source: Ipv4Addr, server: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((source, 0))).unwrap();
    socket.connect(server).await.unwrap()
}

/// Sends a `GET` of `path` that keeps the connection. The server may have closed it already.
async fn send(stream: &mut TcpStream, path: &str) {
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    let _ = stream.write_all(request.as_bytes()).await;
}

/// The next answer on `stream`: its status line and body (by its `Content-Length`), within [`AT_MOST`].
async fn answer(stream: &mut TcpStream) -> (String, String) {
    tokio::time::timeout(AT_MOST, read_answer(stream))
        .await
        .expect("an answer in time")
}

async fn read_answer(stream: &mut TcpStream) -> (String, String) {
    let mut bytes = Vec::new();
    let head_end = loop {
        if let Some(end) = bytes.windows(4).position(|window| window == b"\r\n\r\n") {
            break end + 4;
        }
        read_more(stream, &mut bytes).await;
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|line| line.to_lowercase().strip_prefix("content-length: ")?.parse().ok())
        .unwrap_or_else(|| panic!("a Content-Length in {head}"));
    while bytes.len() < head_end + length {
        read_more(stream, &mut bytes).await;
    }
    let status = head.lines().next().unwrap().to_owned();
    (status, String::from_utf8_lossy(&bytes[head_end..]).into_owned())
}

async fn read_more(stream: &mut TcpStream, bytes: &mut Vec<u8>) {
    let mut buffer = [0; 4096];
    let read = stream.read(&mut buffer).await.unwrap();
    assert!(read > 0, "closed before the answer: {}", String::from_utf8_lossy(bytes));
    bytes.extend_from_slice(&buffer[..read]);
}

/// The status line of a `GET /` on a new connection from `source`; `None` if the connection was closed.
async fn get_from(source: Ipv4Addr, server: SocketAddr) -> Option<String> {
    let mut stream = connect_from(source, server).await;
    let request = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    let _ = stream.write_all(request).await;
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes).await;
    String::from_utf8_lossy(&bytes).lines().next().map(str::to_owned)
}

/// How long the server took to close `stream` (its read ends, or is reset) from now, with the bytes it
/// sent meanwhile; `None` if it is still open after `within`.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> Option<(Duration, Vec<u8>)> {
    let start = Instant::now();
    let mut bytes = Vec::new();
    let read = tokio::time::timeout(within, async {
        let mut buffer = [0; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(read) => bytes.extend_from_slice(&buffer[..read]),
            }
        }
    })
    .await;
    read.ok().map(|()| (start.elapsed(), bytes))
}

const ONE: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 1);
const TWO: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
const THREE: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);

#[tokio::test]
async fn a_head_not_finished_in_time_closes_the_connection() {
    let server = Server::start(short()).await;
    let mut slow = connect_from(ONE, server.address).await;
    slow.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n").await.unwrap();
    let (after, sent) = closed_within(&mut slow, AT_MOST).await.expect("closed");
    assert!(
        after >= HEADER_READ - Duration::from_millis(50) && after < IDLE,
        "closed after {after:?}"
    );
    assert!(sent.is_empty(), "{}", String::from_utf8_lossy(&sent));
    let mut silent = connect_from(ONE, server.address).await;
    let (after, _) = closed_within(&mut silent, AT_MOST).await.expect("closed");
    assert!(
        after < IDLE,
        "a connection that sends nothing waits for a head: {after:?}"
    );
}

#[tokio::test]
async fn a_kept_alive_connection_waits_idle_for_its_next_request_then_its_head() {
    let server = Server::start(short()).await;
    let mut kept = connect_from(ONE, server.address).await;
    for _ in 0..2 {
        send(&mut kept, "/").await;
        assert_eq!(answer(&mut kept).await, ("HTTP/1.1 200 OK".to_owned(), "ok".to_owned()));
    }
    let (after, _) = closed_within(&mut kept, AT_MOST).await.expect("closed");
    assert!(
        after >= IDLE - Duration::from_millis(300) && after < AT_MOST,
        "an idle connection closed after {after:?}, its limit {IDLE:?}"
    );

    let mut slow = connect_from(ONE, server.address).await;
    send(&mut slow, "/").await;
    answer(&mut slow).await;
    slow.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
    let (after, _) = closed_within(&mut slow, AT_MOST).await.expect("closed");
    assert!(
        after < IDLE - Duration::from_millis(300),
        "the next head's first byte starts its time: closed after {after:?}"
    );
}

#[tokio::test]
async fn a_slow_answer_is_cut_and_an_event_stream_stays() {
    let server = Server::start(short()).await;
    let mut never = connect_from(ONE, server.address).await;
    send(&mut never, "/never").await;
    let (after, sent) = closed_within(&mut never, AT_MOST).await.expect("cut");
    assert!(
        after >= REQUEST - Duration::from_millis(50) && sent.is_empty(),
        "cut after {after:?}: {}",
        String::from_utf8_lossy(&sent)
    );

    let mut stream = connect_from(ONE, server.address).await;
    send(&mut stream, "/events").await;
    let mut seen = Vec::new();
    tokio::time::timeout(AT_MOST, async {
        while !String::from_utf8_lossy(&seen).contains("data: hello") {
            read_more(&mut stream, &mut seen).await;
        }
    })
    .await
    .expect("the first event");
    assert!(String::from_utf8_lossy(&seen).contains("text/event-stream"));
    assert!(
        closed_within(&mut stream, REQUEST * 4).await.is_none(),
        "an event stream outlives the limit of a request"
    );
}

#[tokio::test]
async fn connections_over_a_cap_are_closed_unread_until_a_place_frees() {
    let limits = Limits {
        per_address: 2,
        total: 3,
        ..Limits::default()
    };
    let server = Server::start(limits).await;
    let mut held = Vec::new();
    for source in [ONE, ONE, TWO] {
        let mut stream = connect_from(source, server.address).await;
        send(&mut stream, "/").await;
        assert_eq!(answer(&mut stream).await.0, "HTTP/1.1 200 OK");
        held.push(stream);
    }
    for (source, cap) in [(ONE, "per address"), (THREE, "in all")] {
        let mut over = connect_from(source, server.address).await;
        send(&mut over, "/").await;
        let (_, sent) = closed_within(&mut over, AT_MOST)
            .await
            .unwrap_or_else(|| panic!("a connection over the cap {cap} is closed"));
        assert!(sent.is_empty(), "{cap}: {}", String::from_utf8_lossy(&sent));
    }
    drop(held.remove(0));
    // The server frees the place when it sees the close: until then, a new connection is refused.
    let answered = tokio::time::timeout(AT_MOST, async {
        loop {
            if let Some(status) = get_from(THREE, server.address).await {
                return status;
            }
        }
    })
    .await
    .expect("a freed place taken");
    assert_eq!(answered, "HTTP/1.1 200 OK");
}

#[tokio::test]
async fn the_clients_address_reaches_the_handlers() {
    let server = Server::start(Limits::default()).await;
    let mut stream = connect_from(TWO, server.address).await;
    send(&mut stream, "/peer").await;
    assert_eq!(answer(&mut stream).await.1, "127.0.0.2");
}

#[tokio::test]
async fn shutdown_closes_the_waiting_at_once_and_lets_an_answer_finish() {
    let server = Server::start(Limits::default()).await;
    let mut idle = connect_from(ONE, server.address).await;
    send(&mut idle, "/").await;
    answer(&mut idle).await;
    let mut stream = connect_from(ONE, server.address).await;
    send(&mut stream, "/events").await;
    let mut answering = connect_from(TWO, server.address).await;
    send(&mut answering, "/held").await;
    server.held.entered.notified().await;

    server.stop.send(()).unwrap();
    for (mut waiting, what) in [(idle, "an idle connection"), (stream, "an event stream")] {
        assert!(
            closed_within(&mut waiting, AT_MOST).await.is_some(),
            "{what} is closed at once"
        );
    }
    tokio::time::timeout(AT_MOST, async {
        while TcpStream::connect(server.address).await.is_ok() {}
    })
    .await
    .expect("the listener closed");
    server.held.release.notify_one();
    assert_eq!(
        answer(&mut answering).await,
        ("HTTP/1.1 200 OK".to_owned(), "released".to_owned())
    );
    let served = tokio::time::timeout(AT_MOST, server.serving).await;
    assert!(matches!(served, Ok(Ok(Ok(())))), "{served:?}");
}
