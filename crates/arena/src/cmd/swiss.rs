//! `arena run` of a tournament paired as it is played (`format = "swiss"`).
//!
//! Such a tournament is a league in its output folder (pahtum-runner's
//! `league::paired`): set up from the file (its rules, its bots copied and
//! checked as `arena league add` does), then played a round at a time as
//! `arena league run` plays, each round decided from the journal and written
//! to it before it is played, so that a resume or a shard (`--shard K/N`,
//! joined by `arena merge`) plays exactly that round. The table is the
//! league's, with the Swiss's standings and tie-breaks, and the report is a
//! run's. `--dry-run` shows the first round's pairing, the only one known
//! before any game.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use pahtum_league::swiss::{Player, pair};
use pahtum_protocol::untrusted::escape;
use pahtum_run::resume::JOURNAL;
use pahtum_runner::league::paired::set_up;
use pahtum_runner::league::{Options, Step};
use pahtum_runner::tournament::TournamentPlan;
use pahtum_tournament::config::Format;

use super::league::{checker, play_shown};
use crate::output::{errln, outln};

/// Plays the Swiss of `plan` whose league has the rules `rules` (or shows its first round with `dry_run`),
/// its table fitted as `fit` says.
pub async fn play(
    plan: TournamentPlan,
    rules: &str,
    dry_run: bool,
    fit: pahtum_report::fit::Fit,
) -> anyhow::Result<ExitCode> {
    if plan.fresh || !plan.replay.is_empty() {
        anyhow::bail!(
            "--fresh and --replay do not apply to a Swiss, whose rounds depend on every game before them; play \
             it again into another folder with --out"
        );
    }
    let file = &plan.file;
    let out = plan.settings.out.clone().unwrap_or_else(|| file.settings.out.clone());
    let Format::Swiss { rounds } = file.tournament.format else {
        unreachable!("a tournament paired as it is played is a Swiss")
    };
    if dry_run {
        return Ok(first_round(file, rounds, &out));
    }
    let joining = |name: &str, step: Step| {
        let doing = match step {
            Step::Building => "building",
            Step::Checking => "checking",
        };
        errln!("arena: {doing} {} before it joins the Swiss", escape(name));
    };
    set_up(file, rules, &out, &checker()?, &joining)
        .await
        .with_context(|| format!("the Swiss cannot be set up in {}", out.display()))?;
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

/// Prints what `--dry-run` knows of the Swiss of `file` into `out`: its rounds and bots, and its first
/// round's pairing (all scores equal: the upper half of the field, in file order, meets the lower half).
fn first_round(file: &pahtum_tournament::config::TournamentFile, rounds: u32, out: &Path) -> ExitCode {
    let bots = &file.tournament.bots;
    let field = vec![Player { score: 0.0, byes: 0 }; bots.len()];
    let pairing = pair(&field, |_, _| false);
    let name = |index: usize| escape(&bots[index].name).into_owned();
    outln!(
        "A Swiss of {rounds} rounds and {} bots, each round paired from the scores so far (FIDE Dutch order), \
         one layout pair a pairing; round 1:",
        bots.len()
    );
    for (number, &(a, b)) in pairing.pairs.iter().enumerate() {
        outln!("  {:>3}. {} - {}", number + 1, name(a), name(b));
    }
    if let Some(bye) = pairing.bye {
        outln!("  bye: {} (scores 2, a won layout pair)", name(bye));
    }
    let journal = out.join(JOURNAL);
    outln!(
        "{} games a round, into {}; nothing was played (--dry-run). {}",
        2 * pairing.pairs.len(),
        out.display(),
        if journal.exists() {
            "A Swiss is there already: a run resumes it."
        } else {
            "No Swiss there yet: a run sets one up (its bots copied and checked as `arena league add` does)."
        }
    );
    ExitCode::SUCCESS
}
