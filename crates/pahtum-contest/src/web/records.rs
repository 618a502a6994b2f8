//! The league's journal and its bots' stderr logs, read for one game or one
//! author: what the game page, an author's list of games and the downloads
//! are made of. The journal is read as a whole each time (a contest's is a
//! few megabytes a day), and only the lines a question needs are parsed.

use std::collections::HashSet;
use std::path::Path;

use pahtum_record::GameRecord;
use pahtum_referee::stderr_log::{StderrLine, game_lines_in};

/// Whose games a journal keeps.
#[derive(Debug, Clone, Copy)]
pub enum Games<'a> {
    /// The games of the author of this name, every version of theirs.
    Of(&'a str),
    /// The game of this id alone.
    One(&'a str),
}

/// The lines of the league journal `journal` that a journal of `games` keeps: the header, every entrant,
/// retirement, return and round (the games' numbering and rounds depend on them), and the games wanted
/// (an author's by their entrants' content hashes). It is a league journal that `arena verify` accepts
/// and `arena game --from` replays from.
pub fn journal_of(journal: &[u8], games: &Games) -> Vec<u8> {
    let mut own = HashSet::new();
    let mut kept = Vec::with_capacity(journal.len() / 4);
    for (number, line) in journal.split_inclusive(|&byte| byte == b'\n').enumerate() {
        let value: serde_json::Value = serde_json::from_slice(line).unwrap_or_default();
        let keep = if number == 0
            || value.get("retired").is_some()
            || value.get("returned").is_some()
            || value.get("round").is_some()
        {
            true
        } else if let Some(entrant) = value.get("entrant") {
            if let Games::Of(name) = games
                && entrant["name"] == *name
                && let Some(hash) = entrant["hash"].as_str()
            {
                own.insert(hash.to_owned());
            }
            true
        } else {
            match games {
                Games::Of(_) => value["entrants"].as_array().is_some_and(|hashes| {
                    hashes
                        .iter()
                        .any(|hash| hash.as_str().is_some_and(|hash| own.contains(hash)))
                }),
                Games::One(id) => value["id"] == *id,
            }
        };
        if keep {
            kept.extend_from_slice(line);
        }
    }
    kept
}

/// The record of game `id` in the league journal `journal` (its last line of that id), and whether a line
/// after it voids it (the organiser's: the game is to be played again).
pub fn find_game(journal: &[u8], id: &str) -> Option<(GameRecord, bool)> {
    let key = serde_json::to_string(id).ok()?;
    let needle = format!("{{\"id\":{key},");
    let void = format!("\n{{\"voided\":{{\"game\":{key},");
    memchr::memmem::rfind_iter(journal, needle.as_bytes())
        .filter(|&at| at == 0 || journal[at - 1] == b'\n')
        .find_map(|at| {
            let line = journal[at..].split(|&byte| byte == b'\n').next()?;
            let record = serde_json::from_slice(line).ok()?;
            Some((record, memchr::memmem::find(&journal[at..], void.as_bytes()).is_some()))
        })
}

/// The last `most` games, newest first, that a version of the author `name` played.
pub fn recent_games_of(journal: &[u8], name: &str, most: usize) -> Vec<GameRecord> {
    let label_start = format!("\"{name}@");
    recent_games(journal, most, Some(label_start.as_bytes()), |record| {
        [&record.players.first, &record.players.second]
            .iter()
            .any(|label| is_of(label, name))
    })
}

/// The last `most` games of the league journal `journal`, newest first, that `wanted` takes (only the lines
/// that hold `needle` are read, if given), the records a later line voids left out: read from the end, a
/// void counts against the next record of its game met before it.
pub fn recent_games(
    journal: &[u8],
    most: usize,
    needle: Option<&[u8]>,
    wanted: impl Fn(&GameRecord) -> bool,
) -> Vec<GameRecord> {
    let mut voids: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut found = Vec::new();
    for line in journal.rsplit(|&byte| byte == b'\n') {
        if found.len() == most {
            break;
        }
        if line.starts_with(b"{\"voided\":") {
            if let Ok(pahtum_league::Event::Voided(voided)) = serde_json::from_slice(line) {
                *voids.entry(voided.game).or_default() += 1;
            }
            continue;
        }
        if !line.starts_with(b"{\"id\":") || needle.is_some_and(|needle| memchr::memmem::find(line, needle).is_none()) {
            continue;
        }
        let Ok(record) = serde_json::from_slice::<GameRecord>(line) else {
            continue;
        };
        match voids.get_mut(&record.id) {
            Some(count) if *count > 0 => *count -= 1,
            _ if wanted(&record) => found.push(record),
            _ => {}
        }
    }
    found
}

/// Whether the entrant `label` (`NAME@VERSION`) is a version of the author `name`'s.
pub fn is_of(label: &str, name: &str) -> bool {
    label.rsplit_once('@').is_some_and(|(own, _)| own == name)
}

/// What the entrant `label` wrote to stderr in game `game`, from the league's logs in `logs` (one file
/// per process, `LABEL-N.log`, each with its index): the game's last part in the log last written that
/// holds it, or `None`. Only the indexes and that part are read, however long the logs grew.
pub fn stderr_of(logs: &Path, label: &str, game: &str) -> Option<Vec<StderrLine>> {
    let prefix = format!("{label}-");
    let mut found: Option<(std::time::SystemTime, Vec<StderrLine>)> = None;
    for entry in std::fs::read_dir(logs).ok()?.flatten() {
        let name = entry.file_name();
        let Some(number) = name
            .to_str()
            .and_then(|name| name.strip_prefix(&prefix)?.strip_suffix(".log"))
        else {
            continue;
        };
        if number.is_empty() || !number.bytes().all(|byte| byte.is_ascii_digit()) {
            continue;
        }
        let Ok(modified) = entry.metadata().and_then(|meta| meta.modified()) else {
            continue;
        };
        if found.as_ref().is_some_and(|(newest, _)| *newest > modified) {
            continue;
        }
        if let Ok(Some(lines)) = game_lines_in(&entry.path(), game) {
            found = Some((modified, lines));
        }
    }
    found.map(|(_, lines)| lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The games of one entrant of a league of four are a league journal that verifies, and hold exactly
    /// the games it played; one game alone too.
    #[test]
    fn an_authors_journal_and_one_games_hold_their_games_and_verify() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        pahtum_league::testing::synthetic_league_of(
            &path,
            &[("ada", "1"), ("bob", "1"), ("cy", "1"), ("dee", "1")],
            60,
        );
        let journal = std::fs::read(&path).unwrap();
        let verifies = |text: &[u8]| {
            let file = dir.path().join("part.jsonl");
            std::fs::write(&file, text).unwrap();
            let verified = pahtum_league::verify(&file).unwrap();
            assert!(verified.faults.is_empty(), "{:?}", verified.faults);
        };
        let ada = journal_of(&journal, &Games::Of("ada"));
        verifies(&ada);
        let games = |text: &[u8], who: &str| {
            String::from_utf8_lossy(text)
                .lines()
                .filter(|line| line.contains("\"moves\""))
                .filter(|line| who.is_empty() || line.contains(who))
                .count()
        };
        assert_eq!(games(&ada, ""), games(&journal, "\"ada@1\""));
        assert!(games(&ada, "") > 0 && games(&ada, "") < games(&journal, ""));
        assert_eq!(games(&journal_of(&journal, &Games::Of("nobody")), ""), 0);

        let recent = recent_games_of(&journal, "ada", 3);
        assert_eq!(recent.len(), 3);
        assert!(
            recent
                .iter()
                .all(|record| record.players.first == "ada@1" || record.players.second == "ada@1")
        );
        let last = find_game(&journal, &recent[0].id).unwrap();
        assert_eq!(last, (recent[0].clone(), false));
        let one = journal_of(&journal, &Games::One(&recent[0].id));
        verifies(&one);
        assert_eq!(games(&one, ""), 1);
        assert_eq!(find_game(&one, &recent[0].id).unwrap().0, recent[0]);
        assert!(find_game(&journal, "no-such-game").is_none());
    }

    #[test]
    fn stderr_is_read_from_the_entrants_own_logs_only() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let log = dir.path().join(name);
            std::fs::write(&log, text).unwrap();
            std::fs::write(pahtum_referee::stderr_log::index_of(&log), "0 g1\n").unwrap();
        };
        write("ada@1-1.log", "[arena] game g1\nmine\n[arena] ply 3\nat three\n");
        write("ada@1-x.log", "[arena] game g1\nnot a process log\n");
        write("ada@12-1.log", "[arena] game g1\nanother version\n");
        write("check-ada@1.log", "[arena] game g1\na check\n");
        let lines = stderr_of(dir.path(), "ada@1", "g1").unwrap();
        let texts: Vec<_> = lines.iter().map(|line| line.text.as_str()).collect();
        assert_eq!(texts, ["mine", "at three"]);
        assert!(stderr_of(dir.path(), "ada@1", "g2").is_none());
        assert!(stderr_of(dir.path(), "bob@1", "g1").is_none());
        assert!(is_of("ada@1", "ada") && !is_of("ada@1", "ad") && !is_of("ada", "ada"));
    }
}
