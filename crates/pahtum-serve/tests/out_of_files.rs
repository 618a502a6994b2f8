//! [`pahtum_serve::connections::serve`] when the process has no file left:
//! `accept` fails (`EMFILE`), and the server neither stops nor spins, and
//! answers the waiting connection once files are freed. A test binary of its
//! own, as it lowers the limit of open files of its whole process.

use std::fs::File;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use pahtum_serve::connections::{Limits, serve};
use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket};

/// How long the server is watched while it cannot accept.
const OUT_OF_FILES: Duration = Duration::from_millis(500);

/// The processor time this process has used, in clock ticks (1/100 s), from `/proc/self/stat`.
fn processor_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let after_name = &stat[stat.rfind(')').unwrap() + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // utime and stime, the 14th and 15th fields of the line, the 12th and 13th after the name.
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// Opens files until the process may open no more; they are its files until dropped.
fn take_every_file() -> Vec<File> {
    let mut taken = Vec::new();
    while let Ok(file) = File::open("/dev/null") {
        taken.push(file);
    }
    taken
}

#[tokio::test]
async fn out_of_files_the_server_waits_and_goes_on() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address: SocketAddr = listener.local_addr().unwrap();
    let app = Router::new().route("/", get(|| async { "ok" }));
    let serving = tokio::spawn(serve(listener, app, Limits::default(), std::future::pending()));
    let limit = getrlimit(Resource::Nofile);
    let open = std::fs::read_dir("/proc/self/fd").unwrap().count() as u64;
    setrlimit(
        Resource::Nofile,
        Rlimit {
            current: Some(open + 64),
            maximum: limit.maximum,
        },
    )
    .unwrap();
    let ticks_before = processor_ticks();

    let mut taken = take_every_file();
    // One file for the client's socket; none is left for the server to accept it with.
    drop(taken.pop());
    let mut stream = TcpSocket::new_v4().unwrap().connect(address).await.unwrap();
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let early = tokio::time::timeout(OUT_OF_FILES, stream.read_to_end(&mut answer)).await;
    assert!(
        early.is_err() && answer.is_empty(),
        "answered with no file to accept with"
    );
    assert!(!serving.is_finished(), "the server stopped: {:?}", serving.await);

    drop(taken);
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer))
        .await
        .expect("answered once files are freed")
        .unwrap();
    let ticks = processor_ticks() - ticks_before;
    setrlimit(Resource::Nofile, limit).unwrap();
    assert!(
        String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200 OK"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
    // Spinning on accept would have used the processor all the while (50 ticks).
    assert!(ticks < 25, "{ticks} ticks of processor time while out of files");
}
