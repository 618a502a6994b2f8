//! Plays one game between two fixture bots and prints its record as JSON: a
//! referee in a process of its own, so that a test can measure the peak
//! memory of that process alone (the tests of a binary share one process,
//! and one peak).
//!
//! `fixture-game FIRST SECOND`: the modes of the two `fixture-bot`s (which
//! must be in the same directory), on a random layout, 100 ms per move (of
//! CPU time with `FIXTURE_CLOCK=cpu`, else of wall time). At
//! the end it writes its own CPU time (not its bots') to stderr, for
//! measurements such as the referee's cost of a bot's stderr flood.
//!
//! More settings, by environment variables: `FIXTURE_MOVE_MS` (the time per
//! move), `FIXTURE_PAUSE_IDLE=1` (fair mode; the way the referee stops the
//! idle bot then goes to stderr as `fixture-game: pausing ...`),
//! `FIXTURE_SANDBOX=DIR` (both bots sandboxed, working in DIR) and
//! `FIXTURE_TAG` (passed on to the bots, sandboxed or not, so that a test
//! can find their processes).

use std::process::ExitCode;
use std::time::Duration;

use pahtum_protocol::{ClockKind, TimeControl, move_time};
use pahtum_record::GameSpec;
use pahtum_referee::{Bot, BotSpec, Limits, Sandbox, play_game};

fn main() -> ExitCode {
    let modes: Vec<String> = std::env::args().skip(1).collect();
    let [first, second] = modes.as_slice() else {
        eprintln!("usage: fixture-game FIRST SECOND (two fixture-bot modes)");
        return ExitCode::from(2);
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let record = runtime.block_on(async {
        let limits = Limits::default();
        let mut first = Bot::start(&fixture(first), &limits, None)
            .await
            .expect("the first bot starts");
        let mut second = Bot::start(&fixture(second), &limits, None)
            .await
            .expect("the second bot starts");
        let clock = match std::env::var("FIXTURE_CLOCK").as_deref() {
            Ok("cpu") => ClockKind::Cpu,
            _ => ClockKind::Wall,
        };
        let move_ms = std::env::var("FIXTURE_MOVE_MS").map_or(100, |ms| ms.parse().expect("FIXTURE_MOVE_MS=MS"));
        let time = TimeControl {
            clock,
            ..move_time(Duration::from_millis(move_ms))
        };
        let pause_idle = std::env::var_os("FIXTURE_PAUSE_IDLE").is_some();
        if pause_idle {
            eprintln!("fixture-game: pausing {:?}", pahtum_referee::contain::pausing());
        }
        let spec = GameSpec {
            pause_idle,
            ..GameSpec::random("fixture-game", 7, 11, false, time).expect("a valid layout")
        };
        let record = play_game(&spec, &mut first, &mut second, &mut |_| {}).await;
        first.shutdown().await;
        second.shutdown().await;
        record
    });
    println!("{}", serde_json::to_string(&record).expect("a record serializes"));
    report_own_cpu();
    ExitCode::SUCCESS
}

fn fixture(mode: &str) -> BotSpec {
    let program = std::env::current_exe()
        .expect("the program knows its path")
        .with_file_name("fixture-bot");
    let sandbox_dir = std::env::var_os("FIXTURE_SANDBOX").map(std::path::PathBuf::from);
    BotSpec {
        name: mode.to_owned(),
        program: program.to_string_lossy().into_owned(),
        args: vec![mode.to_owned()],
        // Shown as the arena shows its own executable to a built-in bot, wherever it lies.
        sandbox: sandbox_dir
            .is_some()
            .then(|| Sandbox::default().running_own_program(program.clone())),
        dir: sandbox_dir,
        env: std::env::var("FIXTURE_TAG")
            .map(|tag| ("FIXTURE_TAG".to_owned(), tag))
            .into_iter()
            .collect(),
    }
}

/// Writes this process's own CPU time (its threads, not its children) and
/// wall time since it started to stderr.
fn report_own_cpu() {
    // SAFETY: an all-zero rusage is a valid value; getrusage fills it.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let ms = |time: libc::timeval| time.tv_sec as f64 * 1000.0 + time.tv_usec as f64 / 1000.0;
    eprintln!(
        "fixture-game: referee cpu {:.1} ms (user {:.1}, system {:.1})",
        ms(usage.ru_utime) + ms(usage.ru_stime),
        ms(usage.ru_utime),
        ms(usage.ru_stime)
    );
}
