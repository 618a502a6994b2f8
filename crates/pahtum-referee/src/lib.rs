//! The referee of pahtum-arena: plays games between bot processes exactly by
//! the rules and the protocol, keeps fair time, and survives anything a bot
//! does. A bot author's bug costs that bot the game, never the tournament,
//! the referee or the machine.
//!
//! The API is three calls, made from any number of concurrent tokio tasks on
//! a multi-thread runtime:
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
//! * [`Failure`]: what a bot did wrong, for records and `arena check`.
//!
//! Internally, `process` owns the operating-system details (process groups,
//! the death signal, signals, reaping, CPU time), `lines` reads stdout with
//! bounded memory, `stderr` drains stderr into a capped log, `clock` keeps
//! the time controls, and `game` runs the moves.

mod bot;
mod clock;
mod game;
mod lines;
mod process;
pub mod spec;
mod stderr;
mod verdict;

pub use bot::{Bot, StartError};
pub use game::{GameEvent, play_game};
pub use pahtum_protocol::{Placement, Rules, TimeControl};
pub use spec::{BotSpec, CommandError, DEFAULT_MARGIN_MS, GameSpec, Limits, fischer, move_time};
pub use verdict::Failure;
