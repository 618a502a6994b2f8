//! A start that its caller stops waiting for (a round stopped while its
//! bots start, as the ladder is when a contest's final begins) leaves the
//! supervisor's spawner free: every start after it still starts.
//!
//! The child's pre-exec step writes to its cgroups' `cgroup.procs`. Those
//! files were once closed with the dropped start while its spawn still
//! waited in the spawner thread's queue; std's spawn then took their numbers
//! for its own error pipe, the child's write became a short error report,
//! and std answered it by waiting for the child: forever for a bot that goes
//! on to run (a contest's final that never started), a panic of the spawner
//! for one that exits. 400 starts dropped at once queue enough spawns behind
//! each other for it to happen at every run before the fix.

use std::time::Duration;

use pahtum_supervise::{Command, Output, Policy, Sandbox, start};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_its_caller_stopped_waiting_for_leaves_the_spawner_free() {
    let command = Command {
        program: "true".to_owned(),
        args: Vec::new(),
        dir: None,
        env: Vec::new(),
    };
    // In the sandbox, as a contest's bots start: its limits come with cgroup files of their own.
    if !pahtum_testkit::require(
        "the sandbox",
        pahtum_supervise::sandbox::check().is_ok(),
        "install bubblewrap",
    ) {
        return;
    }
    let policy = Policy {
        sandbox: Some(Sandbox::default()),
        output: Output::Piped,
        time_limit: None,
        core: None,
    };
    for _ in 0..400 {
        // Polled once, which queues the spawn for the spawner thread, then dropped at once.
        let _ = tokio::time::timeout(Duration::ZERO, start(&command, &policy)).await;
    }
    let started = tokio::time::timeout(Duration::from_secs(30), start(&command, &policy)).await;
    assert!(
        matches!(started, Ok(Ok(_))),
        "a start after 400 stopped ones did not start within 30 s (the spawner is stuck or gone): {:?}",
        started.map(|started| started.map(|_| ()))
    );
}
