//! The store's rules, on a database in a temporary folder, with times given.

use super::*;

/// An upload of the archive `archive`, not on condition.
fn upload(archive: &str) -> Upload<'_> {
    Upload {
        archive,
        file_name: None,
        if_not_weaker: false,
    }
}

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("contest.db")).unwrap();
    (dir, store)
}

#[test]
fn a_database_is_migrated_once_and_reopened_as_it_was() {
    let (dir, store) = store();
    let id = store.add_author("ada", Role::Author, AccountState::Active, 1).unwrap();
    drop(store);
    let store = Store::open(&dir.path().join("contest.db")).unwrap();
    assert_eq!(store.author(id).unwrap().unwrap().name, "ada");
    let connection = Connection::open(dir.path().join("contest.db")).unwrap();
    connection.pragma_update(None, "user_version", 99).unwrap();
    drop(connection);
    drop(store);
    let error = Store::open(&dir.path().join("contest.db")).unwrap_err();
    assert!(matches!(error, StoreError::Newer { found: 99, .. }), "{error}");
}

#[test]
fn an_invitation_is_used_once_and_not_after_it_expires() {
    let (_dir, store) = store();
    let ada = store.add_author("ada", Role::Author, AccountState::Invited, 0).unwrap();
    store.add_invitation(ada, b"secret-hash", 1_000).unwrap();
    assert_eq!(store.invitation(b"secret-hash", 10).unwrap().unwrap().id, ada);
    assert_eq!(store.use_invitation(b"other", 10).unwrap(), None);
    assert_eq!(store.use_invitation(b"secret-hash", 10).unwrap().unwrap().id, ada);
    assert_eq!(store.use_invitation(b"secret-hash", 11).unwrap(), None, "used once");
    let bob = store.add_author("bob", Role::Author, AccountState::Invited, 0).unwrap();
    store.add_invitation(bob, b"late", 1_000).unwrap();
    assert_eq!(store.use_invitation(b"late", 1_000).unwrap(), None, "expired");
}

#[test]
fn sessions_end_when_idle_or_old_and_belong_to_active_accounts_only() {
    let (_dir, store) = store();
    let ada = store.add_author("ada", Role::Author, AccountState::Active, 0).unwrap();
    store.add_session(ada, b"s", 0).unwrap();
    assert_eq!(store.session(b"s", 50, 100, 1_000).unwrap().unwrap().id, ada);
    assert!(store.session(b"s", 140, 100, 1_000).unwrap().is_some(), "seen at 50");
    assert_eq!(store.session(b"s", 300, 100, 1_000).unwrap(), None, "idle");
    assert_eq!(store.session(b"s", 301, 100_000, 1_000).unwrap(), None, "removed");
    store.add_session(ada, b"t", 0).unwrap();
    for now in (90..1_000).step_by(90) {
        assert!(store.session(b"t", now, 100, 1_000).unwrap().is_some(), "{now}");
    }
    assert_eq!(store.session(b"t", 1_050, 100, 1_000).unwrap(), None, "too old");
    store.add_session(ada, b"u", 0).unwrap();
    store
        .set_account_state(ada, AccountState::Disabled, "organiser", 1)
        .unwrap();
    assert_eq!(store.session(b"u", 2, 100, 1_000).unwrap(), None, "disabled");
}

#[test]
fn tokens_are_revoked_by_their_owner_only() {
    let (_dir, store) = store();
    let ada = store.add_author("ada", Role::Author, AccountState::Active, 0).unwrap();
    let bob = store.add_author("bob", Role::Author, AccountState::Active, 0).unwrap();
    let token = store.add_token(ada, "laptop", b"h", 5).unwrap();
    assert_eq!(store.token(b"h", 7).unwrap().unwrap().id, ada);
    assert_eq!(store.tokens_of(ada).unwrap()[0].used_ms, Some(7));
    assert!(!store.revoke_token(bob, token, 8).unwrap(), "not bob's");
    assert!(store.token(b"h", 9).unwrap().is_some());
    assert!(store.revoke_token(ada, token, 10).unwrap());
    assert_eq!(store.token(b"h", 11).unwrap(), None);
}

#[test]
fn submissions_keep_to_the_daily_quota_and_the_queue() {
    let (_dir, store) = store();
    let ada = store.add_author("ada", Role::Author, AccountState::Active, 0).unwrap();
    let bob = store.add_author("bob", Role::Author, AccountState::Active, 0).unwrap();
    let day = DAY_MS;
    for _ in 0..2 {
        assert!(store.submit(ada, upload("aa"), day + 5, 2, 10).unwrap().is_ok());
    }
    assert_eq!(
        store.submit(ada, upload("aa"), day + 6, 2, 10).unwrap(),
        Err(Refused::Daily(2))
    );
    assert!(
        store.submit(ada, upload("aa"), 2 * day, 2, 10).unwrap().is_ok(),
        "a new day"
    );
    assert_eq!(
        store.submit(bob, upload("bb"), 2 * day, 2, 3).unwrap(),
        Err(Refused::QueueFull(3))
    );
    assert_eq!(
        store.submissions(Some(ada)).unwrap().len(),
        3,
        "the refused ones are undone"
    );
    assert_eq!(store.submissions(Some(bob)).unwrap().len(), 0);
}

#[test]
fn one_build_at_a_time_per_author_and_interrupted_builds_queue_again() {
    let (_dir, store) = store();
    let ada = store.add_author("ada", Role::Author, AccountState::Active, 0).unwrap();
    let bob = store.add_author("bob", Role::Author, AccountState::Active, 0).unwrap();
    let first = store.submit(ada, upload("a1"), 1, 9, 9).unwrap().unwrap();
    let second = store.submit(ada, upload("a2"), 2, 9, 9).unwrap().unwrap();
    let bobs = store.submit(bob, upload("b1"), 3, 9, 9).unwrap().unwrap();
    let claimed = store.claim_next(4).unwrap().unwrap();
    assert_eq!((claimed.id, claimed.state), (first, SubmissionState::Building));
    assert_eq!(
        store.submission(first).unwrap().unwrap().state,
        SubmissionState::Building
    );
    assert_eq!(store.claim_next(5).unwrap().unwrap().id, bobs, "ada builds already");
    store
        .set_submission(bobs, SubmissionState::Checking, None, None, 5)
        .unwrap();
    assert_eq!(store.claim_next(6).unwrap(), None, "ada's second waits for her first");
    assert_eq!(store.requeue_interrupted(6).unwrap(), 2);
    assert_eq!(store.claim_next(7).unwrap().unwrap().id, first);
    store
        .set_submission(first, SubmissionState::Failed, Some("ada@1"), Some("no"), 7)
        .unwrap();
    let failed = store.submission(first).unwrap().unwrap();
    assert_eq!(
        (failed.label.as_deref(), failed.error.as_deref()),
        (Some("ada@1"), Some("no"))
    );
    assert_eq!(store.claim_next(8).unwrap().unwrap().id, second, "the oldest first");
    assert_eq!(store.claim_next(8).unwrap().unwrap().id, bobs);
    assert_eq!(store.claim_next(9).unwrap(), None, "none claimed twice");
}

/// Builders at once, each claiming in a loop from its own thread: every submission is claimed exactly once.
#[test]
fn builders_at_once_claim_each_submission_once() {
    let (_dir, store) = store();
    let authors: Vec<i64> = (0..20)
        .map(|n| {
            store
                .add_author(&format!("a{n}"), Role::Author, AccountState::Active, 0)
                .unwrap()
        })
        .collect();
    for &author in &authors {
        store.submit(author, upload("x"), 1, 9, 99).unwrap().unwrap();
    }
    let claimed = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                while let Some(submission) = store.claim_next(2).unwrap() {
                    claimed.lock().unwrap().push(submission.id);
                }
            });
        }
    });
    let mut claimed = claimed.into_inner().unwrap();
    claimed.sort_unstable();
    let expected: Vec<i64> = (1..=20).collect();
    assert_eq!(claimed, expected);
}

#[test]
fn a_backup_is_a_database_of_the_same_rows() {
    let (dir, store) = store();
    store
        .add_author("ada", Role::Organiser, AccountState::Active, 0)
        .unwrap();
    let out = dir.path().join("copy.db");
    store.backup(&out).unwrap();
    let copy = Store::open(&out).unwrap();
    assert_eq!(copy.authors().unwrap(), store.authors().unwrap());
}

#[test]
fn jobs_keep_to_their_rules_and_queue_again_when_cut_off() {
    let (_dir, store) = store();
    let ada = store.add_author("ada", Role::Author, AccountState::Active, 0).unwrap();
    let bob = store.add_author("bob", Role::Author, AccountState::Active, 0).unwrap();
    let cy = store.add_author("cy", Role::Author, AccountState::Active, 0).unwrap();
    let asked = serde_json::json!({});
    let rules = |queue, per_day| JobRules {
        at_once: 1,
        per_day,
        queue,
    };
    let analysis = |author, now, queue| store.request_job(author, JobKind::Analysis, &asked, rules(queue, None), now);
    let first = analysis(ada, 1, 2).unwrap().unwrap();
    assert_eq!(analysis(ada, 2, 2).unwrap(), Err(JobRefused::Pending(1)));
    analysis(bob, 3, 2).unwrap().unwrap();
    assert_eq!(analysis(cy, 4, 1).unwrap(), Err(JobRefused::QueueFull(1)));
    // The refused requests left nothing behind, and a challenge is another kind with its own rules.
    assert_eq!(store.jobs(Some(ada), Some(JobKind::Analysis), 10).unwrap().len(), 1);
    assert!(store.jobs(Some(cy), Some(JobKind::Analysis), 10).unwrap().is_empty());
    let challenge = |now| store.request_job(cy, JobKind::Challenge, &asked, rules(10, Some(2)), now);
    let day = 86_400_000;
    let c1 = challenge(day).unwrap().unwrap();
    assert_eq!(store.claim_job(JobKind::Challenge, day + 1).unwrap().unwrap().id, c1);
    store
        .finish_job(c1, Ok(&serde_json::json!({"wins": 1})), day + 2)
        .unwrap();
    challenge(day + 3).unwrap().unwrap();
    assert_eq!(
        store.claim_job(JobKind::Challenge, day + 4).unwrap().unwrap().kind,
        JobKind::Challenge
    );
    store.finish_job(c1 + 1, Err("gone"), day + 5).unwrap();
    assert_eq!(challenge(day + 6).unwrap(), Err(JobRefused::Daily(2)), "two a day");
    assert!(challenge(2 * day).unwrap().is_ok(), "the next day");

    let claimed = store.claim_job(JobKind::Analysis, 5).unwrap().unwrap();
    assert_eq!((claimed.id, claimed.state), (first, JobState::Running));
    assert_eq!(
        analysis(ada, 6, 2).unwrap(),
        Err(JobRefused::Pending(1)),
        "running counts"
    );
    // A stop cut it off: queued again, and claimed again before bob's.
    assert_eq!(store.requeue_jobs(7).unwrap(), 1);
    assert_eq!(store.claim_job(JobKind::Analysis, 8).unwrap().unwrap().id, first);
    store
        .finish_job(first, Ok(&serde_json::json!({"games": 3})), 9)
        .unwrap();
    let done = store.job(first).unwrap().unwrap();
    assert_eq!(
        (done.state, done.outcome, done.updated_ms),
        (JobState::Done, Some(serde_json::json!({"games": 3})), 9)
    );
    let second = analysis(ada, 10, 2).unwrap().unwrap();
    let bobs = store.claim_job(JobKind::Analysis, 11).unwrap().unwrap();
    assert_eq!(bobs.author, bob);
    store.finish_job(bobs.id, Err("no journal"), 12).unwrap();
    let failed = &store.jobs(Some(bob), Some(JobKind::Analysis), 10).unwrap()[0];
    assert_eq!(
        (failed.state, failed.error.as_deref()),
        (JobState::Failed, Some("no journal"))
    );
    assert_eq!(store.claim_job(JobKind::Analysis, 13).unwrap().unwrap().id, second);
    assert_eq!(store.claim_job(JobKind::Analysis, 14).unwrap(), None);
}

#[test]
fn a_phase_moved_is_kept_and_logged_and_one_refused_leaves_nothing() {
    let (_dir, store) = store();
    let to = jiff::Timestamp::from_second(1_796_331_900).unwrap();
    let refused = store.move_phase(PhaseKey::Freeze, to, "organiser", 5, |_| Err::<(), _>("no"));
    assert_eq!(refused.unwrap(), Err("no"));
    let moved = store.move_phase(PhaseKey::Freeze, to, "organiser", 7, |before| Ok::<_, ()>(before.len()));
    assert_eq!(moved.unwrap(), Ok(0), "no move before");
    assert_eq!(
        store.phase_moves().unwrap(),
        [PhaseMove {
            phase: PhaseKey::Freeze,
            at: to,
            who: "organiser".into(),
            moved_ms: 7
        }]
    );
    let logged: Vec<(i64, String, String)> = store
        .connection()
        .prepare("SELECT at_ms, who, what FROM actions")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        logged,
        [(
            7,
            "organiser".to_owned(),
            "moved freeze to 2026-12-03T21:05:00Z".to_owned()
        )]
    );
}

/// A submission made on condition keeps its condition and its note, and its promotion is found by its number;
/// a database made before promotions is migrated with its jobs kept.
#[test]
fn a_promotion_is_found_by_its_submission_and_older_jobs_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("contest.db");
    let mut before = Connection::open(&path).unwrap();
    for sql in &MIGRATIONS[..3] {
        before.execute_batch(sql).unwrap();
    }
    before.pragma_update(None, "user_version", 3).unwrap();
    let transaction = before.transaction().unwrap();
    transaction
        .execute(
            "INSERT INTO authors (name, role, state, created_ms) VALUES ('ada', 'author', 'active', 0)",
            [],
        )
        .unwrap();
    transaction
        .execute(
            "INSERT INTO jobs (author, kind, state, asked, created_ms, updated_ms) \
             VALUES (1, 'challenge', 'done', '{}', 1, 2)",
            [],
        )
        .unwrap();
    transaction.commit().unwrap();
    drop(before);

    let store = Store::open(&path).unwrap();
    let old = store.job(1).unwrap().unwrap();
    assert_eq!(
        (old.kind, old.state, old.updated_ms),
        (JobKind::Challenge, JobState::Done, 2)
    );
    let plain = store.submit(1, upload("a1"), 3, 9, 9).unwrap().unwrap();
    let on_condition = Upload {
        if_not_weaker: true,
        ..upload("a2")
    };
    let held = store.submit(1, on_condition, 4, 9, 9).unwrap().unwrap();
    assert!(!store.submission(plain).unwrap().unwrap().if_not_weaker);
    assert!(store.submission(held).unwrap().unwrap().if_not_weaker);
    let rules = JobRules {
        at_once: usize::MAX,
        per_day: None,
        queue: usize::MAX,
    };
    let asked = |submission| serde_json::json!({"submission": submission, "candidate": "ada@2", "opponent": "ada@1"});
    for submission in [held, plain + 100, held] {
        store
            .request_job(1, JobKind::Promotion, &asked(submission), rules, 5)
            .unwrap()
            .unwrap();
    }
    let found = store.promotion_of(held).unwrap().unwrap();
    assert_eq!((found.id, found.kind), (4, JobKind::Promotion), "the latest of its own");
    assert_eq!(store.promotion_of(plain).unwrap(), None);
    assert_eq!(store.claim_job(JobKind::Promotion, 6).unwrap().unwrap().id, 2);
    store.set_note(held, "on test against ada@1", 7).unwrap();
    let noted = store.submission(held).unwrap().unwrap();
    assert_eq!(
        (noted.note.as_deref(), noted.updated_ms),
        (Some("on test against ada@1"), 7)
    );
}
