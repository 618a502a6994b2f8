//! A league's journal followed as it grows: each look reads only the lines written since the last.
//!
//! A page that shows a league as it plays (`arena serve`) looks at its journal again and again; folding
//! it whole each time costs in proportion to its games. A [`LeagueFollower`] keeps where its pass stopped
//! (the league as its lines say, the tallies and the rating checkpoints) and goes on from there, checking
//! every new line as [`super::read`] does. Finding the new complete lines and a journal that was replaced
//! is the journal's follower's part, shared with a tournament's ([`pahtum_journal::tail`]).

use std::path::Path;

use pahtum_journal::sink::{Keep, Sink};
use pahtum_journal::tail::Tail;
use pahtum_journal::{Growth, Moves};
use pahtum_standings::standings::Tallies;

use super::history::Checkpoints;
use super::read::{LeagueError, Place};
use super::state::LeagueState;
use super::table::{count, listed};

/// A league's journal followed as it grows.
#[derive(Debug)]
pub struct LeagueFollower {
    tail: Tail,
    place: Place,
    tallies: Tallies,
    checkpoints: Checkpoints,
}

impl LeagueFollower {
    /// Opens the league journal at `path` and reads its header; no other line is read yet.
    pub fn open(path: &Path) -> Result<LeagueFollower, LeagueError> {
        let (place, _) = Place::open(path, &mut |line, fault| {
            Err(LeagueError::Fault {
                path: path.to_owned(),
                line,
                source: Box::new(fault),
            })
        })?;
        Ok(LeagueFollower {
            tail: Tail::open(path)?,
            place,
            tallies: Tallies::new(&[]),
            checkpoints: Checkpoints::default(),
        })
    }

    /// Reads the complete lines written since the last look, checking each, and hands each new game's
    /// record to `sink` as [`super::table::fold`] does. Fails at a faulty line; the follower is then spent
    /// (open it again to read the fault anew). A void of a game handed on before is
    /// [`Growth::Replaced`]: open it again, and the voided record is left out.
    pub fn read_new(&mut self, moves: Moves, sink: &mut impl Sink) -> Result<Growth, LeagueError> {
        let lines = match self.tail.new_lines(self.bytes_read())? {
            Ok(lines) => lines,
            Err(nothing_new) => return Ok(nothing_new),
        };
        let records = self.place.ending.records;
        let path = self.tail.path().to_owned();
        let keeper = sink.keeper();
        let (tallies, checkpoints) = (&mut self.tallies, &mut self.checkpoints);
        self.place.scan(
            &path,
            lines,
            moves,
            |record| keeper.keep(record),
            |line, fault| {
                Err(LeagueError::Fault {
                    path: path.clone(),
                    line,
                    source: Box::new(fault),
                })
            },
            |_, _| Ok(()),
            |state, mut record, kept, span| {
                checkpoints.before_game(state, tallies);
                count(tallies, &mut record);
                sink.record(record, kept, span);
            },
        )?;
        // A void of a record handed on in an earlier look cannot be taken back: follow afresh.
        if self.place.unforeseen_void {
            return Ok(Growth::Replaced);
        }
        Ok(Growth::Grew(self.place.ending.records - records))
    }

    /// The league as the lines read so far say.
    pub fn state(&self) -> &LeagueState {
        &self.place.state
    }

    /// The tallies of the games read so far, listing every entrant in the order they joined.
    pub fn tallies(&self) -> Tallies {
        listed(&self.place.state, self.tallies.clone())
    }

    /// The rating checkpoints taken as the games were read.
    pub fn checkpoints(&self) -> &Checkpoints {
        &self.checkpoints
    }

    /// The bytes read so far: the header and every complete line after it.
    pub fn bytes_read(&self) -> u64 {
        self.place.ending.valid_len
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use pahtum_journal::sink::{Counts, Records};

    use super::*;
    use crate::table::fold;
    use crate::testing::synthetic_league;

    #[test]
    fn a_followed_league_folds_each_complete_line_once_into_what_a_whole_fold_makes() {
        let dir = tempfile::tempdir().unwrap();
        let whole = dir.path().join("whole.jsonl");
        synthetic_league(&whole, 4, 24);
        let text = std::fs::read(&whole).unwrap();
        let lines: Vec<&[u8]> = text.split_inclusive(|&byte| byte == b'\n').collect();
        let path = dir.path().join("journal.jsonl");
        let half = lines.len() / 2;
        std::fs::write(&path, lines[..half].concat()).unwrap();

        let mut followed = LeagueFollower::open(&path).unwrap();
        let mut seen = Records::default();
        let first = followed.read_new(Moves::Drop, &mut seen).unwrap();
        assert!(matches!(first, Growth::Grew(games) if games > 0), "{first:?}");
        assert_eq!(followed.read_new(Moves::Drop, &mut seen).unwrap(), Growth::Same);

        // A line being written waits for its newline.
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        let (head, tail) = lines[half].split_at(lines[half].len() / 2);
        file.write_all(head).unwrap();
        assert_eq!(followed.read_new(Moves::Drop, &mut seen).unwrap(), Growth::Same);
        file.write_all(tail).unwrap();
        file.write_all(&lines[half + 1..].concat()).unwrap();
        assert!(matches!(
            followed.read_new(Moves::Drop, &mut seen).unwrap(),
            Growth::Grew(_)
        ));

        let (state, tallies) = fold(&whole, Moves::Drop, &mut Counts).unwrap();
        assert_eq!(seen.0.len(), 24);
        let standings = |tallies: Tallies| format!("{:?}", tallies.finish(None).unwrap());
        assert_eq!(standings(followed.tallies()), standings(tallies));
        assert_eq!(followed.state().games(), state.games());
        assert_eq!(followed.bytes_read(), text.len() as u64);
        let (_, _, checkpoints) = crate::history::fold(&whole, Moves::Drop, &mut Counts).unwrap();
        assert_eq!(followed.checkpoints().fits(), checkpoints.fits());
    }

    #[test]
    fn a_replaced_or_shortened_league_journal_is_followed_afresh_and_a_faulty_line_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        synthetic_league(&path, 3, 6);
        let mut followed = LeagueFollower::open(&path).unwrap();
        followed.read_new(Moves::Drop, &mut Counts).unwrap();
        let text = std::fs::read(&path).unwrap();
        std::fs::write(&path, &text[..text.len() / 2]).unwrap();
        assert_eq!(followed.read_new(Moves::Drop, &mut Counts).unwrap(), Growth::Replaced);

        let mut followed = LeagueFollower::open(&path).unwrap();
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"\n{\"id\":\"not a game\"}\n").unwrap();
        let error = followed.read_new(Moves::Drop, &mut Counts).unwrap_err();
        assert!(matches!(error, LeagueError::Fault { .. }), "{error}");
    }
}
