//! The heuristic bot on stdin and stdout, for the referee to run.

use anyhow::Context;
use pahtum_heuristic::Heuristic;

fn main() -> anyhow::Result<()> {
    pahtum_protocol::bot::run(&mut Heuristic::new()).context("rust-heuristic stopped")
}
