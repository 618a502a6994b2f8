//! Containment with real processes: whatever a bot starts, and wherever it
//! goes (a new session by `setsid`, an orphan by a double fork), nothing is
//! left once the bot is ended, whether it was shut down, failed or dropped,
//! and whether the machine lets the referee use cgroups or not (the marker
//! alone, forced by `PAHTUM_ARENA_NO_CGROUP`). Every check reads `/proc`.

mod common;

use std::time::Duration;

use common::{Fixtures, is_running, poll};
use pahtum::Seat;
use pahtum_protocol::{Reason, move_time};
use pahtum_record::GameSpec;
use pahtum_referee::contain::NO_CGROUP;
use pahtum_referee::{Tracking, play_game};

fn game() -> GameSpec {
    GameSpec::random("contained", 7, 3, true, move_time(Duration::from_secs(2))).unwrap()
}

/// The helpers' pids (every pid recorded but the bots' own).
fn helpers(fixtures: &Fixtures, bots: &[u32]) -> Vec<u32> {
    fixtures.pids().into_iter().filter(|pid| !bots.contains(pid)).collect()
}

/// Waits (bounded) until `count` helpers have recorded their pids.
fn wait_for_helpers(fixtures: &Fixtures, bots: &[u32], count: usize) -> Vec<u32> {
    poll(Duration::from_secs(5), || {
        let helpers = helpers(fixtures, bots);
        (helpers.len() >= count).then_some(helpers)
    })
    .expect("the helpers start")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helpers_in_a_new_session_or_orphaned_end_with_the_game() {
    let fixtures = Fixtures::new();
    let mut first = fixtures.start("setsid-helper").await;
    let mut second = fixtures.start("orphan-helper").await;
    let bots = [first.pid(), second.pid()];
    // The setsid helper, and the orphan-maker and its sleeper.
    let helpers = wait_for_helpers(&fixtures, &bots, 3);
    let record = play_game(&game(), &mut first, &mut second, &mut |_| {}).await;
    assert_eq!(record.termination.reason, Reason::Normal, "{record:#?}");
    let running = helpers.iter().filter(|&&pid| is_running(pid)).count();
    assert_eq!(
        running, 2,
        "the two sleepers live during the game (the middle process exited)"
    );
    first.shutdown().await;
    second.shutdown().await;
    fixtures.assert_none_left();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helpers_of_a_bot_that_fails_or_is_dropped_are_killed() {
    let fixtures = Fixtures::new();
    let mut helped = fixtures.start("setsid-helper").await;
    let mut crashing = fixtures.start("crash").await;
    wait_for_helpers(&fixtures, &[helped.pid(), crashing.pid()], 1);
    let record = play_game(&game(), &mut crashing, &mut helped, &mut |_| {}).await;
    let forfeit = record.termination.forfeit.expect("the crash forfeits");
    assert_eq!(forfeit.seat, Seat::First);
    // The helper belongs to the bot that is still usable: dropping it (a
    // cancelled task, a panic) must end the helper too.
    assert!(helped.is_reusable());
    drop(helped);
    crashing.shutdown().await;
    fixtures.assert_none_left();
}

/// The same, in a referee process that may not use cgroups: the marker alone.
#[test]
fn without_cgroups_the_marker_finds_the_helpers() {
    let fixtures = Fixtures::new();
    let (record, _) = fixtures.game_in_a_process_with_env("setsid-helper", "orphan-helper", &[(NO_CGROUP, "1")]);
    assert_eq!(record.termination.reason, Reason::Normal, "{record:#?}");
    assert!(fixtures.pids().len() >= 5, "two bots and three helpers ran");
    fixtures.assert_none_left();
}

/// Where the machine lets the referee make cgroups (root, or a delegated
/// subtree), each bot runs in one of its own. Elsewhere this test has nothing
/// to check and says so (the tests above then ran with the marker alone).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn where_cgroups_are_writable_each_bot_has_its_own() {
    if pahtum_referee::contain::tracking() != Tracking::Cgroup {
        eprintln!("skipped: cgroup v2 is not writable here; the marker alone tracks the bots");
        return;
    }
    let fixtures = Fixtures::new();
    let first = fixtures.start("first-free").await;
    let second = fixtures.start("first-free").await;
    let cgroup_of = |pid: u32| std::fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap();
    let (one, two) = (cgroup_of(first.pid()), cgroup_of(second.pid()));
    assert!(one.contains("/pahtum-arena-") && one.contains("/bot-"), "{one}");
    assert_ne!(one, two, "each bot has a cgroup of its own");
    first.shutdown().await;
    second.shutdown().await;
    fixtures.assert_none_left();
}
