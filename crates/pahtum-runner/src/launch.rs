//! From a bot of the tournament file to the referee's [`BotSpec`], and the
//! check that every bot's program exists before the first game.
//!
//! A missing program would otherwise show as a forfeit in every game of its
//! bot; [`check_programs`] finds it while reading the file and names the file,
//! the bot and the key. (A program that exists but fails to greet, like
//! `python3 missing.py`, is found by starting each bot once before the first
//! game: see [`crate::pool::Pool::warm_up`].)
//!
//! Paths follow [`pahtum_tournament::config`]: the working directory is the bot's `dir`
//! relative to the tournament file's folder (the folder itself by default); a
//! program with a `/` is relative to that working directory; a program without
//! one is looked up on `PATH`. A built-in bot runs as `ARENA bot NAME [OPTIONS]`,
//! where `ARENA` is the running arena executable.
//!
//! A sandboxed bot's extra paths are relative to the file's folder too. It
//! sees its `dir` whole when it has one; without one, only the folders of
//! the files its command names (not the tournament's folder, where it
//! works). Its sandbox hides the output folder and the other bots' own
//! folders wherever they lie inside a folder it sees.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use pahtum_referee::{BotSpec, Sandbox};

use pahtum_tournament::config::{BotConfig, ConfigError, Launch, SandboxConfig, TournamentFile};

/// How to start the bots of one tournament file.
#[derive(Debug, Clone)]
pub struct Launcher {
    /// The tournament file's folder.
    base_dir: PathBuf,
    /// The executable that runs built-in bots (`ARENA bot NAME`).
    arena: PathBuf,
    /// The output folder, which no sandboxed bot sees.
    out: PathBuf,
    /// Each bot's name and the folders it may see as its own, which the
    /// other sandboxed bots do not see.
    own_folders: Vec<(String, Vec<PathBuf>)>,
    /// Whether the bots are a league's entrants, whose commands are a
    /// stranger's words: their sandbox shows no folder that a word names.
    entrants: bool,
}

impl Launcher {
    /// How to start the bots of `file`; `arena` is the executable that runs
    /// the built-in bots. The output folder and every bot's own folders are
    /// hidden from the sandboxed bots (each still sees its own).
    pub fn new(file: &TournamentFile, arena: &Path) -> Launcher {
        Launcher::with(file, arena, false)
    }

    /// How to start a league's entrants (`file` is the league as a
    /// tournament): as [`Launcher::new`], and each sandboxed entrant sees
    /// its snapshot, the system and its private `/tmp`, never a folder that
    /// its command names.
    pub fn for_entrants(file: &TournamentFile, arena: &Path) -> Launcher {
        Launcher::with(file, arena, true)
    }

    fn with(file: &TournamentFile, arena: &Path, entrants: bool) -> Launcher {
        let mut launcher = Launcher {
            base_dir: file.base_dir.clone(),
            arena: arena.to_owned(),
            out: file.settings.out.clone(),
            own_folders: Vec::new(),
            entrants,
        };
        launcher.own_folders = file
            .tournament
            .bots
            .iter()
            .map(|bot| {
                let spec = launcher.spec_seeing(bot, Vec::new());
                let folders = spec.sandbox.as_ref().map_or_else(
                    || pahtum_referee::sandbox::own_folders(&launcher.sandbox_of(bot, None), &spec.command()),
                    |sandbox| pahtum_referee::sandbox::own_folders(sandbox, &spec.command()),
                );
                (bot.name.clone(), folders)
            })
            .collect();
        launcher
    }

    /// The bot's working directory.
    pub fn working_dir(&self, bot: &BotConfig) -> PathBuf {
        let dir = self.base_dir.join(bot.dir.as_deref().unwrap_or("."));
        std::path::absolute(&dir).unwrap_or(dir)
    }

    /// The referee's launch spec of `bot`. A sandboxed bot does not see the
    /// output folder nor the other bots' own folders, except those that hold
    /// its own main folder (its `dir`, or the first folder its command
    /// names: two bots of one folder share it).
    pub fn spec(&self, bot: &BotConfig) -> BotSpec {
        let mut spec = self.spec_seeing(bot, Vec::new());
        if let Some(sandbox) = &spec.sandbox {
            let main = pahtum_referee::sandbox::main_folder(sandbox, &spec.command());
            let others = self
                .own_folders
                .iter()
                .filter(|(name, _)| *name != bot.name)
                .flat_map(|(_, folders)| folders.iter().cloned());
            let hidden = pahtum_referee::sandbox::hidden_for(main.as_deref(), Some(&self.out), others);
            spec = self.spec_seeing(bot, hidden);
        }
        spec
    }

    /// The launch spec of `bot`, its sandbox hiding `hidden`.
    fn spec_seeing(&self, bot: &BotConfig, hidden: Vec<PathBuf>) -> BotSpec {
        let dir = self.working_dir(bot);
        let (program, args) = match &bot.launch {
            Launch::Builtin(words) => {
                let args = std::iter::once("bot".to_owned()).chain(builtin_words(words)).collect();
                (self.arena.display().to_string(), args)
            }
            Launch::Command(words) => {
                let program = &words[0];
                let program = if program.contains('/') {
                    dir.join(program).display().to_string()
                } else {
                    program.clone()
                };
                (program, words[1..].to_vec())
            }
        };
        BotSpec {
            name: bot.name.clone(),
            program,
            args,
            env: bot.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            sandbox: bot.sandbox.as_ref().map(|_| self.sandbox_of(bot, Some(hidden))),
            dir: Some(dir),
        }
    }

    /// The sandbox of `bot` (the default one where it has none), hiding
    /// `hidden`. It sees its working directory whole if that is its own (the
    /// bot has a `dir`); a built-in bot sees the arena executable and no
    /// folder its command names, and so does an entrant (but its snapshot).
    fn sandbox_of(&self, bot: &BotConfig, hidden: Option<Vec<PathBuf>>) -> Sandbox {
        let sandbox = Sandbox {
            hidden: hidden.unwrap_or_default(),
            sees_working_dir: bot.dir.is_some(),
            named_folders: !self.entrants,
            ..configured_sandbox(&bot.sandbox.clone().unwrap_or_default(), &self.base_dir)
        };
        match bot.launch {
            Launch::Builtin(_) => sandbox.running_own_program(self.arena.clone()),
            Launch::Command(_) => sandbox,
        }
    }
}

/// The sandbox that `config` (a tournament file's or a league's) gives: its
/// limits, the others the referee's defaults, and its extra paths, relative
/// to `base_dir`.
pub fn configured_sandbox(config: &SandboxConfig, base_dir: &Path) -> Sandbox {
    let paths = |paths: &[String]| paths.iter().map(|path| base_dir.join(path)).collect();
    let mut sandbox = Sandbox {
        ro_paths: paths(&config.ro_paths),
        rw_paths: paths(&config.rw_paths),
        ..Sandbox::default()
    };
    for (limit, given) in [
        (&mut sandbox.memory_mb, config.memory_mb),
        (&mut sandbox.max_processes, config.max_processes),
        (&mut sandbox.open_files, config.open_files),
        (&mut sandbox.file_size_mb, config.file_size_mb),
        (&mut sandbox.tmp_mb, config.tmp_mb),
    ] {
        *limit = given.unwrap_or(*limit);
    }
    sandbox
}

/// The words of a `builtin` value: the built-in bot's name, then its options
/// (`"engine --level 2"`), split like a shell would, without a shell.
fn builtin_words(builtin: &str) -> Vec<String> {
    shlex::split(builtin).unwrap_or_else(|| vec![builtin.to_owned()])
}

/// Checks that every bot's working directory and program exist, and that every built-in is one of `builtins`.
pub fn check_programs(file: &TournamentFile, launcher: &Launcher, builtins: &[&str]) -> Result<(), ConfigError> {
    for (index, bot) in file.tournament.bots.iter().enumerate() {
        let key = TournamentFile::bot_key(index);
        let dir = launcher.working_dir(bot);
        if !dir.is_dir() {
            return Err(file.invalid(
                format!("{key}.dir"),
                format!(
                    "bot {}: the working directory {} does not exist",
                    bot.name,
                    dir.display()
                ),
                "give a folder relative to the tournament file's folder",
            ));
        }
        let words = match &bot.launch {
            Launch::Command(words) => words,
            Launch::Builtin(words)
                if builtin_words(words)
                    .first()
                    .is_some_and(|name| builtins.contains(&name.as_str())) =>
            {
                continue;
            }
            Launch::Builtin(name) => {
                return Err(file.invalid(
                    format!("{key}.builtin"),
                    format!("bot {}: there is no built-in bot {name:?}", bot.name),
                    format!("use one of: {}", builtins.join(", ")),
                ));
            }
        };
        let program = &words[0];
        if program.contains('/') {
            let path = dir.join(program);
            if let Some((problem, fix)) = unrunnable(&path) {
                return Err(file.invalid(
                    format!("{key}.command"),
                    format!("bot {}: the program {} {problem}", bot.name, path.display()),
                    fix,
                ));
            }
        } else if find_on_path(program).is_none() {
            return Err(file.invalid(
                format!("{key}.command"),
                format!("bot {}: the program {program:?} is not found on PATH", bot.name),
                "install it, or correct the command (a program in a folder needs a '/', e.g. \"./my-bot\")",
            ));
        }
    }
    Ok(())
}

/// Why the program at `path` cannot be run, and the fix; `None` if it can.
fn unrunnable(path: &Path) -> Option<(&'static str, &'static str)> {
    const RELATIVE: &str = "a program with a '/' is relative to the bot's working directory (`dir`, \
                            by default the tournament file's folder); check the path";
    match path.metadata() {
        Err(_) => Some(("does not exist", RELATIVE)),
        Ok(meta) if !meta.is_file() => Some(("is not a file", RELATIVE)),
        Ok(meta) if meta.permissions().mode() & 0o111 == 0 => Some((
            "is not executable",
            "give it the execute permission (chmod +x), or name its interpreter in the command, \
             e.g. \"python3 bot.py\"",
        )),
        Ok(_) => None,
    }
}

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pahtum_tournament::config;

    fn file_in(dir: &Path, bots: &str) -> TournamentFile {
        let path = dir.join("t.toml");
        config::parse(&path, &format!("name = \"t\"\n{bots}")).unwrap()
    }

    const TWO: &str = "[[bots]]\nname = \"a\"\nbuiltin = \"heuristic\"\n[[bots]]\nname = \"b\"\n";

    #[test]
    fn specs_resolve_paths_from_the_file_and_the_working_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("b")).unwrap();
        let file = file_in(
            dir.path(),
            &format!("{TWO}command = \"./run --fast\"\ndir = \"b\"\nenv = {{ X = \"1\" }}\n"),
        );
        let launcher = Launcher::new(&file, Path::new("/usr/bin/arena"));
        let builtin = launcher.spec(&file.tournament.bots[0]);
        assert_eq!(builtin.program, "/usr/bin/arena");
        assert_eq!(builtin.args, ["bot", "heuristic"]);
        let command = launcher.spec(&file.tournament.bots[1]);
        assert_eq!(Path::new(&command.program), dir.path().join("b").join("./run"));
        assert_eq!(command.args, ["--fast"]);
        assert_eq!(command.dir.as_deref(), Some(dir.path().join("b").as_path()));
        assert_eq!(command.env, [("X".to_owned(), "1".to_owned())]);
    }

    /// `sandbox = true` at the top reaches every bot, with the file's limits
    /// and paths; the output folder and the bots' own folders are hidden.
    #[test]
    fn sandboxed_bots_get_their_limits_paths_and_hidden_folders() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("b")).unwrap();
        let file = file_in(
            dir.path(),
            &format!(
                "sandbox = true\nmemory_mb = 512\ntmp_mb = 16\nout = \"runs\"\n{TWO}command = \"./run\"\ndir = \"b\"\n\
                 max_processes = 8\nopen_files = 64\nfile_size_mb = 2\nro_paths = [\"data\"]\nrw_paths = [\"scratch\"]\n"
            ),
        );
        let launcher = Launcher::new(&file, Path::new("/usr/bin/arena"));
        let builtin = launcher.spec(&file.tournament.bots[0]).sandbox.unwrap();
        assert_eq!((builtin.memory_mb, builtin.max_processes), (512, 256));
        assert_eq!(
            (builtin.open_files, builtin.file_size_mb, builtin.tmp_mb),
            (1024, 1024, 16)
        );
        assert!(builtin.hidden.contains(&dir.path().join("b")), "{:?}", builtin.hidden);
        let command = launcher.spec(&file.tournament.bots[1]).sandbox.unwrap();
        assert_eq!((command.memory_mb, command.max_processes), (512, 8));
        assert_eq!((command.open_files, command.file_size_mb, command.tmp_mb), (64, 2, 16));
        assert_eq!(command.ro_paths, [dir.path().join("data")]);
        assert_eq!(command.rw_paths, [dir.path().join("scratch")]);
        // It has a `dir`, its own folder, seen whole (the referee does not
        // cover a bot's own folder); the built-in works in the file's folder
        // and sees none of it.
        assert!(command.sees_working_dir && !builtin.sees_working_dir);
        assert!(
            command.hidden.iter().any(|hidden| hidden.ends_with("runs")),
            "{:?}",
            command.hidden
        );
        let plain = file_in(
            dir.path(),
            TWO.replace("name = \"b\"\n", "name = \"b\"\ncommand = \"x\"\n")
                .as_str(),
        );
        assert!(plain.tournament.bots.iter().all(|bot| bot.sandbox.is_none()));
    }

    #[test]
    fn missing_programs_and_folders_are_found_before_any_game() {
        let dir = tempfile::tempdir().unwrap();
        let check = |bots: &str| {
            let file = file_in(dir.path(), bots);
            let launcher = Launcher::new(&file, Path::new("/x/arena"));
            check_programs(&file, &launcher, &["heuristic"]).map_err(|e| e.to_string())
        };
        assert_eq!(check(&format!("{TWO}command = \"sh -c true\"\n")), Ok(()));
        let error = check(&format!("{TWO}command = \"no-such-program-here x.py\"\n")).unwrap_err();
        assert!(
            error.contains(
                "t.toml: key `bots[1].command`: bot b: the program \"no-such-program-here\" is not found on PATH"
            ),
            "{error}"
        );
        let error = check(&format!("{TWO}command = \"./missing\"\n")).unwrap_err();
        assert!(
            error.contains("key `bots[1].command`") && error.ends_with("missing does not exist; a program with a '/' is relative to the bot's working directory (`dir`, by default the tournament file's folder); check the path"),
            "{error}"
        );
        std::fs::write(dir.path().join("bot.py"), "print()").unwrap();
        let error = check(&format!("{TWO}command = \"./bot.py\"\n")).unwrap_err();
        assert!(
            error.contains("bot.py is not executable; give it the execute permission (chmod +x)"),
            "{error}"
        );
        std::fs::create_dir(dir.path().join("folder")).unwrap();
        let error = check(&format!("{TWO}command = \"./folder\"\n")).unwrap_err();
        assert!(error.contains("folder is not a file"), "{error}");
        let error = check(&format!("{}command = \"sh\"\n", TWO.replace("heuristic", "herustic"))).unwrap_err();
        assert!(
            error
                .contains("key `bots[0].builtin`: bot a: there is no built-in bot \"herustic\"; use one of: heuristic"),
            "{error}"
        );
        let error = check(&format!("{TWO}command = \"sh\"\ndir = \"nowhere\"\n")).unwrap_err();
        assert!(error.contains("key `bots[1].dir`"), "{error}");
    }
}
