//! Progress of a run, on stderr: an indicatif bar on a terminal, plain lines otherwise.
//!
//! Both show the games done of the total, the rate, the time left and the
//! current leader; both print a line for each forfeit and each bot restart,
//! since those are what a tournament's organiser must look at. Without a
//! terminal (CI, a log file, a batch job) a bar would be noise, so a plain line
//! is printed at most every few seconds. Standings go to stdout, apart. A
//! line that cannot be written (stderr closed) is let go: see [`line`].

use std::collections::HashMap;
use std::io::Write;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pahtum::Seat;
use pahtum_record::GameRecord;

use pahtum_run::events::{Event, Observer};
use pahtum_standings::standings::OVERLOAD_REMEDY;

/// How often plain progress lines are printed at most.
pub const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// Shows a run's progress.
#[derive(Debug)]
pub struct Progress {
    display: Display,
    tally: HashMap<String, (f64, u32)>,
    total: usize,
    done: usize,
    /// Games finished by this run (not earlier runs), for the rate.
    played: usize,
    /// Games played again after a timeout under overload, in this run.
    replays: usize,
    /// Whether the warning about an overloaded machine was printed (once per run).
    warned_of_overload: bool,
    started: Instant,
}

enum Display {
    Bar(ProgressBar),
    Lines {
        out: Box<dyn Write + Send>,
        every: Duration,
        last: Option<Instant>,
    },
}

impl std::fmt::Debug for Display {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Display::Bar(_) => "Bar",
            Display::Lines { .. } => "Lines",
        })
    }
}

impl Display {
    /// A line above the bar, or a plain line.
    fn note(&mut self, text: &str) {
        match self {
            Display::Bar(bar) => bar.println(text),
            Display::Lines { out, .. } => line(out, text),
        }
    }
}

impl Progress {
    /// A bar on stderr.
    pub fn bar() -> Progress {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} games  {prefix}  {eta} left  {msg}")
                .expect("the template is valid")
                .progress_chars("=> "),
        );
        Progress::with(Display::Bar(bar))
    }

    /// Plain lines to `out`, at most one per `every` (besides the first and the last).
    pub fn lines(out: Box<dyn Write + Send>, every: Duration) -> Progress {
        Progress::with(Display::Lines { out, every, last: None })
    }

    fn with(display: Display) -> Progress {
        Progress {
            display,
            tally: HashMap::new(),
            total: 0,
            done: 0,
            played: 0,
            warned_of_overload: false,
            replays: 0,
            started: Instant::now(),
        }
    }

    fn count(&mut self, record: &GameRecord) {
        for seat in [Seat::First, Seat::Second] {
            let entry = self.tally.entry(record.players.of(seat).to_owned()).or_default();
            entry.0 += record.points_of(seat);
            entry.1 += 1;
        }
        self.done += 1;
    }

    /// `heuristic 10.5/12`: the bot with the best score so far (then the most points, then the first name).
    fn leader(&self) -> Option<String> {
        self.tally
            .iter()
            .max_by(|(a_name, a), (b_name, b)| {
                let score = |(points, games): &(f64, u32)| points / f64::from(*games);
                score(a)
                    .total_cmp(&score(b))
                    .then(a.0.total_cmp(&b.0))
                    .then_with(|| b_name.cmp(a_name))
            })
            .map(|(name, (points, games))| format!("{name} {points}/{games}"))
    }

    fn rate(&self) -> Option<f64> {
        let seconds = self.started.elapsed().as_secs_f64();
        (self.played > 0 && seconds > 0.0).then(|| self.played as f64 / seconds)
    }

    fn status(&self) -> String {
        let mut line = format!("{}/{} games", self.done, self.total);
        if let Some(rate) = self.rate() {
            let left = (self.total - self.done) as f64 / rate;
            line.push_str(&format!(", {}, about {} left", rate_text(rate), human(left)));
        }
        if let Some(leader) = self.leader() {
            line.push_str(&format!(", leader {leader}"));
        }
        line
    }

    /// A line above the bar, or a plain line.
    fn note(&mut self, text: &str) {
        self.display.note(text);
    }

    /// Updates the bar, or prints a plain line if `force` or enough time has passed.
    fn show(&mut self, force: bool) {
        let status = self.status();
        let leader = self
            .leader()
            .map(|leader| format!("leader {leader}"))
            .unwrap_or_default();
        let rate = self.rate().map(rate_text).unwrap_or_default();
        match &mut self.display {
            Display::Bar(bar) => {
                bar.set_prefix(rate);
                bar.set_length(self.total as u64);
                bar.set_position(self.done as u64);
                bar.set_message(leader);
            }
            Display::Lines { out, every, last } => {
                if force || last.is_none_or(|last| last.elapsed() >= *every) {
                    *last = Some(Instant::now());
                    line(out, &format!("arena: {status}"));
                }
            }
        }
    }
}

impl Observer for Progress {
    fn on(&mut self, event: Event<'_>) {
        match event {
            Event::Resumed { record, .. } => self.count(record),
            Event::Started {
                tournament,
                total,
                done,
                concurrency,
            } => {
                self.total = total;
                self.started = Instant::now();
                if let Display::Bar(bar) = &self.display {
                    bar.reset_eta();
                }
                let resumed = if done == 0 {
                    String::new()
                } else {
                    format!(", resuming with {done} done")
                };
                self.note(&format!(
                    "arena: tournament {tournament}: {total} games, {concurrency} at once{resumed}"
                ));
                self.show(true);
            }
            Event::GameStarted { .. } | Event::Opened { .. } | Event::Playing | Event::Played | Event::Notice(_) => {}
            Event::GameFinished { record, .. } => {
                self.count(record);
                self.played += 1;
                for note in forfeit_notes(record) {
                    self.note(&note);
                }
                let overloaded = record.termination.forfeits().any(|(_, forfeit)| forfeit.overloaded);
                if overloaded && !self.warned_of_overload {
                    self.warned_of_overload = true;
                    self.note(&format!(
                        "arena: warning: a bot lost on time while the machine was overloaded, so the wall clock \
                         measured the machine, not the bot; {OVERLOAD_REMEDY}"
                    ));
                }
                self.show(false);
            }
            Event::Replayed { record } => {
                self.replays += 1;
                self.note(&replay_note(record));
            }
            Event::BotRestarted { bot } => self.note(&format!("arena: restarted bot {bot} after a failure")),
            Event::Interrupted { done, total } => {
                self.show(true);
                if let Display::Bar(bar) = &self.display {
                    bar.abandon();
                }
                self.note(&format!("arena: interrupted with {done} of {total} games done"));
            }
            Event::Finished { total } => {
                self.show(true);
                if let Display::Bar(bar) = &self.display {
                    bar.finish();
                }
                let elapsed = human(self.started.elapsed().as_secs_f64());
                let replays = match self.replays {
                    0 => String::new(),
                    n => format!(", {n} replayed after a timeout under overload"),
                };
                self.note(&format!(
                    "arena: all {total} games done ({} played in {elapsed}{replays})",
                    self.played
                ));
            }
        }
    }
}

/// Writes `text` and a newline to `out` (stderr), ignoring any failure: progress is best effort, and a
/// closed stderr (its reader gone, a terminal hung up) must neither panic nor stop a run, whose journal
/// and standings are its product. (indicatif, which draws the bar, ignores its write errors too.)
pub(crate) fn line(out: &mut dyn Write, text: &str) {
    let _ = writeln!(out, "{text}");
}

/// `12.5 games/s` for fast games; for slow ones, where that would read `0.0 games/s`, the time per game:
/// `40 s per game`.
fn rate_text(games_per_second: f64) -> String {
    if games_per_second >= 1.0 {
        format!("{games_per_second:.1} games/s")
    } else {
        format!("{} per game", human(1.0 / games_per_second))
    }
}

/// `42 s`, `3 min 5 s`, `2 h 10 min`.
fn human(seconds: f64) -> String {
    let seconds = seconds.round() as u64;
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{} min {} s", seconds / 60, seconds % 60),
        _ => format!("{} h {} min", seconds / 3600, seconds % 3600 / 60),
    }
}

/// The line for a game played again after a timeout under overload.
pub fn replay_note(record: &GameRecord) -> String {
    let (reason, forfeit) = record
        .termination
        .forfeits()
        .find(|(_, forfeit)| forfeit.overloaded)
        .or_else(|| record.termination.forfeits().next())
        .expect("a replayed game was forfeited");
    let detail = forfeit.detail.lines().next().unwrap_or_default();
    format!(
        "arena: game {}: {} forfeited ({reason}) under overload, so the game is played again: {detail}",
        record.id, forfeit.bot
    )
}

/// A line for each forfeit of a finished game, as the progress displays print them.
pub fn forfeit_notes(record: &GameRecord) -> impl Iterator<Item = String> {
    record.termination.forfeits().map(|(reason, forfeit)| {
        // The detail may quote the bot: shown escaped, as everything a bot wrote.
        let detail = forfeit.detail.lines().next().unwrap_or_default();
        format!(
            "arena: game {}: {} forfeited ({reason}): {}",
            record.id,
            forfeit.bot,
            pahtum_protocol::untrusted::escape(detail)
        )
    })
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use pahtum_protocol::Reason;

    use super::*;
    use pahtum_journal::Span;
    use pahtum_tournament::testing::{forfeited, record};

    /// A writer whose bytes the test can read afterwards.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn plain_lines_report_counts_leader_forfeits_and_the_end() {
        let out = Shared::default();
        let mut progress = Progress::lines(Box::new(out.clone()), Duration::from_secs(3600));
        progress.on(Event::Resumed {
            index: 0,
            record: &record("000-00-a", "a", "b"),
        });
        progress.on(Event::Started {
            tournament: "t",
            total: 4,
            done: 1,
            concurrency: 2,
        });
        let lost = forfeited(record("000-00-b", "b", "a"), Seat::First, Reason::Timeout);
        progress.on(Event::GameFinished {
            record: &lost,
            at: Span::default(),
        });
        progress.on(Event::BotRestarted { bot: "b" });
        progress.on(Event::GameFinished {
            record: &record("001-00-a", "a", "c"),
            at: Span::default(),
        });
        progress.on(Event::Interrupted { done: 3, total: 4 });
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "arena: tournament t: 4 games, 2 at once, resuming with 1 done"
        );
        assert_eq!(lines[1], "arena: 1/4 games, leader a 1/1");
        assert!(
            lines[2].starts_with("arena: game 000-00-b: b forfeited (timeout): test"),
            "{text}"
        );
        assert_eq!(lines[3], "arena: restarted bot b after a failure");
        // The hour between plain lines has not passed: only the final line follows.
        assert!(
            lines[4].starts_with("arena: 3/4 games, ") && lines[4].ends_with(", leader a 3/3"),
            "{text}"
        );
        assert_eq!(lines[5], "arena: interrupted with 3 of 4 games done");
        assert_eq!(lines.len(), 6, "{text}");
    }

    #[test]
    fn slow_games_show_the_time_per_game_instead_of_a_rate_of_zero() {
        assert_eq!(rate_text(12.34), "12.3 games/s");
        assert_eq!(rate_text(1.0), "1.0 games/s");
        assert_eq!(rate_text(0.5), "2 s per game");
        assert_eq!(rate_text(1.0 / 185.0), "3 min 5 s per game");
    }

    #[test]
    fn an_overloaded_machine_is_warned_of_once() {
        let out = Shared::default();
        let mut progress = Progress::lines(Box::new(out.clone()), Duration::from_secs(3600));
        let mut starved = forfeited(record("000-00-b", "b", "a"), Seat::First, Reason::Timeout);
        starved.termination.forfeit.as_mut().unwrap().overloaded = true;
        progress.on(Event::Started {
            tournament: "t",
            total: 2,
            done: 0,
            concurrency: 2,
        });
        progress.on(Event::GameFinished {
            record: &starved,
            at: Span::default(),
        });
        progress.on(Event::GameFinished {
            record: &starved,
            at: Span::default(),
        });
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let warnings: Vec<&str> = text.lines().filter(|line| line.contains("warning")).collect();
        assert_eq!(warnings.len(), 1, "{text}");
        assert!(warnings[0].contains("lower --concurrency"), "{text}");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human(4.4), "4 s");
        assert_eq!(human(185.0), "3 min 5 s");
        assert_eq!(human(7800.0), "2 h 10 min");
    }
}

/// Progress of work on games that is no tournament (`arena analyze`): the same bar on a terminal or plain
/// lines at most every few seconds, with the rate and the time left.
#[derive(Debug)]
pub struct Tally {
    display: Display,
    total: usize,
    done: usize,
    started: Instant,
}

impl Tally {
    /// A bar on stderr for `total` games.
    pub fn bar(total: usize) -> Tally {
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} games  {eta} left")
                .expect("the template is valid")
                .progress_chars("=> "),
        );
        Tally::with(Display::Bar(bar), total)
    }

    /// Plain lines to `out`, at most one per `every` (besides the last).
    pub fn lines(out: Box<dyn Write + Send>, every: Duration, total: usize) -> Tally {
        Tally::with(Display::Lines { out, every, last: None }, total)
    }

    fn with(display: Display, total: usize) -> Tally {
        Tally {
            display,
            total,
            done: 0,
            started: Instant::now(),
        }
    }

    /// One more game done.
    pub fn advance(&mut self) {
        self.done += 1;
        let done = self.done == self.total;
        let status = self.status();
        match &mut self.display {
            Display::Bar(bar) => {
                bar.set_position(self.done as u64);
                if done {
                    bar.finish_and_clear();
                }
            }
            Display::Lines { out, every, last } => {
                if done || last.is_none_or(|last| last.elapsed() >= *every) {
                    *last = Some(Instant::now());
                    line(out, &format!("arena: {status}"));
                }
            }
        }
    }

    /// A line above the bar, or a plain line.
    pub fn note(&mut self, text: &str) {
        self.display.note(text);
    }

    /// `3/12 games, 2 s per game, about 18 s left`.
    fn status(&self) -> String {
        let mut status = format!("{}/{} games", self.done, self.total);
        let seconds = self.started.elapsed().as_secs_f64();
        if self.done > 0 && seconds > 0.0 {
            let rate = self.done as f64 / seconds;
            let left = (self.total - self.done) as f64 / rate;
            status.push_str(&format!(", {}, about {} left", rate_text(rate), human(left)));
        }
        status
    }
}
