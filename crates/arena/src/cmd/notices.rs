//! What a run tells its organiser besides its games, in `arena`'s words on stderr.
//!
//! `arena run` and `arena match` hand their run to pahtum-runner in one call, which tells what it does
//! (the journal rewritten for `--replay`, moved aside, repaired, grown by bots that join; a bot that
//! cannot greet, or greets as another program; what a sandbox hides; the socket it cannot make) as
//! pahtum-run's notices, to the observer the command gives it, as they happen. [`Notices`] is the part
//! of that observer that says them: each once, on its own line, between the same lines as the rest of
//! the run's output.

use pahtum_protocol::bot::Identity;
use pahtum_protocol::untrusted::escape;
use pahtum_run::events::{Event, Observer};
use pahtum_run::notice::Notice;

use crate::output::errln;

/// Says each notice of a run on stderr; `replay` of a bot's name is the command that plays its games
/// again (said of a bot whose program changed).
pub struct Notices<'a> {
    pub replay: &'a dyn Fn(&str) -> String,
}

impl Notices<'_> {
    /// The notices of a run that never says how to play a bot's games again (no bot greets before it).
    pub fn plain() -> Notices<'static> {
        Notices {
            replay: &|_| String::new(),
        }
    }

    /// Says `notice` on stderr.
    pub fn say(&self, notice: Notice<'_>) {
        match notice {
            Notice::Sandbox { bot, note } => crate::flags::say_sandbox_note(bot, note),
            Notice::PausedBySignals => crate::flags::say_signal_pausing(),
            Notice::Dropped { bots, games, aside } => {
                let whose = bots.join(", ");
                match aside {
                    Some(aside) => errln!(
                        "arena: dropped the {games} games of {whose} from the journal, to play them again; the \
                         previous journal is kept as {}",
                        aside.display()
                    ),
                    None => errln!("arena: the journal holds no game of {whose}"),
                }
            }
            Notice::NotGreeted { why } => {
                errln!("arena: warning: {why}; its games in the journal cannot be compared with its program now")
            }
            Notice::MovedAside { aside } => errln!("arena: the previous journal is kept as {}", aside.display()),
            Notice::RepairedTornLine => errln!(
                "arena: dropped the torn last line of the journal (a game cut off by a crash; it will be played again)"
            ),
            Notice::Joined { joined, kept } => {
                let names: Vec<String> = joined.joined.iter().map(|bot| escape(&bot.name).into_owned()).collect();
                errln!(
                    "arena: {} joined the tournament: its schedule has {} games now, and the {kept} games already \
                     played are kept (only the new pairs are played)",
                    names.join(", "),
                    joined.games,
                );
            }
            Notice::HelloChanged {
                bot,
                was,
                now,
                games,
                other,
            } => errln!(
                "arena: warning: bot {} now says hello as {}, but as {} in its last game in the journal: {other} of \
                 its {games} games there were played by a program that said otherwise, and the standings mix the \
                 two; to play its games again, run: {}",
                escape(bot),
                greeting(now),
                greeting(was),
                escape(&(self.replay)(bot))
            ),
            Notice::NoLiveSocket { error } => {
                errln!("arena: the games in progress cannot be followed from another process ({error}); playing on")
            }
        }
    }
}

impl Observer for Notices<'_> {
    fn on(&mut self, event: Event<'_>) {
        if let Event::Notice(notice) = event {
            self.say(notice);
        }
    }
}

/// A bot's greeting in words, escaped: `"name version"` (`by author` after it, if named).
fn greeting(identity: &Identity) -> String {
    let mut text = identity.name.clone();
    if let Some(version) = &identity.version {
        text.push(' ');
        text.push_str(version);
    }
    let by = identity
        .author
        .as_ref()
        .map(|author| format!(" by \"{}\"", escape(author)))
        .unwrap_or_default();
    format!("\"{}\"{by}", escape(&text))
}
