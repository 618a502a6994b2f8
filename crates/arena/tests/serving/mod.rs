//! A real `arena serve` process for the server's tests, and plain HTTP
//! requests to it (written by hand on a socket, so that every header, the
//! `Host` included, is the test's own).

// Each test file that serves uses a part of these.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use assert_cmd::cargo::CommandCargoExt;

/// A running `arena serve`, killed when dropped.
pub struct Server {
    child: Child,
    /// `host:port`.
    pub address: String,
    /// The printed address, with the token if any.
    pub url: String,
}

impl Server {
    /// `arena serve DIR` with the `extra` flags, once it printed its address.
    pub fn start(dir: &Path, extra: &[&str]) -> Server {
        let mut child = Command::cargo_bin("arena")
            .unwrap()
            .arg("serve")
            .arg(dir)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        let url = url.trim().to_owned();
        let address = url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap()
            .replace("0.0.0.0", "127.0.0.1");
        Server { child, address, url }
    }

    pub fn ask(&self, method: &str, path: &str, headers: &[&str]) -> (u16, String) {
        ask(&self.address, method, path, headers)
    }

    pub fn get(&self, path: &str) -> (u16, String) {
        self.ask("GET", path, &[])
    }

    /// A `POST` of `body` from the server's own origin, as its pages send it.
    pub fn post(&self, path: &str, body: &str) -> (u16, String) {
        let origin = format!("Origin: http://{}", self.address);
        let headers = [
            origin.as_str(),
            "Sec-Fetch-Site: same-origin",
            "Content-Type: application/json",
        ];
        ask_with_body(&self.address, "POST", path, &headers, body.as_bytes())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The answer of the server at `address` to a request of `method` for
/// `path` with `headers` (the `Host` is the server's unless given): its status and its whole text.
pub fn ask(address: &str, method: &str, path: &str, headers: &[&str]) -> (u16, String) {
    ask_with_body(address, method, path, headers, b"")
}

/// As [`ask`], with a body.
pub fn ask_with_body(address: &str, method: &str, path: &str, headers: &[&str], body: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    let host = if headers.iter().any(|header| header.to_lowercase().starts_with("host:")) {
        String::new()
    } else {
        format!("Host: {}\r\n", address)
    };
    let extra: String = headers.iter().map(|header| format!("{header}\r\n")).collect();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\n{host}{extra}Connection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .unwrap();
    // A server that refuses a large body may close before reading it all.
    let _ = stream.write_all(body);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer.split(' ').nth(1).and_then(|code| code.parse().ok()).unwrap_or(0);
    (status, answer)
}

/// Where the tests' screenshots go: `target/serve-screenshots/`.
pub fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("serve-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
