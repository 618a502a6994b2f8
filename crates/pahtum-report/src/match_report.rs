//! What a match shows: its score, Elo and SPRT on stderr as the games finish
//! ([`MatchProgress`], a view of the match's gate), the result in words
//! ([`summary`]) and `match.json` ([`match_json`]). Its lines on stderr are
//! best effort, as the progress of a run ([`progress::line`]): a closed
//! stderr neither panics nor stops the match.
//!
//! Each of them reads the [`SprtGate`] and none owns it: whether the next game
//! starts is the caller's rule, not the display's
//! ([`Gated`](pahtum_run::sprt_gate::Gated) joins the two).

use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pahtum_run::events::{Event, RunEnding};
use pahtum_run::sprt_gate::{GateView, SprtGate};
use pahtum_standings::strength::PairStrength;
use pahtum_stats::{Sprt, SprtOutcome, SprtStatus};
use pahtum_tournament::config::{BlockSource, RulesConfig};
use serde::Serialize;

use crate::progress::{self, PLAIN_EVERY};

/// The match's score, Elo and SPRT as games finish, read from its [`SprtGate`] and shown on stderr.
#[derive(Debug)]
pub struct MatchProgress {
    total: usize,
    line: StatusLine,
}

/// One line redrawn by indicatif on a terminal (when the caller says it can be); plain lines otherwise, one when
/// forced or every few seconds, never the same twice in a row.
#[derive(Debug)]
enum StatusLine {
    Live(ProgressBar),
    Plain { last: Option<(Instant, String)> },
}

impl MatchProgress {
    /// The progress of a match of `total` games: one line redrawn in place when `live` (a terminal that
    /// can), else plain lines.
    pub fn new(total: usize, live: bool) -> MatchProgress {
        let line = if live {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(ProgressStyle::with_template("arena: {msg}").expect("the template is valid"));
            StatusLine::Live(bar)
        } else {
            StatusLine::Plain { last: None }
        };
        MatchProgress { total, line }
    }

    fn status(&self, gate: &SprtGate) -> String {
        let pair = gate.tally().summary();
        let mut line = format!(
            "{}/{} games: {} {}-{} {}",
            pair.games,
            self.total,
            pair.first,
            pair.points,
            f64::from(pair.games) - pair.points,
            pair.second
        );
        match pair.elo {
            Some(elo) => line.push_str(&format!(", Elo {:+.1} ± {:.1}", elo.elo, elo.error95)),
            None => line.push_str(", Elo -"),
        }
        if let Some(outcome) = gate.outcome() {
            line.push_str(&format!(", {}", llr_text(&outcome)));
        }
        line
    }

    /// Redraws the line with `gate`'s score on a terminal; otherwise prints a line if `force` or enough
    /// time has passed. The line is made only when it is shown: not after every game of a fast match.
    pub fn show(&mut self, gate: &SprtGate, force: bool) {
        let due = match &self.line {
            StatusLine::Live(bar) => {
                bar.set_message(self.status(gate));
                return;
            }
            StatusLine::Plain { last } => force || last.as_ref().is_none_or(|(at, _)| at.elapsed() >= PLAIN_EVERY),
        };
        if !due {
            return;
        }
        let status = self.status(gate);
        if let StatusLine::Plain { last } = &mut self.line
            && last.as_ref().is_none_or(|(_, line)| *line != status)
        {
            progress::line(&mut std::io::stderr(), &format!("arena: {status}"));
            *last = Some((Instant::now(), status));
        }
    }

    /// A line of its own, above the status line.
    fn note(&self, text: &str) {
        match &self.line {
            StatusLine::Live(bar) => bar.println(text),
            StatusLine::Plain { .. } => progress::line(&mut std::io::stderr(), text),
        }
    }

    /// The last status, kept on the terminal as a line of its own.
    pub fn finish(&mut self, gate: &SprtGate) {
        match &self.line {
            StatusLine::Live(bar) => {
                bar.finish_and_clear();
                progress::line(&mut std::io::stderr(), &format!("arena: {}", self.status(gate)));
            }
            StatusLine::Plain { .. } => self.show(gate, true),
        }
    }
}

impl GateView for MatchProgress {
    /// A finished game's forfeits as notes, then the status (at once when the game decided the test); the
    /// status at once when the games are about to be played, and kept when they are over.
    fn on(&mut self, event: Event<'_>, gate: &SprtGate, decided: bool) {
        match event {
            Event::GameFinished { record, .. } => {
                for note in progress::forfeit_notes(record) {
                    self.note(&note);
                }
                self.show(gate, decided);
            }
            Event::BotRestarted { bot } => self.note(&format!("arena: restarted bot {bot} after a failure")),
            Event::Replayed { record } => self.note(&progress::replay_note(record)),
            Event::Playing => self.show(gate, true),
            Event::Played => self.finish(gate),
            Event::Resumed { .. }
            | Event::Started { .. }
            | Event::GameStarted { .. }
            | Event::Interrupted { .. }
            | Event::Finished { .. }
            | Event::Opened { .. }
            | Event::Notice(_) => {}
        }
    }
}

fn llr_text(outcome: &SprtOutcome) -> String {
    format!("LLR {:.2} [{:.2}, {:.2}]", outcome.llr, outcome.lower, outcome.upper)
}

/// The rules of the match's games, in words.
fn rules_text(rules: &RulesConfig) -> String {
    let counts = |counts: &[usize]| counts.iter().map(ToString::to_string).collect::<Vec<_>>().join(",");
    let blocks = match &rules.blocks {
        BlockSource::Random { counts: these } => format!("{} random blocks", counts(these)),
        BlockSource::Players { counts: these } => format!("{} blocks placed by the players", counts(these)),
        BlockSource::Fixed { layouts } => format!("{} fixed layouts", layouts.len()),
        BlockSource::Book(pahtum_tournament::book::Openings {
            file,
            shuffled,
            openings,
        }) => format!(
            "{} openings of the book {}{}",
            openings.len(),
            pahtum_protocol::untrusted::escape(file),
            if *shuffled { ", shuffled" } else { "" }
        ),
    };
    let pie = if rules.pie { "pie rule" } else { "no pie rule" };
    format!("{pie}, {blocks}")
}

/// The result in words, for stdout.
pub fn summary(gate: &SprtGate, rules: &RulesConfig, played: usize, planned: usize, ending: RunEnding) -> String {
    let pair: PairStrength = gate.tally().summary();
    let score = if played > 0 {
        100.0 * pair.points / played as f64
    } else {
        0.0
    };
    let mut text = format!(
        "Match {} vs {} ({}): {played} of {planned} games played; {} scored {}/{played} ({score:.1}%).\n",
        pair.first,
        pair.second,
        rules_text(rules),
        pair.first,
        pair.points
    );
    if let (Some(sprt), Some(now)) = (gate.sprt(), gate.outcome()) {
        // The verdict is the test's state when it crossed a bound; the layout pairs begun then were
        // completed afterwards and may have moved the ratio back inside the bounds (see `SprtGate`).
        let outcome = gate.decision().map_or(now, |decision| decision.outcome);
        let verdict = match outcome.status {
            SprtStatus::AcceptH1 => format!(
                "H1 accepted: {} is at least {} Elo stronger than {}",
                pair.first,
                sprt.elo1(),
                pair.second
            ),
            SprtStatus::AcceptH0 => format!(
                "H0 accepted: {} is at most {} Elo stronger than {}",
                pair.first,
                sprt.elo0(),
                pair.second
            ),
            SprtStatus::Continue if ending == RunEnding::Interrupted => "no decision yet (interrupted)".to_owned(),
            SprtStatus::Continue => "no decision: the games ran out before a bound was crossed".to_owned(),
        };
        let when = match gate.decision() {
            Some(decision) if decision.games < played => format!(
                " after {} games ({} once the layout pairs begun were completed)",
                decision.games,
                llr_text(&now)
            ),
            Some(decision) => format!(" after {} games", decision.games),
            None => String::new(),
        };
        text.push_str(&format!(
            "SPRT elo0 {}, elo1 {}, alpha {}, beta {}: {}{when}: {verdict}.\n",
            sprt.elo0(),
            sprt.elo1(),
            sprt.alpha(),
            sprt.beta(),
            llr_text(&outcome)
        ));
    }
    text
}

/// `match.json`: what was asked, what was played, and the SPRT's state (OUTPUTS.md documents it).
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct MatchReport {
    /// Always `pahtum-arena/match/1`.
    schema: &'static str,
    /// The two bots, A then B: the figures take A's side.
    bots: [String; 2],
    /// The games of the match.
    games_planned: usize,
    /// The games in the journal.
    games_played: usize,
    /// The sequential test, if the match has one.
    sprt: Option<SprtReport>,
}

/// The SPRT of a match: the test, its state now, and its verdict.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct SprtReport {
    #[serde(flatten)]
    test: Sprt,
    /// The test's state after every game played.
    outcome: SprtOutcome,
    /// Its state when it crossed a bound, which is the verdict; `null` if it did not.
    decision: Option<DecisionReport>,
}

/// The SPRT's state when it crossed a bound.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct DecisionReport {
    #[serde(flatten)]
    outcome: SprtOutcome,
    /// The games played then.
    games: usize,
}

/// The text of `match.json` for the match decided by `gate`: `played` of `planned` games.
pub fn match_json(gate: &SprtGate, played: usize, planned: usize) -> String {
    let pair = gate.tally().summary();
    let report = MatchReport {
        schema: "pahtum-arena/match/1",
        bots: [pair.first, pair.second],
        games_planned: planned,
        games_played: played,
        sprt: gate.sprt().zip(gate.outcome()).map(|(test, outcome)| SprtReport {
            test,
            outcome,
            decision: gate.decision().map(|decision| DecisionReport {
                outcome: decision.outcome,
                games: decision.games,
            }),
        }),
    };
    let mut text = serde_json::to_string_pretty(&report).expect("the match report serializes");
    text.push('\n');
    text
}
