//! `arena upload-unpack ORDER` (hidden): one contest upload unpacked in a
//! process of its own. A contest's build queue starts it in the sandbox,
//! through the supervisor, so that the code that reads a stranger's archive
//! runs as `nobody`, without network, seeing only the upload and the fresh
//! folder it unpacks to; nobody types it. The work and the order's form are
//! `pahtum-contest`'s (`builds::unpack_as_ordered`); this prints the report.

use std::process::ExitCode;

use anyhow::Context;

use crate::output::outln;

/// Unpack a contest's upload as ordered and print the report, one line of JSON (run by the contest's
/// server, in the sandbox).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The order: the upload's file, the name it was sent under, the fresh folder and the caps, as JSON.
    order: String,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let report = pahtum_contest::builds::unpack_as_ordered(&args.order).context("the order is not one")?;
    outln!("{report}");
    Ok(ExitCode::SUCCESS)
}
