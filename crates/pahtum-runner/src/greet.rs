//! Each bot started once, for what it says in its `hello`, and ended: so that a run can tell whether
//! a bot's program changed since its games in the journal ([`pahtum_run::hellos`]) before it
//! plays on, or when it has nothing left to play.
//!
//! The bots start as they would for a game (the file's command, sandbox and limits: the greeting
//! waits at most the file's startup limit), all at once, and each is ended politely at once. A bot
//! that cannot start is an answer too ([`StartError`]), for the caller to report: it is not a
//! reason to stop showing the standings.

use pahtum_protocol::bot::Identity;
use pahtum_referee::{Bot, StartError};
use tokio::task::JoinSet;

use crate::games::Bots;

/// What each of `names` (bots of `bots`) says in its `hello`, in the order of `names`.
///
/// # Panics
///
/// If a name is not one of `bots`.
pub async fn hellos(bots: &Bots, names: &[String]) -> Vec<(String, Result<Identity, StartError>)> {
    let mut starts = JoinSet::new();
    for (n, name) in names.iter().enumerate() {
        let spec = bots
            .specs
            .iter()
            .find(|spec| spec.name == *name)
            .unwrap_or_else(|| panic!("bot {name} is not one of the run's"))
            .clone();
        let limits = bots.limits;
        starts.spawn(async move {
            let greeted = match Bot::start(&spec, &limits, None).await {
                Ok(bot) => {
                    let identity = bot.identity().clone();
                    bot.shutdown().await;
                    Ok(identity)
                }
                Err(error) => Err(error),
            };
            (n, greeted)
        });
    }
    let mut answers = Vec::with_capacity(names.len());
    while let Some(joined) = starts.join_next().await {
        answers.push(joined.expect("a bot start does not panic"));
    }
    answers.sort_by_key(|(n, _)| *n);
    answers
        .into_iter()
        .map(|(n, greeted)| (names[n].clone(), greeted))
        .collect()
}
