//! The games in progress of a run, for a server in another process: a Unix
//! socket in the run's folder, [`LIVE_SOCKET`], on which the running arena
//! writes its [`Live`] events, one JSON line each, to every reader that
//! connects (`arena serve DIR` while `arena run` plays in a terminal).
//!
//! * **Only the owner.** The socket is made in a private folder (mode 0700)
//!   beside it, given mode 0600 there and only then moved into place, so no
//!   one else can connect even for an instant.
//! * **While the run plays.** It is opened before the first game and removed
//!   when the run ends, whichever way it ends. A socket left by an arena that
//!   was killed is stale: no one listens, so a reader's connection is
//!   refused, and the next run in the folder (which holds the journal's lock,
//!   so no other arena plays there) puts its own in its place.
//! * **Readers never hold up the games.** Each reader has its own task that
//!   writes its [`Subscription`]'s lines: a reader that does not read blocks
//!   only that task, and falls behind in the hub's bounded ring, so that what
//!   it gets when it reads again is a fresh snapshot, not a backlog; at most
//!   [`MAX_READERS`] read at once. When the run ends, the readers get what is
//!   left for them for at most [`FLUSH_TIME`], then are cut off.
//!
//! The lines are [`LiveEvent`](crate::live::LiveEvent)s: first a snapshot,
//! then every start, move and end (OUTPUTS.md, "The games in progress").

use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::oneshot;
use tokio::task::{JoinHandle, JoinSet};

use crate::live::{Live, Subscription};

/// The socket's name in the run's folder.
pub const LIVE_SOCKET: &str = "live.sock";

/// The most readers at once; more are disconnected at once.
pub const MAX_READERS: usize = 32;

/// How long the readers may take, when the run ends, to get what is left for them.
pub const FLUSH_TIME: Duration = Duration::from_millis(250);

/// The socket of a run's games in progress, open while it lives; removed when dropped.
#[derive(Debug)]
pub struct LiveSocket {
    path: PathBuf,
    /// The socket file's device and inode: only that file is removed.
    file: (u64, u64),
    live: Arc<Live>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl LiveSocket {
    /// Opens the socket of `live` in the run folder `dir`, in place of any left there (stale, since this
    /// arena holds the run's journal). Needs the tokio runtime.
    pub fn open(dir: &Path, live: Arc<Live>) -> io::Result<LiveSocket> {
        let path = dir.join(LIVE_SOCKET);
        let private = dir.join(format!(".live-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&private);
        std::fs::DirBuilder::new().mode(0o700).create(&private)?;
        let made = (|| {
            let inside = private.join("s");
            let listener = std::os::unix::net::UnixListener::bind(&inside)?;
            std::fs::set_permissions(&inside, std::fs::Permissions::from_mode(0o600))?;
            std::fs::rename(&inside, &path)?;
            Ok::<_, io::Error>(listener)
        })();
        let _ = std::fs::remove_dir_all(&private);
        let listener = made?;
        let meta = std::fs::symlink_metadata(&path)?;
        listener.set_nonblocking(true)?;
        let listener = UnixListener::from_std(listener)?;
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(serve(listener, Arc::clone(&live), stopped));
        Ok(LiveSocket {
            path,
            file: (meta.dev(), meta.ino()),
            live,
            stop: Some(stop),
            task: Some(task),
        })
    }

    /// The run ended: no more events; the socket is removed and its readers get what is left for them
    /// (for at most [`FLUSH_TIME`]).
    pub async fn close(mut self) {
        self.remove();
        self.live.close();
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }

    /// Removes the socket file, if it is still this one.
    fn remove(&self) {
        if std::fs::symlink_metadata(&self.path).is_ok_and(|meta| (meta.dev(), meta.ino()) == self.file) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl Drop for LiveSocket {
    fn drop(&mut self) {
        self.remove();
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

/// Accepts readers until `stopped`, then gives them [`FLUSH_TIME`] to finish.
async fn serve(listener: UnixListener, live: Arc<Live>, mut stopped: oneshot::Receiver<()>) {
    let mut readers = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else {
                    // Out of descriptors, say: try again a little later, not in a busy loop.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                };
                while readers.try_join_next().is_some() {}
                if readers.len() < MAX_READERS {
                    readers.spawn(write_to(stream, live.subscribe()));
                }
            }
            _ = &mut stopped => break,
        }
    }
    drop(listener);
    let _ = tokio::time::timeout(FLUSH_TIME, async { while readers.join_next().await.is_some() {} }).await;
}

/// Writes `subscription`'s lines to `stream` until the hub closes or the reader goes.
async fn write_to(mut stream: UnixStream, mut subscription: Subscription) {
    let mut buffer = Vec::new();
    while let Some(lines) = subscription.next().await {
        buffer.clear();
        for line in lines {
            buffer.extend_from_slice(line.as_bytes());
            buffer.push(b'\n');
        }
        if stream.write_all(&buffer).await.is_err() {
            return;
        }
    }
    let _ = stream.shutdown().await;
}
