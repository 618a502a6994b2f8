//! `arena contest serve`: the pages, the build queue and the ladder, in one
//! process, until told to stop.
//!
//! The three share the database and the league's folder and nothing else:
//! the server queues a submission and wakes the builder; the builder hands
//! a checked entrant to the ladder; the ladder lets it join between turns.
//! At start, the builds that a stop cut off are queued again and the ladder
//! resumes the round it was playing, so a server killed at any moment
//! starts again where it was.

use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use pahtum_runner::league::Checker;
use pahtum_serve::access::Access;
use pahtum_serve::connections::{self, Limits};
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::analyses;
use crate::builds;
use crate::challenges;
use crate::ladder::Machinery;
use crate::service::{self, ContestError};
use crate::stages;
use crate::store::now_ms;
use crate::web::{self, Site};

/// A contest's server, bound and ready to run.
#[derive(Debug)]
pub struct Hosting {
    listener: TcpListener,
    site: Arc<Site>,
    /// The address to open.
    pub url: String,
    /// The submissions queued again because a stop cut their build off.
    pub requeued: usize,
}

/// Why a contest cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The contest's folder.
    #[error(transparent)]
    Contest(#[from] ContestError),
    /// The address is not one the contest may serve at.
    #[error(transparent)]
    Access(#[from] pahtum_serve::access::NeedsPublicUrl),
    /// The address cannot be bound.
    #[error("cannot listen at {listen}")]
    Bind {
        /// The address.
        listen: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The server failed.
    #[error("the contest's server failed")]
    Serve(#[source] std::io::Error),
}

/// Opens the contest in `dir` and binds `listen`.
pub async fn bind(dir: &Path, listen: SocketAddr) -> Result<Hosting, HostError> {
    let opened = service::open(dir)?;
    let requeued = opened.store.requeue_interrupted(now_ms()).map_err(ContestError::from)?;
    opened.store.requeue_jobs(now_ms()).map_err(ContestError::from)?;
    let public = (!opened.contest.public_url.is_empty()).then_some(opened.contest.public_url.as_str());
    let access = Access::for_accounts(listen, public)?;
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|source| HostError::Bind { listen, source })?;
    let bound = listener.local_addr().map_err(HostError::Serve)?;
    let url = match public {
        Some(url) => url.trim_end_matches('/').to_owned(),
        None => format!("http://{bound}"),
    };
    let site = Site::new(
        opened.dir,
        opened.contest,
        Arc::new(opened.store),
        access,
        Arc::new(Notify::new()),
    );
    Ok(Hosting {
        listener,
        site: Arc::new(site),
        url,
        requeued,
    })
}

impl Hosting {
    /// Serves the pages, builds the queue and plays the ladder until `stop` completes; the games and builds
    /// in progress then end as a stop of the league ends them (the finished ones are kept).
    pub async fn run<S: Future<Output = ()> + Send + 'static>(
        self,
        checker: &Checker<'_>,
        machinery: Machinery<'_>,
        stop: S,
    ) -> Result<(), HostError> {
        let stop_all = CancellationToken::new();
        let signal = stop_all.clone();
        tokio::spawn(async move {
            stop.await;
            signal.cancel();
        });
        let site = Arc::clone(&self.site);
        let app = web::router(Arc::clone(&site));
        let server_stop = stop_all.clone();
        let server = tokio::spawn(connections::serve(self.listener, app, Limits::default(), async move {
            server_stop.cancelled().await
        }));
        let builder = builds::work(
            &site.dir,
            &site.store,
            &site.contest.limits,
            checker,
            machinery.arena,
            &site.queued,
            &site.ready,
        );
        let stages = stages::play(Arc::clone(&site), machinery, stop_all.clone());
        tokio::select! {
            () = builder => {}
            () = stages => {}
            () = analyses::work(Arc::clone(&site)) => {}
            () = challenges::work(Arc::clone(&site), machinery) => {}
            () = crate::promotions::work(Arc::clone(&site), machinery) => {}
        }
        stop_all.cancel();
        server
            .await
            .map_err(|error| HostError::Serve(std::io::Error::other(error)))?
            .map_err(HostError::Serve)
    }
}
