//! Core pinning with a real process: a bot started on a core runs there, and
//! so does what it starts (the mask is set before `exec` and inherited).

mod common;

use common::{Fixtures, quick_limits};
use pahtum_referee::Bot;

/// The `Cpus_allowed_list` of process `pid`.
fn allowed_cpus(pid: u32) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
        .expect("the status lists the allowed CPUs")
        .trim()
        .to_owned()
}

#[tokio::test]
async fn a_bot_started_on_a_core_runs_only_there() {
    let fixtures = Fixtures::new();
    let cores = pahtum_referee::affinity::usable_cores().unwrap();
    let core = *cores.last().unwrap();
    let pinned = Bot::start_on(&fixtures.spec("first-free"), &quick_limits(), None, Some(core))
        .await
        .unwrap();
    let free = fixtures.start("first-free").await;
    assert_eq!(allowed_cpus(pinned.pid()), core.to_string());
    assert_eq!(allowed_cpus(free.pid()), allowed_cpus(std::process::id()));
    pinned.shutdown().await;
    free.shutdown().await;
    fixtures.assert_none_left();
}
