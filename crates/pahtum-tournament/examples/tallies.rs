//! The cost of counting standings, without the journal: `standings::Tallies` fed synthetic records.
//!
//! It makes the records of a 12-bot round-robin one at a time, in schedule order, won, drawn, lost or
//! forfeited at random (by a hash of the game's index), without moves (the tallies do not read them), in one
//! reused record (as a streaming reader hands them over), and keeps none: so the process's peak memory is
//! that of the tallies, and running it with two numbers of games shows whether they grow.
//!
//! * `tallies make GAMES`: makes the records only;
//! * `tallies count GAMES`: makes them, counts them into `Tallies` and finishes the standings; the counting
//!   costs the difference of the two in CPU time;
//! * `tallies halves GAMES`: the same in two pieces on two threads, merged;
//! * `tallies check GAMES`: checks that the halves merged give the standings of the whole.
//!
//! Time them with `/usr/bin/time -f '%e %U %S %M'`:
//! `cargo build --release -p pahtum-tournament --example tallies`, then
//! `target/release/examples/tallies count 1000000`.

use std::fmt::Write as _;
use std::ops::Range;
use std::time::Instant;

use pahtum::{Score, Seat};
use pahtum_protocol::Reason;
use pahtum_record::GameRecord;
use pahtum_tournament::standings::Tallies;
use pahtum_tournament::testing;

const BOTS: usize = 12;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, games) = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        [mode, games] => (mode.to_string(), games.parse().expect("GAMES is a number")),
        _ => panic!("usage: tallies make|count|halves|check GAMES"),
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
        "count" => assert_eq!(fold(0..games).finish(None).expect("the games rate").games, games),
        "halves" => assert_eq!(halves().finish(None).expect("the games rate").games, games),
        "check" => assert!(
            fold(0..games).finish(None).expect("the games rate") == halves().finish(None).expect("the games rate"),
            "the standings of the halves differ from the whole's"
        ),
        _ => panic!("usage: tallies make|count|halves|check GAMES"),
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
            record: testing::record("000-00-a", &names[0], &names[1]),
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
