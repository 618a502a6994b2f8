//! The bots a command line names (`arena game`, `match`, `check`, a
//! league's admission), in the sandbox when asked or when their spec has
//! one: a built-in bot sees the arena executable that runs it wherever it
//! lies, and each sandboxed bot of a game hides the command's output (a
//! match's folder, a game's logs) and the other bots' own folders, even
//! where its command names them (as a tournament's file bots do in
//! pahtum-runner's launcher).

use std::path::{Path, PathBuf};

use pahtum_referee::{BotSpec, Sandbox, sandbox};

use crate::executable_of;

/// `spec`, in the default sandbox if `sandboxed` (else in its own, if any); a built-in bot (the arena
/// executable) sees that one file wherever it lies.
pub fn in_sandbox(spec: BotSpec, sandboxed: bool) -> BotSpec {
    let sandbox = sandboxed.then(Sandbox::default).or(spec.sandbox.clone());
    let sandbox = match executable_of(&spec) {
        Some(arena) => sandbox.map(|sandbox| sandbox.running_own_program(arena)),
        None => sandbox,
    };
    BotSpec { sandbox, ..spec }
}

/// `specs` as [`in_sandbox`] makes them, each sandboxed one hiding `output` and the other bots' own
/// folders, except those that hold its own main folder.
pub fn all_in_sandbox(specs: Vec<BotSpec>, sandboxed: bool, output: Option<&Path>) -> Vec<BotSpec> {
    let specs: Vec<BotSpec> = specs.into_iter().map(|spec| in_sandbox(spec, sandboxed)).collect();
    let own: Vec<Vec<PathBuf>> = specs
        .iter()
        .map(|spec| {
            let sandbox = spec.sandbox.clone().unwrap_or_default();
            sandbox::own_folders(&sandbox, &spec.command())
        })
        .collect();
    let output = output.map(|output| std::path::absolute(output).unwrap_or_else(|_| output.to_path_buf()));
    specs
        .into_iter()
        .enumerate()
        .map(|(index, mut spec)| {
            let command = spec.command();
            if let Some(sandbox) = &mut spec.sandbox {
                let main = sandbox::main_folder(sandbox, &command);
                let others = own
                    .iter()
                    .enumerate()
                    .filter(|&(other, _)| other != index)
                    .flat_map(|(_, folders)| folders.iter().cloned());
                sandbox
                    .hidden
                    .extend(sandbox::hidden_for(main.as_deref(), output.as_deref(), others));
            }
            spec
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two bots of two folders, in the sandbox: each hides the output and the other's folder, not its own.
    #[test]
    fn each_sandboxed_bot_hides_the_output_and_the_others_folders() {
        let dir = tempfile::tempdir().unwrap();
        for bot in ["a", "b"] {
            std::fs::create_dir(dir.path().join(bot)).unwrap();
            std::fs::write(dir.path().join(bot).join("bot.py"), "").unwrap();
        }
        let out = dir.path().join("out");
        let command = |bot: &str| format!("python3 {}", dir.path().join(bot).join("bot.py").display());
        let specs = ["a", "b"].map(|bot| BotSpec::from_command(bot, &command(bot)).unwrap());
        let [a, b] = <[BotSpec; 2]>::try_from(all_in_sandbox(specs.to_vec(), true, Some(&out))).unwrap();
        let (a, b) = (a.sandbox.unwrap(), b.sandbox.unwrap());
        assert!(a.hidden.contains(&out) && b.hidden.contains(&out), "{:?}", a.hidden);
        assert!(a.hidden.contains(&dir.path().join("b")), "{:?}", a.hidden);
        assert!(!a.hidden.contains(&dir.path().join("a")), "{:?}", a.hidden);
        assert!(b.hidden.contains(&dir.path().join("a")), "{:?}", b.hidden);
        let plain = all_in_sandbox(specs.to_vec(), false, Some(&out));
        assert!(plain.iter().all(|spec| spec.sandbox.is_none()));
    }
}
