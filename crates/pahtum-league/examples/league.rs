//! The league's figures: the pairing rule against a round robin on a simulated field, the table of a
//! large league, and the pairing decision's time.
//!
//! * `league sim [SEEDS] [TARGET] [OPPONENTS]`: a field of 30 bots of known strength (Elo evenly spread
//!   from -400 to +400; a game is won with the logistic Elo probability, no draws), played layout pair by
//!   layout pair until every bot's 95% interval (the joint fit's, as `arena league table` has it) is at most
//!   ±TARGET Elo (default 50): once by the league's pairing rule (a round at a time, OPPONENTS opponents
//!   per entrant in need, default 4), once as a round robin (the tournament's order: layout round 0 of
//!   every pair, then round 1, ...), checked every 15 layout pairs. Prints the games each needed, for
//!   seeds 1 to SEEDS (default 5).
//! * `league write PATH ENTRANTS GAMES`: a synthetic league journal (random full games with timings).
//! * `league table PATH`: the table of the journal at PATH (the fold and the fit of `arena league table`).
//! * `league read PATH`: the fold of `arena league table` alone (the journal read, checked and counted, no
//!   fit): what `time` of it gives is the reading's cost.
//! * `league pairing PATH`: the time of the pairing decision, from the table of PATH: one entrant's
//!   opponents, and a whole round.

use std::path::Path;
use std::time::Instant;

use pahtum_journal::Moves;
use pahtum_journal::sink::Counts;
use pahtum_league::pairing::{self, Entrant};
use pahtum_league::table::{fold, table};
use pahtum_league::testing::{simulate_round_robin, simulate_rule, synthetic_league};

const FIELD: usize = 30;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |index: usize| args.get(index).map(String::as_str);
    match arg(0) {
        Some("sim") => {
            let seeds: u64 = arg(1).map_or(5, |text| text.parse().expect("SEEDS"));
            let target: f64 = arg(2).map_or(50.0, |text| text.parse().expect("TARGET"));
            let opponents: usize = arg(3).map_or(4, |text| text.parse().expect("OPPONENTS"));
            simulate(seeds, target, opponents);
        }
        Some("write") => {
            let (path, entrants, games) = (arg(1).expect("PATH"), arg(2).expect("ENTRANTS"), arg(3).expect("GAMES"));
            let started = Instant::now();
            let bytes = synthetic_league(Path::new(path), entrants.parse().unwrap(), games.parse().unwrap());
            println!("wrote {bytes} bytes in {:.1} s", started.elapsed().as_secs_f64());
        }
        Some("table") => {
            let started = Instant::now();
            let (state, tallies) = fold(Path::new(arg(1).expect("PATH")), Moves::Drop, &mut Counts).unwrap();
            let folded = started.elapsed();
            let table = table(&state, tallies, None).unwrap();
            println!(
                "{} entrants, {} games: read and counted in {:.2} s, fitted in {:.2} s, {:.2} s in all",
                state.entrants().len(),
                table.games,
                folded.as_secs_f64(),
                (started.elapsed() - folded).as_secs_f64(),
                started.elapsed().as_secs_f64()
            );
        }
        Some("read") => {
            let started = Instant::now();
            let (state, tallies) = fold(Path::new(arg(1).expect("PATH")), Moves::Drop, &mut Counts).unwrap();
            std::hint::black_box(tallies);
            println!(
                "{} entrants, {} games: read and counted in {:.2} s",
                state.entrants().len(),
                state.games(),
                started.elapsed().as_secs_f64()
            );
        }
        Some("pairing") => {
            let (state, tallies) = fold(Path::new(arg(1).expect("PATH")), Moves::Drop, &mut Counts).unwrap();
            let table = table(&state, tallies, None).unwrap();
            let entrants: Vec<Entrant> = table
                .active
                .iter()
                .map(|row| Entrant {
                    active: true,
                    rating: row
                        .elo
                        .map(|elo| (elo, (row.upper.unwrap() - row.lower.unwrap()) / 2.0)),
                    games: u64::from(row.games),
                })
                .collect();
            let may_meet = |a: usize, b: usize| state.next_layout_round(a, b).is_some();
            let met = |a: usize, b: usize| state.decided_between(a, b);
            let times = 1000;
            let started = Instant::now();
            for who in 0..times {
                std::hint::black_box(pairing::opponents_of(&entrants, who % entrants.len(), 4, may_meet, met));
            }
            let one = started.elapsed() / times as u32;
            let started = Instant::now();
            let round = pairing::round(&entrants, 0.0, 4, may_meet, met);
            println!(
                "{} entrants: one entrant's 4 opponents in {:.1} µs; a round for every entrant ({} layout pairs) in {:.2} ms",
                entrants.len(),
                one.as_secs_f64() * 1e6,
                round.len(),
                started.elapsed().as_secs_f64() * 1e3
            );
        }
        _ => eprintln!(
            "usage: league sim [SEEDS] [TARGET] [OPPONENTS] | write PATH ENTRANTS GAMES | table PATH | read PATH | pairing PATH"
        ),
    }
}

fn simulate(seeds: u64, target: f64, opponents: usize) {
    println!("{FIELD} bots, Elo -400 to +400; games until every 95% interval is within ±{target} Elo");
    println!("seed  pairing rule ({opponents} opponents)  round robin");
    let (mut rule_total, mut robin_total) = (0, 0);
    for seed in 1..=seeds {
        let rule = simulate_rule(FIELD, seed, target, opponents);
        let robin = simulate_round_robin(FIELD, seed, target);
        println!("{seed:>4}  {rule:>26}  {robin:>11}");
        rule_total += rule;
        robin_total += robin;
    }
    println!(
        "mean  {:>26.0}  {:>11.0}",
        rule_total as f64 / seeds as f64,
        robin_total as f64 / seeds as f64
    );
}
