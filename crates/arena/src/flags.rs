//! The flags that several commands share: the pie rule, core pinning, the
//! sandbox, the games at once, block counts and the standings table's width.

use std::path::Path;

use pahtum_builtin::sandboxed;
use pahtum_protocol::untrusted::escape;
use pahtum_referee::{BotSpec, sandbox};
pub use pahtum_serve::one_run::Serving;

/// The pie rule of `arena game` and `arena match`: on by default, as in tournaments.
#[derive(Debug, clap::Args)]
pub struct PieFlag {
    /// Play without the pie rule (by default, after White's first stone, Black may swap colours).
    #[arg(long)]
    no_pie: bool,
}

impl PieFlag {
    pub fn pie(&self) -> bool {
        !self.no_pie
    }
}

/// `--affinity` and `--no-affinity` of `arena match` and `run`.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct AffinityFlags {
    /// Pin each concurrent game's bots, and the thread that referees it, to a core of their own (refused
    /// when --concurrency exceeds the usable cores) [default: a tournament file's `affinity`, else pinned
    /// exactly when --concurrency equals the usable cores].
    #[arg(long, conflicts_with = "no_affinity")]
    pub affinity: bool,
    /// Never pin games to cores (for bots that think on several threads).
    #[arg(long)]
    pub no_affinity: bool,
}

impl AffinityFlags {
    /// Pinning as the flags ask; `None` when neither is given.
    pub fn choice(self) -> Option<bool> {
        match (self.affinity, self.no_affinity) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

/// `--wide` of the commands that print the standings table at their end (`arena run`, `match`, `merge`,
/// `standings`, `league run` and `league table`).
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct WideFlag {
    /// Print every column of the standings table [default: fit the table to the terminal's width].
    ///
    /// Without --wide the table fits the width COLUMNS gives when it is a number, else the terminal's, else
    /// 80 (not a terminal). The forfeits by kind and the average points for and against show only when
    /// some bot's are not zero; where the table is still too wide, columns go in this order, a note under
    /// the table naming them: for and against; LOS next; games; score; W, D and L; the forfeits by kind;
    /// the 95% interval; Elo; points. The rank and the bot's name always stay, whole. Markdown, CSV and
    /// JSON always hold every column.
    #[arg(long)]
    pub wide: bool,
}

impl WideFlag {
    /// How the standings table fits, by the flag and the width the terminal has now.
    pub fn fit(self) -> pahtum_report::fit::Fit {
        if self.wide {
            pahtum_report::fit::Fit::WIDE
        } else {
            pahtum_report::fit::Fit::width(crate::width::width())
        }
    }
}

/// The address `arena serve` and `--serve` listen on by default.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8717";

/// `--serve [ADDR]` of `arena run` and `arena match`.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct ServeFlag {
    /// Serve this run's pages in the browser while it plays, as `arena serve` does (on ADDR, 127.0.0.1:8717 if
    /// not given; an address other than loopback gets a new access token, printed in the address).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = DEFAULT_LISTEN)]
    pub serve: Option<std::net::SocketAddr>,
}

impl ServeFlag {
    /// Starts serving the run in `out` if asked ([`pahtum_serve::one_run`]), with its games in progress from
    /// `live`, and says where; the server stops when the answer is dropped.
    pub async fn start(
        self,
        out: &Path,
        live: &std::sync::Arc<pahtum_runner::live::Live>,
    ) -> anyhow::Result<Option<Serving>> {
        let Some(listen) = self.serve else {
            return Ok(None);
        };
        let serving = pahtum_serve::one_run::serve_run(out, listen, live).await?;
        crate::output::errln!("arena: serving this run at {}", serving.url());
        Ok(Some(serving))
    }
}

/// `--sandbox` of `arena game`, `match`, `run` and `check`.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct SandboxFlag {
    /// Run the bots in the sandbox (bubblewrap): no network, only the system, their working directory and the
    /// folders of the files their command names to read, a private /tmp, 1 GiB of memory and 256 processes
    /// each; see SECURITY.md.
    #[arg(long)]
    pub sandbox: bool,
}

impl SandboxFlag {
    /// `spec`, in the default sandbox if the flag is given ([`sandboxed::in_sandbox`]).
    pub fn apply(self, spec: BotSpec) -> BotSpec {
        sandboxed::in_sandbox(spec, self.sandbox)
    }

    /// `specs` as [`SandboxFlag::apply`] makes them, each sandboxed one hiding `output` (where the command
    /// writes: a match's folder, a game's logs) and the other bots' own folders ([`sandboxed::all_in_sandbox`]).
    pub fn apply_to_all(self, specs: Vec<BotSpec>, output: Option<&Path>) -> Vec<BotSpec> {
        sandboxed::all_in_sandbox(specs, self.sandbox, output)
    }
}

/// Tells the organiser, before the games, what each sandboxed bot of
/// `specs` does not see of what its command names, and what it sees only
/// because `ro_paths` names it ([`sandbox::start_notes`]).
pub fn note_what_the_sandbox_shows(specs: &[BotSpec]) {
    for spec in specs {
        if let Some(sandbox) = &spec.sandbox {
            for note in sandbox::start_notes(sandbox, &spec.command()) {
                say_sandbox_note(&spec.name, &note);
            }
        }
    }
}

/// Tells the organiser one `note` of [`note_what_the_sandbox_shows`] of the bot `bot`.
pub fn say_sandbox_note(bot: &str, note: &str) {
    crate::output::errln!("arena: bot {}: {}", escape(bot), escape(note));
}

/// Refuses to go on, before any bot starts, when a sandbox is `wanted` and
/// cannot run here: never a sandboxed bot run without its sandbox.
pub fn require_sandbox(wanted: bool) -> anyhow::Result<()> {
    Ok(pahtum_runner::session::require_sandbox(wanted)?)
}

/// Warns, once before the games, where fair mode is `wanted` but this
/// machine offers the referee no cgroup freezer: the idle bot is then
/// stopped with SIGSTOP, which its own processes can undo.
pub fn warn_of_signal_pausing(wanted: bool) {
    if wanted && pahtum_referee::contain::pausing() == pahtum_referee::Pausing::Signals {
        say_signal_pausing();
    }
}

/// Warns that fair mode stops the idle bot with SIGSTOP here (see [`warn_of_signal_pausing`]).
pub fn say_signal_pausing() {
    crate::output::errln!(
        "arena: warning: fair mode (pause_idle) stops the bot not to move with SIGSTOP here, which its own \
         processes can undo by sending each other SIGCONT: there is no cgroup freezer that the arena may use \
         (or PAHTUM_ARENA_NO_FREEZER is set); run it as root, or in a delegated cgroup v2 subtree \
         (systemd-run --user --scope -p Delegate=yes arena ...)"
    );
}

/// `--concurrency`: games at once, 1 or more.
pub fn parse_concurrency(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("use 1 or more games at once".to_owned()),
    }
}

/// A block count: odd, from 1 to 47.
pub fn parse_block_count(text: &str) -> Result<usize, String> {
    let count: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of blocks: use an odd count from 1 to 47"))?;
    pahtum::setup::check_count(count)
        .map_err(|_| format!("{count} blocks: use odd counts from 1 to 47, so that both colours get as many stones"))?;
    Ok(count)
}
