//! The cost of the standings and the report without the journal: `Tallies` and `html::ReportBuilder` fed
//! synthetic records.
//!
//! It makes the records of a 12-bot round-robin one at a time, in schedule order, won, drawn, lost or
//! forfeited at random (by a hash of the game's index), in one reused record (as a streaming reader hands
//! them over), and keeps none: so the process's peak memory is that of the tallies and the report, and
//! running it with two numbers of games shows whether they grow. Every record carries the moves of one full
//! game, each with a bot's `info` comment (one of five), so that the report's replays are as long as real
//! ones.
//!
//! * `streaming make GAMES`: makes the records only;
//! * `streaming tallies GAMES`: makes them, counts them into `Tallies` and finishes the standings (the
//!   counting costs the difference with `make` in CPU time);
//! * `streaming halves GAMES`: the same in two pieces on two threads, merged;
//! * `streaming check GAMES`: checks that the halves merged give the standings of the whole;
//! * `streaming report GAMES`: the standings and the HTML report of the records (the report costs the
//!   difference with `tallies`); prints the page's size.
//!
//! Time them with `/usr/bin/time -f '%e %U %S %M'`:
//! `cargo build --release -p pahtum-report --example streaming`, then
//! `target/release/examples/streaming tallies 1000000`.

use std::fmt::Write as _;
use std::ops::Range;
use std::time::Instant;

use pahtum::{Score, Seat};
use pahtum_protocol::{Info, Reason};
use pahtum_record::GameRecord;
use pahtum_report::html::data::{ByteCount, ReplaySize};
use pahtum_report::html::{Options, ReportBuilder};
use pahtum_standings::standings::Tallies;
use pahtum_tournament::testing;

const BOTS: usize = 12;
const USAGE: &str = "usage: streaming make|tallies|halves|check|report GAMES";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, games) = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        [mode, games] => (mode.to_string(), games.parse().expect("GAMES is a number")),
        _ => panic!("{USAGE}"),
    };
    let names: Vec<String> = (0..BOTS).map(|bot| format!("bot{bot:02}")).collect();
    let pairs: Vec<(usize, usize)> = (0..BOTS).flat_map(|a| (a + 1..BOTS).map(move |b| (a, b))).collect();
    let fold = |range: Range<usize>| {
        let mut tallies = Tallies::new(&names);
        let mut records = Records::new(&names, &pairs);
        for game in range {
            tallies.add(records.game(game));
        }
        tallies
    };
    let halves = || {
        std::thread::scope(|scope| {
            let first = scope.spawn(|| fold(0..games / 2));
            let mut tallies = fold(games / 2..games);
            tallies.merge(first.join().expect("the first half counts"));
            tallies
        })
    };
    let started = Instant::now();
    match mode.as_str() {
        "make" => {
            let mut records = Records::new(&names, &pairs);
            for game in 0..games {
                std::hint::black_box(records.game(game));
            }
        }
        "tallies" => assert_eq!(fold(0..games).finish(None).expect("the games rate").games, games),
        "halves" => assert_eq!(halves().finish(None).expect("the games rate").games, games),
        "check" => assert!(
            fold(0..games).finish(None).expect("the games rate") == halves().finish(None).expect("the games rate"),
            "the standings of the halves differ from the whole's"
        ),
        "report" => {
            let mut tallies = Tallies::new(&names);
            let mut report = ReportBuilder::new(Options::default());
            let mut records = Records::new(&names, &pairs);
            for game in 0..games {
                let record = records.game(game);
                tallies.add(record);
                report.add(record, ReplaySize::of(record), game);
            }
            let standings = tallies.finish(None).expect("the games rate");
            // The records are made again by their index, as a journal's are read back by their offset.
            let read = |game| serde_json::to_vec(records.game(game));
            let mut page = ByteCount(0);
            report
                .finish("synthetic", games, &standings, read, &mut page)
                .expect("the page is written");
            println!("page: {:.2} MB", page.0 as f64 / 1e6);
        }
        _ => panic!("{USAGE}"),
    }
    println!("{mode} {games}: {:.3} s", started.elapsed().as_secs_f64());
}

/// The records of the round-robin, made one at a time in one reused record (as a streaming reader would
/// hand them over), so that making them costs little beside counting them.
struct Records<'a> {
    names: &'a [String],
    pairs: &'a [(usize, usize)],
    record: GameRecord,
}

impl<'a> Records<'a> {
    fn new(names: &'a [String], pairs: &'a [(usize, usize)]) -> Records<'a> {
        Records {
            names,
            pairs,
            record: full_game(),
        }
    }

    /// Game `index` of the schedule: layout pair `index / 2`, its first or its seat-swapped second game.
    fn game(&mut self, index: usize) -> &GameRecord {
        let (pair, round, second) = (
            index / 2 % self.pairs.len(),
            index / 2 / self.pairs.len(),
            index % 2 == 1,
        );
        let (mut first_bot, mut second_bot) = self.pairs[pair];
        if second {
            std::mem::swap(&mut first_bot, &mut second_bot);
        }
        let record = &mut self.record;
        record.id.clear();
        write!(record.id, "{pair:03}-{round:02}-").expect("a string takes any text");
        record.id.push(if second { 'b' } else { 'a' });
        let layout = record.layout.get_or_insert_with(String::new);
        layout.clear();
        layout.push_str(&record.id[..record.id.len() - 2]);
        record.players.first.clone_from(&self.names[first_bot]);
        record.players.second.clone_from(&self.names[second_bot]);
        // The game's luck: a hash of its index, so that any piece of the schedule makes the same games.
        let luck = splitmix64(index as u64);
        let swap = luck % 10 < 3;
        record.swap = Some(swap);
        let (white, black) = if swap {
            (second_bot, first_bot)
        } else {
            (first_bot, second_bot)
        };
        record.white.clone_from(&self.names[white]);
        record.black.clone_from(&self.names[black]);
        record.score = Score {
            white: (luck >> 8) as u32 % 60,
            black: (luck >> 16) as u32 % 60,
        };
        record.result = record.score.outcome();
        record.termination = pahtum_record::Termination::normal();
        if (luck >> 24) % 100 == 0 {
            let seat = if (luck >> 32) % 2 == 0 {
                Seat::First
            } else {
                Seat::Second
            };
            *record = testing::forfeited(record.clone(), seat, Reason::Timeout);
        }
        record
    }
}

/// A 64-bit mix of `x` (SplitMix64's finalizer): cheap, stable, well spread.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A full game (the test tournament's first, by two bots that take the first free cell), every move with
/// an `info` comment, as a bot that explains itself sends.
fn full_game() -> GameRecord {
    let mut game = testing::played("000-00-a");
    for (ply, played) in game.moves.iter_mut().enumerate() {
        played.timing.ms = 1.0 + ply as f64 / 8.0;
        played.timing.info = Some(Info {
            depth: Some(ply as u32 % 5),
            comment: Some(format!("searched to depth {}", ply % 5)),
            ..Info::default()
        });
    }
    game
}
