//! The registry's kill-all: every process of every bot, helpers included, at
//! once. In a test binary of its own, since it kills every bot of the process.

mod common;

use std::time::Duration;

use common::{Fixtures, is_running, poll};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_every_bot_ends_every_bot_and_every_helper() {
    let fixtures = Fixtures::new();
    let bots = [
        fixtures.start("setsid-helper").await,
        fixtures.start("orphan-helper").await,
        fixtures.start("first-free").await,
    ];
    let started = poll(Duration::from_secs(5), || {
        let pids = fixtures.pids();
        let running = pids.iter().filter(|&&pid| is_running(pid)).count();
        (pids.len() == 6 && running == 5).then_some(pids)
    });
    assert!(
        started.is_some(),
        "three bots, two sleepers and the orphan-maker that exited: {:?}",
        fixtures.pids()
    );
    pahtum_referee::kill_every_bot();
    fixtures.assert_none_left();
    for bot in bots {
        bot.shutdown().await;
    }
}
