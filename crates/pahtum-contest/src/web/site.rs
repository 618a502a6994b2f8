//! What the pages and the API share: the contest's folder, settings and
//! database, its access rules, the build queue's bell, the season's bell,
//! and the login limits.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::Arc;

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use pahtum_serve::access::Access;
use tokio::sync::Notify;

use super::ladder::LadderCache;
use crate::builds::Ready;
use crate::config::Contest;
use crate::store::{JobKind, Store};

/// The largest body of a request that is not an upload.
pub const MAX_FORM: usize = 16 * 1024;

/// What the pages and the API share.
pub struct Site {
    /// The contest's folder.
    pub dir: PathBuf,
    /// Its settings.
    pub contest: Contest,
    /// Its database.
    pub store: Arc<Store>,
    /// Who may ask.
    pub access: Access,
    /// Told when a submission is queued.
    pub queued: Arc<Notify>,
    /// The bells of the workers of the authors' jobs.
    pub bells: Bells,
    /// The entrants and activations waiting for the ladder's next turn; its bell rings the ladder when
    /// the organiser changes who plays.
    pub ready: Arc<Ready>,
    /// The ladder last made.
    pub ladder: LadderCache,
    /// The games' page, followed as the league's journal grows: made at most once a second.
    pub games: std::sync::Mutex<GamesPage>,
    /// The games in progress, followed through the league folder's socket while the ladder plays.
    pub in_progress: Arc<pahtum_serve::games::InProgress>,
    /// Failed logins per address.
    pub logins: DefaultKeyedRateLimiter<IpAddr>,
    /// Failed logins per account.
    pub accounts: DefaultKeyedRateLimiter<String>,
    /// Told when the organiser moves a phase of the season: a task waiting for the next instant wakes and
    /// reads the phases again. Every task waiting then wakes, and the next to wait after it at once.
    pub phases_moved: Arc<Notify>,
    /// The final as it stands, made again when its journal grows.
    pub finals: crate::finals::FinalCache,
}

impl std::fmt::Debug for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Site").field("dir", &self.dir).finish_non_exhaustive()
    }
}

impl Site {
    /// The contest league's journal.
    pub fn journal(&self) -> PathBuf {
        self.dir.join(crate::service::LEAGUE).join(pahtum_run::resume::JOURNAL)
    }

    /// Drops the games' page made last, so that the next is made afresh from the journal and the analysis
    /// beside it.
    pub fn forget_games_page(&self) {
        *self.games.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = GamesPage::default();
    }

    /// The site of the contest in `dir`.
    pub fn new(dir: PathBuf, contest: Contest, store: Arc<Store>, access: Access, queued: Arc<Notify>) -> Site {
        let per_minute = NonZeroU32::new(contest.limits.logins_per_minute.max(1)).expect("at least one");
        Site {
            dir,
            store,
            access,
            queued,
            bells: Bells::default(),
            ready: Arc::new(Ready::new(Arc::new(Notify::new()))),
            games: std::sync::Mutex::new(GamesPage::default()),
            in_progress: Arc::new(pahtum_serve::games::InProgress::new(None)),
            ladder: LadderCache::default(),
            logins: RateLimiter::keyed(Quota::per_minute(per_minute)),
            accounts: RateLimiter::keyed(Quota::per_minute(per_minute)),
            phases_moved: Arc::new(Notify::new()),
            finals: crate::finals::FinalCache::default(),
            contest,
        }
    }
}

/// The least time between two makings of the games' page: while the ladder plays, the page is made at
/// most this often, however many ask.
const GAMES_PAGE_APART: std::time::Duration = std::time::Duration::from_secs(1);

/// The games' page of the contest's league: `arena report`'s page (the standings, the ladder, every game
/// with its replay), made by `pahtum-report` from the journal, folding only what it gained since.
#[derive(Debug, Default)]
pub struct GamesPage {
    followed: Option<pahtum_report::run_report::FollowedReport>,
    made: Option<(std::time::Instant, Vec<u8>)>,
}

impl GamesPage {
    /// The page of the journal at `journal` as it is now, or as it was at most a second ago.
    pub fn page(&mut self, journal: &std::path::Path) -> Result<Vec<u8>, pahtum_report::run_report::RunReportError> {
        if let Some((at, page)) = &self.made
            && at.elapsed() < GAMES_PAGE_APART
        {
            return Ok(page.clone());
        }
        let followed = match &mut self.followed {
            Some(followed) => followed,
            None => self.followed.insert(pahtum_report::run_report::FollowedReport::open(
                journal,
                pahtum_report::html::Options::default(),
            )?),
        };
        followed.update()?;
        let page = followed.page()?;
        self.made = Some((std::time::Instant::now(), page.clone()));
        Ok(page)
    }
}

/// The bell of each kind's worker, rung when a job of that kind is queued through the pages or the API (a
/// promotion, which the ladder queues, is found by its worker's next look at its queue: [`crate::jobs`]).
#[derive(Debug, Default)]
pub struct Bells {
    analysis: Notify,
    challenge: Notify,
    promotion: Notify,
}

impl Bells {
    /// The bell of `kind`'s worker.
    pub fn of(&self, kind: JobKind) -> &Notify {
        match kind {
            JobKind::Analysis => &self.analysis,
            JobKind::Challenge => &self.challenge,
            JobKind::Promotion => &self.promotion,
        }
    }
}
