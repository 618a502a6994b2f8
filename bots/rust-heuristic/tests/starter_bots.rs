//! The starter bots, and the first bot of protocol.md, driven through the
//! protocol by a small referee written here: the real interpreters (`python3`,
//! `node`) and the real binary, over pipes.
//!
//! Each bot goes through a handshake, pings, and three whole games against a
//! random player: as the first seat with the pie rule on (the opponent swaps,
//! so the bot changes colour), as the second seat (the bot decides the pie),
//! and with the blocks placed by the players. Every answer must be of the type
//! its request asks for, repeat its id, and be legal; `game_over` gets no
//! answer; after `quit` the bot exits. A bot that hangs fails the test after
//! [`TIMEOUT`] instead of hanging it.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use pahtum::setup::random_blocks;
use pahtum::{Action, Game, Layout, Phase, Seat};
use pahtum_protocol::{
    Clock, FromBot, GameOver, MAX_LINE_BYTES, NewGame, PROTOCOL_VERSION, Placement, Reason, Rules, TimeControl, ToBot,
    decode_from_bot, encode,
};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;

/// How long the test waits for any one line, or for the exit after `quit`.
const TIMEOUT: Duration = Duration::from_secs(10);

const SPEC: &str = include_str!("../../../protocol.md");

/// A bot process and the test's ends of its pipes.
struct Driven {
    name: &'static str,
    child: Option<Child>,
    stdin: ChildStdin,
    /// The bot's stdout, line by line, from a reader thread; closed at EOF.
    lines: Receiver<String>,
    /// Everything the bot wrote to stderr so far, shown when it fails.
    stderr: Arc<Mutex<String>>,
    last_id: u64,
}

impl Driven {
    fn spawn(name: &'static str, program: &str, args: &[&str]) -> Driven {
        let mut child = Command::new(program)
            .args(args)
            // Bots must flush by themselves, as on an author's machine.
            .env_remove("PYTHONUNBUFFERED")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|err| panic!("{name}: cannot run {program}: {err}"));
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let mut stderr_pipe = child.stderr.take().expect("piped");
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let log = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut buffer = [0; 4096];
            while let Ok(n @ 1..) = stderr_pipe.read(&mut buffer) {
                log.lock()
                    .expect("no panics while held")
                    .push_str(&String::from_utf8_lossy(&buffer[..n]));
            }
        });
        Driven {
            name,
            child: Some(child),
            stdin,
            lines,
            stderr,
            last_id: 0,
        }
    }

    fn fail(&self, what: &str) -> ! {
        let stderr = self.stderr.lock().map(|log| log.clone()).unwrap_or_default();
        panic!("{}: {what}\n--- its stderr ---\n{stderr}", self.name)
    }

    fn next_id(&mut self) -> u64 {
        self.last_id += 1;
        self.last_id
    }

    fn send(&mut self, message: &ToBot) {
        let written = self
            .stdin
            .write_all(encode(message).as_bytes())
            .and_then(|()| self.stdin.flush());
        if let Err(err) = written {
            self.fail(&format!("cannot write {}: {err}", message.kind()));
        }
    }

    fn receive(&self, awaited: &str) -> FromBot {
        let line = match self.lines.recv_timeout(TIMEOUT) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => self.fail(&format!("no answer to {awaited} within {TIMEOUT:?}")),
            Err(RecvTimeoutError::Disconnected) => self.fail(&format!("closed its stdout awaiting {awaited}")),
        };
        if line.len() > MAX_LINE_BYTES {
            self.fail(&format!("a line of {} bytes", line.len()));
        }
        decode_from_bot(&line).unwrap_or_else(|err| self.fail(&format!("answered {awaited} with {err}")))
    }

    /// Sends `message` and returns its answer, checked for type and id.
    fn ask(&mut self, message: &ToBot) -> FromBot {
        self.send(message);
        let answer = self.receive(message.kind());
        if Some(answer.kind()) != message.answer_kind() || answer.id() != message.id() {
            self.fail(&format!("answered {message:?} with {answer:?}"));
        }
        answer
    }

    fn ping(&mut self) {
        let id = self.next_id();
        self.ask(&ToBot::Ping { id });
    }

    /// Sends `quit` and returns the exit status, checking that nothing more
    /// was written to stdout.
    fn quit(mut self) -> ExitStatus {
        self.send(&ToBot::Quit);
        let mut child = self.child.take().expect("quit once");
        let (sender, exited) = mpsc::channel();
        thread::spawn(move || sender.send(child.wait()));
        let status = match exited.recv_timeout(TIMEOUT) {
            Ok(Ok(status)) => status,
            Ok(Err(err)) => self.fail(&format!("cannot wait for the exit: {err}")),
            Err(_) => self.fail(&format!("still running {TIMEOUT:?} after quit")),
        };
        match self.lines.recv_timeout(TIMEOUT) {
            Err(RecvTimeoutError::Disconnected) => status,
            Ok(line) => self.fail(&format!("wrote {line:?} after quit")),
            Err(RecvTimeoutError::Timeout) => self.fail("its stdout stays open after it exited"),
        }
    }
}

impl Drop for Driven {
    /// A failed test leaves no process behind.
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// One game the test plays against the bot.
struct Setup {
    game: &'static str,
    layout: Layout,
    placement: Placement,
    pie: bool,
    bot_seat: Seat,
    time: TimeControl,
    clock: Clock,
}

/// Plays a whole game: the bot's seat asks the bot, the other seat plays
/// random legal moves and always swaps. Returns the finished game.
fn play(bot: &mut Driven, setup: &Setup, rng: &mut SmallRng) -> Game {
    let mut game = Game::new(&setup.layout, setup.pie).expect("a valid setup");
    let rules = Rules {
        pie: setup.pie,
        blocks: game.blocks_total(),
        placement: setup.placement,
    };
    let new_game = NewGame {
        id: bot.next_id(),
        game: setup.game.to_owned(),
        color: game.color_of(setup.bot_seat),
        rules,
        blocks: game.position().blocks().cells().collect(),
        time: setup.time,
    };
    bot.ask(&ToBot::NewGame(new_game));
    while let Some(seat) = game.seat_to_act() {
        let action = if seat == setup.bot_seat {
            let id = bot.next_id();
            let request = ToBot::request(id, setup.game, rules, &game, setup.clock).expect("the game is on");
            bot.ask(&request).action().expect("ask checked the answer's type")
        } else if game.phase() == Phase::PieDecision {
            Action::Pie(true)
        } else {
            *game.legal_moves().choose(rng).expect("the game is on")
        };
        if let Err(err) = game.play(action) {
            bot.fail(&format!("played {action} in {}: {err}", game.position()));
        }
        if game.history().len() == 10 {
            bot.ping();
        }
    }
    let score = game.score();
    bot.send(&ToBot::GameOver(GameOver {
        game: setup.game.to_owned(),
        color: game.color_of(setup.bot_seat),
        result: score.outcome(),
        score,
        reason: Reason::Normal,
        loser: None,
        detail: None,
    }));
    // No answer to game_over: the next line must be the pong.
    bot.ping();
    game
}

fn exercise(mut bot: Driven) {
    let hello = ToBot::Hello {
        protocol: PROTOCOL_VERSION,
        referee: "starter-bots test".to_owned(),
    };
    match bot.ask(&hello) {
        FromBot::Hello { protocol, name, .. } if protocol == PROTOCOL_VERSION && !name.is_empty() => {}
        other => bot.fail(&format!("greeted with {other:?}")),
    }
    bot.ping();
    let per_move = TimeControl {
        move_ms: Some(5000),
        base_ms: None,
        increment_ms: 0,
        margin_ms: 20,
        clock: pahtum_protocol::ClockKind::Wall,
    };
    let per_move_clock = Clock {
        remaining_ms: None,
        opponent_ms: None,
        increment_ms: 0,
        move_ms: Some(5000),
        timeout_ms: 5000,
        kind: pahtum_protocol::ClockKind::Wall,
    };
    let fixed = |count, seed| Layout::Fixed {
        blocks: random_blocks(count, seed).expect("a valid count").cells().collect(),
    };
    let mut rng = SmallRng::seed_from_u64(7);
    let swapped_away = Setup {
        game: "first-seat",
        layout: fixed(7, 1),
        placement: Placement::Random,
        pie: true,
        bot_seat: Seat::First,
        time: per_move,
        clock: per_move_clock,
    };
    let game = play(&mut bot, &swapped_away, &mut rng);
    assert_eq!(game.color_of(Seat::First), pahtum::Color::Black, "the test swaps");
    let deciding = Setup {
        game: "second-seat",
        layout: fixed(5, 2),
        placement: Placement::Fixed,
        pie: true,
        bot_seat: Seat::Second,
        time: TimeControl {
            move_ms: None,
            base_ms: Some(60_000),
            increment_ms: 500,
            margin_ms: 20,
            clock: pahtum_protocol::ClockKind::Wall,
        },
        clock: Clock {
            remaining_ms: Some(60_000),
            opponent_ms: Some(60_000),
            increment_ms: 500,
            move_ms: None,
            timeout_ms: 60_000,
            kind: pahtum_protocol::ClockKind::Wall,
        },
    };
    let game = play(&mut bot, &deciding, &mut rng);
    assert!(game.swapped().is_some(), "the bot decided the pie");
    let placing = Setup {
        game: "placement",
        layout: Layout::Placed { count: 5 },
        placement: Placement::Players,
        pie: false,
        bot_seat: Seat::Second,
        time: per_move,
        clock: per_move_clock,
    };
    let game = play(&mut bot, &placing, &mut rng);
    assert_eq!(game.position().blocks().len(), 5);
    let status = bot.quit();
    assert!(status.success(), "exit status {status}");
}

fn starter(folder_and_file: &str) -> String {
    format!("{}/../{folder_and_file}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn python_random() {
    exercise(Driven::spawn(
        "python-random",
        "python3",
        &[&starter("python-random/bot.py")],
    ));
}

#[test]
fn js_greedy() {
    exercise(Driven::spawn("js-greedy", "node", &[&starter("js-greedy/bot.js")]));
}

#[test]
fn rust_heuristic() {
    exercise(Driven::spawn(
        "rust-heuristic",
        env!("CARGO_BIN_EXE_pahtum-heuristic"),
        &[],
    ));
}

/// The Python block under "Your first bot" in protocol.md.
#[test]
fn first_bot_of_protocol_md() {
    let (_, from_fence) = SPEC
        .split_once("\n```python\n")
        .expect("protocol.md has a python block");
    let (code, _) = from_fence.split_once("\n```\n").expect("the python block ends");
    exercise(Driven::spawn("first-bot", "python3", &["-c", code]));
}
