//! A league's entrants in the sandbox, with real processes, as root, from a
//! private (0700) temporary folder: a build runs in the same sandbox as the
//! games (as `nobody`, with the sandbox's environment, no network, writing
//! only its snapshot), each attack beside its unsandboxed control, which must
//! succeed; the starter kits' builds (g++, javac, go build, cargo build
//! --offline of a crate with its dependency vendored) pass in it; and a
//! league's bots write their stderr into `DIR/logs/`. Skipped (with a printed
//! line) where the sandbox cannot run, except with `CI=true`.

mod contesting;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use contesting::{ARENA, bare_bot_folder, private_folder, s, sandbox_runs, text};

/// `arena ARGS` with an organiser's secret in its environment
/// (`PAHTUM_ORGANISER_TOKEN`), which no build in the sandbox may see.
fn arena(args: &[&str]) -> Output {
    Command::new(ARENA)
        .args(args)
        .env("PAHTUM_ORGANISER_TOKEN", "organiser-canary-93")
        .output()
        .unwrap()
}

/// A new league `name` in `root`, its league.toml `rules` after the name.
fn league(root: &Path, name: &str, rules: &str) -> PathBuf {
    let dir = root.join(name);
    let output = arena(&["league", "init", s(&dir)]);
    assert!(output.status.success(), "{}", text(&output));
    std::fs::write(dir.join("league.toml"), format!("name = \"{name}\"\n{rules}")).unwrap();
    dir
}

fn add_from(league: &Path, folder: &Path) -> Output {
    arena(&["league", "add", s(league), "--from", s(folder)])
}

/// The build reads a root-only file, the environment and its user: in the
/// sandbox it gets none of the file, none of the organiser's variables, and
/// `nobody`; without it (the control), all three.
#[test]
fn a_build_sees_no_host_file_no_organiser_variable_and_runs_as_nobody() {
    if !sandbox_runs() {
        return;
    }
    let root = private_folder();
    let secret = root.path().join("secret");
    std::fs::create_dir(&secret).unwrap();
    std::fs::write(secret.join("key"), "ROOT-ONLY-31\n").unwrap();
    std::fs::set_permissions(secret.join("key"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let build = format!(
        "echo to-stdout; echo to-stderr >&2; cat {} > stolen.txt 2>/dev/null; env > env.txt; id -u > id.txt; true",
        secret.join("key").display()
    );
    let toml = format!("name = \"b\"\ncommand = \"python3 bot.py first-free\"\nbuild = \"{build}\"\n");
    let folder = bare_bot_folder(root.path(), "b", &toml);
    let snapshot = |league: &Path, file: &str| std::fs::read_to_string(league.join("entrants/b@1").join(file)).unwrap();

    let plain = league(root.path(), "plain", "sandbox = false\n");
    let output = add_from(&plain, &folder);
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(snapshot(&plain, "stolen.txt"), "ROOT-ONLY-31\n");
    assert!(snapshot(&plain, "env.txt").contains("organiser-canary-93"));
    assert_eq!(snapshot(&plain, "id.txt"), "0\n");

    let boxed = league(root.path(), "boxed", "sandbox = true\n");
    let output = add_from(&boxed, &folder);
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(snapshot(&boxed, "stolen.txt"), "");
    let env = snapshot(&boxed, "env.txt");
    assert!(!env.contains("organiser-canary-93"), "{env}");
    for variable in ["PATH=/usr/local/sbin:", "HOME=/tmp", "LANG=C.UTF-8"] {
        assert!(
            env.lines().any(|line| line.starts_with(variable)),
            "no {variable} in {env}"
        );
    }
    assert_eq!(snapshot(&boxed, "id.txt"), "65534\n");
    // Taken back from `nobody` once the build is over.
    let owner = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(boxed.join("entrants/b@1/id.txt")).unwrap());
    assert_eq!(
        owner,
        std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&boxed).unwrap())
    );
    let log = std::fs::read_to_string(boxed.join("logs/build-b@1.log")).unwrap();
    assert_eq!(
        log, "to-stdout\nto-stderr\n",
        "the build's output is kept whole in its log"
    );
}

/// A build that needs the network fails in the sandbox, and is told why;
/// without the sandbox (the control) it reaches the listener.
#[test]
fn a_build_that_needs_the_network_is_told_it_has_none() {
    if !sandbox_runs() {
        return;
    }
    let root = private_folder();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let build = format!("python3 -c 'import socket; socket.create_connection((\\\"127.0.0.1\\\", {port}), timeout=5)'");
    let toml = format!("name = \"net\"\ncommand = \"python3 bot.py first-free\"\nbuild = \"{build}\"\n");
    let folder = bare_bot_folder(root.path(), "net", &toml);
    let plain = league(root.path(), "plain", "sandbox = false\n");
    let output = add_from(&plain, &folder);
    assert!(output.status.success(), "{}", text(&output));
    let boxed = league(root.path(), "boxed", "sandbox = true\n");
    let output = add_from(&boxed, &folder);
    let said = text(&output);
    assert!(!output.status.success(), "{said}");
    assert!(
        said.contains("net@1 was not added: its build failed")
            && said.contains("exited with 1")
            && said.contains("The build has no network in the sandbox"),
        "{said}"
    );
    let log = std::fs::read_to_string(boxed.join("logs/build-net@1.log")).unwrap();
    assert!(log.contains("Connection refused"), "{log}");
}

/// The starter kits' builds pass in the sandbox, and the entrants they
/// build pass their check there: g++, javac, go build, and cargo build
/// --offline of a crate whose dependency is vendored in its folder (the
/// toolchain named by the organiser in `ro_paths`, its variables in
/// `build_env`).
#[test]
fn the_starter_kits_build_in_the_sandbox() {
    if !sandbox_runs() {
        return;
    }
    let root = private_folder();
    let bots = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots");
    let cargo = which("cargo");
    let toolchain: Vec<PathBuf> = [std::env::var_os("CARGO_HOME"), std::env::var_os("RUSTUP_HOME")]
        .into_iter()
        .flatten()
        .map(PathBuf::from)
        .chain(cargo.parent().and_then(Path::parent).map(Path::to_owned))
        .collect();
    let rustup_home = std::env::var("RUSTUP_HOME").unwrap_or_else(|_| {
        cargo
            .parent()
            .and_then(Path::parent)
            .and_then(Path::parent)
            .map(|home| home.join(".rustup").display().to_string())
            .unwrap()
    });
    let rules = format!(
        "sandbox = true\nro_paths = {ro_paths:?}\n[build_env]\nPATH = \"{}:/usr/bin:/bin\"\nRUSTUP_HOME = \"{rustup_home}\"\n\
         CARGO_HOME = \"/tmp/cargo\"\n",
        cargo.parent().unwrap().display(),
        ro_paths = toolchain
            .iter()
            .chain([&PathBuf::from(&rustup_home)])
            .map(|path| path.display().to_string())
            .collect::<Vec<_>>(),
    );
    let dir = league(root.path(), "kits", &rules);
    let kit = |name: &str, from: &str, files: &[&str], toml: &str| {
        let folder = root.path().join(name);
        std::fs::create_dir_all(&folder).unwrap();
        for file in files {
            std::fs::copy(bots.join(from).join(file), folder.join(file)).unwrap();
        }
        std::fs::write(folder.join("bot.toml"), format!("name = \"{name}\"\n{toml}")).unwrap();
        folder
    };
    let kits = [
        kit(
            "cpp",
            "cpp-starter",
            &["bot.cpp"],
            "command = \"./bot\"\nbuild = \"g++ -std=c++17 -O2 -o bot bot.cpp\"\n",
        ),
        kit(
            "java",
            "java-starter",
            &["Bot.java"],
            "command = \"java -cp classes Bot\"\nbuild = \"javac -d classes Bot.java\"\n",
        ),
        kit(
            "go",
            "go-starter",
            &["go.mod", "main.go"],
            "command = \"./bot\"\nbuild = \"go build -o bot .\"\n",
        ),
        vendored_crate(root.path()),
    ];
    for folder in kits {
        let output = add_from(&dir, &folder);
        assert!(output.status.success(), "{}: {}", folder.display(), text(&output));
    }
    // What each build made, in its snapshot.
    for built in [
        "cpp@1/bot",
        "java@1/classes/Bot.class",
        "go@1/bot",
        "rust@1/target/debug/hello",
    ] {
        assert!(dir.join("entrants").join(built).is_file(), "{built} was not built");
    }
    let hello = std::fs::read_to_string(dir.join("entrants/rust@1/hello.txt")).unwrap();
    assert_eq!(hello, "built offline\n");
}

/// A crate with its one dependency vendored in its folder, built by
/// `cargo build --offline`; the entrant it makes is the Python fixture,
/// which runs the built program once to show it works.
fn vendored_crate(root: &Path) -> PathBuf {
    let folder = bare_bot_folder(
        root,
        "rust",
        "name = \"rust\"\ncommand = \"python3 bot.py first-free\"\nbuild = \"cargo build --offline && ./target/debug/hello > hello.txt\"\n",
    );
    let file = |path: &str, body: &str| {
        let path = folder.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    };
    file(
        "Cargo.toml",
        "[package]\nname = \"hello\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ngreet = { path = \"vendor/greet\" }\n",
    );
    file("src/main.rs", "fn main() { println!(\"{}\", greet::greeting()); }\n");
    file(
        "vendor/greet/Cargo.toml",
        "[package]\nname = \"greet\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    file(
        "vendor/greet/src/lib.rs",
        "pub fn greeting() -> &'static str { \"built offline\" }\n",
    );
    folder
}

fn which(program: &str) -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
        .unwrap_or_else(|| panic!("{program} is not on the PATH"))
}

/// A league's bots write their stderr into `DIR/logs/`, as its folder's
/// documentation says, not into `DIR/logs/logs/`.
#[test]
fn a_leagues_bots_write_their_stderr_into_its_logs_folder() {
    let root = private_folder();
    let dir = league(root.path(), "logs", "games_per_pair = 2\n");
    for (name, folder) in [("a", "fa"), ("b", "fb")] {
        let folder = bare_bot_folder(
            root.path(),
            folder,
            &format!("name = \"{name}\"\ncommand = \"python3 bot.py first-free\"\n"),
        );
        let output = add_from(&dir, &folder);
        assert!(output.status.success(), "{}", text(&output));
    }
    let output = arena(&["league", "run", s(&dir), "--games", "2", "--concurrency", "1"]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(!dir.join("logs/logs").exists());
    let logs: Vec<String> = std::fs::read_dir(dir.join("logs"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with("check-") && !name.starts_with("build-"))
        .collect();
    assert!(
        ["a@1", "b@1"]
            .iter()
            .all(|label| logs.iter().any(|log| log.contains(label))),
        "{logs:?}"
    );
}

/// A sandboxed build is held to the league's CPU cap, all its processes
/// together: two busy processes for 1.5 s get at most a fifth of a core with
/// `build_cpu_percent = 20`; without the sandbox (the control) they get
/// more. The cap is far below what the control gets even while other tests
/// keep both cores busy (the control once got 0.97 s of CPU in 1.5 s then).
#[test]
fn a_sandboxed_build_is_held_to_its_cpu_cap() {
    if !sandbox_runs() {
        return;
    }
    let root = private_folder();
    let folder = bare_bot_folder(
        root.path(),
        "burn",
        "name = \"burn\"\ncommand = \"python3 bot.py first-free\"\nbuild = \"python3 burn.py > cpu.txt\"\n",
    );
    std::fs::write(
        folder.join("burn.py"),
        "import os, resource, time\n\
         start = time.monotonic()\n\
         for _ in range(2):\n\
         \x20   if os.fork() == 0:\n\
         \x20       while time.monotonic() < start + 1.5:\n            pass\n\
         \x20       os._exit(0)\n\
         for _ in range(2):\n    os.wait()\n\
         used = resource.getrusage(resource.RUSAGE_CHILDREN)\n\
         print(used.ru_utime + used.ru_stime, time.monotonic() - start)\n",
    )
    .unwrap();
    let used = |rules: &str| {
        let dir = league(root.path(), &format!("l{}", rules.len()), rules);
        let output = add_from(&dir, &folder);
        assert!(output.status.success(), "{}", text(&output));
        let said = std::fs::read_to_string(dir.join("entrants/burn@1/cpu.txt")).unwrap();
        let numbers: Vec<f64> = said.split_whitespace().map(|word| word.parse().unwrap()).collect();
        (numbers[0], numbers[1])
    };
    let (cpu, wall) = used("sandbox = false\n");
    assert!(cpu > 0.2 * wall + 0.25, "uncapped: {cpu} s of CPU in {wall} s");
    let (cpu, wall) = used("sandbox = true\nbuild_cpu_percent = 20\n");
    assert!(
        cpu <= 0.2 * wall + 0.25,
        "capped at a fifth of a core: {cpu} s of CPU in {wall} s"
    );
}

/// Nothing a build starts outlives it: a process it leaves in the
/// background (here a `sleep` with a mark of its own) is killed with it, in
/// the sandbox and out of it; and a build past its time limit is stopped,
/// with everything it started.
#[test]
fn nothing_a_build_starts_outlives_it() {
    let root = private_folder();
    let mark = format!("{}", 900_000 + std::process::id());
    let running = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| std::fs::read(entry.ok()?.path().join("cmdline")).ok())
            .filter(|cmdline| String::from_utf8_lossy(cmdline).contains(&mark))
            .count()
    };
    let left = bare_bot_folder(
        root.path(),
        "left",
        &format!("name = \"left\"\ncommand = \"python3 bot.py first-free\"\nbuild = \"sleep {mark} & true\"\n"),
    );
    let slow = bare_bot_folder(
        root.path(),
        "slow",
        &format!("name = \"slow\"\ncommand = \"python3 bot.py first-free\"\nbuild = \"sleep {mark}\"\n"),
    );
    let mut leagues = vec![("plain", "sandbox = false\nbuild_timeout_s = 1\n")];
    if sandbox_runs() {
        leagues.push(("boxed", "sandbox = true\nbuild_timeout_s = 1\n"));
    }
    for (name, rules) in leagues {
        let dir = league(root.path(), name, rules);
        let output = add_from(&dir, &left);
        assert!(output.status.success(), "{}", text(&output));
        assert_eq!(running(), 0, "{name}: the build's background process outlived it");
        let output = add_from(&dir, &slow);
        let said = text(&output);
        assert!(!output.status.success(), "{said}");
        assert!(said.contains("took longer than 1 s and was stopped"), "{said}");
        assert_eq!(running(), 0, "{name}: the stopped build's process outlived it");
    }
}
