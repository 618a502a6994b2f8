//! A league's round as the runner's work: the league as a tournament file of
//! its active entrants, for the launcher ([`tournament_file`]), and a round's
//! pending games as the runner's [`Work`] ([`Round`]): each record goes into
//! the league's journal with its entrants' content hashes.

use std::path::Path;

use pahtum_journal::entrants::GameLine;
use pahtum_journal::{Journal, JournalError, Span};
use pahtum_league::{LayoutPair, LeagueState, PendingGame};
use pahtum_record::{GameRecord, GameSpec};
use pahtum_tournament::config::{Launch, LimitOverrides, OnOverload, Restart, RunSettings, TournamentFile};
use pahtum_tournament::durability::Durability;
use pahtum_tournament::schedule::ScheduledGame;

use crate::runner::Work;

/// A league as a tournament file of its active entrants, for the runner's launcher: its folder is `dir`
/// (the entrants' snapshots are in it), its games `concurrency` at once, a game lost on time under
/// overload counted or played again as `on_overload` says; an entrant whose command's first word is one of
/// `builtins` is that built-in bot.
pub fn tournament_file(
    state: &LeagueState,
    dir: &Path,
    concurrency: usize,
    builtins: &[&str],
    on_overload: OnOverload,
) -> TournamentFile {
    let mut tournament = state.tournament();
    for bot in &mut tournament.bots {
        if let Launch::Command(words) = &bot.launch {
            if builtins.contains(&words[0].as_str()) {
                bot.launch = Launch::Builtin(words.join(" "));
            }
        }
    }
    let active: Vec<String> = (0..state.entrants().len())
        .filter(|&number| !state.is_retired(number))
        .map(|number| state.entrants()[number].label())
        .collect();
    tournament.bots.retain(|bot| active.contains(&bot.name));
    TournamentFile {
        path: dir.join(pahtum_league::LEAGUE_FILE),
        base_dir: dir.to_owned(),
        tournament,
        settings: RunSettings {
            concurrency,
            out: dir.to_owned(),
            restart: Restart::OnFailure,
            limits: LimitOverrides::default(),
            on_overload,
            affinity: None,
            durability: Durability::default(),
        },
    }
}

/// The pending games of a league's round, as the runner's [`Work`].
#[derive(Debug)]
pub struct Round<'a> {
    state: &'a LeagueState,
    games: Vec<PendingGame>,
}

impl<'a> Round<'a> {
    /// The games `games` of the league `state`.
    pub fn new(state: &'a LeagueState, games: Vec<PendingGame>) -> Round<'a> {
        Round { state, games }
    }

    /// The entrants that play the games, by label, sorted.
    pub fn players(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .games
            .iter()
            .flat_map(|game| [game.pair.0, game.pair.1])
            .map(|number| self.state.entrants()[number as usize].label())
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

impl Work for Round<'_> {
    fn name(&self) -> &str {
        &self.state.league().name
    }

    fn total(&self) -> usize {
        self.state.games() + self.games.len()
    }

    fn done(&self) -> usize {
        self.state.games()
    }

    fn to_play(&self) -> impl Iterator<Item = (ScheduledGame, GameSpec)> + '_ {
        self.games.iter().map(|pending| {
            let game = self.state.game(pending.pair, pending.seat);
            let spec = self.state.spec(&game);
            (game, spec)
        })
    }

    fn append(&self, journal: &mut Journal, record: &GameRecord) -> Result<Span, JournalError> {
        let (pair, seat) = LayoutPair::of_id(&record.id).expect("a game of the round");
        let hashes = self.state.hashes_of(&self.state.game(pair, seat));
        journal.append_line(&GameLine {
            record,
            entrants: hashes,
        })
    }
}
