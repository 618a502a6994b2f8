//! `arena verify JOURNAL`: every fault of a journal at once.
//!
//! Every reader of a journal (`arena standings`, a resumed `arena run` or
//! `arena match`) checks each record as it reads it and stops at the first
//! faulty line. This command checks them all and lists every faulty line with
//! its number and what is wrong, so that a damaged or edited journal can be
//! judged (and repaired) in one go. What is checked is in the
//! `pahtum_tournament::audit` docs. The faults are shown escaped, like
//! anything else read from a file a bot had a hand in.

use std::path::PathBuf;
use std::process::ExitCode;

use pahtum_protocol::untrusted::escape;
use pahtum_tournament::journal;

use crate::output::outln;

/// Check every record of a journal and list every fault.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The journal (journal.jsonl in a run's output folder).
    pub journal: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let verified = journal::verify(&args.journal)?;
    for fault in &verified.faults {
        outln!("line {}: {}", fault.line, escape(&crate::forfeit::chain(&fault.fault)));
    }
    let path = args.journal.display();
    if verified.torn {
        outln!("the last line is torn (a write cut short by a crash): it is dropped, as on resume");
    }
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
