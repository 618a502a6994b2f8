//! One run's pages served while it plays (`--serve` of `arena run` and
//! `arena match`): the run's folder served as `arena serve` serves a
//! folder's runs, but only this run, with its games in progress from the
//! runner; an address other than loopback gets a new access token (in the
//! address). The server stops when the [`Serving`] is dropped.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pahtum_runner::live::Live;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::access::new_token;
use crate::server::{Serve, ServeError};

/// Why the run's pages cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum ServingError {
    /// The run's folder has no absolute path (the working directory is gone).
    #[error(transparent)]
    Folder(std::io::Error),
    /// The run's folder has no name to serve it under (`/`, or `..`).
    #[error("cannot serve the run in {}: it has no folder name", out.display())]
    NoName {
        /// The run's folder.
        out: PathBuf,
    },
    /// The server cannot start.
    #[error(transparent)]
    Serve(#[from] ServeError),
}

/// A run's pages being served; dropped, the server stops.
#[derive(Debug)]
pub struct Serving {
    url: String,
    _stop: oneshot::Sender<()>,
    _task: JoinHandle<Result<(), ServeError>>,
}

impl Serving {
    /// The address of the run's page, with the token when there is one.
    pub fn url(&self) -> &str {
        &self.url
    }
}

/// Serves the pages of the run in the folder `out` on `listen`, with its games in progress from `live`,
/// until the answer is dropped; on the runtime this is called on.
pub async fn serve_run(out: &Path, listen: SocketAddr, live: &Arc<Live>) -> Result<Serving, ServingError> {
    let out = std::path::absolute(out).map_err(ServingError::Folder)?;
    let (Some(dir), Some(name)) = (out.parent(), out.file_name().and_then(|name| name.to_str())) else {
        return Err(ServingError::NoName { out });
    };
    let serve = Serve {
        dir: dir.to_owned(),
        listen,
        token: (!listen.ip().is_loopback()).then(new_token),
        only: Some(name.to_owned()),
        live: Some(Arc::clone(live)),
        play: None,
    };
    let bound = serve.bind().await?;
    let url = bound.url().to_owned();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(bound.run(async {
        let _ = stopped.await;
    }));
    Ok(Serving {
        url,
        _stop: stop,
        _task: task,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_run_is_served_under_its_folders_name_until_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("my-run");
        std::fs::create_dir(&out).unwrap();
        let live = Arc::new(Live::default());
        let serving = serve_run(&out, "127.0.0.1:0".parse().unwrap(), &live).await.unwrap();
        assert!(serving.url().starts_with("http://127.0.0.1:"), "{}", serving.url());
        assert!(serving.url().ends_with("/runs/my-run"), "{}", serving.url());
        let error = serve_run(Path::new("/"), "127.0.0.1:0".parse().unwrap(), &live)
            .await
            .unwrap_err();
        assert_eq!(error.to_string(), "cannot serve the run in /: it has no folder name");
    }
}
