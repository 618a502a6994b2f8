//! Reading a league's journal: its header, then every line checked, streamed
//! in bounded memory on every core by the tournament journal's line reader
//! ([`pahtum_journal::lines`]), in file order.
//!
//! A torn last line is dropped and blank lines skipped as in a tournament
//! journal; any other line that does not pass ([`super::lines::parse`] on the
//! reading threads, then [`LeagueState`] in file order) is an error naming its
//! line, so that a line edited by hand is refused, never counted ([`read`]).
//! `arena verify` goes on past a faulty line and lists them all
//! ([`super::audit::verify`]): one pass ([`scan`]) does both, so they check the
//! same things.

use std::path::{Path, PathBuf};

use pahtum_record::GameRecord;

use pahtum_journal::audit::Fault;
use pahtum_journal::lines::for_each_line;
use pahtum_journal::sink::{Keep, Sink};
use pahtum_journal::{JournalError, LinesEnd, Moves, Span, open_first_line};
use pahtum_tournament::config::ConfigError;

use super::lines::{Event, FORMAT, LeagueHeader, Parsed, parse};
use super::state::{LeagueFault, LeagueState};
use super::voids::Voids;

/// Why a league's journal cannot be read, or a league not be used.
#[derive(Debug, thiserror::Error)]
pub enum LeagueError {
    /// The journal cannot be read, written or locked (what a tournament journal can fail with).
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// `league.toml` cannot be read or is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A merged journal cannot be written.
    #[error(transparent)]
    Write(#[from] pahtum_journal::merge::OutputError),
    /// A line of the journal does not pass.
    #[error(
        "line {line} of the league journal {} is damaged or was edited, so none of its results is trusted \
         (repair or remove that line; `arena verify {}` lists every such line)",
        path.display(), path.display()
    )]
    Fault {
        /// The journal.
        path: PathBuf,
        /// The line's number, from 1 (the header).
        line: usize,
        /// What is wrong with it.
        #[source]
        source: Box<LeagueFault>,
    },
    /// `league.toml` changed since the journal was started.
    #[error(
        "{} changed since the league's journal was started; put back the rules it was started with \
         (they are in the journal's first line), or start a new league",
        path.display()
    )]
    Changed {
        /// The `league.toml`.
        path: PathBuf,
    },
    /// An entrant's folder or `bot.toml` holds what a league does not take (see [`super::folder`]).
    #[error("{file} {problem}. The entrant was not added, and the league is unchanged: {fix}.")]
    Entrant {
        /// The file refused, escaped.
        file: String,
        /// What is wrong with it, and the rule or limit it breaks.
        problem: String,
        /// What to do.
        fix: String,
    },
    /// Something else is wrong, said in words (with what to do).
    #[error("{0}")]
    Refused(String),
}

/// Whether the journal at `path` is a league's: its first line names the league format.
pub fn is_league_journal(path: &Path) -> bool {
    #[derive(serde::Deserialize)]
    struct Format {
        journal: String,
    }
    open_first_line(path)
        .is_ok_and(|(line, _)| serde_json::from_slice::<Format>(&line).is_ok_and(|format| format.journal == FORMAT))
}

/// What one pass over a league's journal found.
#[derive(Debug)]
pub struct Read {
    /// The league as its lines say.
    pub state: LeagueState,
    /// How its lines ended.
    pub ending: LinesEnd,
}

/// Reads the league journal at `path`, checking every line, and hands each game's record (with its moves
/// as `moves` says, what the sink's [`Keep`] made of it on the reading threads, and where it lies) to
/// `sink`. Stops at the first faulty line.
pub fn read(path: &Path, moves: Moves, sink: &mut impl Sink) -> Result<Read, LeagueError> {
    let keeper = sink.keeper();
    read_with(
        path,
        moves,
        |record| keeper.keep(record),
        |_, record, kept, span| sink.record(record, kept, span),
    )
}

/// [`read`], handing `each` the league as the lines before each game say, with the game.
pub(crate) fn read_with<T: Send>(
    path: &Path,
    moves: Moves,
    keep: impl Fn(&GameRecord) -> T + Sync,
    each: impl FnMut(&LeagueState, GameRecord, T, Span),
) -> Result<Read, LeagueError> {
    scan(
        path,
        moves,
        keep,
        |line, source| {
            Err(LeagueError::Fault {
                path: path.to_owned(),
                line,
                source: Box::new(source),
            })
        },
        |_, _| Ok(()),
        each,
    )
}

/// One pass over the league journal at `path` (see [`read`]): each faulty line, by its number, goes to
/// `fault`, which stops the pass by returning an error or lets it go on, the line counting for nothing;
/// `event` checks each event beyond its own lines before it counts (a fault of its is the line's).
pub(crate) fn scan<T: Send>(
    path: &Path,
    moves: Moves,
    keep: impl Fn(&GameRecord) -> T + Sync,
    mut fault: impl FnMut(usize, LeagueFault) -> Result<(), LeagueError>,
    event: impl FnMut(&LeagueState, &Event) -> Result<(), LeagueFault>,
    each: impl FnMut(&LeagueState, GameRecord, T, Span),
) -> Result<Read, LeagueError> {
    let (mut place, rest) = Place::open(path, &mut fault)?;
    place.scan(path, rest, moves, keep, fault, event, each)?;
    Ok(Read {
        state: place.state,
        ending: place.ending,
    })
}

/// Where a pass over a league's journal stands: the league as the lines read so far say, how they ended,
/// and the number of the last line read; a pass goes on from it (the whole journal, or a follower's new
/// lines, [`super::follow`]).
#[derive(Debug, Clone)]
pub(crate) struct Place {
    /// The league as the lines read so far say.
    pub state: LeagueState,
    /// How the lines read so far ended.
    pub ending: LinesEnd,
    /// The number of the last line read, from 1 (the header).
    number: usize,
    /// The journal's voids, found before its lines are read: the records they void are left out.
    voids: Voids,
    /// Whether a void was read that was not found beforehand (by a follower, of a record it handed on).
    pub unforeseen_void: bool,
}

impl Place {
    /// Reads the header of the league journal at `path` (a header whose hash is not its league's goes to
    /// `fault` as line 1's) and finds its voids: the place after it, and a reader of the lines after it.
    pub fn open(
        path: &Path,
        fault: &mut impl FnMut(usize, LeagueFault) -> Result<(), LeagueError>,
    ) -> Result<(Place, std::io::BufReader<std::fs::File>), LeagueError> {
        let (line, rest) = open_first_line(path)?;
        // A tournament's journal, or any other first line, is no league's.
        let header = serde_json::from_slice::<LeagueHeader>(&line)
            .ok()
            .filter(|header| header.journal == FORMAT)
            .ok_or_else(|| {
                LeagueError::Refused(format!(
                    "{} is not a league's journal (its first line is not a {FORMAT} header); `arena standings` and \
                     `arena report` read any journal",
                    path.display()
                ))
            })?;
        if header.hash != header.league.hash() {
            fault(1, LeagueFault::HeaderEdited)?;
        }
        let place = Place {
            state: LeagueState::new(&header.league),
            ending: LinesEnd {
                records: 0,
                valid_len: line.len() as u64 + 1,
                torn: false,
                unterminated: false,
            },
            number: 1,
            voids: Voids::of_file(path).map_err(|source| JournalError::Io {
                action: "read",
                path: path.to_owned(),
                source,
            })?,
            unforeseen_void: false,
        };
        Ok((place, rest))
    }

    /// Puts this place (its league as read so far) after the first `bytes` bytes, `lines` lines, of a file:
    /// how a second file that holds the same lines up to there is read on, with the league as the lines
    /// read since, of other files too, say.
    pub(crate) fn reposition(&mut self, bytes: u64, lines: usize) {
        self.ending = LinesEnd {
            records: 0,
            valid_len: bytes,
            torn: false,
            unterminated: false,
        };
        self.number = lines;
    }

    /// Reads the lines of `source` (the journal at `path` from this place on), checking each against the
    /// league as the lines before it say, and each event by `check` too: each game's record (its moves as
    /// `moves` says, made into what `keep` keeps on the reading threads) goes to `each`, each faulty line to
    /// `fault`.
    #[allow(clippy::too_many_arguments)]
    pub fn scan<T: Send>(
        &mut self,
        path: &Path,
        source: impl std::io::Read + Send,
        moves: Moves,
        keep: impl Fn(&GameRecord) -> T + Sync,
        mut fault: impl FnMut(usize, LeagueFault) -> Result<(), LeagueError>,
        mut check: impl FnMut(&LeagueState, &Event) -> Result<(), LeagueFault>,
        mut each: impl FnMut(&LeagueState, GameRecord, T, Span),
    ) -> Result<(), LeagueError> {
        let io_error = |source| JournalError::Io {
            action: "read",
            path: path.to_owned(),
            source,
        };
        let Place {
            state,
            ending,
            number,
            voids,
            unforeseen_void,
        } = self;
        let read_line = |text: &[u8]| {
            parse(text, moves).map(|parsed| {
                let kept = match &parsed {
                    Parsed::Game { record, .. } => Some(keep(record)),
                    Parsed::Event(_) => None,
                };
                (parsed, kept)
            })
        };
        for_each_line(
            source,
            read_line,
            |line| {
                *number += 1;
                let checked = match line.read {
                    None => Ok(()),
                    Some(Err(Fault::NotARecord(_))) if !line.terminated => {
                        ending.torn = true;
                        return Ok(());
                    }
                    Some(Err(error)) => Err(error.into()),
                    Some(Ok((Parsed::Event(event), _))) => {
                        let voided = match &event {
                            Event::Voided(voided) => Some(voided.game.clone()),
                            _ => None,
                        };
                        check(state, &event).and_then(|()| state.apply_event(event)).map(|()| {
                            if let Some(game) = voided {
                                *unforeseen_void |= !voids.foreseen(&game);
                            }
                        })
                    }
                    Some(Ok((Parsed::Game { record, hashes }, kept))) => state.apply_game(&record, &hashes).map(|()| {
                        ending.records += 1;
                        let span = Span {
                            offset: ending.valid_len,
                            len: line.text.len(),
                        };
                        if !voids.skips(&record.id) {
                            each(state, *record, kept.expect("a game keeps"), span);
                        }
                    }),
                };
                if let Err(error) = checked {
                    fault(*number, error)?;
                }
                ending.valid_len += line.text.len() as u64 + u64::from(line.terminated);
                ending.unterminated = !line.terminated;
                Ok(())
            },
            |source| LeagueError::from(io_error(source)),
        )
    }
}
