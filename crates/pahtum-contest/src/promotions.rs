//! Promotion by SPRT: a version submitted "only if it is not weaker" becomes
//! its author's active version only once a test says so.
//!
//! Such a version is built and checked as any other, then joins the league
//! retired while its author's active version plays on, and its test is
//! queued as a job ([`crate::held`], as the ladder lets it in).
//! The test is played as a challenge is (`challenges::play_unrated`):
//! unrated games between the two, layout pairs in the league's sandbox and
//! time control, in a tournament of its own (`DIR/promotions/N/`, a journal
//! that `arena verify` reads) that the league's journal never sees. It stops
//! as `arena match --sprt` stops, by the same gate
//! ([`pahtum_run::sprt_gate::SprtGate`]): once the pentanomial SPRT of
//! `contest.toml`'s `[promotion]` has decided, no new layout pair starts; or
//! it plays to `max_games` without a decision. On H1 ("not weaker") the
//! version is made active by the ladder's own activation
//! ([`crate::builds::Ready::activate`], as `POST
//! /api/submissions/{id}/activate` does); on H0, or at the cap, it stays
//! retired and the active version plays on. The submission's note says
//! what came of it, in words.
//!
//! The test's state is its journal: the author's page replays it
//! ([`replay`]) for the LLR after each layout pair, and a server stopped in
//! the middle queues the job again at its next start, whose tournament
//! resumes from the journal with the gate counting the games recorded, none
//! played twice. A test that decided H1 ends only once its version is
//! active, so that a stop between the verdict and the activation (which the
//! ladder records between its turns) does it again.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use pahtum_league::decide::to_retire;
use pahtum_league::{Event, LeagueState, Retirement};
use pahtum_run::sprt_gate::SprtGate;
use pahtum_stats::{Sprt, SprtStatus};
use serde::{Deserialize, Serialize};

use crate::challenges::{Score, Unrated, league_state, play_unrated, records, score_of};
use crate::held::Promotion;
use crate::jobs;
use crate::ladder::Machinery;
use crate::store::{Job, JobKind, SubmissionState, now_ms};
use crate::web::Site;

/// The folder of the promotions' tests, in the contest's.
pub const PROMOTIONS: &str = "promotions";

/// How often the store is looked at while the ladder makes a promoted version active.
const ACTIVATION_LOOK: Duration = Duration::from_millis(200);

/// How long the ladder is given to make a promoted version active before it is asked again (a turn of long
/// games may take that long; an activation that the league's journal refused is tried again).
const ASK_AGAIN: Duration = Duration::from_secs(60);

/// What came of a promotion: the job's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Whether the version was made active.
    pub promoted: bool,
    /// The games of its test.
    pub games: u32,
    /// The LLR when the test decided, or when it stopped.
    pub llr: f64,
}

/// The folder of promotion `id`'s test in the contest's folder `dir`.
pub fn promotion_dir(dir: &Path, id: i64) -> PathBuf {
    dir.join(PROMOTIONS).join(id.to_string())
}

/// Tests the queued promotions, one at a time, for as long as it is polled.
pub async fn work(site: Arc<Site>, machinery: Machinery<'_>) {
    jobs::work_off(&site, JobKind::Promotion, |site, job| async move {
        let promotion: Promotion = serde_json::from_value(job.asked.clone()).map_err(|error| error.to_string())?;
        let tested = test(&site, &job, &promotion, machinery).await;
        let note = match &tested {
            Ok((_, note)) => note.clone(),
            Err(error) => format!(
                "not promoted: its test failed ({error}); {} plays on",
                promotion.opponent
            ),
        };
        let _ = site.store.set_note(promotion.submission, &note, now_ms());
        let (verdict, _) = tested?;
        serde_json::to_value(verdict).map_err(|error| error.to_string())
    })
    .await;
}

/// Plays the test of `promotion` (job `job`), or what is left of it, and makes its version active if it
/// passed: the verdict, and the note that says it in words.
async fn test(
    site: &Site,
    job: &Job,
    promotion: &Promotion,
    machinery: Machinery<'_>,
) -> Result<(Verdict, String), String> {
    let untested = |note: String| {
        let verdict = Verdict {
            promoted: false,
            games: 0,
            llr: 0.0,
        };
        Ok((verdict, note))
    };
    if let Some(closed) = closed(site)? {
        return untested(format!("not tested: {closed}"));
    }
    let state = league_state(site)?;
    let name = promotion.candidate.split('@').next().unwrap_or_default();
    if let Some(playing) = replaced(&to_retire(&state, name), promotion) {
        return untested(format!(
            "not tested: {} no longer plays ({playing} does); submit it again to test it against that one",
            promotion.opponent
        ));
    }
    let settings = &site.contest.promotion;
    let sprt = settings.sprt().map_err(|error| error.to_string())?;
    let _ = site.store.set_note(
        promotion.submission,
        &format!(
            "on test against {}: unrated games until the SPRT decides, at most {} games",
            promotion.opponent, settings.max_games
        ),
        now_ms(),
    );
    let unrated = Unrated {
        job: job.id,
        what: "promotion",
        two: [&promotion.candidate, &promotion.opponent],
        pairs: settings.max_games / 2,
        out: promotion_dir(&site.dir, job.id),
        games_at_once: settings.games_at_once,
    };
    let mut gate = SprtGate::new(&promotion.candidate, &promotion.opponent, Some(sprt));
    let both = both_active(&state, promotion)?;
    let journal = play_unrated(site, &both, &unrated, &mut gate, machinery).await?;
    let test = Tested {
        promotion,
        sprt,
        games: gate.tally().summary().games,
        score: score_of(&journal, &promotion.candidate),
    };
    let Some(decision) = gate.decision() else {
        let llr = gate.outcome().map_or(0.0, |outcome| outcome.llr);
        return Ok((test.verdict(false, llr), test.undecided(llr, settings.max_games)));
    };
    let llr = decision.outcome.llr;
    if decision.outcome.status == SprtStatus::AcceptH0 {
        return Ok((test.verdict(false, llr), test.weaker(llr)));
    }
    match activate(site, job.author, promotion).await? {
        None => Ok((test.verdict(true, llr), test.promoted(llr))),
        Some(why) => Ok((test.verdict(false, llr), test.not_weaker_but(llr, &why))),
    }
}

/// Why versions may not change now (the season's freeze, or before it opens), in words; none while open.
fn closed(site: &Site) -> Result<Option<String>, String> {
    let closed = crate::web::closed_now(site).map_err(|error| crate::causes::chain(&error))?;
    Ok(closed.map(|closed| closed.says("version changes")))
}

/// The author's version that plays, of those `playing`, where it is neither the opponent that `promotion` was
/// queued against nor its candidate (made active meanwhile, by this test before a stop): in words, "none of
/// your versions" if none plays.
fn replaced(playing: &[String], promotion: &Promotion) -> Option<String> {
    let two = [&promotion.opponent, &promotion.candidate];
    if playing.iter().any(|label| two.contains(&label)) {
        return None;
    }
    Some(
        playing
            .first()
            .cloned()
            .unwrap_or_else(|| "none of your versions".to_owned()),
    )
}

/// `state` with both entrants of `promotion` active, as their test's tournament is made of the league's active
/// entrants: its candidate is retired while it waits.
fn both_active(state: &LeagueState, promotion: &Promotion) -> Result<LeagueState, String> {
    let mut both = state.clone();
    for label in [&promotion.candidate, &promotion.opponent] {
        if both.number_of(label).is_some_and(|number| both.is_retired(number)) {
            let returned = Event::Returned(Retirement {
                entrant: label.clone(),
                unix_ms: pahtum_record::unix_ms(),
            });
            both.apply_event(returned).map_err(|error| error.to_string())?;
        }
    }
    Ok(both)
}

/// Asks the ladder to make `promotion`'s candidate the active version of `author`'s, and waits until it has
/// (the ladder does it between its turns); why it was not, if it cannot be now: the season froze, or another
/// version than the opponent plays.
async fn activate(site: &Site, author: i64, promotion: &Promotion) -> Result<Option<String>, String> {
    let mut asked: Option<std::time::Instant> = None;
    loop {
        let submissions = site
            .store
            .submissions(Some(author))
            .map_err(|error| crate::causes::chain(&error))?;
        let playing: Vec<String> = (submissions.iter())
            .filter(|submission| submission.state == SubmissionState::Playing)
            .filter_map(|submission| submission.label.clone())
            .collect();
        if playing.contains(&promotion.candidate) {
            return Ok(None);
        }
        if let Some(closed) = closed(site)? {
            return Ok(Some(closed));
        }
        if let Some(playing) = replaced(&playing, promotion) {
            return Ok(Some(format!("{playing} plays now")));
        }
        if asked.is_none_or(|at| at.elapsed() >= ASK_AGAIN) {
            site.ready.activate(promotion.candidate.clone());
            asked = Some(std::time::Instant::now());
        }
        tokio::time::sleep(ACTIVATION_LOOK).await;
    }
}

/// A test played: what its notes say.
struct Tested<'a> {
    promotion: &'a Promotion,
    sprt: Sprt,
    games: u32,
    score: Score,
}

impl Tested<'_> {
    fn verdict(&self, promoted: bool, llr: f64) -> Verdict {
        Verdict {
            promoted,
            games: self.games,
            llr,
        }
    }

    /// How the test went: `LLR 3.02 after 24 games (20 won, 2 drawn, 2 lost)`.
    fn went(&self, llr: f64) -> String {
        let Score { wins, draws, losses } = self.score;
        format!(
            "LLR {llr:.2} after {} games ({wins} won, {draws} drawn, {losses} lost)",
            self.games
        )
    }

    fn promoted(&self, llr: f64) -> String {
        format!(
            "promoted: not weaker than {} (the test accepted H1, an Elo difference of at least {}; {}, bound \
             {:.2}); it plays now",
            self.promotion.opponent,
            self.sprt.elo1(),
            self.went(llr),
            self.sprt.upper_bound()
        )
    }

    fn not_weaker_but(&self, llr: f64, why: &str) -> String {
        format!(
            "not promoted: its test found it not weaker than {} ({}), but {why}",
            self.promotion.opponent,
            self.went(llr)
        )
    }

    fn weaker(&self, llr: f64) -> String {
        format!(
            "not promoted: weaker than {} (the test accepted H0, an Elo difference of at most {}; {}, bound \
             {:.2}); {} plays on",
            self.promotion.opponent,
            self.sprt.elo0(),
            self.went(llr),
            self.sprt.lower_bound(),
            self.promotion.opponent
        )
    }

    fn undecided(&self, llr: f64, max_games: u32) -> String {
        format!(
            "not promoted: its test did not decide within {max_games} games ({}, between {:.2} and {:.2}); {} plays \
             on. Submit it again to test it again",
            self.went(llr),
            self.sprt.lower_bound(),
            self.sprt.upper_bound(),
            self.promotion.opponent
        )
    }
}

/// A test as its journal `journal` has it, game by game in the order they were recorded, as the gate counted
/// them while they were played: the gate, and the LLR after each layout pair.
pub fn replay(journal: &[u8], promotion: &Promotion, sprt: Sprt) -> (SprtGate, Vec<f64>) {
    let mut gate = SprtGate::new(&promotion.candidate, &promotion.opponent, Some(sprt));
    let mut history = Vec::new();
    for record in records(journal) {
        let pairs = gate.tally().pentanomial().pairs();
        gate.count(&record);
        if gate.tally().pentanomial().pairs() > pairs {
            history.push(gate.outcome().map_or(0.0, |outcome| outcome.llr));
        }
    }
    (gate, history)
}

#[cfg(test)]
mod tests {
    use pahtum_record::GameRecord;
    use pahtum_stats::SprtStatus;
    use pahtum_tournament::schedule::schedule;
    use pahtum_tournament::testing::{head_to_head, won_by};

    use super::*;

    /// A journal of `games` games of `a` against `b` (the first `a` wins), each won by the bot `winner` gives.
    fn journal(games: u32, winner: impl Fn(usize) -> &'static str) -> Vec<u8> {
        let tournament = head_to_head(games);
        let mut text = b"{\"header\":true}\n".to_vec();
        for game in schedule(&tournament) {
            let record: GameRecord = won_by(&game, &game.spec(&tournament), winner(game.index));
            text.extend(serde_json::to_vec(&record).unwrap());
            text.push(b'\n');
        }
        text
    }

    fn promotion() -> Promotion {
        Promotion {
            submission: 1,
            candidate: "a".to_owned(),
            opponent: "b".to_owned(),
        }
    }

    /// The replay counts layout pairs as the gate does: the LLR is 0 until ten pairs, then climbs with each pair
    /// the candidate wins, and the test decides H1 where the gate decided it; a journal that ends in part of a
    /// line reads as the games before it.
    #[test]
    fn the_replay_gives_the_llr_after_each_layout_pair() {
        let sprt = Sprt::new(-10.0, 10.0, 0.05, 0.05).unwrap();
        let mut bytes = journal(40, |_| "a");
        let (gate, history) = replay(&bytes, &promotion(), sprt);
        assert_eq!(history.len(), 20);
        assert!(history[..9].iter().all(|&llr| llr == 0.0), "{history:?}");
        assert!(history[9..].windows(2).all(|two| two[1] > two[0]), "{history:?}");
        let decision = gate.decision().expect("twenty pairs won decide");
        assert_eq!(decision.outcome.status, SprtStatus::AcceptH1);
        assert!(decision.games < 40 && decision.games % 2 == 0, "{decision:?}");
        assert_eq!(gate.tally().pentanomial().counts, [0, 0, 0, 0, 20]);
        bytes.extend(b"{\"id\":\"000-20");
        let (partial, again) = replay(&bytes, &promotion(), sprt);
        assert_eq!((again, partial.tally().summary().games), (history, 40));
    }

    /// Lost every game: H0, the LLR falling below its lower bound.
    #[test]
    fn a_version_that_loses_every_game_is_found_weaker() {
        let sprt = Sprt::new(-50.0, 50.0, 0.05, 0.05).unwrap();
        let (gate, history) = replay(&journal(20, |_| "b"), &promotion(), sprt);
        let decision = gate.decision().expect("ten pairs lost decide");
        assert_eq!((decision.outcome.status, decision.games), (SprtStatus::AcceptH0, 20));
        assert!(history[9] <= sprt.lower_bound(), "{history:?}");
    }

    /// Won and lost in turn: the LLR stays between its bounds, and the test has not decided.
    #[test]
    fn even_versions_leave_the_test_undecided() {
        let sprt = Sprt::new(-10.0, 0.0, 0.05, 0.05).unwrap();
        let (gate, history) = replay(&journal(40, |index| ["a", "b"][index / 2 % 2]), &promotion(), sprt);
        assert_eq!(gate.decision(), None);
        let llr = *history.last().unwrap();
        assert!(sprt.lower_bound() < llr && llr < sprt.upper_bound(), "{history:?}");
    }
}
