//! `arena submit URL FOLDER`: a bot handed in to a contest from the command
//! line, as the contest's form does it: packed, uploaded with the author's
//! API token, and followed through its build and check, whose logs are
//! printed as they come (escaped: a stranger's build wrote them). With
//! `--if-not-weaker`, it becomes the active version only if a test of
//! unrated games against the one that plays finds it not weaker, and the
//! test is followed too, its LLR printed as each game ends. The exit code
//! says whether the bot was admitted, and promoted.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use pahtum_contest::challenges::Score;
use pahtum_contest::client::{Client, upload_of};
use pahtum_contest::store::submission_state_text;
use pahtum_contest::web::promotion::{PromotionAnswer, PromotionState};

use crate::output::{errln, outln};

/// The variable that holds the API token when --token is not given.
pub const TOKEN_VARIABLE: &str = "ARENA_TOKEN";

/// Submit a bot to a contest: pack its folder (its bot.toml: name, command, build), upload it, follow its
/// build and check, and print the logs and the outcome; exits non-zero when the bot was not admitted.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  arena submit https://contest.example.org bots/my-bot --token T\n  \
                  ARENA_TOKEN=T arena submit http://127.0.0.1:8718 my-bot.tar.gz\n  \
                  arena submit http://127.0.0.1:8718 bot.py --token T          a single source file\n  \
                  arena submit http://127.0.0.1:8718 bots/my-bot --if-not-weaker   active only if not weaker"
)]
pub struct Args {
    /// The contest's address.
    pub url: String,
    /// The bot: a folder with its bot.toml, an archive (.tar.gz, .zip), or one source file.
    pub folder: PathBuf,
    /// Your API token (make one on your page) [default: the ARENA_TOKEN variable].
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Make it the version that plays only if it is not weaker than the one that plays now: the contest plays
    /// unrated games between the two until a sequential test (contest.toml's [promotion]) decides, and this
    /// command follows the test; exits 4 when the bot was admitted but not promoted.
    #[arg(long)]
    pub if_not_weaker: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let token = match args.token {
        Some(token) => token,
        None => std::env::var(TOKEN_VARIABLE).with_context(|| {
            format!("give your API token with --token or in {TOKEN_VARIABLE}; make one on your page")
        })?,
    };
    let (body, file_name) = upload_of(&args.folder)?;
    let client = Client::new(&args.url, &token);
    let queued = client.submit(&body, file_name.as_deref(), args.if_not_weaker)?;
    errln!("arena: submission {} sent ({} bytes)", queued.id, body.len());
    let mut stdout = std::io::stdout();
    let mut show = |name: &str, bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        for line in text.split_inclusive('\n') {
            let shown = pahtum_protocol::untrusted::escape(line.trim_end_matches('\n'));
            let _ = writeln!(stdout, "[{name}] {shown}");
        }
    };
    let mut state = |state| errln!("arena: submission {}: {}", queued.id, submission_state_text(state));
    let outcome = client.follow(queued.id, &mut show, &mut state)?;
    let submission = &outcome.submission.submission;
    let label = submission.label.as_deref().unwrap_or("the bot");
    if outcome.admitted() && args.if_not_weaker {
        return follow_test(&client, queued.id, label);
    }
    if outcome.admitted() {
        outln!("{label} was admitted and plays in the contest.");
        return Ok(ExitCode::SUCCESS);
    }
    let why = submission.error.as_deref().unwrap_or("no reason was given");
    let lines: Vec<_> = why.lines().map(pahtum_protocol::untrusted::escape).collect();
    errln!("arena: {label} was not admitted:\n{}", lines.join("\n"));
    Ok(ExitCode::from(crate::exit::NOT_ADMITTED))
}

/// Follows the test of submission `id` (its entrant `label`, admitted on condition), printing each new state
/// of it, and says whether it was promoted.
fn follow_test(client: &Client, id: i64, label: &str) -> anyhow::Result<ExitCode> {
    let mut show = |test: &PromotionAnswer| {
        let Score { wins, draws, losses } = test.score;
        errln!(
            "arena: {label} against {}: {}, {} games ({wins} won, {draws} drawn, {losses} lost), LLR {:.2} (H0 at \
             {:.2}, H1 at {:.2})",
            test.opponent,
            test.state.name(),
            test.games,
            test.llr,
            test.lower,
            test.upper
        );
    };
    let Some(test) = client.follow_promotion(id, &mut show)? else {
        outln!("{label} was admitted and plays in the contest: no version of yours played, so it needed no test.");
        return Ok(ExitCode::SUCCESS);
    };
    if test.state == PromotionState::Promoted {
        outln!("{label} was promoted and plays in the contest.");
        return Ok(ExitCode::SUCCESS);
    }
    let why = test.note.as_deref().unwrap_or("no reason was given");
    errln!(
        "arena: {label} was admitted but not promoted: {}",
        pahtum_protocol::untrusted::escape(why)
    );
    Ok(ExitCode::from(crate::exit::NOT_PROMOTED))
}
