//! The sandbox, red-teamed with real processes: hostile fixture bots
//! (`fixture-bot attack=NAME`) run sandboxed, and each test asserts that the
//! attack failed (the bot's own report on stderr, and what the test can see
//! from outside: its listener, its files, its processes), that the game
//! still ended as it should, that no process of the bots is left (by a tag
//! in their environment, read through `/proc`), and that the "journal" (a
//! file the bots must not touch) is unchanged. Two more check that the
//! sandbox keeps the referee's promises: a crash is named by its signal, and
//! `pause_idle` stops every process of a sandboxed bot. The last test runs
//! the same attacks unsandboxed and sees them succeed, so that these tests
//! can fail.
//!
//! Without bubblewrap or usable cgroups the tests print why and pass, except
//! with `CI=true`, where they fail.

mod common;

use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use common::{is_running, poll, quick_limits};
use pahtum::Seat;
use pahtum_protocol::{Reason, move_time};
use pahtum_record::{GameRecord, GameSpec};
use pahtum_referee::{Bot, BotSpec, Limits, Sandbox, play_game};

/// Whether the sandbox can run here; prints why not, and fails in CI.
fn sandbox_available() -> bool {
    let check = pahtum_referee::sandbox::check();
    let why = check.as_ref().err().map(ToString::to_string);
    pahtum_testkit::require("the sandbox", check.is_ok(), &why.unwrap_or_default())
}

/// A tournament's worth of folders for one test: the bots' own folders, an
/// output folder with a journal, and the tag that marks the test's bots.
struct Scene {
    root: tempfile::TempDir,
    tag: String,
}

const JOURNAL: &str = "{\"id\":\"000-00-a\",\"the\":\"journal\"}\n";

impl Scene {
    fn new() -> Scene {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let root = tempfile::tempdir().expect("a temporary directory");
        for dir in ["bot-a", "bot-b", "runs", "home"] {
            std::fs::create_dir(root.path().join(dir)).unwrap();
            // Writable by anyone: the sandbox, not the permissions, must stop the bots.
            std::fs::set_permissions(root.path().join(dir), std::fs::Permissions::from_mode(0o777)).unwrap();
        }
        std::fs::write(root.path().join("bot-b/secret.txt"), "the other bot's code\n").unwrap();
        std::fs::write(root.path().join("runs/journal.jsonl"), JOURNAL).unwrap();
        Scene {
            root,
            tag: format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    /// The fixture bot in `mode`, working in `bot-a`, with `FIXTURE_TARGET`
    /// set to `target`, sandboxed by `sandbox` if given.
    fn spec(&self, mode: &str, target: &str, sandbox: Option<Sandbox>) -> BotSpec {
        BotSpec {
            name: mode.to_owned(),
            program: pahtum_testkit::fixture_bot().to_string_lossy().into_owned(),
            args: vec![mode.to_owned()],
            dir: Some(self.path("bot-a")),
            env: vec![
                ("FIXTURE_TARGET".to_owned(), target.to_owned()),
                ("SANDBOX_TEST_TAG".to_owned(), self.tag.clone()),
            ],
            // The fixture is the test's own program, in a folder that may be closed to `nobody` (CI's
            // `mktemp -d`): shown as the arena shows its own executable to a built-in bot.
            sandbox: sandbox.map(|sandbox| sandbox.running_own_program(pahtum_testkit::fixture_bot())),
        }
    }

    async fn start(&self, spec: &BotSpec) -> Bot {
        let limits = Limits {
            // Time to set a fork bomb or a memory hog off before `ready`.
            ready: Duration::from_secs(5),
            ..quick_limits()
        };
        Bot::start(spec, &limits, Some(&self.log(&spec.name)))
            .await
            .unwrap_or_else(|e| panic!("{} did not start: {e}", spec.name))
    }

    fn log(&self, name: &str) -> PathBuf {
        self.path(&format!("{}.log", name.replace(['=', '/'], "-")))
    }

    /// The line a bot wrote about its attack.
    fn report(&self, name: &str) -> String {
        let log = std::fs::read_to_string(self.log(name)).unwrap_or_default();
        log.lines()
            .find(|line| line.starts_with("attack "))
            .unwrap_or_else(|| panic!("{name} did not report its attack; its stderr: {log}"))
            .to_owned()
    }

    /// Plays one game between `first` and `second`, shuts them down, and
    /// checks that no process of theirs is left and the journal is intact.
    async fn play(&self, first: &BotSpec, second: &BotSpec, pause_idle: bool) -> GameRecord {
        let game = GameSpec { pause_idle, ..game() };
        let mut a = self.start(first).await;
        let mut b = self.start(second).await;
        let record = play_game(&game, &mut a, &mut b, &mut |_| {}).await;
        a.shutdown().await;
        b.shutdown().await;
        self.assert_none_left();
        assert_eq!(
            std::fs::read_to_string(self.path("runs/journal.jsonl")).unwrap(),
            JOURNAL,
            "the journal changed"
        );
        record
    }

    /// Asserts that no process with the test's tag runs (polling a bounded
    /// time while the kernel finishes the kills).
    fn assert_none_left(&self) {
        let tagged = || common::running_with_env(&format!("SANDBOX_TEST_TAG={}", self.tag));
        if poll(Duration::from_secs(5), || tagged().is_empty().then_some(())).is_none() {
            panic!("bot processes left running: {:?}", tagged());
        }
    }
}

fn game() -> GameSpec {
    GameSpec::random("red-team", 7, 5, true, move_time(Duration::from_secs(3))).unwrap()
}

/// The sandbox of a tournament bot with its own `dir` (`bot-a`), which it sees whole.
fn sandbox() -> Option<Sandbox> {
    Some(Sandbox {
        sees_working_dir: true,
        ..Sandbox::default()
    })
}

fn assert_failed(report: &str) {
    eprintln!("{report}");
    assert!(report.contains(": failed ("), "the attack succeeded: {report}");
}

fn assert_normal(record: &GameRecord) {
    assert_eq!(record.termination.reason, Reason::Normal, "{:#?}", record.termination);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_network_not_even_loopback_nor_names() {
    if !sandbox_available() {
        return;
    }
    let scene = Scene::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let connect = scene.spec("attack=connect", &address, sandbox());
    let resolve = scene.spec("attack=resolve", "localhost", sandbox());
    let record = scene.play(&connect, &resolve, false).await;
    assert_normal(&record);
    assert_failed(&scene.report("attack=connect"));
    assert_failed(&scene.report("attack=resolve"));
    assert!(listener.accept().is_err(), "the listener was reached");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_journal_and_the_other_bots_folder_cannot_be_read() {
    if !sandbox_available() {
        return;
    }
    let scene = Scene::new();
    let journal = scene.path("runs/journal.jsonl");
    let other = scene.path("bot-b");
    let record = scene
        .play(
            &scene.spec("attack=read", &journal.display().to_string(), sandbox()),
            &BotSpec {
                name: "reader-b".to_owned(),
                ..scene.spec("attack=read", &other.display().to_string(), sandbox())
            },
            false,
        )
        .await;
    assert_normal(&record);
    assert_failed(&scene.report("attack=read"));
    assert_failed(&scene.report("reader-b"));
}

/// A bot that works in the tournament's own folder sees it, but not the
/// output folder or the other bots' folders inside it (hidden).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hidden_folders_inside_the_bots_own_folder_stay_hidden() {
    if !sandbox_available() {
        return;
    }
    let scene = Scene::new();
    let hiding = Sandbox {
        // Named with `..`, as `arena run ../t.toml` or `dir = ".."` would:
        // the paths are compared canonical.
        hidden: vec![scene.path("bot-a/../runs"), scene.path("bot-b")],
        sees_working_dir: true,
        ..Sandbox::default()
    };
    let in_the_root = |name: &str, target: PathBuf| BotSpec {
        name: name.to_owned(),
        dir: Some(scene.root.path().to_owned()),
        ..scene.spec("attack=read", &target.display().to_string(), Some(hiding.clone()))
    };
    let journal_reader = in_the_root("journal-reader", scene.path("runs/journal.jsonl"));
    let secret_reader = in_the_root("secret-reader", scene.path("bot-b/secret.txt"));
    let record = scene.play(&journal_reader, &secret_reader, false).await;
    assert_normal(&record);
    assert_failed(&scene.report("journal-reader"));
    assert_failed(&scene.report("secret-reader"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_outside_tmp_can_be_written_and_tmp_is_bounded() {
    if !sandbox_available() {
        return;
    }
    let scene = Scene::new();
    let home = scene.path("home");
    // The sandbox's own root, /etc and /dev are not writable either.
    let targets = [scene.path("bot-a"), scene.path("runs"), home.clone()]
        .map(|dir| dir.display().to_string())
        .join(":")
        + ":/:/etc:/dev";
    let mut writer = scene.spec("attack=write", &targets, sandbox());
    writer.env.push(("HOME".to_owned(), home.display().to_string()));
    let small_tmp = Sandbox {
        tmp_mb: 8,
        ..Sandbox::default()
    };
    let filler = scene.spec("attack=fill-tmp", "", Some(small_tmp));
    let record = scene.play(&writer, &filler, false).await;
    assert_normal(&record);
    assert_failed(&scene.report("attack=write"));
    let fill = scene.report("attack=fill-tmp");
    assert!(
        fill.contains("stopped after 8 MiB") || fill.contains("stopped after 7 MiB"),
        "{fill}"
    );
    for dir in ["bot-a", "runs", "home"] {
        assert!(!scene.path(dir).join("pwned").exists(), "{dir} was written");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_processes_cannot_be_seen_or_signalled() {
    if !sandbox_available() {
        return;
    }
    let scene = Scene::new();
    let mut bystander = std::process::Command::new("sleep").arg("60").spawn().unwrap();
    let signaller = scene.spec("attack=signal", &bystander.id().to_string(), sandbox());
    let killer = scene.spec("attack=kill-all", "", sandbox());
    let record = scene.play(&signaller, &killer, false).await;
    assert_normal(&record);
    let signal = scene.report("attack=signal");
    assert_failed(&signal);
    assert!(is_running(bystander.id()), "the bystander was killed: {signal}");
    bystander.kill().unwrap();
    bystander.wait().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_opponents_stdout_cannot_be_written() {
    if !sandbox_available() {
        return;
    }
    let scene = Scene::new();
    let victim_spec = scene.spec("first-free", "", None);
    let mut victim = scene.start(&victim_spec).await;
    let attacker_spec = scene.spec("attack=pipe-write", &victim.pid().to_string(), sandbox());
    let mut attacker = scene.start(&attacker_spec).await;
    let record = play_game(&game(), &mut attacker, &mut victim, &mut |_| {}).await;
    attacker.shutdown().await;
    victim.shutdown().await;
    scene.assert_none_left();
    assert_normal(&record);
    assert_failed(&scene.report("attack=pipe-write"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_setsid_grandchild_and_a_fork_bomb_end_with_their_bot() {
    if !sandbox_available() {
        return;
    }
    let scene = Scene::new();
    let few = Sandbox {
        max_processes: 32,
        ..Sandbox::default()
    };
    let helper = scene.spec("setsid-helper", "", sandbox());
    let bomb = scene.spec("attack=fork-bomb", "", Some(few));
    // pause_idle: stop and continue must reach every process of each bot.
    let record = scene.play(&helper, &bomb, true).await;
    assert_normal(&record);
    let report = scene.report("attack=fork-bomb");
    assert_failed(&report);
    let forked: u32 = report
        .split("after ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{report}"));
    assert!(forked < 32, "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_over_its_memory_limit_loses_by_memory() {
    if !sandbox_available() {
        return;
    }
    let scene = Scene::new();
    let small = Sandbox {
        memory_mb: 256,
        ..Sandbox::default()
    };
    let hog = scene.spec("attack=alloc", "4096", Some(small));
    let record = scene.play(&scene.spec("first-free", "", sandbox()), &hog, false).await;
    assert_eq!(record.termination.reason, Reason::Memory, "{:#?}", record.termination);
    let forfeit = record.termination.forfeit.as_ref().unwrap();
    assert_eq!(forfeit.seat, Seat::Second);
    assert!(forfeit.detail.contains("memory limit of 256 MiB"), "{}", forfeit.detail);
    assert!(forfeit.detail.contains("used up to 25"), "{}", forfeit.detail);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_file_stops_at_the_file_size_limit() {
    if !sandbox_available() {
        return;
    }
    let scene = Scene::new();
    let scratch = scene.path("home");
    let limited = Sandbox {
        file_size_mb: 16,
        rw_paths: vec![scratch.clone()],
        ..Sandbox::default()
    };
    let big = scratch.join("big");
    let writer = scene.spec("attack=big-file", &big.display().to_string(), Some(limited));
    let record = scene
        .play(&writer, &scene.spec("first-free", "", sandbox()), false)
        .await;
    // SIGXFSZ ends the writer before it is ready: it cannot play.
    let size = std::fs::metadata(&big).map_or(0, |meta| meta.len());
    assert!(size <= 16 << 20, "{size} bytes written");
    assert_eq!(
        record.termination.reason,
        Reason::Disconnect,
        "{:#?}",
        record.termination
    );
    let forfeit = record.termination.forfeit.as_ref().unwrap();
    assert_eq!(forfeit.seat, Seat::First);
    assert!(forfeit.detail.contains("killed by signal 25"), "{}", forfeit.detail);
}

/// A crash inside the sandbox is told as the crash it is, not as the exit
/// code that bubblewrap turns it into.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_in_the_sandbox_is_named_by_its_signal() {
    if !sandbox_available() {
        return;
    }
    let scene = Scene::new();
    let crashing = scene.spec("segfault", "", sandbox());
    let record = scene
        .play(&crashing, &scene.spec("first-free", "", sandbox()), false)
        .await;
    assert_eq!(
        record.termination.reason,
        Reason::Disconnect,
        "{:#?}",
        record.termination
    );
    let detail = &record.termination.forfeit.as_ref().unwrap().detail;
    assert!(detail.contains("was killed by signal 11 (SIGSEGV"), "{detail}");
}

/// `pause_idle` stops every process of a sandboxed bot, its `setsid`
/// helper included (which has left the bot's session and process group),
/// while its opponent thinks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_idle_stops_every_process_of_a_sandboxed_bot() {
    if !sandbox_available() {
        return;
    }
    let scene = Scene::new();
    let mut helped = scene.spec("setsid-helper", "", sandbox());
    helped
        .env
        .push(("SANDBOX_TEST_ROLE".to_owned(), format!("helped-{}", scene.tag)));
    let slow = scene.spec("delay=200", "", sandbox());
    let mut a = scene.start(&helped).await;
    let mut b = scene.start(&slow).await;
    let game = tokio::spawn(async move {
        let record = play_game(
            &GameSpec {
                pause_idle: true,
                ..game()
            },
            &mut a,
            &mut b,
            &mut |_| {},
        )
        .await;
        a.shutdown().await;
        b.shutdown().await;
        record
    });
    let role = format!("SANDBOX_TEST_ROLE=helped-{}\0", scene.tag);
    let all_stopped = tokio::task::spawn_blocking(move || {
        poll(Duration::from_secs(10), || {
            let states: Vec<bool> = std::fs::read_dir("/proc")
                .unwrap()
                .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
                .filter(|pid| {
                    std::fs::read(format!("/proc/{pid}/environ"))
                        .is_ok_and(|environ| environ.windows(role.len()).any(|window| window == role.as_bytes()))
                })
                .map(common::is_paused)
                .collect();
            // The bot and its helper, both paused at once.
            (states.len() >= 2 && states.iter().all(|&paused| paused)).then_some(states)
        })
    })
    .await
    .unwrap();
    let record = game.await.unwrap();
    assert!(
        all_stopped.is_some(),
        "the helped bot's processes were never all stopped together"
    );
    assert_normal(&record);
    scene.assert_none_left();
}

/// The arena's environment (here cargo's `CARGO_PKG_NAME`, as it would be
/// a token of the organiser's) is in no process the bot can see, not even
/// bubblewrap, the sandbox's first process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_organisers_environment_is_in_no_process_of_the_sandbox() {
    if !sandbox_available() {
        return;
    }
    assert!(std::env::var_os("CARGO_PKG_NAME").is_some(), "cargo sets it for tests");
    let scene = Scene::new();
    let reader = scene.spec("attack=environ", "CARGO_PKG_NAME=", sandbox());
    let counter = scene.spec("attack=descriptors", "", sandbox());
    let record = scene.play(&reader, &counter, false).await;
    assert_normal(&record);
    assert_failed(&scene.report("attack=environ"));
    // Nor does it hold a descriptor of the host's (the filters' pipes, a folder).
    assert_failed(&scene.report("attack=descriptors"));
}

/// No user namespace inside the sandbox (where a bot would hold every
/// capability, and by making many would use up the quota that the other
/// bots' sandboxes need), and the kernel's riskiest calls are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_namespaces_and_risky_kernel_calls_are_refused() {
    if !sandbox_available() {
        return;
    }
    let scene = Scene::new();
    let record = scene
        .play(
            &scene.spec("attack=userns", "", sandbox()),
            &scene.spec("attack=kernel", "", sandbox()),
            false,
        )
        .await;
    assert_normal(&record);
    assert_failed(&scene.report("attack=userns"));
    let kernel = scene.report("attack=kernel");
    assert_failed(&kernel);
    for call in ["io_uring_setup", "userfaultfd", "keyctl", "bpf", "modify_ldt"] {
        assert!(kernel.contains(&format!("{call}: Operation not permitted")), "{kernel}");
    }
}

/// A Unix socket of the host in a folder the bot sees (read-only) cannot be
/// connected to: no socket of that family can be made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unix_socket_in_a_seen_folder_cannot_be_reached() {
    if !sandbox_available() {
        return;
    }
    let scene = Scene::new();
    let path = scene.path("bot-a/service.sock");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();
    listener.set_nonblocking(true).unwrap();
    let connector = scene.spec("attack=unix-connect", &path.display().to_string(), sandbox());
    let other = scene.spec("first-free", "", sandbox());
    let record = scene.play(&connector, &other, false).await;
    assert_normal(&record);
    assert_failed(&scene.report("attack=unix-connect"));
    assert!(listener.accept().is_err(), "the socket was reached");
}

/// The same attacks without the sandbox do succeed (never `kill-all`, the
/// fork bomb or the huge file here: they would hit the machine).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsandboxed_the_same_attacks_succeed() {
    let scene = Scene::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let journal = scene.path("runs/journal.jsonl").display().to_string();
    let record = scene
        .play(
            &scene.spec("attack=connect", &address, None),
            &scene.spec("attack=read", &journal, None),
            false,
        )
        .await;
    assert_normal(&record);
    assert!(scene.report("attack=connect").contains(": succeeded ("));
    assert!(scene.report("attack=read").contains(": succeeded ("));
    assert!(listener.accept().is_ok());

    let runs = scene.path("runs");
    let mut bystander = std::process::Command::new("sleep").arg("60").spawn().unwrap();
    let writer = scene.spec("attack=write", &runs.display().to_string(), None);
    let signaller = scene.spec("attack=signal", &bystander.id().to_string(), None);
    let mut a = scene.start(&writer).await;
    let mut b = scene.start(&signaller).await;
    let record = play_game(&game(), &mut a, &mut b, &mut |_| {}).await;
    a.shutdown().await;
    b.shutdown().await;
    assert_normal(&record);
    assert!(runs.join("pwned").exists(), "{}", scene.report("attack=write"));
    assert!(scene.report("attack=signal").contains(": succeeded ("));
    assert!(
        bystander.wait().is_ok_and(|status| !status.success()),
        "the bystander was killed"
    );

    let victim_spec = scene.spec("first-free", "", None);
    let mut victim = scene.start(&victim_spec).await;
    let attacker_spec = scene.spec("attack=pipe-write", &victim.pid().to_string(), None);
    let mut attacker = scene.start(&attacker_spec).await;
    let record = play_game(&game(), &mut attacker, &mut victim, &mut |_| {}).await;
    attacker.shutdown().await;
    victim.shutdown().await;
    let forfeit = record.termination.forfeit.as_ref();
    assert_eq!(
        forfeit.map(|f| f.seat),
        Some(Seat::Second),
        "the victim forfeits: {record:#?}"
    );
    scene.assert_none_left();

    let path = scene.path("bot-a/service.sock");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    let record = scene
        .play(
            &scene.spec("attack=environ", "CARGO_PKG_NAME=", None),
            &scene.spec("attack=unix-connect", &path.display().to_string(), None),
            false,
        )
        .await;
    assert_normal(&record);
    assert!(scene.report("attack=environ").contains(": succeeded ("));
    assert!(scene.report("attack=unix-connect").contains(": succeeded ("));
    assert!(listener.accept().is_ok());
    // As root, outside a sandbox, the namespace and the kernel's calls are open.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        let record = scene
            .play(
                &scene.spec("attack=userns", "", None),
                &scene.spec("attack=kernel", "", None),
                false,
            )
            .await;
        assert_normal(&record);
        assert!(scene.report("attack=userns").contains(": succeeded ("));
        let kernel = scene.report("attack=kernel");
        assert!(
            kernel.contains(": succeeded (") && kernel.contains("keyctl"),
            "{kernel}"
        );
    }
}
