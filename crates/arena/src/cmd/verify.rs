//! `arena verify JOURNAL`: every fault of a journal at once.
//!
//! Every reader of a journal (`arena standings`, a resumed `arena run` or
//! `arena match`) checks each record as it reads it and stops at the first
//! faulty line. This command checks them all and lists every faulty line with
//! its number and what is wrong, so that a damaged or edited journal can be
//! judged (and repaired) in one go. What is checked is in the
//! `pahtum_journal::audit` docs. A league's journal is checked the same
//! way, line by line, with its own lines (entrants, retirements, rounds, and
//! each game against its round and its entrants' content hashes: the
//! `pahtum_league::state` docs). The faults are shown escaped,
//! like anything else read from a file a bot had a hand in.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use pahtum_journal as journal;
use pahtum_league as league;
use pahtum_protocol::untrusted::escape;
use pahtum_report::sources::journal_path;

use crate::output::outln;

/// Check every record of a journal and list every fault.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The journal, or a run's or a league's folder (which holds journal.jsonl).
    pub journal: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let journal = journal_path(&args.journal);
    if league::is_league_journal(&journal) {
        return verify_league(&journal);
    }
    let verified = journal::verify(&journal)?;
    list(
        verified.faults.iter().map(|fault| (fault.line, &fault.fault as _)),
        verified.torn,
    );
    let path = journal.display();
    if !verified.joins.is_empty() {
        let joined: Vec<String> = verified
            .joins
            .iter()
            .map(|(line, join)| {
                let names: Vec<String> = join.joined.iter().map(|bot| escape(&bot.name).into_owned()).collect();
                format!("{} (line {line})", names.join(", "))
            })
            .collect();
        outln!(
            "joined the tournament after its journal was started: {}",
            joined.join("; ")
        );
    }
    let good = verified.good;
    if verified.adjudicated > 0 {
        outln!(
            "adjudicated: {} game(s), each adjudication proven again by the rules",
            verified.adjudicated
        );
    }
    if verified.faults.is_empty() {
        outln!("{path}: all {good} records are sound");
        Ok(ExitCode::SUCCESS)
    } else {
        outln!(
            "{path}: {} faulty line(s), {good} sound record(s); repair or remove the faulty lines \
             before the standings or a resume can use this journal",
            verified.faults.len()
        );
        Ok(ExitCode::from(crate::exit::NOT_CONFORMING))
    }
}

/// Checks every line of the league journal at `path` and lists every fault.
fn verify_league(path: &Path) -> anyhow::Result<ExitCode> {
    let verified = league::verify(path)?;
    list(
        verified.faults.iter().map(|fault| (fault.line, &fault.fault as _)),
        verified.ending.torn,
    );
    let state = &verified.state;
    let entrants = state.entrants().len();
    let retired = (0..entrants).filter(|&number| state.is_retired(number)).count();
    let rule = match state.league().deciding_rule() {
        Some(rule) => format!(", each decided again by {rule} rule"),
        None => String::new(),
    };
    let sound = format!(
        "{entrants} entrant(s) ({retired} retired), {} round(s) decided{rule}, {} game(s); schedule {}",
        state.rounds(),
        state.games(),
        verified.schedule
    );
    let path = path.display();
    if verified.faults.is_empty() {
        outln!("{path}: every line is sound: {sound}");
        Ok(ExitCode::SUCCESS)
    } else {
        outln!(
            "{path}: {} faulty line(s); sound: {sound}; repair or remove the faulty lines before \
             `arena league run`, the table or a report can use this league",
            verified.faults.len()
        );
        Ok(ExitCode::from(crate::exit::NOT_CONFORMING))
    }
}

/// Prints each fault with its line's number, escaped, and says whether a torn last line was dropped.
fn list<'a>(faults: impl Iterator<Item = (usize, &'a (dyn std::error::Error + 'a))>, torn: bool) {
    for (line, fault) in faults {
        outln!("line {line}: {}", escape(&crate::forfeit::chain(fault)));
    }
    if torn {
        outln!("the last line is torn (a write cut short by a crash): it is dropped, as on resume");
    }
}
