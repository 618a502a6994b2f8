//! The referee of pahtum-arena: plays games between bot processes exactly by
//! the rules and the protocol, keeps fair time, and survives anything a bot
//! does. A bot author's bug costs that bot the game, never the tournament,
//! the referee or the machine.
//!
//! The API is three calls, made from any number of concurrent tokio tasks:
//!
//! ```no_run
//! # async fn example() -> Result<(), pahtum_referee::StartError> {
//! use pahtum_referee::{Bot, BotSpec, GameSpec, Limits, move_time, play_game};
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
//!   clock ([`Limits`]) and one game's setup ([`GameSpec`]);
//! * [`Bot`]: a greeted bot process, reused from game to game;
//! * [`play_game`]: one game, returning its [`GameRecord`](pahtum_record::GameRecord);
//! * [`Failure`]: what a bot did wrong, for records and `arena check`;
//! * [`Bot::choose`]: one request at a time, for a caller that runs the game
//!   itself (`arena play`, a person against a bot).
//!
//! Play games in tasks spawned on a multi-thread runtime (a tournament), or
//! on a current-thread runtime (one game), not in a multi-thread runtime's
//! `block_on`: there the game runs on the calling thread while a worker
//! thread waits for the bots' answers, so every answer needs one more thread
//! wake-up before the referee reads it (the benchmark measures 2 µs more per
//! move on one core, and on a busy machine each wake-up may wait for a CPU,
//! on the bot's clock).
//!
//! Internally, `process` owns the operating-system details (process groups,
//! the death signal, signals, reaping), `cputime` measures the CPU time of a
//! bot's whole process tree (for CPU-time clocks and the records), `overload`
//! tells a starved bot's wall-clock timeout from a slow bot's, [`affinity`]
//! pins a bot to a core, [`contain`] finds and kills
//! every process a bot started (a cgroup per bot, an environment marker, a
//! guard process for the referee's own death), [`sandbox`] runs an untrusted
//! bot under bubblewrap with the resource limits of `limits` (cgroups,
//! rlimits), `lines` reads stdout with
//! bounded memory, `decode` turns its lines into messages, `stderr` drains
//! stderr into a capped log, `clock` keeps the time controls, `request` writes
//! the requests as the game grows, and `game` runs the moves.

#![warn(missing_docs)]

pub mod affinity;
mod bot;
mod clock;
pub mod contain;
mod cputime;
mod decode;
mod game;
mod limits;
mod lines;
mod overload;
mod process;
mod request;
pub mod sandbox;
pub mod spec;
mod stderr;
mod turn;
mod verdict;

pub use bot::{Bot, StartError};
pub use contain::{Tracking, kill_every_bot};
pub use game::{GameEvent, play_game};
pub use pahtum_protocol::{Placement, Rules, TimeControl};
pub use pahtum_record::SeatTimes;
pub use sandbox::{Sandbox, SandboxError};
pub use spec::{BotSpec, CommandError, Limits};
pub use turn::Choice;
pub use verdict::Failure;
