//! `arena verify` of a league's journal: every line checked as a read checks
//! it, going on past a faulty one to list them all, and a final's rounds
//! decided again.
//!
//! A final publishes its rules, seed and pairing rule before its first game
//! (their hash is in the journal's header). Its rounds are then no one's
//! choice: each is what the rule ([`super::separation`]) decides from the
//! games before it. So the check plays the decisions again, round by round,
//! from one fit of the games recorded before each round's line, and a round
//! that is not the rule's is a faulty line like any other. Anyone holding the
//! journal can thus see that the schedule was not chosen after the fact.

use std::cell::RefCell;
use std::path::Path;

use pahtum_journal::{LinesEnd, Moves};
use pahtum_standings::standings::Tallies;
use sha2::{Digest, Sha256};

use super::decide::next_round;
use super::lines::Event;
use super::read::{LeagueError, scan};
use super::state::{LeagueFault, LeagueState};
use super::table::{listed, table};

/// A faulty line of a league's journal.
#[derive(Debug)]
pub struct LineFault {
    /// Its number, from 1 (the header).
    pub line: usize,
    /// What is wrong with it.
    pub fault: LeagueFault,
}

/// Every fault of a league's journal, as [`verify`] found them.
#[derive(Debug)]
pub struct Verified {
    /// The league as its sound lines say (a faulty line counts for nothing).
    pub state: LeagueState,
    /// The faulty lines, in file order.
    pub faults: Vec<LineFault>,
    /// How its lines ended (a torn last line is dropped, not a fault).
    pub ending: LinesEnd,
    /// The hash of its schedule: `"sha256:"` and the hex SHA-256 of its sound rounds' layout pairs, each
    /// round as the compact JSON of its line, one a line. Two journals of one league that decided the same
    /// rounds have the same, however their games were played (on one machine or in shards).
    pub schedule: String,
}

/// Checks every line of the league journal at `path` as [`super::read`] does, but goes on after a faulty
/// line (which counts for nothing: the lines after it are checked against the league as the sound lines
/// before them say) and lists them all; a final's, a Swiss's or a knockout's rounds are each decided again
/// by its rule, and every adjudicated game's adjudication is proven again
/// ([`pahtum_journal::audit::reprove_record`]). Only a
/// journal that is no league's, or cannot be read, is an error.
pub fn verify(path: &Path) -> Result<Verified, LeagueError> {
    let mut faults = Vec::new();
    let tallies = RefCell::new(Tallies::new(&[]));
    let mut schedule = Sha256::new();
    // The adjudications that do not hold, by the offset of their line (proven on every core as read).
    let mut unproven = Vec::new();
    let read = scan(
        path,
        Moves::Keep,
        pahtum_journal::audit::reprove_record,
        |line, fault| {
            faults.push(LineFault { line, fault });
            Ok(())
        },
        |state, event| match event {
            Event::Round(round) if state.league().deciding_rule().is_none() => {
                scheduled(&mut schedule, round);
                Ok(())
            }
            Event::Round(round) => {
                let counted = listed(state, tallies.borrow().clone());
                let table = table(state, counted, None).map_err(|source| LeagueFault::Unrated {
                    number: round.number,
                    source,
                })?;
                let decided = next_round(state, &table, f64::from(state.league().precision_elo));
                if decided.pairs == round.pairs && decided.bye == round.bye {
                    scheduled(&mut schedule, round);
                    Ok(())
                } else {
                    Err(LeagueFault::NotTheRule {
                        number: round.number,
                        decided,
                    })
                }
            }
            _ => Ok(()),
        },
        |_, record, fault, span| {
            tallies.borrow_mut().add(&record);
            if let Some(fault) = fault {
                unproven.push((span.offset, fault));
            }
        },
    )?;
    if !unproven.is_empty() {
        let text = std::fs::read(path).map_err(|source| pahtum_journal::JournalError::Io {
            action: "read",
            path: path.to_owned(),
            source,
        })?;
        // One pass over the text, the faults in the order of their lines.
        unproven.sort_by_key(|(offset, _)| *offset);
        let (mut line, mut counted) = (1, 0);
        for (offset, fault) in unproven {
            line += text[counted..offset as usize]
                .iter()
                .filter(|&&byte| byte == b'\n')
                .count();
            counted = offset as usize;
            faults.push(LineFault {
                line,
                fault: LeagueFault::Line(fault),
            });
        }
        faults.sort_by_key(|fault| fault.line);
    }
    Ok(Verified {
        state: read.state,
        faults,
        ending: read.ending,
        schedule: format!(
            "sha256:{}",
            schedule
                .finalize()
                .iter()
                .map(|byte| format!("{byte:02x}"))
                .collect::<String>()
        ),
    })
}

/// Adds `round` to the schedule's hash, as one line of its compact JSON.
///
/// It is added before the league's own check of the round's line, so a round that check refuses is in the
/// hash all the same: a faulty journal's hash is only shown beside its faults.
fn scheduled(schedule: &mut Sha256, round: &super::lines::Round) {
    schedule.update(serde_json::to_vec(round).expect("a round serializes"));
    schedule.update(b"\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{SimulatedLeague, separate};

    /// A final played by its rule verifies; a round changed by hand is refused with its line, even when the
    /// games after it were changed to match it.
    #[test]
    fn a_final_whose_round_is_not_the_rules_is_refused_with_its_line() {
        let mut final_ = SimulatedLeague::new(&[400.0, 200.0, 0.0], Some(separate(2, 950, 60)), 4);
        while !final_.decide().is_empty() {
            final_.play_decided();
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        std::fs::write(&path, final_.journal()).unwrap();
        let verified = verify(&path).unwrap();
        assert!(verified.faults.is_empty(), "{:?}", verified.faults);
        assert!(verified.state.rounds() >= 2);

        // Round 2 rewritten: another layout pair of the same two entrants (its games renamed to suit).
        let text = String::from_utf8(final_.journal().to_vec()).unwrap();
        let (number, round) = text
            .lines()
            .enumerate()
            .find(|(_, line)| line.starts_with(r#"{"round":{"number":2,"#))
            .unwrap();
        let parsed: Event = serde_json::from_str(round).unwrap();
        let Event::Round(mut round) = parsed else {
            unreachable!()
        };
        let first = round.pairs[0];
        let other = crate::LayoutPair(0, 2, first.2).max(crate::LayoutPair(1, 2, first.2));
        let other = if other == first {
            crate::LayoutPair(0, 1, first.2)
        } else {
            other
        };
        round.pairs[0] = other;
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        lines[number] = serde_json::to_string(&Event::Round(round)).unwrap();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let verified = verify(&path).unwrap();
        let fault = verified.faults.first().expect("a fault");
        assert_eq!(fault.line, number + 1);
        assert!(
            matches!(&fault.fault, LeagueFault::NotTheRule { number: 2, decided } if decided.pairs[0] == first),
            "{}",
            fault.fault
        );
    }
}
