//! `arena run` of a tournament paired as it is played (`format = "swiss"` or
//! `"knockout"`).
//!
//! Such a tournament is a league in its output folder (pahtum-runner's
//! `league::paired`): set up from the file (its rules, its bots copied and
//! checked as `arena league add` does), then played a round at a time as
//! `arena league run` plays, each round decided from the journal and written
//! to it before it is played, so that a resume or a shard (`--shard K/N`,
//! joined by `arena merge`) plays exactly that round. The table is the
//! league's, with the Swiss's standings and tie-breaks or the knockout's
//! bracket, and the report is a run's. `--dry-run` shows the first round's
//! pairing, the only one known before any game.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use pahtum_league::knockout::places;
use pahtum_league::swiss::{Player, pair};
use pahtum_protocol::untrusted::escape;
use pahtum_run::resume::JOURNAL;
use pahtum_runner::league::paired::set_up;
use pahtum_runner::league::{Options, Step};
use pahtum_runner::tournament::TournamentPlan;
use pahtum_tournament::config::BotConfig;

use super::league::{checker, play_shown};
use crate::output::{errln, outln};

/// Plays the Swiss or knockout of `plan` whose league has the rules `rules` (or shows its first round with
/// `dry_run`), its table fitted as `fit` says.
pub async fn play(
    plan: TournamentPlan,
    rules: &pahtum_runner::league::paired::LeagueRules,
    dry_run: bool,
    fit: pahtum_report::fit::Fit,
) -> anyhow::Result<ExitCode> {
    if plan.fresh || !plan.replay.is_empty() {
        anyhow::bail!(
            "--fresh and --replay do not apply to a Swiss or a knockout, whose rounds depend on every game before \
             them; play it again into another folder with --out"
        );
    }
    let settings = &plan.settings;
    if settings.restart_every_game || settings.durability.is_some() || settings.affinity.is_some() {
        anyhow::bail!(
            "--restart-every-game, --durability, --affinity and --no-affinity do not apply to a Swiss or a \
             knockout, which is played as a league (its bot processes reused, its journal synced in batches); \
             run it without them"
        );
    }
    let file = &plan.file;
    let out = plan.settings.out.clone().unwrap_or_else(|| file.settings.out.clone());
    if dry_run {
        let league = rules.parse(&out.join(pahtum_league::LEAGUE_FILE))?;
        return Ok(first_round(&league, &file.tournament.bots, &out));
    }
    let joining = |name: &str, step: Step| {
        let doing = match step {
            Step::Building => "building",
            Step::Checking => "checking",
        };
        errln!("arena: {doing} {} before it joins", escape(name));
    };
    set_up(file, rules, &out, &checker()?, &joining)
        .await
        .with_context(|| format!("the tournament cannot be set up as a league in {}", out.display()))?;
    let options = Options {
        games: None,
        until: None,
        concurrency: plan.settings.concurrency.unwrap_or(file.settings.concurrency),
        shard: plan.shard,
        arena: &plan.arena,
        builtins: plan.builtins,
        on_overload: file.settings.on_overload,
    };
    let code = play_shown(&out, &options, fit).await?;
    let journal = out.join(JOURNAL);
    let (_, written) = pahtum_report::run_report::write_run_reports(&out, &journal, None, None)?;
    let written: Vec<String> = written.iter().map(|path| path.display().to_string()).collect();
    errln!("arena: journal {}; tables {}", journal.display(), written.join(", "));
    Ok(code)
}

/// Prints what `--dry-run` knows of the Swiss or knockout `league` of `bots` into `out`: its rule, and its
/// first round's pairing (a Swiss's, all scores equal: the upper half of the field, in file order, meets the
/// lower half; a knockout's first stage, by seed).
fn first_round(league: &pahtum_league::League, bots: &[BotConfig], out: &Path) -> ExitCode {
    let shown = |name: &str| escape(name).into_owned();
    let (pairs, bye) = if let Some(swiss) = &league.swiss {
        let field = vec![Player { score: 0.0, byes: 0 }; bots.len()];
        let pairing = pair(&field, |_, _| false);
        outln!(
            "A Swiss of {} rounds and {} bots, each round paired from the scores so far (FIDE Dutch order), one \
             layout pair a pairing; round 1:",
            swiss.rounds,
            bots.len()
        );
        let pairs: Vec<(String, String)> = pairing
            .pairs
            .iter()
            .map(|&(a, b)| (shown(&bots[a].name), shown(&bots[b].name)))
            .collect();
        (
            pairs,
            pairing
                .bye
                .map(|bye| format!("{} (scores 2, a won layout pair)", shown(&bots[bye].name))),
        )
    } else {
        let rule = league.knockout.as_ref().expect("a Swiss or a knockout");
        outln!(
            "A knockout of {} bots, each match {} layout pair(s), level: one more at a time up to {}, then the \
             higher seed; its first stage, by seed:",
            rule.seeds.len(),
            rule.pairs,
            rule.max_pairs
        );
        let seeded = |seed: usize| {
            let label = &rule.seeds[seed - 1];
            format!(
                "({seed}) {}",
                shown(label.rsplit_once('@').map_or(label.as_str(), |(name, _)| name))
            )
        };
        let places = places(rule.seeds.len().next_power_of_two());
        let mut pairs = Vec::new();
        let mut byes = Vec::new();
        for two in places.chunks(2) {
            match (two[0] <= rule.seeds.len(), two[1] <= rule.seeds.len()) {
                (true, true) => pairs.push((seeded(two[0]), seeded(two[1]))),
                (true, false) => byes.push(seeded(two[0])),
                _ => byes.push(seeded(two[1])),
            }
        }
        (pairs, (!byes.is_empty()).then(|| byes.join(", ")))
    };
    for (number, (a, b)) in pairs.iter().enumerate() {
        outln!("  {:>3}. {a} - {b}", number + 1);
    }
    if let Some(bye) = bye {
        outln!("  bye: {bye}");
    }
    outln!(
        "Adjudication: {}.",
        pahtum_record::describe_rule(league.rules.adjudicate)
    );
    let journal = out.join(JOURNAL);
    outln!(
        "{} games in the first round, into {}; nothing was played (--dry-run). {}",
        2 * pairs.len() * league.knockout.as_ref().map_or(1, |rule| rule.pairs as usize),
        out.display(),
        if journal.exists() {
            "A league is there already: a run resumes it."
        } else {
            "No league there yet: a run sets one up (its bots copied and checked as `arena league add` does)."
        }
    );
    ExitCode::SUCCESS
}
