//! `--names` of `arena game` and `arena match`: the rule of the two bots' names, given or from their
//! commands, is `pahtum_tournament::config::two_bots::names`.

use pahtum_tournament::config::two_bots;

pub use pahtum_tournament::config::names::default_name;

/// `--names NAME_A,NAME_B`.
#[derive(Debug, clap::Args)]
pub struct NamesFlag {
    /// The bots' names in the records and tables [default: from the commands].
    #[arg(long, value_name = "NAME_A,NAME_B", value_delimiter = ',')]
    names: Option<Vec<String>>,
}

impl NamesFlag {
    /// The names given, else the defaults of `commands` (`suffixes` tell apart two bots of one name).
    pub fn names(&self, commands: [&str; 2], suffixes: [&str; 2]) -> anyhow::Result<[String; 2]> {
        Ok(two_bots::names(self.names.as_deref(), commands, suffixes)?)
    }
}
