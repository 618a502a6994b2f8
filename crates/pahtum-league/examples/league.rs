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
//! * `league final [SEEDS] [BOTS] [PLACES] [CONFIDENCE]`: a final of BOTS bots (default 8) of known
//!   strength (Elo evenly spread from -400 to +400, as `sim`'s), whose top PLACES places (default 3) must
//!   be apart at CONFIDENCE (default 0.95): the games the final's rule needs (`[separate]`: a round robin,
//!   then each boundary in doubt alone), against a round robin (every pair one layout pair a cycle) checked
//!   after each cycle by the same test; both stop at 128 games per pair. Prints, for seeds 1 to SEEDS
//!   (default 10), each one's games and whether its order of the top places is the true one.
//! * `league shards PATH N NEW`: the server's own work for one round played on a cluster, on the journal
//!   at PATH: its last NEW games are the round's, dealt in turn to N shards, each a copy of the journal
//!   before them (every other line) with its share; the league's folder opened (as the server does before
//!   each round's end) and the shards taken (`pahtum_league::take`: what each added checked and appended),
//!   then the whole journal verified to hold every game.
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
use pahtum_league::separation::boundaries;
use pahtum_league::table::{fold, table};
use pahtum_league::testing::{
    SimulatedLeague, cut_round, separate, simulate_round_robin, simulate_rule, synthetic_league,
};

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
        Some("final") => {
            let seeds: u64 = arg(1).map_or(10, |text| text.parse().expect("SEEDS"));
            let bots: usize = arg(2).map_or(8, |text| text.parse().expect("BOTS"));
            let places: u32 = arg(3).map_or(3, |text| text.parse().expect("PLACES"));
            let confidence: f64 = arg(4).map_or(0.95, |text| text.parse().expect("CONFIDENCE"));
            final_against_round_robin(seeds, bots, places, confidence);
        }
        Some("shards") => {
            let (path, count) = (arg(1).expect("PATH"), arg(2).expect("N").parse().expect("N"));
            merge_shards(Path::new(path), count, arg(3).expect("NEW").parse().expect("NEW"));
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
            "usage: league sim [SEEDS] [TARGET] [OPPONENTS] | final [SEEDS] [BOTS] [PLACES] [CONFIDENCE] | shards PATH N NEW | write PATH ENTRANTS GAMES | table PATH | read PATH | pairing PATH"
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

/// The games a final needs to tell its top `places` apart at `confidence`, by its rule and by a round robin
/// checked after each cycle, for seeds 1 to `seeds`; and whether each found the true order.
fn final_against_round_robin(seeds: u64, bots: usize, places: u32, confidence: f64) {
    let strength: Vec<f64> = (0..bots)
        .map(|i| 400.0 - 800.0 * i as f64 / (bots - 1) as f64)
        .collect();
    let rule = separate(places, (confidence * 1000.0).round() as u32, u32::MAX);
    // The league's tables rank by the fit; the true order is e0, e1, ... (strongest first).
    let outcome = |league: &SimulatedLeague| {
        let table = league.table();
        let apart = boundaries(&table, &rule).iter().all(|boundary| boundary.apart);
        let true_order = (0..places as usize).all(|place| {
            table
                .active
                .get(place)
                .is_some_and(|row| row.entrant == format!("e{place}@1"))
        });
        (league.state().games(), apart, true_order)
    };
    let (mut by_rule, mut by_round_robin) = (Vec::new(), Vec::new());
    // Of each: the runs that stopped without every boundary apart (capped: the places shown tied), and those
    // that claimed an order that is not the true one.
    let (mut capped, mut wrong) = ([0; 2], [0; 2]);
    for seed in 1..=seeds {
        let mut final_ = SimulatedLeague::new(&strength, Some(rule), seed);
        while !final_.decide().is_empty() {
            final_.play_decided();
        }
        let mut round_robin = SimulatedLeague::new(&strength, None, seed);
        loop {
            if round_robin.decide_round_robin().is_empty() {
                break;
            }
            round_robin.play_decided();
            if outcome(&round_robin).1 {
                break;
            }
        }
        let (rule_games, rule_apart, rule_true) = outcome(&final_);
        let (robin_games, robin_apart, robin_true) = outcome(&round_robin);
        println!(
            "seed {seed}: the final's rule {rule_games} games (apart: {rule_apart}, true order: {rule_true}); \
             a round robin {robin_games} games (apart: {robin_apart}, true order: {robin_true})"
        );
        by_rule.push(rule_games);
        by_round_robin.push(robin_games);
        for (index, (apart, true_order)) in [(rule_apart, rule_true), (robin_apart, robin_true)]
            .into_iter()
            .enumerate()
        {
            capped[index] += usize::from(!apart);
            wrong[index] += usize::from(apart && !true_order);
        }
    }
    let median = |games: &mut Vec<usize>| {
        games.sort_unstable();
        games[games.len() / 2]
    };
    println!(
        "{bots} bots, top {places} apart at {confidence}: median {} games by the final's rule ({} capped, {} with a \
         wrong order claimed), {} by a round robin ({} capped, {} wrong)",
        median(&mut by_rule),
        capped[0],
        wrong[0],
        median(&mut by_round_robin),
        capped[1],
        wrong[1]
    );
}

/// Deals the last `new` games of the journal at `path` to `count` shards beside it, then times what the
/// server does at the end of a round played on a cluster: the league opened and the shards taken.
fn merge_shards(path: &Path, count: usize, new: usize) {
    let round = cut_round(path, count, new);
    let started = Instant::now();
    let mut opened = pahtum_league::folder::open(&round.league).unwrap();
    let opened_in = started.elapsed();
    let journal = round.league.join("journal.jsonl");
    let outcomes = pahtum_league::take::take_shards(&mut opened, &journal, &round.shards, round.from).unwrap();
    assert!(
        outcomes
            .iter()
            .all(|outcome| matches!(outcome, pahtum_league::take::Taken::Games(_)))
    );
    println!(
        "a round of {new} games in {count} shards after {} games: the league opened in {:.2} s, the shards \
         checked and taken in {:.2} s, {:.2} s in all",
        round.before,
        opened_in.as_secs_f64(),
        (started.elapsed() - opened_in).as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    let verified = pahtum_league::verify(&journal).unwrap();
    assert!(verified.faults.is_empty() && verified.state.games() == round.before + new);
}
