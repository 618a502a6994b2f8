//! The referee of pahtum-arena: plays games between bot processes exactly by
//! the rules and the protocol, keeps fair time, and survives anything a bot
//! does. A bot author's bug costs that bot the game, never the tournament,
//! the referee or the machine.
//!
//! The API is three calls, made from any number of concurrent tokio tasks:
//!
//! ```no_run
//! # async fn example() -> Result<(), pahtum_referee::StartError> {
//! use pahtum_protocol::move_time;
//! use pahtum_record::GameSpec;
//! use pahtum_referee::{Bot, BotSpec, Limits, play_game};
//! use std::time::Duration;
//!
//! let limits = Limits::default();
//! let spec = BotSpec::from_command("random", "python3 bots/python-random/bot.py").unwrap();
//! let mut first = Bot::start(&spec, &limits, None).await?;
//! let mut second = Bot::start(&spec, &limits, None).await?;
//! let game = GameSpec::random("g1", 7, 42, true, move_time(Duration::from_millis(100))).unwrap();
//! let record = play_game(&game, &mut first, &mut second, &mut |_event| {}).await;
//! assert!(record.replay().is_ok());
//! // A bot that failed is killed: start a new one before its next game.
//! if first.is_reusable() { /* play on */ }
//! first.shutdown().await;
//! second.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! * [`spec`]: how to launch a bot ([`BotSpec`]), the limits off the game
//!   clock ([`Limits`]) and the sandbox of an untrusted bot ([`Sandbox`]);
//!   one game's setup is a [`GameSpec`](pahtum_record::GameSpec);
//! * [`Bot`]: a greeted bot process, reused from game to game;
//! * [`play_game`]: one game, returning its [`GameRecord`](pahtum_record::GameRecord);
//! * [`play_players`]: the same game where a player may be a person ([`Human`]),
//!   asked through a channel ([`Turn`]): `arena play` and the browser's `/play`;
//! * [`Failure`]: what a bot did wrong, for records and `arena check`.
//!
//! Play games in tasks spawned on a multi-thread runtime (a tournament), or
//! on a current-thread runtime (one game), not in a multi-thread runtime's
//! `block_on`: there the game runs on the calling thread while a worker
//! thread waits for the bots' answers, so every answer needs one more thread
//! wake-up before the referee reads it (a cost per move that the referee
//! benchmark shows, `cargo bench -p pahtum-referee --bench referee`; on a busy
//! machine each wake-up may wait for a CPU, on the bot's clock).
//!
//! The crate's modules, in two groups, over the supervisor:
//!
//! * **the specs** ([`spec`]): plain data that says what to run and how,
//!   [`BotSpec`], [`Limits`] and [`Sandbox`] (the supervisor's);
//! * **the game**: `game` runs the moves, `human` is a person's seat (its
//!   moves from a channel), `request` writes the requests as the game
//!   grows, `clock` keeps the time controls, `verdict` says what a bot did wrong ([`Failure`]),
//!   `decode` turns a bot's lines into messages, `lines` reads stdout with
//!   bounded memory, `stderr` drains stderr into a capped log, `process`
//!   makes a supervised process a bot's lines in and out, and `bot`
//!   holds a greeted bot ([`Bot`]) and its exchanges.
//!
//! Every operating-system detail of a bot's process (process groups,
//! containment, cgroups, the freezer, the sandbox, affinity) is the
//! supervisor's, [`pahtum_supervise`], through its one call
//! [`pahtum_supervise::start`]; its modules [`affinity`], [`contain`],
//! [`sandbox`] and [`seccomp`] are re-exported here for the arena's commands.
//! No two files use each other, directly or in a circle
//! (`pahtum_testkit::circles`).

#![warn(missing_docs)]

mod bot;
mod clock;
mod decode;
mod game;
mod human;
mod lines;
mod process;
mod request;
pub mod spec;
mod stderr;
pub mod stderr_log;
mod verdict;

pub use bot::{Bot, StartError};
pub use game::{GameEvent, play_game, play_players};
pub use human::{Human, HumanMove, Player, Turn};
pub use pahtum_protocol::{Placement, Rules, TimeControl};
pub use pahtum_record::SeatTimes;
pub use pahtum_supervise::{Pausing, SandboxError, Tracking, affinity, contain, kill_every_bot, sandbox, seccomp};
pub use spec::{BotSpec, CommandError, Limits, Sandbox};
pub use verdict::Failure;
