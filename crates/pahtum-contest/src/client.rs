//! The author's side of the API, for `arena submit`: a bot's folder packed
//! (or an archive or a source file sent as it is), uploaded with a token,
//! and followed through its build and check until it plays or fails, then,
//! for a version made on condition, through its test until it is promoted
//! or not.
//!
//! It speaks only the documented API ([`crate::web::api`]'s types), as an
//! author's own script would; the logs it receives are the stranger's
//! build's output and are handed back as bytes, for the caller to escape.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::de::DeserializeOwned;

use crate::store::SubmissionState;
use crate::web::api::{ErrorAnswer, FILE_NAME_HEADER, LOGS, Queued, SubmissionAnswer};
use crate::web::promotion::{PromotionAnswer, PromotionState};

/// How often a submission's state is asked for while it builds.
const POLL_EVERY: Duration = Duration::from_millis(500);

/// Why a submission could not be made or followed.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    /// The folder or file cannot be read, or packed.
    #[error("cannot pack {}", path.display())]
    Pack {
        /// What was to be sent.
        path: PathBuf,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The server cannot be reached, or answered what is not the API.
    #[error("cannot reach the contest at {url}")]
    Http {
        /// The address asked.
        url: String,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The server refused, and said why.
    #[error("the contest refused: {message} (HTTP {status})")]
    Refused {
        /// The status.
        status: u16,
        /// The server's words.
        message: String,
    },
}

/// What is sent: the body and, for a single file, its name.
pub fn upload_of(path: &Path) -> Result<(Vec<u8>, Option<String>), SubmitError> {
    let pack_error = |source: Box<dyn std::error::Error + Send + Sync>| SubmitError::Pack {
        path: path.to_owned(),
        source,
    };
    if path.is_dir() {
        let bytes =
            pahtum_upload::pack(path, &pahtum_upload::Caps::DEFAULT).map_err(|error| pack_error(error.into()))?;
        return Ok((bytes, None));
    }
    let bytes = std::fs::read(path).map_err(|error| pack_error(error.into()))?;
    let name = path.file_name().map(|name| name.to_string_lossy().into_owned());
    let archive = !matches!(
        pahtum_upload::sniff(&bytes, None),
        pahtum_upload::Kind::SingleFile { .. }
    );
    Ok((bytes, if archive { None } else { name }))
}

/// A contest's API at `base` (`https://contest.example.org`), with an author's token.
#[derive(Debug)]
pub struct Client {
    base: String,
    token: String,
    agent: ureq::Agent,
}

/// What happened to a submission, once it ended.
#[derive(Debug)]
pub struct Outcome {
    /// The submission as it ended.
    pub submission: SubmissionAnswer,
}

impl Outcome {
    /// Whether its bot joined the ladder.
    pub fn admitted(&self) -> bool {
        matches!(
            self.submission.submission.state,
            SubmissionState::Playing | SubmissionState::Retired
        )
    }
}

impl Client {
    /// A client of the contest at `base` with `token`.
    pub fn new(base: &str, token: &str) -> Client {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(120)))
            .build()
            .new_agent();
        Client {
            base: base.trim_end_matches('/').to_owned(),
            token: token.to_owned(),
            agent,
        }
    }

    fn http_error(&self, route: &str) -> impl FnOnce(ureq::Error) -> SubmitError + use<'_> {
        let url = format!("{}{route}", self.base);
        move |error| SubmitError::Http {
            url,
            source: Box::new(error),
        }
    }

    /// The answer's body as `T`, or the server's refusal.
    fn answer<T: DeserializeOwned>(
        &self,
        route: &str,
        mut response: ureq::http::Response<ureq::Body>,
    ) -> Result<T, SubmitError> {
        let status = response.status().as_u16();
        let body = response.body_mut().read_to_vec().map_err(self.http_error(route))?;
        if !(200..300).contains(&status) {
            let message = serde_json::from_slice::<ErrorAnswer>(&body)
                .map(|answer| answer.error)
                .unwrap_or_else(|_| String::from_utf8_lossy(&body).trim().to_owned());
            return Err(SubmitError::Refused { status, message });
        }
        serde_json::from_slice(&body).map_err(|error| SubmitError::Http {
            url: format!("{}{route}", self.base),
            source: Box::new(error),
        })
    }

    /// Uploads `body` (with its file name, for a single file), on condition where `if_not_weaker` (it becomes
    /// the active version only if its test finds it not weaker than the one that plays); the queued submission.
    pub fn submit(&self, body: &[u8], file_name: Option<&str>, if_not_weaker: bool) -> Result<Queued, SubmitError> {
        let route = match if_not_weaker {
            true => "/api/submissions?if_not_weaker=true",
            false => "/api/submissions",
        };
        let mut request = self
            .agent
            .post(format!("{}{route}", self.base))
            .header("authorization", format!("Bearer {}", self.token))
            .header("content-type", "application/octet-stream");
        if let Some(name) = file_name {
            request = request.header(FILE_NAME_HEADER, name);
        }
        let response = request.send(body).map_err(self.http_error(route))?;
        self.answer(route, response)
    }

    /// The submission `id` now.
    pub fn submission(&self, id: i64) -> Result<SubmissionAnswer, SubmitError> {
        let route = format!("/api/submissions/{id}");
        let response = self.get(&route)?;
        self.answer(&route, response)
    }

    /// `GET route` with the author's token: the response, whatever its status.
    fn get(&self, route: &str) -> Result<ureq::http::Response<ureq::Body>, SubmitError> {
        self.agent
            .get(format!("{}{route}", self.base))
            .header("authorization", format!("Bearer {}", self.token))
            .call()
            .map_err(self.http_error(route))
    }

    /// The test of submission `id` now; none where it has none (it was made active without one).
    pub fn promotion(&self, id: i64) -> Result<Option<PromotionAnswer>, SubmitError> {
        let route = format!("/api/submissions/{id}/promotion");
        let response = self.get(&route)?;
        if response.status() == ureq::http::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        self.answer(&route, response).map(Some)
    }

    /// Follows the test of submission `id` until it ends, handing each new state of it to `show`; the test as
    /// it ended, none where it has none.
    pub fn follow_promotion(
        &self,
        id: i64,
        show: &mut dyn FnMut(&PromotionAnswer),
    ) -> Result<Option<PromotionAnswer>, SubmitError> {
        let mut last = None;
        loop {
            let Some(now) = self.promotion(id)? else {
                return Ok(None);
            };
            if last.as_ref() != Some(&(now.state, now.games)) {
                show(&now);
                last = Some((now.state, now.games));
            }
            if !matches!(now.state, PromotionState::Queued | PromotionState::Testing) {
                return Ok(Some(now));
            }
            std::thread::sleep(POLL_EVERY);
        }
    }

    /// The bytes of the log `name` of submission `id` from byte `from`.
    fn log_from(&self, id: i64, name: &str, from: usize) -> Result<Vec<u8>, SubmitError> {
        let route = format!("/api/submissions/{id}/logs/{name}?from={from}");
        let mut response = self
            .agent
            .get(format!("{}{route}", self.base))
            .header("authorization", format!("Bearer {}", self.token))
            .call()
            .map_err(self.http_error(&route))?;
        if !response.status().is_success() {
            return Ok(Vec::new());
        }
        response.body_mut().read_to_vec().map_err(self.http_error(&route))
    }

    /// Follows submission `id` until it plays or fails, handing each new piece of its logs to `show` (the
    /// log's name and its bytes, as the build wrote them) and each new state to `state`.
    pub fn follow(
        &self,
        id: i64,
        show: &mut dyn FnMut(&str, &[u8]),
        state: &mut dyn FnMut(SubmissionState),
    ) -> Result<Outcome, SubmitError> {
        let mut read = [0usize; LOGS.len()];
        let mut last = None;
        loop {
            let now = self.submission(id)?;
            if last != Some(now.submission.state) {
                state(now.submission.state);
                last = Some(now.submission.state);
            }
            for (index, name) in LOGS.iter().enumerate() {
                if now.logs.iter().any(|log| log == name) {
                    let bytes = self.log_from(id, name, read[index])?;
                    read[index] += bytes.len();
                    if !bytes.is_empty() {
                        show(name, &bytes);
                    }
                }
            }
            let ended = !matches!(
                now.submission.state,
                SubmissionState::Queued | SubmissionState::Building | SubmissionState::Checking
            );
            if ended {
                return Ok(Outcome { submission: now });
            }
            std::thread::sleep(POLL_EVERY);
        }
    }
}
