//! Part 3 of the benchmark: timing accuracy near the limit, with the bot's
//! own account of each answer beside the referee's, so that every flag can be
//! put down to the bot, its waits for a CPU, or the pipe and the referee.

use std::time::Duration;

use pahtum::Color;
use pahtum_protocol::{Reason, TimeControl, move_time};
use pahtum_record::{GameRecord, GameSpec};
use pahtum_referee::{Bot, Limits, play_game};

use crate::{fixture, load_average, percentile};

/// One answer of the delayed bot.
#[derive(Debug)]
pub struct Sample {
    flagged: bool,
    /// When its game ended, in seconds of `CLOCK_MONOTONIC` (the clock of
    /// `perf sched record -k CLOCK_MONOTONIC`, to look for what the
    /// scheduler did then).
    ended: f64,
    /// The referee's measurement; `None` when its deadline passed before the
    /// answer was read.
    referee_us: Option<f64>,
    /// What the bot said about itself (see the fixture's `delay=MS` mode).
    bot: BotReport,
}

impl Sample {
    /// The referee's time minus the bot's own and its wait to read: the pipe
    /// both ways, and the referee's wait for a CPU before it read the answer.
    fn pipe_and_referee_us(&self) -> Option<f64> {
        Some(self.referee_us? - self.bot.us? - self.bot.delivery_queued_us?)
    }
}

/// The delayed bot's own timing of one answer; `None` where it did not get
/// to say it before the referee gave up on it.
#[derive(Debug, Default)]
struct BotReport {
    /// From its read of the request to its write of the answer.
    us: Option<f64>,
    /// Waiting for a CPU within that time.
    queued_us: Option<f64>,
    /// Waiting for a CPU before it could read the request.
    delivery_queued_us: Option<f64>,
}

impl BotReport {
    fn parse(text: &str) -> BotReport {
        BotReport {
            us: number_after(text, "bot-us="),
            queued_us: number_after(text, " queued-us="),
            delivery_queued_us: number_after(text, "delivery-queued-us="),
        }
    }
}

/// One experiment: a bot that answers `delay` after each request, under a
/// per-move `limit` with the referee's `margin`.
#[derive(Debug, Clone, Copy)]
pub struct Trial {
    pub limit: Duration,
    pub margin: Duration,
    pub delay: Duration,
    /// How many answers of the delayed bot to time.
    pub moves: usize,
    /// How many games to play at once.
    pub lanes: usize,
}

impl Trial {
    /// The time after which an answer is flagged.
    fn flagged_after_us(&self) -> f64 {
        (self.limit + self.margin).as_secs_f64() * 1e6
    }

    /// What the bot's aim leaves for everything else.
    fn slack_us(&self) -> f64 {
        self.flagged_after_us() - self.delay.as_secs_f64() * 1e6
    }
}

/// Plays until the delayed bot has answered `trial.moves` times (or been
/// flagged that often).
pub async fn play(trial: Trial) -> Vec<Sample> {
    let time = TimeControl {
        margin_ms: trial.margin.as_millis() as u64,
        ..move_time(trial.limit)
    };
    let mut tasks = Vec::new();
    for lane in 0..trial.lanes {
        let target = trial.moves / trial.lanes + usize::from(lane < trial.moves % trial.lanes);
        tasks.push(tokio::spawn(timing_lane(time, trial.delay, target, lane)));
    }
    let mut samples = Vec::new();
    for task in tasks {
        samples.extend(task.await.expect("a timing lane"));
    }
    samples
}

async fn timing_lane(time: TimeControl, delay: Duration, target: usize, lane: usize) -> Vec<Sample> {
    let limits = Limits::default();
    let mode = format!("delay={}", delay.as_millis());
    let mut opponent = Bot::start(&fixture("first-free"), &limits, None).await.expect("starts");
    let mut delayed = Bot::start(&fixture(&mode), &limits, None).await.expect("starts");
    let mut samples = Vec::with_capacity(target);
    for game in 0.. {
        if samples.len() >= target {
            break;
        }
        if !delayed.is_reusable() {
            delayed.shutdown().await;
            delayed = Bot::start(&fixture(&mode), &limits, None).await.expect("starts");
        }
        let spec = GameSpec::random(format!("timing-{lane}-{game}"), 7, game, false, time).expect("a layout");
        let record = play_game(&spec, &mut delayed, &mut opponent, &mut |_| {}).await;
        samples.extend(delayed_answers(&record, monotonic_seconds()));
    }
    delayed.shutdown().await;
    opponent.shutdown().await;
    samples
}

/// The delayed bot's answers in `record` (it holds White, without a pie
/// rule), a game that ended at `ended` (`CLOCK_MONOTONIC`).
fn delayed_answers(record: &GameRecord, ended: f64) -> Vec<Sample> {
    let mut samples: Vec<Sample> = record
        .moves
        .iter()
        .filter(|m| m.color == Color::White)
        .map(|m| Sample {
            flagged: false,
            ended,
            referee_us: Some(m.timing.ms * 1000.0),
            bot: BotReport::parse(
                m.timing
                    .info
                    .as_ref()
                    .and_then(|info| info.comment.as_deref())
                    .unwrap_or(""),
            ),
        })
        .collect();
    if let Some(forfeit) = &record.termination.forfeit {
        assert_eq!(
            (record.termination.reason, forfeit.color),
            (Reason::Timeout, Color::White),
            "{record:#?}"
        );
        // The referee's time is in the verdict when it read the answer; the
        // bot's is in its line, or else in its stderr, by request id.
        let id = number_after(&forfeit.detail, "request ").unwrap_or(f64::NAN);
        let (read, answered) = (format!("read id={id} "), format!(" id={id}"));
        let stderr = |wanted: &dyn Fn(&String) -> bool| forfeit.stderr_tail.iter().find(|line| wanted(line)).cloned();
        let report = forfeit
            .line
            .clone()
            .or_else(|| stderr(&|line| line.ends_with(&answered)))
            .or_else(|| stderr(&|line| line.starts_with(&read)))
            .unwrap_or_default();
        samples.push(Sample {
            flagged: true,
            ended,
            referee_us: number_after(&forfeit.detail, "took ").map(|ms| ms * 1000.0),
            bot: BotReport::parse(&report),
        });
    }
    samples
}

/// The number that follows `label` in `text`.
fn number_after(text: &str, label: &str) -> Option<f64> {
    let rest = &text[text.find(label)? + label.len()..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Why a flagged answer was late, as far as the bot's report tells: the
/// slack (what the bot's aim leaves of the limit and the margin) went to the
/// bot itself, to its wait for a CPU before it could read the request, or to
/// the pipe and the referee (including the referee's wait for a CPU before it
/// read the answer).
fn blame(sample: &Sample, trial: &Trial) -> &'static str {
    let over = trial.flagged_after_us();
    let delivery = sample.bot.delivery_queued_us.unwrap_or(0.0);
    match sample.bot.us {
        Some(bot) if bot > over => "the bot's own time was over the limit",
        Some(bot) if bot + delivery > over => "the bot's own time and its wait to read were over the limit",
        _ if sample.pipe_and_referee_us().is_some_and(|path| path > trial.slack_us()) => {
            "the pipe and the referee alone took more than the slack"
        }
        Some(_) => "the bot used most of the slack, the pipe and the referee the rest",
        None if sample.bot.delivery_queued_us.is_none() => "the bot had not even read the request at the deadline",
        None => "the bot had read the request but not answered at the deadline",
    }
}

pub fn report(trial: &Trial, samples: &[Sample], load_before: &str) {
    let flagged: Vec<&Sample> = samples.iter().filter(|s| s.flagged).collect();
    println!(
        "timing, answers at {} ms of a {} ms limit (margin {} ms), {} games at once, \
         load average {load_before} before, {} after:",
        trial.delay.as_millis(),
        trial.limit.as_millis(),
        trial.margin.as_millis(),
        trial.lanes,
        load_average()
    );
    println!("  {} of {} answers flagged", flagged.len(), samples.len());
    let mut blamed: Vec<&str> = flagged.iter().map(|s| blame(s, trial)).collect();
    blamed.sort_unstable();
    blamed.dedup();
    for why in blamed {
        let count = flagged.iter().filter(|s| blame(s, trial) == why).count();
        println!("    {count:5}: {why}");
    }
    let distributions: [(&str, Vec<f64>); 4] = [
        ("the bot's own time", samples.iter().filter_map(|s| s.bot.us).collect()),
        (
            "its wait for a CPU",
            samples.iter().filter_map(|s| s.bot.queued_us).collect(),
        ),
        (
            "its wait to read",
            samples.iter().filter_map(|s| s.bot.delivery_queued_us).collect(),
        ),
        (
            "the pipe and the referee",
            samples.iter().filter_map(Sample::pipe_and_referee_us).collect(),
        ),
    ];
    for (name, values) in distributions.iter().filter(|(_, values)| !values.is_empty()) {
        println!(
            "  {name:<24} median {:9.1} us, p99 {:9.1} us, max {:9.1} us",
            percentile(values, 0.5),
            percentile(values, 0.99),
            percentile(values, 1.0)
        );
    }
    let show = |us: Option<f64>| us.map_or("?".to_owned(), |us| format!("{:.3}", us / 1000.0));
    for sample in flagged
        .iter()
        .filter(|s| s.bot.us.is_some_and(|us| us <= trial.flagged_after_us()))
        .take(10)
    {
        println!(
            "  flagged, but the bot says it answered in time: referee {} ms, bot {} ms \
             (waiting for a CPU {} ms, and {} ms before its read), pipe and referee {} ms; \
             game ended at {:.6} s",
            show(sample.referee_us),
            show(sample.bot.us),
            show(sample.bot.queued_us),
            show(sample.bot.delivery_queued_us),
            show(sample.pipe_and_referee_us()),
            sample.ended
        );
    }
}

fn monotonic_seconds() -> f64 {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the time into the struct it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9
}
