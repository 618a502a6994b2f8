//! A round's shards taken into the league's journal: only the lines each
//! shard added, each checked, appended as they are.
//!
//! A shard of a round starts as a copy of the league's journal as it was when
//! the round was decided, and plays its share after it. [`super::merge`]
//! joins whole journals, which is right for shards that meet only at the end,
//! but reads every input whole: once a league holds 100,000 games, each
//! round would read the history once per shard and write it again
//! (docs/performance.md). Here the league is read once, to its end (which is
//! where its shards started from, or later when an entrant joined since); then
//! each shard's lines after that point are checked against it (every record replayed by the rules, a game of a round decided, not
//! played before in the journal or in a shard taken before, with its
//! entrants' content hashes), and a shard with a faulty line, or with an event
//! (a shard plays, it decides nothing), is refused whole. The sound shards'
//! lines are then appended to the league's journal byte for byte, and synced
//! once. What a shard holds before that point is never read: its copy of the
//! past counts for nothing, tampered or not.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use pahtum_journal::{JournalError, Moves, Span};
use pahtum_tournament::durability::Durability;

use super::folder::Opened;
use super::lines::Event;
use super::read::{LeagueError, Place};
use super::state::LeagueFault;

/// What became of one shard.
#[derive(Debug)]
pub enum Taken {
    /// Its games were appended.
    Games(usize),
    /// It was refused: the number of its first faulty line, and what is wrong with it.
    Refused(usize, LeagueFault),
}

/// Takes into the league `opened` (whose journal is at `journal`, `from` bytes long when its round was
/// decided, as every shard's copy of it) the games each of `shards` added after those bytes, as the module
/// documentation says; what became of each, in their order. Nothing is appended unless every shard is
/// sound, so that the journal stays the one the shards started from while a refused shard's task plays
/// again.
pub fn take_shards(
    opened: &mut Opened,
    journal: &Path,
    shards: &[PathBuf],
    from: u64,
) -> Result<Vec<Taken>, LeagueError> {
    let stop = |line: usize, fault: LeagueFault| {
        Err(LeagueError::Fault {
            path: journal.to_owned(),
            line,
            source: Box::new(fault),
        })
    };
    let (mut place, rest) = Place::open(journal, &mut { stop })?;
    place.scan(
        journal,
        rest,
        Moves::Drop,
        |_| (),
        stop,
        |_, _| Ok(()),
        |_, _, (), _| {},
    )?;
    // The league's journal may have grown since (an entrant joined between the rounds of a ladder): the
    // shards' own lines start where it then ended, after as many lines as it then held.
    let lines_before = lines_in(journal, from)?;
    let mut outcomes = Vec::with_capacity(shards.len());
    let mut taken: Vec<(PathBuf, Vec<Span>)> = Vec::new();
    for shard in shards {
        let mut trial = place.clone();
        trial.reposition(from, lines_before);
        let mut first_fault = None;
        let mut spans = Vec::new();
        let io_error = read_error(shard);
        let mut file = std::fs::File::open(shard).map_err(io_error)?;
        file.seek(SeekFrom::Start(from)).map_err(io_error)?;
        let scanned = trial.scan(
            shard,
            file,
            Moves::Drop,
            |_| (),
            |line, fault| {
                first_fault.get_or_insert((line, fault));
                Err(LeagueError::Refused(String::new()))
            },
            |_, event| match event {
                Event::Round(round) => Err(LeagueFault::BadRound {
                    number: round.number,
                    problem: "a shard decides no round; it plays the round decided before it".to_owned(),
                }),
                _ => Err(LeagueFault::BadRound {
                    number: 0,
                    problem: "a shard's journal holds games only after its copy of the league's".to_owned(),
                }),
            },
            |_, _, (), span| spans.push(span),
        );
        match (scanned, first_fault) {
            (_, Some((line, fault))) => outcomes.push(Taken::Refused(line, fault)),
            (Err(error), None) => return Err(error),
            (Ok(()), None) => {
                outcomes.push(Taken::Games(spans.len()));
                taken.push((shard.clone(), spans));
                place = trial;
            }
        }
    }
    if outcomes.iter().all(|outcome| matches!(outcome, Taken::Games(_))) {
        append(opened, &taken)?;
    }
    Ok(outcomes)
}

/// An error reading the file at `path`, as the league's.
fn read_error(path: &Path) -> impl Fn(std::io::Error) -> LeagueError + Copy + '_ {
    move |source| {
        LeagueError::from(JournalError::Io {
            action: "read",
            path: path.to_owned(),
            source,
        })
    }
}

/// The lines in the first `bytes` bytes of the file at `path` (which end with a line's end), the first line
/// counted as 1.
fn lines_in(path: &Path, bytes: u64) -> Result<usize, LeagueError> {
    let io_error = read_error(path);
    let mut head = Vec::new();
    std::fs::File::open(path)
        .map_err(io_error)?
        .take(bytes)
        .read_to_end(&mut head)
        .map_err(io_error)?;
    if head.len() as u64 != bytes || !head.ends_with(b"\n") {
        return Err(LeagueError::Refused(format!(
            "{} is not the journal its round's shards started from: its first {bytes} bytes are not whole lines",
            path.display()
        )));
    }
    Ok(memchr::memchr_iter(b'\n', &head).count())
}

/// Appends the lines at `spans` of each shard of `taken` to `opened`'s journal, byte for byte, and syncs once.
fn append(opened: &mut Opened, taken: &[(PathBuf, Vec<Span>)]) -> Result<(), LeagueError> {
    opened.journal.set_durability(Durability::None);
    for (shard, spans) in taken {
        let io_error = read_error(shard);
        let mut file = std::fs::File::open(shard).map_err(io_error)?;
        let mut line = Vec::new();
        for span in spans {
            line.resize(span.len, 0);
            file.seek(SeekFrom::Start(span.offset)).map_err(io_error)?;
            file.read_exact(&mut line).map_err(io_error)?;
            let text =
                std::str::from_utf8(&line).map_err(|_| LeagueError::Refused(format!("{} changed", shard.display())))?;
            let raw = serde_json::value::RawValue::from_string(text.to_owned())
                .map_err(|_| LeagueError::Refused(format!("{} changed while it was taken", shard.display())))?;
            opened.journal.append_line(&raw)?;
        }
    }
    opened.journal.sync()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{cut_round, synthetic_league};

    /// Shards that each add their own games are taken whole, after an entrant joined the league too; a shard
    /// with an edited record, or with a game another shard played, is refused by its line, and nothing is
    /// appended until every shard is sound.
    #[test]
    fn sound_shards_are_taken_and_a_faulty_one_is_refused_by_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        synthetic_league(&path, 3, 12);
        let round = cut_round(&path, 2, 4);
        let journal = round.league.join("journal.jsonl");
        let before = std::fs::read(&journal).unwrap();

        // The second shard's first game edited: its result is the other colour's.
        let sound = std::fs::read_to_string(&round.shards[1]).unwrap();
        let lines: Vec<&str> = sound.lines().collect();
        let at = lines
            .iter()
            .position(|line| line.starts_with("{\"id\":") && sound.find(line).unwrap() as u64 >= round.from)
            .unwrap();
        let mut game: serde_json::Value = serde_json::from_str(lines[at]).unwrap();
        game["result"] = match game["result"].as_str().unwrap() {
            "white" => "black".into(),
            _ => "white".into(),
        };
        let mut edited: Vec<String> = lines.iter().map(|line| (*line).to_owned()).collect();
        edited[at] = serde_json::to_string(&game).unwrap();
        std::fs::write(&round.shards[1], edited.join("\n") + "\n").unwrap();
        let mut opened = crate::folder::open(&round.league).unwrap();
        let outcomes = take_shards(&mut opened, &journal, &round.shards, round.from).unwrap();
        assert!(matches!(outcomes[0], Taken::Games(2)), "{outcomes:?}");
        assert!(
            matches!(&outcomes[1], Taken::Refused(line, LeagueFault::Line(_)) if *line == at + 1),
            "{outcomes:?}"
        );
        drop(opened);
        assert_eq!(std::fs::read(&journal).unwrap(), before, "nothing is appended");

        // The first shard given twice: the second copy's games were played in the first.
        let twice = [round.shards[0].clone(), round.shards[0].clone()];
        let mut opened = crate::folder::open(&round.league).unwrap();
        let outcomes = take_shards(&mut opened, &journal, &twice, round.from).unwrap();
        assert!(
            matches!(&outcomes[1], Taken::Refused(_, LeagueFault::Duplicate { .. })),
            "{outcomes:?}"
        );
        drop(opened);

        // An entrant joins the league meanwhile; then the second shard as it was played: both are taken, and
        // the league holds every game once.
        let mut opened = crate::folder::open(&round.league).unwrap();
        let late = crate::Event::Entrant(crate::testing::entrant(9, "late", "1"));
        opened.record(late).unwrap();
        std::fs::write(&round.shards[1], sound).unwrap();
        let outcomes = take_shards(&mut opened, &journal, &round.shards, round.from).unwrap();
        assert!(
            outcomes.iter().all(|outcome| matches!(outcome, Taken::Games(2))),
            "{outcomes:?}"
        );
        drop(opened);
        let verified = crate::verify(&journal).unwrap();
        assert!(verified.faults.is_empty(), "{:?}", verified.faults);
        assert_eq!(verified.state.games(), 12);
    }
}
