//! `arena serve` keeps answering while one address holds thousands of
//! connections that never finish their headers (issue 38): the real
//! process, under the common limit of 1,024 open files, with 2,000 slow
//! connections from 127.0.0.2, and 20 normal requests from 127.0.0.1 timed
//! meanwhile. The slow connections over the per-address cap are closed at
//! once; the timeouts themselves, with small numbers, are tested in
//! `crates/pahtum-serve/tests/connections.rs`.

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, SocketAddr};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pahtum_testkit::require;
use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::task::JoinSet;

/// The slow connections one address opens.
const SLOW: usize = 2_000;
/// The normal requests timed while they are held.
const NORMAL: usize = 20;
/// The server's soft limit of open files, the common default.
const SERVER_FILES: u64 = 1_024;
/// The open files this test needs: the slow connections and a margin.
const TEST_FILES: u64 = 2_200;
/// `Limits::default().per_address`: the slow connections the server holds.
const PER_ADDRESS: usize = 64;
/// The most a normal request may take: a starved server never answers.
const ANSWER_WITHIN: Duration = Duration::from_secs(2);

/// A running `arena serve` under a soft limit of [`SERVER_FILES`] open files, killed when dropped.
struct Server {
    child: Child,
    address: SocketAddr,
}

impl Server {
    fn start(dir: &std::path::Path) -> Server {
        let arena = assert_cmd::cargo::cargo_bin("arena");
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -S -n {SERVER_FILES} && exec \"$0\" \"$@\""))
            .arg(arena)
            .arg("serve")
            .arg(dir)
            .args(["--listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        let address = url
            .trim()
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .unwrap_or_else(|_| panic!("an address in {url:?}"));
        Server { child, address }
    }

    /// The server's soft limit of open files, from `/proc`.
    fn open_files_limit(&self) -> String {
        let limits = std::fs::read_to_string(format!("/proc/{}/limits", self.child.id())).unwrap();
        let line = limits.lines().find(|line| line.starts_with("Max open files")).unwrap();
        line.split_whitespace().nth(3).unwrap().to_owned()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Raises this process's soft limit of open files to its hard limit; whether that is [`TEST_FILES`] or more.
fn raise_open_files() -> bool {
    let Rlimit { maximum, .. } = getrlimit(Resource::Nofile);
    let raised = Rlimit {
        current: maximum,
        maximum,
    };
    setrlimit(Resource::Nofile, raised).is_ok() && maximum.is_none_or(|hard| hard >= TEST_FILES)
}

/// A connection to `server` from `source` that sends the start of a request's head and never its end.
/// The server may close it before the head is written: a refused connection. Panics if the connection is
/// not made within [`ANSWER_WITHIN`]: the server's backlog is full, it no longer accepts.
async fn slow_connection(source: Ipv4Addr, server: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((source, 0))).unwrap();
    let mut stream = tokio::time::timeout(ANSWER_WITHIN, socket.connect(server))
        .await
        .expect("a connection made in time: the server accepts")
        .unwrap();
    let _ = stream.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n").await;
    stream
}

/// How long a whole `GET /` from 127.0.0.1 takes to answer, with its status; panics past [`ANSWER_WITHIN`].
async fn timed_request(server: SocketAddr) -> (Duration, String) {
    let start = Instant::now();
    let answer = tokio::time::timeout(ANSWER_WITHIN, async {
        let mut stream = TcpStream::connect(server).await.unwrap();
        let request = format!("GET / HTTP/1.1\r\nHost: {server}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.unwrap();
        answer
    })
    .await
    .unwrap_or_else(|_| panic!("a normal request was not answered within {ANSWER_WITHIN:?}: the server is starved"));
    let text = String::from_utf8_lossy(&answer);
    (start.elapsed(), text.lines().next().unwrap_or("").to_owned())
}

/// The times of [`NORMAL`] requests one after the other, each answered `200 OK`, from the fastest.
async fn timed_requests(server: SocketAddr) -> Vec<Duration> {
    let mut times = Vec::with_capacity(NORMAL);
    for _ in 0..NORMAL {
        let (time, status) = timed_request(server).await;
        assert_eq!(status, "HTTP/1.1 200 OK");
        times.push(time);
    }
    times.sort();
    times
}

/// Whether the server closed `stream`: its read ends (or is reset) within `within`; `false` if it is still open.
async fn closed_by_the_server(mut stream: TcpStream, within: Duration) -> bool {
    let mut byte = [0; 1];
    matches!(
        tokio::time::timeout(within, stream.read(&mut byte)).await,
        Ok(Ok(0) | Err(_))
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_answers_while_one_address_holds_two_thousand_slow_connections() {
    if !require(
        &format!("a hard limit of {TEST_FILES} open files or more"),
        raise_open_files(),
        "raise the hard limit of open files (ulimit -Hn, /etc/security/limits.conf)",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    assert_eq!(server.open_files_limit(), SERVER_FILES.to_string());

    let alone = timed_requests(server.address).await;
    let slow_start = Instant::now();
    let mut slow = Vec::with_capacity(SLOW);
    for _ in 0..SLOW {
        slow.push(slow_connection(Ipv4Addr::new(127, 0, 0, 2), server.address).await);
    }
    let opened = slow_start.elapsed();

    let meanwhile = timed_requests(server.address).await;

    // A refused connection was closed when it was accepted: its read ends at once; a held one is still open.
    let mut reads = JoinSet::new();
    for stream in slow {
        reads.spawn(closed_by_the_server(stream, Duration::from_secs(1)));
    }
    let closed = reads.join_all().await.into_iter().filter(|closed| *closed).count();
    let held = SLOW - closed;
    eprintln!(
        "{SLOW} slow connections from 127.0.0.2 opened in {opened:?}; {closed} closed by the server, {held} held \
         (cap {PER_ADDRESS}); a normal request from 127.0.0.1 meanwhile: median {:?}, worst {:?}; before them: \
         median {:?}, worst {:?} ({NORMAL} requests each)",
        meanwhile[NORMAL / 2],
        meanwhile[NORMAL - 1],
        alone[NORMAL / 2],
        alone[NORMAL - 1],
    );
    assert!(held <= PER_ADDRESS, "{held} slow connections held, over the cap");
}
