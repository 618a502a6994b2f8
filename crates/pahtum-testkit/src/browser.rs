//! Headless Chromium over WebDriver, for the tests that look at pages in a
//! real browser (the report, the server's live pages): chromedriver started
//! on a free port, a session with its own profile. A missing browser skips
//! the test, or fails it under `CI=true` ([`crate::require`]).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder};
use serde_json::{Value, json};

/// How long a test waits for the browser or a page.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// A chromedriver process, killed when dropped.
#[derive(Debug)]
pub struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Chromium and chromedriver on the PATH, or `None` (after failing under `CI=true`, or printing how to
/// install them).
pub fn browser() -> Option<(PathBuf, PathBuf)> {
    let find = |name: &str| {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|dir| dir.join(name))
            .find(|path| path.is_file())
    };
    let (chromium, driver) = (find("chromium"), find("chromedriver"));
    let present = chromium.is_some() && driver.is_some();
    crate::require(
        "chromium and chromedriver (for the browser tests)",
        present,
        "install them with `apt-get update && apt-get install -y chromium chromium-driver`",
    )
    .then(|| chromium.zip(driver))
    .flatten()
}

/// Starts chromedriver on a free port, and waits until it listens.
pub fn start_driver(program: &Path) -> Driver {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Command::new(program)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let driver = Driver { child, port };
    crate::wait_until(&format!("chromedriver listens on port {port}"), DEADLINE, || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    driver
}

/// A WebDriver session of headless Chromium, with its profile in `profile`.
pub async fn connect(driver: &Driver, chromium: &Path, profile: &Path) -> Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1280,1000",
    ]
    .map(String::from)
    .into_iter()
    .chain([format!("--user-data-dir={}", profile.display())])
    .collect::<Vec<_>>();
    let capabilities = json!({
        "browserName": "chrome",
        "goog:chromeOptions": { "binary": chromium, "args": args },
    });
    let Value::Object(capabilities) = capabilities else {
        unreachable!()
    };
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a WebDriver session with chromium")
}

/// A Chromium session: its client, and what it needs kept for as long as it lives (the driver and the
/// browser's profile).
#[derive(Debug)]
pub struct Session {
    pub client: Client,
    pub _held: (Driver, tempfile::TempDir),
}

/// A Chromium session with a fresh profile, or `None` where there is no browser (see [`browser`]).
pub async fn open() -> Option<Session> {
    let (chromium, driver_program) = browser()?;
    let driver = start_driver(&driver_program);
    let profile = tempfile::tempdir().unwrap();
    let client = connect(&driver, &chromium, profile.path()).await;
    Some(Session {
        client,
        _held: (driver, profile),
    })
}
