//! The schedule: every game of a tournament, in a fixed order, from the file alone.
//!
//! A [`Schedule`] is a plain function of the [`Tournament`] (and of the bots
//! that joined it later, if any): the same file gives the same games, with the
//! same ids, seeds and blocks, on every machine, at every concurrency, however
//! many games are already done. That is what lets a
//! run resume from its journal: the games missing from it are found by id.
//!
//! The schedule is never built whole: [`Schedule::game`] computes any game
//! from its index, [`Schedule::index_of`] the index from the id, and
//! [`Schedule::games`] walks indices computing each round's layout once. So a
//! run, its resume and the check of its journal hold the games they are
//! playing or checking, not the tournament's (a million games cost as little
//! memory as ten); only [`schedule`] lists them all, for a dry run's table.
//!
//! # Pairs, layout rounds and ids
//!
//! The pairs are the bots' pairs in file order: `(0,1), (0,2), ..., (1,2), ...`
//! for a round-robin, `(challenger, other)` for each other bot in file order for
//! a gauntlet. Each pair plays `games_per_pair / 2` *layout rounds*; in a round
//! it plays one layout twice, seats swapped, one game right after the other, so
//! that the layout's luck and the first move's advantage cancel.
//!
//! The order is round-major: round 0 of every pair, then round 1 of every pair,
//! and so on, so that an interrupted run has played every pair about as often.
//!
//! Ids: the game `"{pair:03}-{round:02}-a"` has the pair's first bot in the first
//! seat (White at the start), `"-b"` the second bot; `"{pair:03}-{round:02}"` is
//! the layout key the two games share (the record's `layout`). Its index in the
//! schedule is `(round * pairs + pair) * 2 + seat`, `seat` 0 for `-a` and 1 for
//! `-b`: the two games of a layout are the indices `2k` and `2k + 1`, and
//! `k = index / 2` numbers the layout pairs.
//!
//! # Bots that join later
//!
//! A tournament whose journal was started can gain bots (the journal's `joined` lines, see
//! [`pahtum_journal`]): the schedule then grows by *stages*, so that every game it had keeps its index,
//! id and layout, and only the new pairs are added after them. Stage 0 is the schedule above, of the
//! bots of the journal's header; each join adds a stage of the pairs that involve its bots, in the order
//! of the bots (the header's, then each join's): for a round-robin `(i, j)` for each new bot `j` and each
//! bot `i` before it, ordered by `j` then `i`; for a gauntlet `(challenger, j)`. A stage's pairs are
//! numbered on from the previous stage's (the `PPP` of the ids), it plays the same layout rounds, round
//! `r` with the same layout as every other stage's round `r`, and its games come after every earlier
//! stage's, round-major within the stage: the game of pair `p` (the stage's `q`-th, from 0) in round `r`
//! has the index `offset + (r * stage_pairs + q) * 2 + seat`, `offset` the games of the earlier stages.
//! A tournament that never gained a bot has one stage, and the schedule is as before.
//!
//! # Layouts and seeds
//!
//! Every pair plays the same layout in a given round, so that all bots meet the
//! same boards. For round `r`, let `d = SHA-256("pahtum-arena/layout" || seed ||
//! r)` with the tournament seed and `r` as 8-byte little-endian integers. Then:
//!
//! * the round's seed is the first 8 bytes of `d`, little-endian;
//! * with `placement = "random"` or `"players"`, the block count is
//!   `counts[k % counts.len()]`, `k` the next 8 bytes of `d`, little-endian;
//!   or, when the counts cycle ([`RulesConfig::cycle_counts`](crate::config::RulesConfig::cycle_counts),
//!   as `arena match` asks), `counts[r % counts.len()]`, so that the rounds
//!   are balanced over the counts;
//! * with `"random"`, the blocks are `pahtum::setup::random_blocks(count, seed)`
//!   and the games carry the seed; with `"players"` the players place them;
//! * with `"fixed"`, round `r` plays `layouts[r % layouts.len()]`.
//!
//! # Openings
//!
//! With an opening book (`openings = "FILE"`, [`crate::book`]), round `r` starts from the book's opening
//! `order[r % n]` of its `n`: its blocks and its given plies, the game's rules the ones it implies (its block
//! count, given or placed by the players), and no seed. `order` is the book's order, or with
//! `openings_order = "shuffled"` a permutation of it drawn once from the tournament's seed (ChaCha8 seeded
//! with `SHA-256("pahtum-arena/book-order" || seed)`, a Fisher-Yates shuffle); so every opening is played
//! once before any is played again, each as a layout pair, seats swapped.

use std::ops::Range;

use pahtum::{Action, Cell};
use pahtum_protocol::{Placement, Rules};
use pahtum_record::{BookLine, GameSpec, Source};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use sha2::{Digest, Sha256};

use crate::book::Openings;
use crate::config::{BlockSource, Format, Tournament};

/// One game of the schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduledGame {
    /// Position in the schedule.
    pub index: usize,
    /// Stable id, unique in the tournament.
    pub id: String,
    /// The key shared by the two seat-swapped games of one layout.
    pub layout: String,
    /// The bot in the first seat (White at the start) and in the second.
    pub first: String,
    /// The bot in the second seat (Black at the start).
    pub second: String,
    /// The seed the blocks were drawn from (random placement only).
    pub seed: Option<u64>,
    /// The rules of the game (the tournament's).
    pub rules: Rules,
    /// The blocks, empty when the players place them.
    pub blocks: Vec<Cell>,
    /// The plies given before the bots play (an opening book's), checked by the rules when the book was read.
    pub opening: Vec<Action>,
    /// The book's line the opening is, if any.
    pub book: Option<BookLine>,
}

impl ScheduledGame {
    /// The game's [`GameSpec`] in `tournament`: each bot plays by its own
    /// time control, and fair mode is the tournament's.
    pub fn spec(&self, tournament: &Tournament) -> GameSpec {
        GameSpec {
            id: self.id.clone(),
            layout: Some(self.layout.clone()),
            seed: self.seed,
            rules: self.rules,
            blocks: self.blocks.clone(),
            time: tournament.time,
            time_by_seat: None,
            pause_idle: tournament.pause_idle,
            opening: self.opening.clone(),
            origin: self.book.clone().map(Source::Book),
            adjudicate: tournament.rules.adjudicate,
        }
        .with_seat_times(tournament.time_of(&self.first), tournament.time_of(&self.second))
    }
}

/// The schedule of one tournament, computed game by game (see the module documentation).
#[derive(Debug, Clone)]
pub struct Schedule {
    tournament: Tournament,
    /// For each join, in order, the number of bots before it (see the module's bots that join later).
    joins: Vec<usize>,
    /// The pairs of bots that meet, by name, in pair-number order (stage by stage).
    pairs: Vec<(String, String)>,
    shape: ScheduleShape,
    /// The order the openings of the tournament's book are played in (empty without a book).
    openings: Vec<usize>,
}

impl Schedule {
    /// The schedule of `tournament`.
    pub fn new(tournament: &Tournament) -> Schedule {
        Schedule::grown(tournament, &[])
    }

    /// The schedule of `tournament` grown by joins: `joins` gives, for each join in order, the number of
    /// bots of `tournament` (in their order) before it; each is above the one before it and below the
    /// number of bots. Empty: the schedule of [`Schedule::new`].
    ///
    /// # Panics
    ///
    /// If `joins` is not so.
    pub fn grown(tournament: &Tournament, joins: &[usize]) -> Schedule {
        let stages = stage_pairs(tournament, joins);
        Schedule {
            shape: ScheduleShape {
                stages: stages.iter().map(Vec::len).collect(),
                rounds: rounds(tournament),
            },
            openings: openings_order(tournament),
            tournament: tournament.clone(),
            joins: joins.to_vec(),
            pairs: stages.into_iter().flatten().collect(),
        }
    }

    /// This schedule grown by `bots`, which join after every bot of its tournament.
    pub fn join(&self, bots: &[crate::config::BotConfig]) -> Schedule {
        let mut tournament = self.tournament.clone();
        let mut joins = self.joins.clone();
        joins.push(tournament.bots.len());
        tournament.bots.extend_from_slice(bots);
        Schedule::grown(&tournament, &joins)
    }

    /// The tournament whose schedule this is (with every bot that joined, after the others).
    pub fn tournament(&self) -> &Tournament {
        &self.tournament
    }

    /// For each join, in order, the number of bots before it.
    pub fn joins(&self) -> &[usize] {
        &self.joins
    }

    /// The shape of this schedule: its ids and indices.
    pub fn shape(&self) -> &ScheduleShape {
        &self.shape
    }

    /// The number of games.
    pub fn len(&self) -> usize {
        self.shape.games()
    }

    /// Whether the schedule has no game (a tournament without a pair or a round).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The index of the game `id`, if it is a game of the schedule.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.shape.index_of(id)
    }

    /// The bots of the game at `index`, in the first seat and in the second, without computing its layout.
    ///
    /// # Panics
    ///
    /// If `index` is not below [`Schedule::len`].
    pub fn players(&self, index: usize) -> (&str, &str) {
        assert!(index < self.len(), "game {index} of a schedule of {}", self.len());
        let (a, b) = &self.pairs[self.shape.place(index).pair];
        if index % 2 == 0 { (a, b) } else { (b, a) }
    }

    /// The game at `index`.
    ///
    /// # Panics
    ///
    /// If `index` is not below [`Schedule::len`].
    pub fn game(&self, index: usize) -> ScheduledGame {
        let layout = round_layout(&self.tournament, self.round_of(index), &self.openings);
        self.game_in(index, &layout)
    }

    /// The games at `indices` (each below [`Schedule::len`]), in their order; each round's layout is
    /// computed once for a run of indices in the same round.
    pub fn games<I: IntoIterator<Item = usize>>(&self, indices: I) -> Games<'_, I::IntoIter> {
        Games {
            schedule: self,
            indices: indices.into_iter(),
            round: None,
        }
    }

    /// Every game, in schedule order.
    pub fn iter(&self) -> Games<'_, Range<usize>> {
        self.games(0..self.len())
    }

    fn round_of(&self, index: usize) -> usize {
        self.shape.place(index).round
    }

    /// The game at `index`, of the round whose layout is `layout`.
    fn game_in(&self, index: usize, layout: &RoundLayout) -> ScheduledGame {
        let (first, second) = self.players(index);
        let id = self.shape.id_of(index);
        ScheduledGame {
            index,
            layout: id[..id.len() - 2].to_owned(),
            id,
            first: first.to_owned(),
            second: second.to_owned(),
            seed: layout.seed,
            rules: Rules {
                pie: self.tournament.rules.pie,
                blocks: layout.count,
                placement: layout.placement,
            },
            blocks: layout.blocks.clone(),
            opening: layout.opening.clone(),
            book: layout.book.clone(),
        }
    }
}

/// The games of a [`Schedule`] at some indices: [`Schedule::games`].
#[derive(Debug)]
pub struct Games<'s, I> {
    schedule: &'s Schedule,
    indices: I,
    /// The layout of the round of the last game made, and that round.
    round: Option<(usize, RoundLayout)>,
}

impl<I: Iterator<Item = usize>> Iterator for Games<'_, I> {
    type Item = ScheduledGame;

    fn next(&mut self) -> Option<ScheduledGame> {
        let index = self.indices.next()?;
        let round = self.schedule.round_of(index);
        if self.round.as_ref().is_none_or(|(cached, _)| *cached != round) {
            self.round = Some((
                round,
                round_layout(&self.schedule.tournament, round, &self.schedule.openings),
            ));
        }
        let (_, layout) = self.round.as_ref().expect("the round's layout was just made");
        Some(self.schedule.game_in(index, layout))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.indices.size_hint()
    }
}

/// Every game of `tournament`, in schedule order, in one list (a dry run's table; a run walks
/// [`Schedule::games`] instead).
pub fn schedule(tournament: &Tournament) -> Vec<ScheduledGame> {
    Schedule::new(tournament).iter().collect()
}

/// The number of games of `tournament`'s schedule.
pub fn len(tournament: &Tournament) -> usize {
    ScheduleShape::of(tournament).games()
}

/// The size of a tournament's schedule, enough to map game ids to schedule indexes and back (see the
/// module's ids) without computing any game: the pairs of each stage and the rounds, not the games.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleShape {
    /// The pairs of each stage (one stage, unless bots joined).
    stages: Vec<usize>,
    rounds: usize,
}

/// Where a game lies in the schedule: its pair (numbered over every stage) and round.
#[derive(Debug, Clone, Copy)]
struct Place {
    pair: usize,
    round: usize,
}

impl ScheduleShape {
    /// The shape of `tournament`'s schedule (with no bot joined).
    pub fn of(tournament: &Tournament) -> ScheduleShape {
        ScheduleShape {
            stages: vec![pairs(tournament, tournament.bots.len()).len()],
            rounds: rounds(tournament),
        }
    }

    /// The number of games.
    pub fn games(&self) -> usize {
        self.stages.iter().sum::<usize>() * self.rounds * 2
    }

    /// The schedule index of the game `id`, if it is a game of the schedule: `id` must be the id the
    /// schedule gives that index, digit for digit (`"1-2-a"` is not `"001-02-a"`).
    pub fn index_of(&self, id: &str) -> Option<usize> {
        let mut parts = id.split('-');
        let (pair, round, side) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || pair.len() < 3 || round.len() < 2 {
            return None;
        }
        let (mut pair, round): (usize, usize) = (pair.parse().ok()?, round.parse().ok()?);
        let side = match side {
            "a" => 0,
            "b" => 1,
            _ => return None,
        };
        if round >= self.rounds {
            return None;
        }
        let mut offset = 0;
        for &pairs in &self.stages {
            if pair < pairs {
                let index = offset + (round * pairs + pair) * 2 + side;
                return (self.id_of(index) == id).then_some(index);
            }
            pair -= pairs;
            offset += pairs * self.rounds * 2;
        }
        None
    }

    /// The id of the game at schedule index `index`.
    pub fn id_of(&self, index: usize) -> String {
        let Place { pair, round } = self.place(index);
        format!("{pair:03}-{round:02}-{}", if index % 2 == 0 { "a" } else { "b" })
    }

    /// The pair and round of the game at `index`.
    fn place(&self, index: usize) -> Place {
        let (mut unit, mut first_pair) = (index / 2, 0);
        for &pairs in &self.stages {
            if unit < pairs * self.rounds {
                return Place {
                    pair: first_pair + unit % pairs,
                    round: unit / pairs,
                };
            }
            unit -= pairs * self.rounds;
            first_pair += pairs;
        }
        panic!("game {index} of a schedule of {}", self.games())
    }
}

/// One round's layout, shared by every pair.
#[derive(Debug)]
struct RoundLayout {
    seed: Option<u64>,
    count: usize,
    placement: Placement,
    blocks: Vec<Cell>,
    opening: Vec<Action>,
    book: Option<BookLine>,
}

/// The layout rounds each pair plays.
fn rounds(tournament: &Tournament) -> usize {
    tournament.games_per_pair as usize / 2
}

/// The pairs of bots of each stage, by name, in pair-number order: stage 0 of the bots before the first
/// join, then those of each join (see the module documentation).
fn stage_pairs(tournament: &Tournament, joins: &[usize]) -> Vec<Vec<(String, String)>> {
    let bots = tournament.bots.len();
    let mut starts = vec![0];
    starts.extend_from_slice(joins);
    assert!(
        starts.windows(2).all(|w| w[0] < w[1]) && joins.last().is_none_or(|&last| last < bots),
        "joins {joins:?} of a tournament of {bots} bots"
    );
    let ends = joins.iter().copied().chain([bots]);
    starts
        .iter()
        .zip(ends)
        .map(|(&start, end)| match start {
            0 => pairs(tournament, end),
            _ => (start..end).flat_map(|new| pairs_with(tournament, new)).collect(),
        })
        .collect()
}

/// The pairs of bots that meet among the first `bots` bots, by name, in schedule order: `(0,1), (0,2), ...,
/// (1,2), ...` for a round-robin, `(challenger, other)` for each other bot in file order for a gauntlet.
fn pairs(tournament: &Tournament, bots: usize) -> Vec<(String, String)> {
    let names = &tournament.bot_names()[..bots];
    match &tournament.format {
        Format::RoundRobin => names
            .iter()
            .enumerate()
            .flat_map(|(i, a)| names[i + 1..].iter().map(move |b| (a.clone(), b.clone())))
            .collect(),
        Format::Gauntlet { challenger } => names
            .iter()
            .filter(|name| *name != challenger)
            .map(|other| (challenger.clone(), other.clone()))
            .collect(),
        // Paired round by round as it is played (as a league): no pair is fixed in advance.
        Format::Swiss { .. } | Format::Knockout { .. } => Vec::new(),
    }
}

/// The pairs that the bot at `new`, which joined later, makes with the bots before it: `(i, new)` for each
/// bot `i` before it in a round-robin, `(challenger, new)` in a gauntlet (whose challenger is a bot of
/// the header's, so before it).
fn pairs_with(tournament: &Tournament, new: usize) -> Vec<(String, String)> {
    let names = &tournament.bots;
    match &tournament.format {
        Format::RoundRobin => names[..new]
            .iter()
            .map(|bot| (bot.name.clone(), names[new].name.clone()))
            .collect(),
        Format::Gauntlet { challenger } => vec![(challenger.clone(), names[new].name.clone())],
        Format::Swiss { .. } | Format::Knockout { .. } => Vec::new(),
    }
}

/// The order the openings of `tournament`'s book are played in (see the module's openings); empty without a
/// book.
fn openings_order(tournament: &Tournament) -> Vec<usize> {
    let BlockSource::Book(Openings { shuffled, openings, .. }) = &tournament.rules.blocks else {
        return Vec::new();
    };
    let mut order: Vec<usize> = (0..openings.len()).collect();
    if *shuffled {
        let digest = Sha256::new()
            .chain_update(b"pahtum-arena/book-order")
            .chain_update(tournament.seed.to_le_bytes())
            .finalize();
        let seed: [u8; 32] = digest.into();
        order.shuffle(&mut rand_chacha::ChaCha8Rng::from_seed(seed));
    }
    order
}

/// The layout of round `round` of `tournament`, whose book's openings (if any) are played in `order`.
fn round_layout(tournament: &Tournament, round: usize, order: &[usize]) -> RoundLayout {
    let digest = Sha256::new()
        .chain_update(b"pahtum-arena/layout")
        .chain_update(tournament.seed.to_le_bytes())
        .chain_update((round as u64).to_le_bytes())
        .finalize();
    let word = |i: usize| u64::from_le_bytes(digest[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    let seed = word(0);
    let pick = |counts: &[usize]| {
        if tournament.rules.cycle_counts {
            counts[round % counts.len()]
        } else {
            counts[(word(1) % counts.len() as u64) as usize]
        }
    };
    match &tournament.rules.blocks {
        BlockSource::Random { counts } => {
            let count = pick(counts);
            let blocks =
                pahtum::setup::random_blocks(count, seed).expect("block counts are checked when the file is read");
            RoundLayout {
                seed: Some(seed),
                count,
                placement: Placement::Random,
                blocks: blocks.cells().collect(),
                opening: Vec::new(),
                book: None,
            }
        }
        BlockSource::Players { counts } => RoundLayout {
            seed: None,
            count: pick(counts),
            placement: Placement::Players,
            blocks: Vec::new(),
            opening: Vec::new(),
            book: None,
        },
        BlockSource::Fixed { layouts } => {
            // In board order, as the referee lists the blocks of the games it plays: a record built without
            // the referee (a bot that could not start) must list them alike.
            let mut blocks = layouts[round % layouts.len()].clone();
            blocks.sort_unstable();
            RoundLayout {
                seed: None,
                count: blocks.len(),
                placement: Placement::Fixed,
                blocks,
                opening: Vec::new(),
                book: None,
            }
        }
        BlockSource::Book(Openings { file, openings, .. }) => {
            let opening = &openings[order[round % order.len()]];
            let rules = opening.rules(tournament.rules.pie);
            RoundLayout {
                seed: None,
                count: rules.blocks,
                placement: rules.placement,
                blocks: opening.blocks.clone(),
                opening: opening.plies.clone(),
                book: Some(BookLine {
                    file: file.clone(),
                    line: opening.line,
                }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::path::Path;

    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::config::{self, RulesConfig};

    fn tournament(extra: &str, bots: usize) -> Tournament {
        let mut text = format!("name = \"t\"\nseed = 7\n{extra}\n");
        for i in 0..bots {
            text.push_str(&format!("[[bots]]\nname = \"bot{i}\"\nbuiltin = \"heuristic\"\n"));
        }
        config::parse(Path::new("t.toml"), &text).unwrap().tournament
    }

    /// The schedule as the module documentation defines it, built whole by nested loops: the oracle of the
    /// lazy one.
    fn by_the_definition(t: &Tournament) -> Vec<ScheduledGame> {
        let pairs = pairs(t, t.bots.len());
        let mut games = Vec::new();
        for round in 0..t.games_per_pair as usize / 2 {
            let layout = round_layout(t, round, &openings_order(t));
            for (pair, (a, b)) in pairs.iter().enumerate() {
                for (side, first, second) in [("a", a, b), ("b", b, a)] {
                    games.push(ScheduledGame {
                        index: games.len(),
                        id: format!("{pair:03}-{round:02}-{side}"),
                        layout: format!("{pair:03}-{round:02}"),
                        first: first.clone(),
                        second: second.clone(),
                        seed: layout.seed,
                        rules: Rules {
                            pie: t.rules.pie,
                            blocks: layout.count,
                            placement: layout.placement,
                        },
                        blocks: layout.blocks.clone(),
                        opening: layout.opening.clone(),
                        book: layout.book.clone(),
                    });
                }
            }
        }
        games
    }

    /// A random tournament: 2 to 6 bots, round-robin or gauntlet, 2 to 24 games a pair, each placement.
    fn random_tournament(rng: &mut ChaCha8Rng) -> Tournament {
        let bots = rng.random_range(2..=6);
        let format = if rng.random_bool(0.5) {
            format!(
                "format = \"gauntlet\"\nchallenger = \"bot{}\"",
                rng.random_range(0..bots)
            )
        } else {
            String::new()
        };
        let rules = match rng.random_range(0..3) {
            0 => "[rules]\nblocks = [3, 5, 7, 9]",
            1 => "[rules]\nplacement = \"players\"\nblocks = [1, 3]",
            _ => "[rules]\nplacement = \"fixed\"\nlayouts = [[\"a1\"], [\"b2\", \"c3\", \"d4\"]]",
        };
        let mut t = tournament(
            &format!("games_per_pair = {}\n{format}\n{rules}", 2 * rng.random_range(1..=12)),
            bots,
        );
        t.seed = rng.random();
        t.rules.cycle_counts = rng.random_bool(0.5);
        t
    }

    /// For random tournaments, every game computed alone, walked in order or at random indices, and found by
    /// its id is the game the definition gives; ids that are not the schedule's, digit for digit, are not found.
    /// A book's openings are played in the book's order, or in a permutation drawn from the seed, each as a
    /// layout pair whose games carry its blocks, its plies, the rules it implies and its line.
    #[test]
    fn a_books_openings_are_played_each_as_a_layout_pair() {
        let dir = tempfile::tempdir().unwrap();
        let lines: Vec<String> = (0..7)
            .map(|k| {
                format!(
                    "a1 b2 c3 d4 e5 | {} keep",
                    ["g7", "f6", "e7", "a7", "b7", "c7", "d7"][k]
                )
            })
            .collect();
        let book = dir.path().join("book.txt");
        std::fs::write(&book, format!("| #a1 #b2 #c3 g7\n{}\n", lines.join("\n"))).unwrap();
        let with_order = |order: &str| {
            tournament(
                &format!(
                    "games_per_pair = 16\n[rules]\nopenings = \"{}\"\nopenings_order = \"{order}\"\n",
                    book.display()
                ),
                3,
            )
        };
        let lines_of = |t: &Tournament| -> Vec<usize> {
            let games = schedule(t);
            for pair in games.chunks(2) {
                assert_eq!(
                    (&pair[0].blocks, &pair[0].opening, &pair[0].book),
                    (&pair[1].blocks, &pair[1].opening, &pair[1].book)
                );
                assert_eq!((&pair[0].first, &pair[0].second), (&pair[1].second, &pair[1].first));
            }
            games
                .iter()
                .step_by(6)
                .map(|game| game.book.as_ref().unwrap().line)
                .collect()
        };
        let in_order = with_order("sequence");
        assert_eq!(lines_of(&in_order), [1, 2, 3, 4, 5, 6, 7, 8]);
        let first = &schedule(&in_order)[0];
        assert_eq!(
            (first.rules.placement, first.rules.blocks, first.blocks.len()),
            (Placement::Players, 3, 0)
        );
        assert_eq!(first.opening.len(), 4);
        let second = &schedule(&in_order)[6];
        assert_eq!((second.rules.placement, second.rules.blocks), (Placement::Fixed, 5));
        let spec = second.spec(&in_order);
        assert_eq!(spec.opening, second.opening);
        assert!(spec.with_opening(second.opening.clone(), None).is_ok());

        let shuffled = lines_of(&with_order("shuffled"));
        assert_ne!(shuffled, [1, 2, 3, 4, 5, 6, 7, 8]);
        let mut once: Vec<usize> = shuffled.clone();
        once.sort_unstable();
        assert_eq!(once, [1, 2, 3, 4, 5, 6, 7, 8], "every opening once in eight rounds");
        assert_eq!(
            shuffled,
            lines_of(&with_order("shuffled")),
            "the same seed, the same order"
        );
    }

    #[test]
    fn the_lazy_schedule_is_the_defined_one() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..60 {
            let t = random_tournament(&mut rng);
            let expected = by_the_definition(&t);
            let lazy = Schedule::new(&t);
            assert_eq!((lazy.len(), len(&t)), (expected.len(), expected.len()));
            assert_eq!(lazy.iter().collect::<Vec<_>>(), expected);
            assert_eq!(schedule(&t), expected);
            for game in &expected {
                let index = lazy.index_of(&game.id).expect("an id of the schedule");
                assert_eq!(lazy.game(index), *game);
                assert_eq!(lazy.players(index), (game.first.as_str(), game.second.as_str()));
            }
            let picks: Vec<usize> = (0..20).map(|_| rng.random_range(0..expected.len())).collect();
            let picked: Vec<ScheduledGame> = picks.iter().map(|&i| expected[i].clone()).collect();
            assert_eq!(lazy.games(picks).collect::<Vec<_>>(), picked);
            let last = expected.last().unwrap();
            let pairs = pairs(&t, t.bots.len()).len();
            let (pair, round) = ((last.index / 2) % pairs, last.index / 2 / pairs);
            for stranger in [
                format!("{pair}-{round}-a"),
                format!("{pair:03}-{round:03}-a"),
                format!("0{pair:03}-{round:02}-b"),
                format!("{:03}-{round:02}-a", pair + 1),
                format!("{pair:03}-{:02}-a", round + 1),
                format!("{pair:03}-{round:02}-c"),
                format!("{pair:03}-{round:02}-a-a"),
                format!("+{pair:02}-{round:02}-a"),
                format!("{pair:03}-{round:02}"),
                String::new(),
            ] {
                assert_eq!(lazy.index_of(&stranger), None, "{stranger:?} in {}", last.id);
            }
        }
    }

    /// A tournament of `bots` bots grown by joins of 1 to 3 bots each, at random: the tournament with every
    /// bot, and the joins.
    fn grown_at_random(rng: &mut ChaCha8Rng) -> (Tournament, Vec<usize>) {
        let mut t = random_tournament(rng);
        let mut joins = Vec::new();
        for _ in 0..rng.random_range(1..=3) {
            joins.push(t.bots.len());
            for _ in 0..rng.random_range(1..=3) {
                let mut bot = t.bots[0].clone();
                bot.name = format!("bot{}", t.bots.len());
                t.bots.push(bot);
            }
        }
        (t, joins)
    }

    /// Property: growing a tournament by bots keeps every game it had (index, id, layout, players, seed,
    /// rules, blocks: the whole game) and adds only games of a new bot, each pair that did not meet once per
    /// layout round and seat, after the old games; the grown schedule's ids and indices map to each other.
    #[test]
    fn joining_bots_keeps_every_old_game_and_adds_only_the_new_pairs() {
        let mut rng = ChaCha8Rng::seed_from_u64(28);
        for _ in 0..80 {
            let (t, joins) = grown_at_random(&mut rng);
            let mut before = t.clone();
            before.bots.truncate(joins[0]);
            let old = schedule(&before);
            let grown = Schedule::grown(&t, &joins);
            assert_eq!(Schedule::new(&before).join(&t.bots[joins[0]..]).len(), {
                let mut once = joins.clone();
                once.truncate(1);
                Schedule::grown(&t, &once).len()
            });
            let games: Vec<ScheduledGame> = grown.iter().collect();
            assert_eq!(games[..old.len()], old[..], "every old game unchanged");
            let old_names: HashSet<&str> = before.bots.iter().map(|bot| bot.name.as_str()).collect();
            let rounds = t.games_per_pair as usize / 2;
            let mut met: std::collections::HashMap<(String, String), usize> = Default::default();
            for game in &games[old.len()..] {
                assert!(
                    !old_names.contains(game.first.as_str()) || !old_names.contains(game.second.as_str()),
                    "{} is a game of two old bots",
                    game.id
                );
                let mut pair = [game.first.clone(), game.second.clone()];
                pair.sort();
                *met.entry((pair[0].clone(), pair[1].clone())).or_default() += 1;
            }
            let expected_new_pairs = match &t.format {
                Format::RoundRobin => t.bots.len() * (t.bots.len() - 1) / 2 - old.len() / rounds / 2,
                Format::Gauntlet { .. } => t.bots.len() - joins[0],
                Format::Swiss { .. } | Format::Knockout { .. } => 0,
            };
            assert_eq!(met.len(), expected_new_pairs, "{:?}", t.format);
            assert!(
                met.values().all(|&n| n == 2 * rounds),
                "each new pair plays every round, both seats"
            );
            let ids: HashSet<&str> = games.iter().map(|game| game.id.as_str()).collect();
            assert_eq!(ids.len(), games.len(), "ids are unique");
            for game in &games {
                assert_eq!(grown.index_of(&game.id), Some(game.index), "{}", game.id);
                assert_eq!(grown.shape().id_of(game.index), game.id);
                assert_eq!(grown.game(game.index), *game);
                // Every stage's round r plays round r's layout.
                let round: usize = game.id[4..6].parse().unwrap();
                assert_eq!(game.seed, old[round * 2 * (old.len() / rounds / 2)].seed);
            }
            assert_eq!(
                grown.index_of(&format!("{:03}-00-a", met.len() + old.len() / rounds / 2)),
                None
            );
        }
    }

    #[test]
    fn a_bot_that_joins_a_round_robin_meets_every_bot_before_it_after_the_old_games() {
        let mut t = tournament("games_per_pair = 4", 4);
        let grown = Schedule::grown(&t, &[3]);
        let new: Vec<(String, String, String)> = grown
            .iter()
            .skip(12)
            .map(|game| (game.id, game.first, game.second))
            .collect();
        let expected = [
            ("003-00-a", "bot0", "bot3"),
            ("003-00-b", "bot3", "bot0"),
            ("004-00-a", "bot1", "bot3"),
            ("004-00-b", "bot3", "bot1"),
            ("005-00-a", "bot2", "bot3"),
            ("005-00-b", "bot3", "bot2"),
            ("003-01-a", "bot0", "bot3"),
            ("003-01-b", "bot3", "bot0"),
            ("004-01-a", "bot1", "bot3"),
            ("004-01-b", "bot3", "bot1"),
            ("005-01-a", "bot2", "bot3"),
            ("005-01-b", "bot3", "bot2"),
        ]
        .map(|(id, a, b)| (id.to_owned(), a.to_owned(), b.to_owned()));
        assert_eq!(new, expected);
        t.bots.truncate(3);
        assert_eq!(schedule(&t)[..], grown.iter().take(12).collect::<Vec<_>>()[..]);
    }

    #[test]
    fn the_shape_maps_every_id_to_its_index_and_back() {
        let t = tournament("games_per_pair = 6", 3);
        let shape = ScheduleShape::of(&t);
        for game in schedule(&t) {
            assert_eq!(shape.index_of(&game.id), Some(game.index));
            assert_eq!(shape.id_of(game.index), game.id);
        }
        for stranger in ["999-00-a", "000-03-a", "000-00-c", "0-0-a", "000-00-a-x", "", "x"] {
            assert_eq!(shape.index_of(stranger), None, "{stranger}");
        }
    }

    #[test]
    fn round_robin_has_every_pair_and_seat_swapped_layouts() {
        let t = tournament("games_per_pair = 4", 4);
        let games = schedule(&t);
        assert_eq!(games.len(), 6 * 4);
        let ids: HashSet<_> = games.iter().map(|g| &g.id).collect();
        assert_eq!(ids.len(), games.len());
        for (index, pair) in games.chunks(2).enumerate() {
            let [a, b] = pair else { unreachable!() };
            assert_eq!(a.index, 2 * index);
            assert_eq!(a.layout, b.layout);
            assert_eq!(
                (a.first.as_str(), a.second.as_str()),
                (b.second.as_str(), b.first.as_str())
            );
            assert_eq!((&a.blocks, a.seed, a.rules), (&b.blocks, b.seed, b.rules));
            assert_eq!(a.blocks.len(), a.rules.blocks);
        }
        assert_eq!(games[0].id, "000-00-a");
        assert_eq!(games[1].id, "000-00-b");
        assert_eq!(games[2].id, "001-00-a");
        assert_eq!(games[12].id, "000-01-a");
        assert_eq!((games[0].first.as_str(), games[0].second.as_str()), ("bot0", "bot1"));
        assert_eq!((games[10].first.as_str(), games[10].second.as_str()), ("bot2", "bot3"));
        // Every pair plays the same layout in a round; rounds differ.
        assert!(games[..12].iter().all(|g| g.blocks == games[0].blocks));
        assert_ne!(games[0].seed, games[12].seed);
    }

    #[test]
    fn gauntlet_pairs_the_challenger_with_every_other_bot() {
        let t = tournament("format = \"gauntlet\"\nchallenger = \"bot2\"", 4);
        let games = schedule(&t);
        let pairs: Vec<_> = games.iter().map(|g| (g.first.as_str(), g.second.as_str())).collect();
        assert_eq!(
            pairs,
            [
                ("bot2", "bot0"),
                ("bot0", "bot2"),
                ("bot2", "bot1"),
                ("bot1", "bot2"),
                ("bot2", "bot3"),
                ("bot3", "bot2")
            ]
        );
    }

    #[test]
    fn the_schedule_is_pinned_by_the_seed() {
        let t = tournament("[rules]\nblocks = [5, 7, 9, 11, 13]", 2);
        assert_eq!(schedule(&t), schedule(&t.clone()));
        // Fixed data, computed apart from this code from the module's definition
        // (SHA-256 in Python): changing the derivation breaks every journal's resume.
        let first = &schedule(&t)[0];
        assert_eq!(first.seed, Some(0xc96c_e1eb_0c84_cb06));
        assert_eq!(
            first.rules.blocks, 13,
            "counts[4]: the second word of the digest is 4 mod 5"
        );
        let cells: Vec<String> = first.blocks.iter().map(ToString::to_string).collect();
        assert_eq!(cells.join(" "), "b1 b2 e2 d3 b4 d4 f4 g4 b5 e5 f6 g6 e7");
        let other = Tournament { seed: 8, ..t.clone() };
        assert_ne!(schedule(&other)[0].seed, schedule(&t)[0].seed);
    }

    /// Cycling counts: every count in turn, so that 2k rounds over k counts play each count twice; the
    /// seeds are the drawn schedule's.
    #[test]
    fn cycling_counts_are_balanced() {
        let drawn = tournament("games_per_pair = 16\n[rules]\nblocks = [5, 7, 9, 11]", 2);
        let mut cycling = drawn.clone();
        cycling.rules.cycle_counts = true;
        let counts: Vec<usize> = schedule(&cycling)
            .iter()
            .step_by(2)
            .map(|game| game.rules.blocks)
            .collect();
        assert_eq!(counts, [5, 7, 9, 11, 5, 7, 9, 11]);
        let drawn_counts: Vec<usize> = schedule(&drawn)
            .iter()
            .step_by(2)
            .map(|game| game.rules.blocks)
            .collect();
        assert_ne!(drawn_counts, counts, "drawn, as before");
        for (a, b) in schedule(&cycling).iter().zip(schedule(&drawn)) {
            assert_eq!(a.seed, b.seed);
            assert_eq!(a.blocks.len(), a.rules.blocks);
        }
        let placed = tournament(
            "games_per_pair = 6\n[rules]\nplacement = \"players\"\nblocks = [3, 5, 7]",
            2,
        );
        let placed = Tournament {
            rules: RulesConfig {
                cycle_counts: true,
                ..placed.rules
            },
            ..placed
        };
        let counts: Vec<usize> = schedule(&placed).iter().map(|game| game.rules.blocks).collect();
        assert_eq!(counts, [3, 3, 5, 5, 7, 7]);
    }

    #[test]
    fn players_and_fixed_placements() {
        let t = tournament("[rules]\nplacement = \"players\"\nblocks = [3]", 2);
        let game = &schedule(&t)[0];
        assert_eq!((game.seed, game.blocks.len(), game.rules.blocks), (None, 0, 3));
        let t = tournament(
            "games_per_pair = 4\n[rules]\nplacement = \"fixed\"\nlayouts = [[\"a1\"], [\"b2\", \"c3\", \"d4\"]]",
            2,
        );
        let games = schedule(&t);
        assert_eq!(games[0].blocks, ["a1".parse().unwrap()]);
        assert_eq!(games[2].rules.blocks, 3);
    }

    #[test]
    fn fixed_layouts_are_in_board_order_whatever_the_file_order() {
        let t = tournament(
            "[rules]\nplacement = \"fixed\"\nlayouts = [[\"d4\", \"g1\", \"a7\", \"b2\", \"c1\"]]",
            2,
        );
        let game = &schedule(&t)[0];
        let cells: Vec<String> = game.blocks.iter().map(ToString::to_string).collect();
        assert_eq!(cells.join(" "), "c1 g1 b2 d4 a7");
        let on_the_board: Vec<Cell> = pahtum::setup::fixed_blocks(&game.blocks).unwrap().cells().collect();
        assert_eq!(game.blocks, on_the_board, "the order of the referee's records");
    }
}
