//! `pahtum-engine`: the reference engine as a stand-alone bot on stdin/stdout.

use anyhow::Context;
use clap::Parser;
use pahtum_engine::{Cli, Engine};

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let mut engine = Engine::new(cli.options);
    pahtum_protocol::bot::run(&mut engine).context("the engine stopped talking to the referee")
}
