//! A bot for the referee's tests and benchmark: conforming, or misbehaving in
//! exactly one way, chosen by its first argument.
//!
//! `fixture-bot MODE`, where MODE is one of:
//!
//! * `first-free`: conforming and instant; plays the first legal action.
//! * `echo`: echoes every line (the raw pipe ping-pong of the benchmark).
//! * `delay=MS`: conforming, but sleeps MS milliseconds before each move.
//! * `silent`: never greets.
//! * `hang`: greets and gets ready, never answers a move.
//! * `exit-at-start`: greets, then exits when the game starts.
//! * `crash`: answers two moves, then aborts.
//! * `non-json`: answers a move with a line that is not JSON.
//! * `huge-line`: answers a move with 100 MB without a newline.
//! * `stderr-flood`: conforming, while another thread floods stderr.
//! * `no-read`: greets without reading its stdin, then never reads it.
//! * `closed-stdin`: greets, then closes its stdin.
//! * `fork-grandchild`: greets; when the game starts, forks a grandchild
//!   that keeps the pipes open, and exits.
//! * `ignore-term`: conforming, but ignores SIGTERM and `quit`.
//! * `wrong-id`, `stale-id`: answers moves with the next or the previous id.
//! * `occupied`, `blocked`, `off-board`: plays a stone there.
//! * `chatty`: conforming, but prints a line nobody asked for after each move.
//! * `burner`: conforming, while another thread burns CPU all the time.
//!
//! Every process (a grandchild too) appends its pid to the file named by
//! `FIXTURE_PID_FILE`, if set, so that tests can check that none is left.

use std::io::{self, BufRead, Write};
use std::time::Duration;

use pahtum::{Action, Cell};
use pahtum_protocol::{FromBot, PROTOCOL_VERSION, Request, ToBot, encode};

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "first-free".to_owned());
    record_pid();
    match mode.as_str() {
        "echo" => return echo(),
        "silent" => return io::stdin().lock().lines().map_while(Result::ok).for_each(drop),
        "sleeper" => sleep_forever(),
        "no-read" => {
            send(&hello());
            sleep_forever();
        }
        "ignore-term" => {
            // SAFETY: setting a signal to be ignored has no preconditions.
            unsafe { libc::signal(libc::SIGTERM, libc::SIG_IGN) };
        }
        "stderr-flood" => {
            std::thread::spawn(|| {
                let line = "flooding stderr with a line of text that nobody reads\n".repeat(100);
                loop {
                    let _ = io::stderr().write_all(line.as_bytes());
                }
            });
        }
        "burner" => {
            std::thread::spawn(|| {
                let mut x = 0u64;
                loop {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            });
        }
        _ => {}
    }
    let mut moves = 0;
    for line in io::stdin().lock().lines() {
        let Ok(line) = line else { return };
        // serde_json directly (not the codec's two-step decoding): the
        // benchmark's instant bot should spend as little time as it can.
        let Ok(message) = serde_json::from_str::<ToBot>(&line) else {
            eprintln!("fixture-bot: cannot decode {line:?}");
            continue;
        };
        match message {
            ToBot::Hello { .. } if mode == "closed-stdin" => {
                // Closed before the greeting, so that the referee's next write fails.
                // SAFETY: closing our own stdin; nothing uses it afterwards.
                unsafe { libc::close(0) };
                send(&hello());
                sleep_forever();
            }
            ToBot::Hello { .. } => send(&hello()),
            ToBot::NewGame(new_game) => match mode.as_str() {
                "exit-at-start" => std::process::exit(3),
                "fork-grandchild" => {
                    let me = std::env::current_exe().expect("the fixture knows its path");
                    let grandchild = std::process::Command::new(me)
                        .arg("sleeper")
                        .spawn()
                        .expect("the fixture can fork");
                    record_pid_of(grandchild.id());
                    std::process::exit(0);
                }
                _ => send(&FromBot::Ready { id: new_game.id }),
            },
            ToBot::Ping { id } => send(&FromBot::Pong { id }),
            ToBot::PlaceBlock(request) | ToBot::PlayStone(request) | ToBot::PieDecision(request) => {
                moves += 1;
                answer(&mode, &request, moves);
            }
            ToBot::GameOver(_) => {}
            ToBot::Quit if mode == "ignore-term" => sleep_forever(),
            ToBot::Quit => return,
        }
    }
}

fn answer(mode: &str, request: &Request, moves: u32) {
    let game = request.game().expect("the referee sends valid requests");
    let first_free = *game.legal_moves().first().expect("a request has a legal move");
    let stone = |cell: Cell| FromBot::Stone {
        id: request.id,
        cell,
        info: None,
    };
    match mode {
        "hang" => sleep_forever(),
        "crash" if moves > 2 => std::process::abort(),
        "non-json" => return send_raw(b"e4 please\n"),
        "huge-line" => {
            let chunk = vec![b'x'; 1 << 16];
            for _ in 0..(100 << 20) / chunk.len() {
                send_raw(&chunk);
            }
            return;
        }
        "off-board" => {
            return send_raw(format!("{{\"type\":\"stone\",\"id\":{},\"cell\":\"h9\"}}\n", request.id).as_bytes());
        }
        "wrong-id" | "stale-id" => {
            let id = if mode == "wrong-id" {
                request.id + 1
            } else {
                request.id - 1
            };
            return send(&to_answer(id, first_free));
        }
        "occupied" => {
            if let Some(&cell) = request.white.first().or(request.black.first()) {
                return send(&stone(cell));
            }
        }
        "blocked" => {
            if let Some(&cell) = request.blocks.first() {
                return send(&stone(cell));
            }
        }
        _ => {}
    }
    if let Some(ms) = mode.strip_prefix("delay=") {
        std::thread::sleep(Duration::from_millis(ms.parse().expect("delay=MS")));
    }
    send(&to_answer(request.id, first_free));
    if mode == "chatty" {
        send_raw(b"thinking about the next move...\n");
    }
}

fn to_answer(id: u64, action: Action) -> FromBot {
    match action {
        Action::Block(cell) => FromBot::Block { id, cell, info: None },
        Action::Stone(cell) => FromBot::Stone { id, cell, info: None },
        Action::Pie(swap) => FromBot::Pie { id, swap, info: None },
    }
}

fn hello() -> FromBot {
    FromBot::Hello {
        protocol: PROTOCOL_VERSION,
        name: "fixture-bot".to_owned(),
        version: None,
        author: None,
    }
}

fn send(message: &FromBot) {
    send_raw(encode(message).as_bytes());
}

fn send_raw(bytes: &[u8]) {
    let mut stdout = io::stdout().lock();
    if stdout.write_all(bytes).and_then(|()| stdout.flush()).is_err() {
        std::process::exit(1);
    }
}

fn echo() {
    let stdin = io::stdin();
    let mut line = String::new();
    while stdin.lock().read_line(&mut line).is_ok_and(|n| n > 0) {
        send_raw(line.as_bytes());
        line.clear();
    }
}

fn record_pid() {
    record_pid_of(std::process::id());
}

fn record_pid_of(pid: u32) {
    if let Some(path) = std::env::var_os("FIXTURE_PID_FILE") {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("the pid file can be opened");
        writeln!(file, "{pid}").expect("the pid file can be written");
    }
}

fn sleep_forever() -> ! {
    loop {
        std::thread::park();
    }
}
