//! The repository suite, run on SQLite and on PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use telepathy_store::testing::fresh_store;
use telepathy_store::{
    AgainPair, AnsweredInvite, ArchivedMessage, AuditEntry, Backend, Grant, InviteOutcome,
    MatchSide, NewCardOrder, NewComment, NewInvite, NewOperatorSession, NewReport, NewSanction,
    NewSession, NewUser, Resolution, RoomRecord, SecondFactor, Store, StoreError, TopWord,
};

macro_rules! both {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(#[tokio::test] async fn $name() {
                super::$name(telepathy_store::testing::fresh_store(telepathy_store::Backend::Sqlite).await).await;
            })*
        }
        mod on_postgres {
            $(#[tokio::test] async fn $name() {
                super::$name(telepathy_store::testing::fresh_store(telepathy_store::Backend::Postgres).await).await;
            })*
        }
    };
}

both!(
    blocks_keep_both_apart,
    a_session_user_comes_with_whom_they_are_kept_apart,
    registers_only_with_a_fresh_verified_phone,
    a_verification_registers_once,
    username_and_phone_are_unique_among_active_accounts,
    withdrawal_frees_username_and_ends_sessions,
    sessions_expire_and_revoke,
    code_attempts_are_counted,
    concurrent_code_attempts_stop_at_the_limit,
    identity_checks_complete,
    nickname_and_password_change,
    matches_write_history_for_both,
    each_member_s_history_names_the_other_as_of_the_match,
    matches_are_recorded_in_batches,
    the_top_word_of_an_evening_says_how_many_tie_with_it,
    messages_archive_once_and_purge,
    a_refused_message_holds_back_no_other,
    feedback_once_per_room,
    a_report_is_filed_once_and_keeps_the_pair_apart,
    sanctions_restrict_until_they_run_out,
    warnings_wait_until_their_user_has_seen_them,
    the_audit_log_cannot_be_changed,
    withdrawn_accounts_are_erased_after_the_retention,
    comments_list_newest_first_without_hidden_ones,
    operators_are_unique_and_disabling_ends_their_sessions,
    a_second_factor_step_passes_once,
    a_report_resolves_once_with_its_sanction,
    the_console_counts_lists_and_finds,
    sanctions_lift_once_while_in_force,
    a_card_order_is_paid_once_whoever_asks_again,
    a_payment_pays_one_order_of_its_own_amount,
    concurrent_payments_of_one_order_grant_once,
    spending_megaphones_never_goes_below_zero,
    a_pair_is_made_when_both_wish_and_ends_by_either_a_block_or_a_sanction,
    a_pair_has_one_open_invitation_answered_once,
    invitations_at_once_keep_the_nightly_limit,
);

fn user<'a>(username: &'a str, phone: &'a str, now: i64) -> NewUser<'a> {
    NewUser {
        username,
        password_hash: "hash",
        phone,
        gender: "여성",
        birthdate: "2000-01-01",
        alarm_consent: false,
        consents: &[],
        now,
    }
}

async fn verify_phone(store: &Store, phone: &str, now: i64) {
    store
        .insert_phone_code(phone, "register", "f", "h", now, now + 180_000)
        .await
        .unwrap();
    let code = store
        .latest_phone_code(phone, "register", "f")
        .await
        .unwrap()
        .unwrap();
    assert!(store.mark_code_verified(code.id, now).await.unwrap());
}

async fn registers_only_with_a_fresh_verified_phone(store: Store) {
    assert_eq!(
        store
            .register_user(&user("alice", "01011112222", 1000), 0)
            .await
            .unwrap(),
        None
    );
    assert!(
        !store.username_taken("alice").await.unwrap(),
        "nothing stored without a verified phone"
    );
    verify_phone(&store, "01011112222", 1000).await;
    assert_eq!(
        store
            .register_user(&user("alice", "01011112222", 5000), 2000)
            .await
            .unwrap(),
        None,
        "a verification older than the cut-off does not count"
    );
    let id = store
        .register_user(&user("alice", "01011112222", 5000), 1000)
        .await
        .unwrap()
        .expect("registered");
    let got = store.user_by_username("alice").await.unwrap().unwrap();
    assert_eq!(got.id, id);
    assert_eq!(got.phone, "01011112222");
    assert_eq!(got.nickname, None);
    assert_eq!(
        store.user_by_id(id).await.unwrap().unwrap().username,
        "alice"
    );
    assert_eq!(store.backend(), store.backend());
}

async fn a_verification_registers_once(store: Store) {
    verify_phone(&store, "01011112222", 1000).await;
    assert!(store
        .register_user(&user("alice", "01011112222", 2000), 0)
        .await
        .unwrap()
        .is_some());
    assert_eq!(
        store
            .register_user(&user("bob", "01011112222", 2000), 0)
            .await
            .unwrap(),
        None
    );
}

async fn username_and_phone_are_unique_among_active_accounts(store: Store) {
    verify_phone(&store, "01011112222", 1000).await;
    store
        .register_user(&user("alice", "01011112222", 2000), 0)
        .await
        .unwrap();
    verify_phone(&store, "01033334444", 1000).await;
    assert!(matches!(
        store
            .register_user(&user("alice", "01033334444", 2000), 0)
            .await,
        Err(StoreError::UsernameTaken)
    ));
    verify_phone(&store, "01011112222", 3000).await;
    assert!(matches!(
        store
            .register_user(&user("carol", "01011112222", 4000), 0)
            .await,
        Err(StoreError::PhoneInUse)
    ));
    assert!(store.phone_in_use("01011112222").await.unwrap());
    assert!(!store.phone_in_use("01099998888").await.unwrap());
}

async fn withdrawal_frees_username_and_ends_sessions(store: Store) {
    verify_phone(&store, "01011112222", 1000).await;
    let id = store
        .register_user(&user("alice", "01011112222", 2000), 0)
        .await
        .unwrap()
        .unwrap();
    for token in ["t1", "t2"] {
        open_session(&store, token, id, 2000, 99_000).await;
    }
    store.withdraw_user(id, 3000).await.unwrap();
    assert!(store.session_user("t1", 4000).await.unwrap().is_none());
    assert!(store.session_user("t2", 4000).await.unwrap().is_none());
    assert!(!store.username_taken("alice").await.unwrap());
    assert!(!store.phone_in_use("01011112222").await.unwrap());
    assert_eq!(
        store.user_by_id(id).await.unwrap().unwrap().status,
        "withdrawn"
    );
    verify_phone(&store, "01011112222", 5000).await;
    let again = store
        .register_user(&user("alice", "01011112222", 6000), 0)
        .await
        .unwrap();
    assert!(
        again.is_some_and(|new| new != id),
        "a new account, the old row kept"
    );
}

async fn sessions_expire_and_revoke(store: Store) {
    verify_phone(&store, "01011112222", 1000).await;
    let id = store
        .register_user(&user("alice", "01011112222", 2000), 0)
        .await
        .unwrap()
        .unwrap();
    for token in ["a", "b", "c"] {
        open_session(&store, token, id, 2000, 10_000).await;
    }
    assert_eq!(
        store.session_user("a", 9_999).await.unwrap().unwrap().id,
        id
    );
    assert_eq!(store.session_ips_since(id, 2000).await.unwrap(), ["ip"]);
    assert!(store.session_ips_since(id, 2001).await.unwrap().is_empty());
    assert!(
        store.session_user("a", 10_000).await.unwrap().is_none(),
        "expired"
    );
    assert!(store.session_user("nope", 3000).await.unwrap().is_none());
    store.revoke_session("a", 3000).await.unwrap();
    assert!(store.session_user("a", 3000).await.unwrap().is_none());
    assert_eq!(
        store
            .revoke_user_sessions(id, Some("b"), 3000)
            .await
            .unwrap(),
        1
    );
    assert!(
        store.session_user("b", 3000).await.unwrap().is_some(),
        "the kept session lives"
    );
    assert!(store.session_user("c", 3000).await.unwrap().is_none());
}

async fn code_attempts_are_counted(store: Store) {
    store
        .insert_phone_code("01011112222", "reset", "f", "h1", 1000, 181_000)
        .await
        .unwrap();
    store
        .insert_phone_code("01011112222", "reset", "f", "h2", 2000, 182_000)
        .await
        .unwrap();
    let code = store
        .latest_phone_code("01011112222", "reset", "f")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(code.code_hash, "h2", "the latest code counts");
    // Another browser's code for the same phone is its own, and leaves this one alone.
    store
        .insert_phone_code("01011112222", "reset", "g", "h3", 2500, 182_500)
        .await
        .unwrap();
    let theirs = store
        .latest_phone_code("01011112222", "reset", "g")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(theirs.code_hash, "h3");
    assert_eq!(
        store
            .latest_phone_code("01011112222", "reset", "f")
            .await
            .unwrap()
            .unwrap()
            .code_hash,
        "h2",
        "a stranger's newer code does not void the owner's"
    );
    assert!(store
        .latest_phone_code("01011112222", "reset", "nobody")
        .await
        .unwrap()
        .is_none());
    assert_eq!(store.take_code_attempt(code.id, 2).await.unwrap(), Some(1));
    assert_eq!(store.take_code_attempt(code.id, 2).await.unwrap(), Some(2));
    assert_eq!(
        store.take_code_attempt(code.id, 2).await.unwrap(),
        None,
        "no try is left"
    );
    assert_eq!(
        store
            .latest_phone_code("01011112222", "reset", "f")
            .await
            .unwrap()
            .unwrap()
            .attempts,
        2
    );
    assert!(store.consume_code(code.id, 3000).await.unwrap());
    assert!(
        !store.consume_code(code.id, 3001).await.unwrap(),
        "spent once"
    );
    assert!(store
        .latest_phone_code("01011112222", "register", "f")
        .await
        .unwrap()
        .is_none());
}

async fn concurrent_code_attempts_stop_at_the_limit(store: Store) {
    store
        .insert_phone_code("01011112222", "register", "f", "h", 1000, 181_000)
        .await
        .unwrap();
    let code = store
        .latest_phone_code("01011112222", "register", "f")
        .await
        .unwrap()
        .unwrap();
    let tries: Vec<_> = (0..50)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.take_code_attempt(code.id, 5).await.unwrap() })
        })
        .collect();
    let mut taken = Vec::new();
    for t in tries {
        if let Some(n) = t.await.unwrap() {
            taken.push(n);
        }
    }
    taken.sort_unstable();
    assert_eq!(taken, [1, 2, 3, 4, 5], "each of the five tries taken once");
}

async fn identity_checks_complete(store: Store) {
    store
        .create_identity_check("idv-1", None, 1000)
        .await
        .unwrap();
    let check = store.identity_check("idv-1").await.unwrap().unwrap();
    assert_eq!(check.verified_at, None);
    store
        .complete_identity_check("idv-1", "홍길동", 2000)
        .await
        .unwrap();
    let check = store.identity_check("idv-1").await.unwrap().unwrap();
    assert_eq!(check.name.as_deref(), Some("홍길동"));
    assert!(store.identity_check("idv-2").await.unwrap().is_none());
}

async fn nickname_and_password_change(store: Store) {
    verify_phone(&store, "01011112222", 1000).await;
    let id = store
        .register_user(&user("alice", "01011112222", 2000), 0)
        .await
        .unwrap()
        .unwrap();
    store.set_nickname(id, "달빛", "달빛", 3000).await.unwrap();
    store.set_password_hash(id, "new-hash").await.unwrap();
    store.set_real_name(id, "김하늘").await.unwrap();
    let got = store.user_by_id(id).await.unwrap().unwrap();
    assert_eq!(got.nickname.as_deref(), Some("달빛"));
    assert_eq!(got.nickname_set_at, Some(3000));
    assert_eq!(got.password_hash, "new-hash");
    assert_eq!(got.real_name.as_deref(), Some("김하늘"));
}

#[test]
fn backends_from_urls() {
    assert_eq!(Backend::of_url("sqlite://data/x.db"), Some(Backend::Sqlite));
    assert_eq!(Backend::of_url("postgres://h/db"), Some(Backend::Postgres));
    assert_eq!(
        Backend::of_url("postgresql://h/db"),
        Some(Backend::Postgres)
    );
    assert_eq!(Backend::of_url("mysql://h/db"), None);
    let _ = fresh_store;
}

/// Opens a session of `user_id` with token hash `token`, from address "ip" and agent "ua".
async fn open_session(store: &Store, token: &str, user_id: i64, now: i64, expires_at: i64) {
    store
        .create_session(&NewSession {
            token_hash: token,
            user_id,
            now,
            expires_at,
            ip: "ip",
            user_agent: "ua",
        })
        .await
        .unwrap();
}

async fn two_users(store: &Store) -> (i64, i64) {
    verify_phone(store, "01011112222", 1000).await;
    let a = store
        .register_user(&user("alice", "01011112222", 2000), 0)
        .await
        .unwrap()
        .unwrap();
    verify_phone(store, "01033334444", 1000).await;
    let b = store
        .register_user(&user("bob", "01033334444", 2000), 0)
        .await
        .unwrap()
        .unwrap();
    (a, b)
}

/// The two sides of a match of `a` (달) and `b` (별).
fn two_sides(a: i64, b: i64) -> [MatchSide<'static>; 2] {
    [
        MatchSide {
            user_id: a,
            nickname: "달",
        },
        MatchSide {
            user_id: b,
            nickname: "별",
        },
    ]
}

fn room(id: &str, a: i64, b: i64, at: i64) -> RoomRecord {
    RoomRecord {
        id: id.into(),
        word: "봄".into(),
        round: 9,
        user_a: a,
        user_b: b,
        created_at: at,
        ended_at: None,
    }
}

async fn the_top_word_of_an_evening_says_how_many_tie_with_it(store: Store) {
    let (a, b) = two_users(&store).await;
    assert_eq!(store.top_word_since(0).await.unwrap(), None);
    let of = |id: &str, word: &str, at| RoomRecord {
        word: word.into(),
        ..room(id, a, b, at)
    };
    let rooms = [
        of("t1", "봄", 10_000),
        of("t2", "여름", 20_000),
        of("t3", "여름", 30_000),
        of("t4", "봄", 40_000),
        of("t5", "가을", 50_000),
    ];
    let batch: Vec<_> = rooms.iter().map(|r| (r, two_sides(a, b))).collect();
    store.record_matches(&batch).await.unwrap();
    let top = |word: &str, rooms, tied| TopWord {
        word: word.into(),
        rooms,
        tied,
    };
    // 봄 and 여름 made two rooms each; 봄 got there first (its second room came later, but
    // its first came first), and one other word made as many.
    assert_eq!(
        store.top_word_since(0).await.unwrap(),
        Some(top("봄", 2, 1))
    );
    assert_eq!(store.top_word_since(0).await.unwrap().unwrap().people(), 4);
    assert_eq!(
        store.top_word_since(15_000).await.unwrap(),
        Some(top("여름", 2, 0)),
        "no tie since 15 s"
    );
}

async fn matches_are_recorded_in_batches(store: Store) {
    let (a, b) = two_users(&store).await;
    let rooms: Vec<RoomRecord> = (0..3)
        .map(|i| room(&format!("batch{i}"), a, b, 1_000 * (i + 1)))
        .collect();
    let sides = || {
        [
            MatchSide {
                user_id: a,
                nickname: "달",
            },
            MatchSide {
                user_id: b,
                nickname: "별",
            },
        ]
    };
    let batch: Vec<_> = rooms.iter().map(|r| (r, sides())).collect();
    store.record_matches(&batch).await.unwrap();
    assert_eq!(store.word_history(a, 50).await.unwrap().len(), 3);
    assert_eq!(store.word_history(b, 50).await.unwrap().len(), 3);
    assert!(store.room_record("batch2").await.unwrap().is_some());
    // A room recorded already is skipped (its history is not written twice); the rest of
    // its batch goes in.
    let fourth = room("batch3", a, b, 4_000);
    let again = [(&rooms[0], sides()), (&fourth, sides())];
    store.record_matches(&again).await.unwrap();
    assert_eq!(store.word_history(a, 50).await.unwrap().len(), 4);
    assert!(store.room_record("batch3").await.unwrap().is_some());
    // A round's start: more rooms than one statement holds, one of them recorded already
    // and sitting in the middle of a statement.
    let many: Vec<RoomRecord> = (0..230)
        .map(|i| room(&format!("many{i}"), a, b, 10_000 + i))
        .collect();
    let mut rush: Vec<_> = many.iter().map(|r| (r, sides())).collect();
    rush.insert(150, (&rooms[1], sides()));
    let written = store.record_matches(&rush).await.unwrap();
    assert!(written.refused.is_empty());
    assert_eq!(store.word_history(a, 1_000).await.unwrap().len(), 234);
    assert_eq!(store.word_history(b, 1_000).await.unwrap().len(), 234);
    for id in ["many0", "many99", "many100", "many229"] {
        assert!(store.room_record(id).await.unwrap().is_some(), "{id}");
    }
}

/// The nickname in a line is the partner's at the match, whichever side they were and
/// whatever they are called now; the two members' lines of a room name each other.
async fn each_member_s_history_names_the_other_as_of_the_match(store: Store) {
    let (a, b) = two_users(&store).await;
    let side = |user_id, nickname| MatchSide { user_id, nickname };
    store
        .record_match(&room("h1", a, b, 10_000), [side(a, "달"), side(b, "별")])
        .await
        .unwrap();
    // b was a of the next room; its sides came in the other order.
    store
        .record_match(
            &room("h2", b, a, 20_000),
            [side(a, "달빛"), side(b, "별빛")],
        )
        .await
        .unwrap();
    store.set_nickname(a, "해", "해", 30_000).await.unwrap();
    store.set_nickname(b, "구름", "구름", 30_000).await.unwrap();
    let names = |user| {
        let store = store.clone();
        async move {
            store
                .word_history(user, 50)
                .await
                .unwrap()
                .into_iter()
                .map(|h| (h.room_id, h.partner_nickname))
                .collect::<Vec<_>>()
        }
    };
    let line = |room: &str, nickname: &str| (room.to_owned(), nickname.to_owned());
    assert_eq!(names(a).await, [line("h2", "별빛"), line("h1", "별")]);
    assert_eq!(names(b).await, [line("h2", "달빛"), line("h1", "달")]);
    assert_eq!(store.word_history_total(b).await.unwrap(), 2);
    assert_eq!(
        store.word_history(b, 1).await.unwrap()[0].room_id,
        "h2",
        "the newest of either side"
    );
}

async fn matches_write_history_for_both(store: Store) {
    let (a, b) = two_users(&store).await;
    let sides = |na, nb| {
        [
            MatchSide {
                user_id: a,
                nickname: na,
            },
            MatchSide {
                user_id: b,
                nickname: nb,
            },
        ]
    };
    store
        .record_match(&room("r1", a, b, 10_000), sides("달", "별"))
        .await
        .unwrap();
    store
        .record_match(&room("r2", a, b, 20_000), sides("달", "별빛"))
        .await
        .unwrap();
    let history = store.word_history(a, 50).await.unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(
        (
            history[0].room_id.as_str(),
            history[0].partner_nickname.as_str()
        ),
        ("r2", "별빛"),
        "newest first"
    );
    assert_eq!(history[1].connected_at, 10_000);
    let newest = store.word_history(a, 1).await.unwrap();
    assert_eq!(newest.len(), 1, "a list of the newest only");
    assert_eq!(
        store.word_history_total(a).await.unwrap(),
        2,
        "every one counted"
    );
    let theirs = store.word_history(b, 50).await.unwrap();
    assert_eq!(theirs[0].partner_nickname, "달");
    assert_eq!(
        store
            .latest_room_with(b, a, "봄")
            .await
            .unwrap()
            .unwrap()
            .id,
        "r2"
    );
    assert!(store
        .latest_room_with(b, a, "여름")
        .await
        .unwrap()
        .is_none());
    store.mark_room_ended("r1", 15_000).await.unwrap();
    let r1 = store.room_record("r1").await.unwrap().unwrap();
    assert_eq!(r1.ended_at, Some(15_000));
    // Many ends in one call: a recorded end is kept, an unknown room passed over.
    store
        .mark_rooms_ended(&[("r1", 16_000), ("r2", 17_000), ("nowhere", 18_000)])
        .await
        .unwrap();
    let ended = |id: &'static str| {
        let store = store.clone();
        async move { store.room_record(id).await.unwrap().unwrap().ended_at }
    };
    assert_eq!(ended("r1").await, Some(15_000));
    assert_eq!(ended("r2").await, Some(17_000));
    assert!(store.room_record("nowhere").await.unwrap().is_none());
    assert!(r1.has_member(a) && r1.has_member(b) && !r1.has_member(b + 100));
    assert_eq!(r1.partner_of(a), Some(b));
}

async fn messages_archive_once_and_purge(store: Store) {
    let (a, b) = two_users(&store).await;
    store
        .record_match(&room("r1", a, b, 10_000), two_sides(a, b))
        .await
        .unwrap();
    let msg = |id: &str, at: i64| ArchivedMessage {
        room_id: "r1".into(),
        msg_id: id.into(),
        sender_id: a,
        body: format!("안녕 {id}"),
        sent_at: at,
    };
    assert_eq!(
        store
            .archive_messages(&[msg("1-0", 100), msg("1-1", 100)])
            .await
            .unwrap()
            .stored,
        2
    );
    assert_eq!(
        store
            .archive_messages(&[msg("1-1", 100), msg("2-0", 200)])
            .await
            .unwrap()
            .stored,
        1,
        "each message once"
    );
    let t = store.transcript("r1").await.unwrap();
    assert_eq!(
        t.iter().map(|m| m.msg_id.as_str()).collect::<Vec<_>>(),
        ["1-0", "1-1", "2-0"]
    );
    assert_eq!(store.purge_messages_before(150).await.unwrap(), 2);
    assert_eq!(store.transcript("r1").await.unwrap().len(), 1);
    // A turn of the archive stores many at once, over several statements.
    let many: Vec<ArchivedMessage> = (0..400).map(|i| msg(&format!("9-{i}"), 300 + i)).collect();
    assert_eq!(store.archive_messages(&many).await.unwrap().stored, 400);
    assert_eq!(store.archive_messages(&many).await.unwrap().stored, 0);
    assert_eq!(store.transcript("r1").await.unwrap().len(), 401);
    // A text comes back as it was written, whatever it holds.
    let odd = "\"따옴표\" 'ㅋㅋ' \\ 역슬래시\n줄바꿈\t탭 🙂 {\"k\": [1]} ->> 0 $1";
    let written = ArchivedMessage {
        body: odd.into(),
        sender_id: b,
        ..msg("10-0", 10_000)
    };
    store.archive_messages(&[written]).await.unwrap();
    let back = store.transcript("r1").await.unwrap().pop().unwrap();
    assert_eq!(
        (
            back.msg_id.as_str(),
            back.sender_id,
            back.body.as_str(),
            back.sent_at
        ),
        ("10-0", b, odd, 10_000)
    );
}

/// A message the database refuses in the middle of a batch holds back none of the others:
/// the batch is told which one it was, and the rest is archived. A room it does not know
/// is refused on both databases; PostgreSQL refuses a NUL byte in a text too.
async fn a_refused_message_holds_back_no_other(store: Store) {
    let (a, b) = two_users(&store).await;
    store
        .record_match(&room("r1", a, b, 10_000), two_sides(a, b))
        .await
        .unwrap();
    let msg = |room: &str, id: &str, body: &str| ArchivedMessage {
        room_id: room.into(),
        msg_id: id.into(),
        sender_id: a,
        body: body.into(),
        sent_at: 100,
    };
    let mut batch: Vec<ArchivedMessage> = (0..5)
        .map(|i| msg("r1", &format!("1-{i}"), "안녕"))
        .collect();
    batch.insert(2, msg("no-such-room", "1-9", "어디"));
    let nul = store.backend() == Backend::Postgres;
    if nul {
        batch.insert(4, msg("r1", "1-8", "숨은\0글자"));
    }
    let written = store.archive_messages(&batch).await.unwrap();
    assert_eq!(written.stored, 5);
    let refused: Vec<usize> = written.refused.iter().map(|(i, _)| *i).collect();
    assert_eq!(refused, if nul { vec![2, 4] } else { vec![2] });
    assert!(written.refused.iter().all(|(_, e)| !e.is_outage()));
    let t = store.transcript("r1").await.unwrap();
    assert_eq!(
        t.iter().map(|m| m.msg_id.as_str()).collect::<Vec<_>>(),
        ["1-0", "1-1", "1-2", "1-3", "1-4"]
    );
    // The rooms of the recorder: one refused (an unknown user) holds back no other.
    let rooms = [
        room("ok1", a, b, 1),
        room("bad", a, 999_999, 2),
        room("ok2", b, a, 3),
    ];
    let batch: Vec<_> = rooms.iter().map(|r| (r, two_sides(a, b))).collect();
    let written = store.record_matches(&batch).await.unwrap();
    assert_eq!(
        written.refused.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
        [1]
    );
    assert!(store.room_record("ok1").await.unwrap().is_some());
    assert!(store.room_record("ok2").await.unwrap().is_some());
    assert!(store.room_record("bad").await.unwrap().is_none());
}

async fn feedback_once_per_room(store: Store) {
    let (a, b) = two_users(&store).await;
    let r = room("r1", a, b, 10_000);
    store.record_match(&r, two_sides(a, b)).await.unwrap();
    assert!(store.add_feedback(a, &r, "기뻐요", 11_000).await.unwrap());
    assert!(!store.add_feedback(a, &r, "슬퍼요", 12_000).await.unwrap());
    assert!(store.add_feedback(b, &r, "괜찮아요", 12_000).await.unwrap());
}

async fn blocks_keep_both_apart(store: Store) {
    let (a, b) = two_users(&store).await;
    assert!(store.kept_apart(a).await.unwrap().is_empty());
    assert!(store.add_block(a, b, 10_000).await.unwrap());
    assert!(!store.add_block(a, b, 11_000).await.unwrap(), "once");
    assert_eq!(store.kept_apart(a).await.unwrap(), [b]);
    assert_eq!(store.kept_apart(b).await.unwrap(), [a], "both ways");
    assert!(store.add_block(b, a, 12_000).await.unwrap());
    assert_eq!(store.kept_apart(a).await.unwrap(), [b], "each person once");
}

async fn a_session_user_comes_with_whom_they_are_kept_apart(store: Store) {
    let (a, b) = two_users(&store).await;
    verify_phone(&store, "01055556666", 1000).await;
    let c = store
        .register_user(&user("carol", "01055556666", 2000), 0)
        .await
        .unwrap()
        .unwrap();
    open_session(&store, "ta", a, 2000, 10_000).await;
    let (user, apart) = store.session_user_apart("ta", 3000).await.unwrap().unwrap();
    assert_eq!((user.id, apart), (a, vec![]));
    store.add_block(a, b, 3000).await.unwrap();
    store.add_block(c, a, 3000).await.unwrap();
    store.add_block(b, a, 3000).await.unwrap();
    let (user, mut apart) = store.session_user_apart("ta", 3000).await.unwrap().unwrap();
    apart.sort_unstable();
    assert_eq!(user.id, a);
    assert_eq!(apart, [b, c], "both ways, each person once");
    assert!(
        store
            .session_user_apart("ta", 10_000)
            .await
            .unwrap()
            .is_none(),
        "expired"
    );
    assert!(store
        .session_user_apart("nope", 3000)
        .await
        .unwrap()
        .is_none());
}

fn audit(action: &str, now: i64) -> AuditEntry<'_> {
    AuditEntry {
        operator_id: None,
        action,
        user_id: None,
        report_id: None,
        detail: "",
        ip: "127.0.0.1",
        now,
    }
}

async fn a_report_is_filed_once_and_keeps_the_pair_apart(store: Store) {
    let (a, b) = two_users(&store).await;
    let report = |reporter: Option<i64>, now| NewReport {
        reporter_id: reporter,
        reported_id: b,
        room_id: "room-1",
        reasons: &["harassment", "threat"],
        extra: "계속 욕해요",
        now,
    };
    let (id, added) = store.add_report(&report(Some(a), 10_000)).await.unwrap();
    assert!(added);
    assert_eq!(
        store.add_report(&report(Some(a), 11_000)).await.unwrap(),
        (id, false),
        "one report per reporter and room"
    );
    assert_eq!(
        store.kept_apart(b).await.unwrap(),
        [a],
        "never matched again"
    );
    let (flag, added) = store.add_report(&report(None, 12_000)).await.unwrap();
    assert!(added && flag != id, "the filter's flag is its own line");
    assert_eq!(
        store.add_report(&report(None, 13_000)).await.unwrap(),
        (flag, false)
    );
}

async fn sanctions_restrict_until_they_run_out(store: Store) {
    let (a, _) = two_users(&store).await;
    open_session(&store, "t1", a, 1000, 1_000_000).await;
    let sanction = |kind, until| NewSanction {
        user_id: a,
        kind,
        reason: "욕설",
        until,
        operator_id: None,
        report_id: None,
        now: 2000,
    };
    store
        .add_sanction(&sanction("warn", None), &audit("warn", 2000))
        .await
        .unwrap();
    assert!(
        store.active_restriction(a, 2000).await.unwrap().is_none(),
        "a warning stops nothing"
    );
    assert!(store.session_user("t1", 2000).await.unwrap().is_some());

    store
        .add_sanction(&sanction("suspend", Some(50_000)), &audit("suspend", 2000))
        .await
        .unwrap();
    let r = store.active_restriction(a, 3000).await.unwrap().unwrap();
    assert_eq!((r.kind.as_str(), r.until), ("suspend", Some(50_000)));
    assert!(
        store.session_user("t1", 3000).await.unwrap().is_none(),
        "sessions end"
    );
    assert!(
        store.active_restriction(a, 50_000).await.unwrap().is_none(),
        "runs out"
    );

    assert_eq!(store.lift_expired_sanctions(49_999).await.unwrap(), 0);
    assert_eq!(store.lift_expired_sanctions(60_000).await.unwrap(), 1);
    assert_eq!(
        store.lift_expired_sanctions(61_000).await.unwrap(),
        0,
        "once"
    );
    assert_eq!(
        store.sanction_history(a).await.unwrap()[0]
            .sanction
            .lifted_at,
        Some(50_000)
    );

    store
        .add_sanction(&sanction("suspend", Some(90_000)), &audit("suspend", 2000))
        .await
        .unwrap();
    store
        .add_sanction(&sanction("ban", None), &audit("ban", 2000))
        .await
        .unwrap();
    let r = store.active_restriction(a, 70_000).await.unwrap().unwrap();
    assert_eq!(r.kind, "ban", "a ban outranks a suspension");
    assert_eq!(store.sanction_history(a).await.unwrap().len(), 4);
}

async fn warnings_wait_until_their_user_has_seen_them(store: Store) {
    let (a, b) = two_users(&store).await;
    let sanction = |user_id, kind, reason, now| NewSanction {
        user_id,
        kind,
        reason,
        until: None,
        operator_id: None,
        report_id: None,
        now,
    };
    let first = store
        .add_sanction(&sanction(a, "warn", "욕설", 2000), &audit("warn", 2000))
        .await
        .unwrap();
    let second = store
        .add_sanction(&sanction(a, "warn", "광고", 3000), &audit("warn", 3000))
        .await
        .unwrap();
    store
        .add_sanction(
            &sanction(a, "suspend", "위협", 4000),
            &audit("suspend", 4000),
        )
        .await
        .unwrap();
    let unseen = |user| {
        let store = store.clone();
        async move {
            let warnings = store.unseen_warnings(user).await.unwrap();
            warnings.into_iter().map(|w| w.id).collect::<Vec<_>>()
        }
    };
    assert_eq!(
        unseen(a).await,
        vec![first, second],
        "warnings only, oldest first"
    );

    assert!(
        !store.mark_warning_seen(b, first, 5000).await.unwrap(),
        "not another user's"
    );
    assert!(store.mark_warning_seen(a, first, 5000).await.unwrap());
    assert!(
        store.mark_warning_seen(a, first, 6000).await.unwrap(),
        "seen again: still fine"
    );
    assert_eq!(unseen(a).await, vec![second]);
    assert_eq!(unseen(b).await, Vec::<i64>::new());
    let seen: Vec<_> = store
        .sanction_history(a)
        .await
        .unwrap()
        .into_iter()
        .map(|row| (row.sanction.id, row.sanction.seen_at))
        .collect();
    assert!(
        seen.contains(&(first, Some(5000))),
        "the first time: {seen:?}"
    );
    assert!(seen.contains(&(second, None)));
}

async fn the_audit_log_cannot_be_changed(store: Store) {
    store.audit(&audit("login", 1000)).await.unwrap();
    let changes: &[&str] = &[
        "UPDATE audit_log SET action = 'nothing'",
        "DELETE FROM audit_log",
    ];
    for sql in changes {
        assert!(
            store.execute_raw_for_tests(sql).await.is_err(),
            "{sql} must be refused"
        );
    }
    assert_eq!(
        store
            .execute_raw_for_tests(
                "INSERT INTO audit_log (action, detail, ip, at) VALUES ('x', '', '', 1)"
            )
            .await
            .unwrap(),
        1,
        "appending still works"
    );
}

async fn withdrawn_accounts_are_erased_after_the_retention(store: Store) {
    let (a, b) = two_users(&store).await;
    store.withdraw_user(a, 5000).await.unwrap();
    assert_eq!(
        store.erase_withdrawn_before(5000).await.unwrap(),
        0,
        "kept until the cutoff"
    );
    assert_eq!(store.erase_withdrawn_before(5001).await.unwrap(), 1);
    assert_eq!(store.erase_withdrawn_before(9000).await.unwrap(), 0, "once");
    let erased = store.user_by_id(a).await.unwrap().unwrap();
    assert_eq!(erased.status, "erased");
    assert!(erased.phone.is_empty() && erased.nickname.is_none());
    assert_ne!(erased.username, "alice");
    assert_eq!(
        store.user_by_id(b).await.unwrap().unwrap().username,
        "bob",
        "others stay"
    );
}

async fn comments_list_newest_first_without_hidden_ones(store: Store) {
    let (a, _) = two_users(&store).await;
    let mut ids = Vec::new();
    for (i, (user, content)) in [(Some(a), "첫 댓글"), (None, "손님 댓글"), (Some(a), "셋째")]
        .into_iter()
        .enumerate()
    {
        let c = store
            .add_comment(&NewComment {
                user_id: user,
                nickname: if user.is_some() { "별빛" } else { "익명" },
                content,
                ip: "127.0.0.1",
                now: 1000 + i as i64,
            })
            .await
            .unwrap();
        assert_eq!(c.content, content);
        ids.push(c.id);
    }
    let recent = store.recent_comments(2).await.unwrap();
    assert_eq!(
        recent
            .iter()
            .map(|c| c.content.as_str())
            .collect::<Vec<_>>(),
        ["셋째", "손님 댓글"]
    );
    assert_eq!(recent[1].user_id, None);
    let lines = audit_lines(&store).await;
    assert!(store
        .hide_comment(ids[2], None, 5000, &audit("comment.hide", 5000))
        .await
        .unwrap());
    assert!(
        !store
            .hide_comment(ids[2], None, 5001, &audit("comment.hide", 5001))
            .await
            .unwrap(),
        "once"
    );
    assert_eq!(
        audit_lines(&store).await,
        lines + 1,
        "one audit line, with the hiding"
    );
    let review = store.comments_for_review(10).await.unwrap();
    assert_eq!(review.len(), 3, "operators still see it");
    assert!(review[0].hidden_at.is_some());
    let recent = store.recent_comments(3).await.unwrap();
    assert_eq!(
        recent
            .iter()
            .map(|c| c.content.as_str())
            .collect::<Vec<_>>(),
        ["손님 댓글", "첫 댓글"]
    );
}

async fn audit_lines(store: &Store) -> usize {
    store.audit_page(None, 1000).await.unwrap().len()
}

async fn operators_are_unique_and_disabling_ends_their_sessions(store: Store) {
    let id = store
        .add_operator("mina", "hash", 1000, &audit("operator.add", 1000))
        .await
        .unwrap();
    assert!(matches!(
        store
            .add_operator("mina", "hash", 1000, &audit("operator.add", 1000))
            .await,
        Err(StoreError::OperatorExists)
    ));
    assert_eq!(audit_lines(&store).await, 1, "a refused add writes nothing");
    let session = |token_hash| NewOperatorSession {
        token_hash,
        operator_id: id,
        now: 2000,
        expires_at: 10_000,
        ip: "127.0.0.1",
    };
    store
        .create_operator_session(&session("s1"), &audit("operator.login", 2000))
        .await
        .unwrap();
    let live = store.operator_session("s1", 3000).await.unwrap().unwrap();
    assert_eq!(live.operator.username, "mina");
    assert_eq!((live.created_at, live.expires_at), (2000, 10_000));
    assert_eq!(live.second_factor_at, None);
    assert!(
        store
            .operator_session("s1", 10_000)
            .await
            .unwrap()
            .is_none(),
        "expired"
    );

    store
        .slide_operator_session("s1", 20_000, 19_000)
        .await
        .unwrap();
    assert!(
        store
            .operator_session("s1", 15_000)
            .await
            .unwrap()
            .is_some(),
        "slid"
    );
    store
        .slide_operator_session("s1", 21_000, 11_000)
        .await
        .unwrap();
    assert_eq!(
        store
            .operator_session("s1", 15_000)
            .await
            .unwrap()
            .unwrap()
            .expires_at,
        20_000,
        "not again while the deadline is recent"
    );

    assert!(store
        .disable_operator(id, 4000, &audit("operator.disable", 4000))
        .await
        .unwrap());
    assert!(store.operator_session("s1", 5000).await.unwrap().is_none());
    assert!(!store
        .disable_operator(id, 4000, &audit("operator.disable", 4000))
        .await
        .unwrap());
    assert_eq!(audit_lines(&store).await, 3);
    assert!(store
        .operator_by_username("mina")
        .await
        .unwrap()
        .unwrap()
        .disabled_at
        .is_some());
    assert_eq!(store.operators().await.unwrap().len(), 1);
}

async fn a_second_factor_step_passes_once(store: Store) {
    let id = store
        .add_operator("mina", "hash", 1000, &audit("operator.add", 1000))
        .await
        .unwrap();
    assert_eq!(
        store
            .start_totp_enrollment(id, "SECRETONE")
            .await
            .unwrap()
            .as_deref(),
        Some("SECRETONE")
    );
    assert_eq!(
        store
            .start_totp_enrollment(id, "SECRETTWO")
            .await
            .unwrap()
            .as_deref(),
        Some("SECRETONE"),
        "the first secret is kept until enrolled"
    );
    for token_hash in ["s1", "s2", "s3"] {
        store
            .create_operator_session(
                &NewOperatorSession {
                    token_hash,
                    operator_id: id,
                    now: 2000,
                    expires_at: 100_000,
                    ip: "",
                },
                &audit("operator.login", 2000),
            )
            .await
            .unwrap();
    }
    let pass = |token_hash, secret, step| SecondFactor {
        operator_id: id,
        token_hash,
        secret,
        step,
        now: 3000,
    };
    // One code sent twice at once passes once.
    let (first, second) = (pass("s1", "SECRETONE", 100), pass("s2", "SECRETONE", 100));
    let enrol = audit("totp.enrol", 3000);
    let (x, y) = tokio::join!(
        store.pass_second_factor(&first, &enrol),
        store.pass_second_factor(&second, &enrol),
    );
    assert!(x.unwrap() ^ y.unwrap(), "exactly one passes");
    let op = store.operator_by_username("mina").await.unwrap().unwrap();
    assert_eq!(
        (op.totp_last_step, op.totp_enrolled_at),
        (Some(100), Some(3000))
    );
    assert!(
        store
            .start_totp_enrollment(id, "X")
            .await
            .unwrap()
            .is_none(),
        "enrolled"
    );
    assert!(
        !store
            .pass_second_factor(&pass("s3", "SECRETONE", 99), &audit("totp.verify", 3000))
            .await
            .unwrap(),
        "an older step is used up too"
    );
    assert!(
        !store
            .pass_second_factor(&pass("s3", "OTHER", 101), &audit("totp.verify", 3000))
            .await
            .unwrap(),
        "a code of another secret"
    );
    assert!(store
        .pass_second_factor(&pass("s3", "SECRETONE", 101), &audit("totp.verify", 3000))
        .await
        .unwrap());
    assert_eq!(
        store
            .operator_session("s3", 4000)
            .await
            .unwrap()
            .unwrap()
            .second_factor_at,
        Some(3000)
    );
    assert_eq!(
        audit_lines(&store).await,
        1 + 3 + 2,
        "one line per passed code"
    );

    store
        .reset_operator_totp(id, 5000, &audit("operator.reset_totp", 5000))
        .await
        .unwrap();
    let op = store.operator_by_username("mina").await.unwrap().unwrap();
    assert_eq!(
        (op.totp_secret, op.totp_enrolled_at, op.totp_last_step),
        (None, None, None)
    );
    assert!(
        store.operator_session("s3", 6000).await.unwrap().is_none(),
        "sessions end"
    );
}

async fn a_report_resolves_once_with_its_sanction(store: Store) {
    let (a, b) = two_users(&store).await;
    let op = store
        .add_operator("mina", "hash", 1000, &audit("operator.add", 1000))
        .await
        .unwrap();
    let (report, _) = store
        .add_report(&NewReport {
            reporter_id: Some(a),
            reported_id: b,
            room_id: "room-1",
            reasons: &["threat"],
            extra: "",
            now: 10_000,
        })
        .await
        .unwrap();
    open_session(&store, "t1", b, 1000, 1_000_000).await;
    let resolution = Resolution {
        report_id: report,
        status: "actioned",
        resolution: "영구 정지: 협박",
        operator_id: op,
        now: 20_000,
    };
    let ban = NewSanction {
        user_id: b,
        kind: "ban",
        reason: "협박",
        until: None,
        operator_id: Some(op),
        report_id: Some(report),
        now: 20_000,
    };
    let dismissal = Resolution {
        status: "dismissed",
        resolution: "기각",
        ..resolution
    };
    let lines = audit_lines(&store).await;
    let line = audit("report.resolve", 20_000);
    let (x, y) = tokio::join!(
        store.resolve_report(&resolution, Some(&ban), &line),
        store.resolve_report(&dismissal, None, &line),
    );
    let (won, lost) = match (x, y) {
        (Ok(id), Err(StoreError::ReportClosed)) => (id, "dismissed"),
        (Err(StoreError::ReportClosed), Ok(id)) => (id, "actioned"),
        other => panic!("exactly one resolution must win: {other:?}"),
    };
    assert_eq!(
        audit_lines(&store).await,
        lines + 1,
        "the loser writes nothing"
    );
    let row = store.report(report).await.unwrap().unwrap();
    assert_ne!(row.status, lost);
    assert_eq!(row.resolved_by.as_deref(), Some("mina"));
    assert_eq!(row.resolved_at, Some(20_000));
    let sanctions = store.sanction_history(b).await.unwrap();
    match won {
        Some(id) => {
            assert_eq!(row.status, "actioned");
            assert_eq!((sanctions.len(), sanctions[0].sanction.id), (1, id));
            assert_eq!(sanctions[0].sanction.report_id, Some(report));
            assert!(
                store.session_user("t1", 30_000).await.unwrap().is_none(),
                "ban ends sessions"
            );
        }
        None => {
            assert_eq!(row.status, "dismissed");
            assert!(sanctions.is_empty());
            assert!(store.session_user("t1", 30_000).await.unwrap().is_some());
        }
    }
    assert!(matches!(
        store
            .resolve_report(&resolution, Some(&ban), &audit("report.resolve", 30_000))
            .await,
        Err(StoreError::ReportClosed)
    ));
    assert_eq!(
        store.sanction_history(b).await.unwrap().len(),
        sanctions.len(),
        "nothing more"
    );
}

async fn the_console_counts_lists_and_finds(store: Store) {
    let (a, b) = two_users(&store).await;
    store
        .set_nickname(a, "달빛소녀", "달빛소녀", 1000)
        .await
        .unwrap();
    store.set_nickname(b, "달님", "달님", 1000).await.unwrap();
    let sides = || {
        [
            MatchSide {
                user_id: a,
                nickname: "달빛소녀",
            },
            MatchSide {
                user_id: b,
                nickname: "달님",
            },
        ]
    };
    store
        .record_match(&room("r-old", a, b, 5_000), sides())
        .await
        .unwrap();
    store
        .record_match(&room("r-new", a, b, 50_000), sides())
        .await
        .unwrap();
    for (room_id, reporter, reported, at) in [
        ("r-new", Some(a), b, 60_000),
        ("r-old", Some(b), a, 40_000),
        ("r-new", None, b, 70_000),
    ] {
        store
            .add_report(&NewReport {
                reporter_id: reporter,
                reported_id: reported,
                room_id,
                reasons: &["ad", "other"],
                extra: "",
                now: at,
            })
            .await
            .unwrap();
    }
    let counts = store.console_counts(10_000, 65_000).await.unwrap();
    assert_eq!(
        (
            counts.matches_today,
            counts.open_reports,
            counts.overdue_reports
        ),
        (1, 3, 2)
    );
    let queue = store.open_reports(200).await.unwrap();
    let times: Vec<i64> = queue.iter().map(|r| r.created_at).collect();
    assert_eq!(times, [40_000, 60_000, 70_000], "oldest first");
    assert_eq!(queue[0].reporter_nickname.as_deref(), Some("달님"));
    assert_eq!(queue[0].reported_username, "alice");
    assert_eq!(queue[2].source, "filter");
    assert_eq!(queue[2].reporter_id, None);
    assert_eq!(queue[1].reasons, "ad,other");
    assert_eq!(store.open_reports(2).await.unwrap().len(), 2);
    assert!(store.closed_reports(200).await.unwrap().is_empty());
    assert_eq!(store.reports_against(b, 50).await.unwrap().len(), 2);
    assert_eq!(store.reports_filed_by(b, 50).await.unwrap().len(), 1);
    assert_eq!(store.count_reports_filed_by(a).await.unwrap(), 1);

    let found = |q: &'static str| {
        let store = store.clone();
        async move {
            store
                .find_users(q, 20)
                .await
                .unwrap()
                .into_iter()
                .map(|u| u.username)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(found("달").await, ["alice", "bob"], "nickname prefix");
    assert_eq!(found("달빛").await, ["alice"]);
    assert_eq!(
        found("빛").await,
        Vec::<String>::new(),
        "a prefix, not a part"
    );
    assert_eq!(found("BOB").await, ["bob"], "usernames are lowercase");
    assert_eq!(
        found("bo").await,
        Vec::<String>::new(),
        "usernames match whole"
    );
    assert_eq!(store.find_users(&b.to_string(), 20).await.unwrap()[0].id, b);
    assert_eq!(found("%").await, Vec::<String>::new());
}

async fn sanctions_lift_once_while_in_force(store: Store) {
    let (a, _) = two_users(&store).await;
    let op = store
        .add_operator("mina", "hash", 1000, &audit("operator.add", 1000))
        .await
        .unwrap();
    let suspend = |until| NewSanction {
        user_id: a,
        kind: "suspend",
        reason: "욕설",
        until: Some(until),
        operator_id: Some(op),
        report_id: None,
        now: 2000,
    };
    let id = store
        .add_sanction(&suspend(50_000), &audit("sanction.add", 2000))
        .await
        .unwrap();
    let history = store.sanction_history(a).await.unwrap();
    assert_eq!(history[0].operator_username.as_deref(), Some("mina"));
    assert_eq!(history[0].sanction.id, id);
    let lines = audit_lines(&store).await;
    assert!(store
        .lift_sanction(id, 3000, &audit("sanction.lift", 3000))
        .await
        .unwrap());
    assert!(store.active_restriction(a, 3000).await.unwrap().is_none());
    assert!(
        !store
            .lift_sanction(id, 4000, &audit("sanction.lift", 4000))
            .await
            .unwrap(),
        "once"
    );
    let ran_out = store
        .add_sanction(&suspend(5000), &audit("sanction.add", 2000))
        .await
        .unwrap();
    assert!(
        !store
            .lift_sanction(ran_out, 6000, &audit("sanction.lift", 6000))
            .await
            .unwrap(),
        "over already"
    );
    assert_eq!(
        audit_lines(&store).await,
        lines + 2,
        "refusals write nothing"
    );
    assert_eq!(
        store.sanction(id).await.unwrap().unwrap().lifted_at,
        Some(3000)
    );
    let page = store.audit_page(None, 2).await.unwrap();
    assert_eq!(page.len(), 2);
    assert!(page[0].id > page[1].id, "newest first");
    let older = store.audit_page(Some(page[1].id), 100).await.unwrap();
    assert!(older.iter().all(|l| l.id < page[1].id));
    assert_eq!(older.len() + 2, audit_lines(&store).await);
}

fn order(merchant_uid: &str, user_id: i64, amount: i64) -> NewCardOrder<'_> {
    NewCardOrder {
        merchant_uid,
        user_id,
        item: "megaphone_5",
        amount,
        megaphones: 5,
        now: 1,
    }
}

async fn a_card_order_is_paid_once_whoever_asks_again(store: Store) {
    let (u, _) = two_users(&store).await;
    store.add_card_order(&order("m1", u, 2000)).await.unwrap();
    assert_eq!(
        store.pay_card_order("m1", "imp_1", 2000, 2).await.unwrap(),
        Grant::Granted { count: 5 }
    );
    assert_eq!(
        store.pay_card_order("m1", "imp_1", 2000, 3).await.unwrap(),
        Grant::AlreadyGranted { count: 5 }
    );
    assert_eq!(
        store.pay_card_order("m1", "imp_2", 2000, 3).await.unwrap(),
        Grant::Refused,
        "another payment cannot pay it again"
    );
    assert_eq!(store.megaphone_count(u).await.unwrap(), 5);
    let paid = store.card_order("m1").await.unwrap().unwrap();
    assert_eq!(
        (paid.status.as_str(), paid.imp_uid.as_deref()),
        ("paid", Some("imp_1"))
    );
}

async fn a_payment_pays_one_order_of_its_own_amount(store: Store) {
    let (u, _) = two_users(&store).await;
    store.add_card_order(&order("m1", u, 2000)).await.unwrap();
    store.add_card_order(&order("m2", u, 2000)).await.unwrap();
    assert_eq!(
        store.pay_card_order("m1", "imp_1", 500, 2).await.unwrap(),
        Grant::Refused,
        "a payment of another amount"
    );
    assert!(matches!(
        store.pay_card_order("m1", "imp_1", 2000, 2).await.unwrap(),
        Grant::Granted { .. }
    ));
    assert_eq!(
        store.pay_card_order("m2", "imp_1", 2000, 2).await.unwrap(),
        Grant::Refused,
        "the same payment for a second order"
    );
    assert_eq!(
        store
            .pay_card_order("nope", "imp_9", 2000, 2)
            .await
            .unwrap(),
        Grant::Refused
    );
    assert_eq!(store.megaphone_count(u).await.unwrap(), 5);
    assert_eq!(
        store.card_order("m2").await.unwrap().unwrap().status,
        "ready"
    );
}

async fn concurrent_payments_of_one_order_grant_once(store: Store) {
    let (u, _) = two_users(&store).await;
    store.add_card_order(&order("m1", u, 2000)).await.unwrap();
    let tries = (0..8).map(|_| store.pay_card_order("m1", "imp_1", 2000, 2));
    let grants = futures_util::future::join_all(tries).await;
    let granted = grants
        .iter()
        .filter(|g| matches!(g, Ok(Grant::Granted { .. })))
        .count();
    assert_eq!(granted, 1, "{grants:?}");
    assert!(grants.iter().all(Result::is_ok), "{grants:?}");
    assert_eq!(store.megaphone_count(u).await.unwrap(), 5);
}

async fn spending_megaphones_never_goes_below_zero(store: Store) {
    let (u, _) = two_users(&store).await;
    assert_eq!(
        store.spend_megaphone(u, "별", "안녕", 1).await.unwrap(),
        None
    );
    store.add_card_order(&order("m1", u, 2000)).await.unwrap();
    store.pay_card_order("m1", "imp_1", 2000, 2).await.unwrap();
    let sends = (0..8).map(|i| store.spend_megaphone(u, "별", "안녕", i));
    let spent = futures_util::future::join_all(sends).await;
    let sent = spent.iter().filter(|s| matches!(s, Ok(Some(_)))).count();
    assert_eq!(sent, 5, "{spent:?}");
    assert!(spent.iter().all(Result::is_ok), "{spent:?}");
    assert_eq!(store.megaphone_count(u).await.unwrap(), 0);
    assert_eq!(store.recent_megaphones(10).await.unwrap().len(), 5);

    let newest = store.recent_megaphones(1).await.unwrap().remove(0);
    store.return_megaphone(newest.id).await.unwrap();
    store.return_megaphone(newest.id).await.unwrap();
    assert_eq!(
        store.megaphone_count(u).await.unwrap(),
        1,
        "given back once"
    );
}

/// Users a and b, and an ended room `id` of theirs under ‘봄’ made at `at`.
async fn ended_room(store: &Store, a: i64, b: i64, id: &str, at: i64) -> RoomRecord {
    let record = room(id, a, b, at);
    store
        .record_matches(&[(&record, two_sides(a, b))])
        .await
        .unwrap();
    store.mark_room_ended(id, at + 1_000).await.unwrap();
    store.room_record(id).await.unwrap().unwrap()
}

const DAYS_30: i64 = 30 * 86_400_000;

async fn a_pair_is_made_when_both_wish_and_ends_by_either_a_block_or_a_sanction(store: Store) {
    let (a, b) = two_users(&store).await;
    let r1 = ended_room(&store, a, b, "again-1", 10_000).await;
    assert_eq!(
        store.wish_again(&r1, a, 20_000, DAYS_30).await.unwrap(),
        None
    );
    assert_eq!(
        store.wish_again(&r1, a, 21_000, DAYS_30).await.unwrap(),
        None,
        "one wish is no pair, however often said"
    );
    assert!(store.again_pairs_of(a, 22_000).await.unwrap().is_empty());
    assert!(store.again_pairs_of(b, 22_000).await.unwrap().is_empty());
    let id = store
        .wish_again(&r1, b, 30_000, 30_000 + DAYS_30)
        .await
        .unwrap()
        .expect("both wished");
    let seen_by = |partner_id| AgainPair {
        id,
        partner_id,
        room_id: "again-1".into(),
        word: "봄".into(),
        created_at: 30_000,
        until: 30_000 + DAYS_30,
    };
    assert_eq!(store.again_pairs_of(a, 40_000).await.unwrap(), [seen_by(b)]);
    assert_eq!(store.again_pairs_of(b, 40_000).await.unwrap(), [seen_by(a)]);
    assert_eq!(
        store.again_pair(id, a, 40_000).await.unwrap(),
        Some(seen_by(b))
    );
    assert_eq!(
        store.again_pair(id, 999, 40_000).await.unwrap(),
        None,
        "not theirs"
    );
    assert!(
        store
            .again_pairs_of(a, 30_000 + DAYS_30)
            .await
            .unwrap()
            .is_empty(),
        "lapsed after its days"
    );

    // Either takes it back, for both; wishing again after a later chat pairs them anew.
    assert!(store.end_again_pair(id, b, 50_000).await.unwrap());
    assert!(!store.end_again_pair(id, a, 51_000).await.unwrap());
    assert!(store.again_pairs_of(a, 52_000).await.unwrap().is_empty());
    let r2 = ended_room(&store, a, b, "again-2", 60_000).await;
    store.wish_again(&r2, b, 70_000, DAYS_30).await.unwrap();
    let renewed = store
        .wish_again(&r2, a, 71_000, 71_000 + DAYS_30)
        .await
        .unwrap()
        .unwrap();
    assert_ne!(renewed, id);
    let r3 = ended_room(&store, a, b, "again-3", 80_000).await;
    store.wish_again(&r3, a, 90_000, DAYS_30).await.unwrap();
    assert_eq!(
        store
            .wish_again(&r3, b, 91_000, 91_000 + DAYS_30)
            .await
            .unwrap(),
        Some(renewed),
        "a pair they are already is renewed under the later room"
    );
    assert_eq!(
        store.again_pairs_of(a, 92_000).await.unwrap()[0].room_id,
        "again-3"
    );

    // A sanction of either since the pair was made ends it.
    store
        .add_sanction(
            &NewSanction {
                user_id: b,
                kind: "warn",
                reason: "욕설",
                until: None,
                operator_id: None,
                report_id: None,
                now: 100_000,
            },
            &audit("warn", 100_000),
        )
        .await
        .unwrap();
    assert!(store.again_pairs_of(a, 101_000).await.unwrap().is_empty());
    assert_eq!(store.again_pair(renewed, a, 101_000).await.unwrap(), None);

    // A suspension in force, even one given before the pair was made, holds it back
    // while it lasts.
    let r6 = ended_room(&store, a, b, "again-6", 102_000).await;
    store
        .add_sanction(
            &NewSanction {
                user_id: a,
                kind: "suspend",
                reason: "욕설",
                until: Some(106_000),
                operator_id: None,
                report_id: None,
                now: 103_000,
            },
            &audit("suspend", 103_000),
        )
        .await
        .unwrap();
    store.wish_again(&r6, b, 104_000, DAYS_30).await.unwrap();
    let held = store
        .wish_again(&r6, a, 104_500, 104_500 + DAYS_30)
        .await
        .unwrap()
        .unwrap();
    assert!(store.again_pairs_of(b, 105_000).await.unwrap().is_empty());
    assert_eq!(store.again_pair(held, b, 105_000).await.unwrap(), None);
    assert_eq!(
        store.again_pairs_of(b, 107_000).await.unwrap().len(),
        1,
        "lapsed"
    );

    // After a block (a report blocks too), no pair is made or held.
    let r4 = ended_room(&store, a, b, "again-4", 110_000).await;
    store.wish_again(&r4, a, 120_000, DAYS_30).await.unwrap();
    assert!(store
        .wish_again(&r4, b, 121_000, 121_000 + DAYS_30)
        .await
        .unwrap()
        .is_some());
    assert_eq!(store.again_pairs_of(a, 122_000).await.unwrap().len(), 1);
    assert!(store.add_block(b, a, 123_000).await.unwrap());
    assert!(store.again_pairs_of(a, 124_000).await.unwrap().is_empty());
    assert!(store.again_pairs_of(b, 124_000).await.unwrap().is_empty());
    let r5 = ended_room(&store, a, b, "again-5", 130_000).await;
    store.wish_again(&r5, a, 140_000, DAYS_30).await.unwrap();
    assert_eq!(
        store.wish_again(&r5, b, 141_000, DAYS_30).await.unwrap(),
        None
    );
}

async fn a_pair_has_one_open_invitation_answered_once(store: Store) {
    let (a, b) = two_users(&store).await;
    let r1 = ended_room(&store, a, b, "again-1", 10_000).await;
    store.wish_again(&r1, a, 20_000, DAYS_30).await.unwrap();
    let pair = store
        .wish_again(&r1, b, 21_000, DAYS_30)
        .await
        .unwrap()
        .unwrap();
    let invite = |id, from_user, to_user, now| NewInvite {
        id,
        pair_id: pair,
        from_user,
        to_user,
        now,
        until: now + 60_000,
        counted_since: 0,
        at_most: 3,
    };
    let sent = InviteOutcome::Sent;
    assert_eq!(
        store
            .add_again_invite(&invite("i1", a, b, 100_000))
            .await
            .unwrap(),
        sent
    );
    assert_eq!(
        store
            .add_again_invite(&invite("i2", b, a, 110_000))
            .await
            .unwrap(),
        InviteOutcome::Pending,
        "one open invitation a pair, whoever sends"
    );
    assert_eq!(
        store.answer_again_invite("i1", a, 120_000).await.unwrap(),
        None,
        "only its receiver answers"
    );
    let answered = Some(AnsweredInvite {
        pair_id: pair,
        from_user: a,
    });
    assert_eq!(
        store.answer_again_invite("i1", b, 120_000).await.unwrap(),
        answered
    );
    assert_eq!(
        store.answer_again_invite("i1", b, 121_000).await.unwrap(),
        None,
        "once"
    );

    // The chat it opened is the pair's meeting again in both histories; the one that made
    // the pair is not.
    ended_room(&store, a, b, "again-2", 122_000).await;
    store.note_again_room("i1", "again-2").await.unwrap();
    for user in [a, b] {
        let history = store.word_history(user, 50).await.unwrap();
        let marks: Vec<_> = history
            .iter()
            .map(|h| (h.room_id.as_str(), h.again()))
            .collect();
        assert_eq!(marks, [("again-2", true), ("again-1", false)]);
    }

    // An answered one frees the place; an unanswered one frees it once it lapses, and
    // can no longer be answered.
    assert_eq!(
        store
            .add_again_invite(&invite("i3", b, a, 130_000))
            .await
            .unwrap(),
        sent
    );
    assert_eq!(
        store.answer_again_invite("i3", a, 190_000).await.unwrap(),
        None
    );
    assert_eq!(
        store
            .add_again_invite(&invite("i4", a, b, 190_000))
            .await
            .unwrap(),
        sent
    );
    assert_eq!(
        store
            .add_again_invite(&invite("i5", a, b, 260_000))
            .await
            .unwrap(),
        sent
    );
    assert_eq!(
        store
            .add_again_invite(&invite("i6", a, b, 330_000))
            .await
            .unwrap(),
        InviteOutcome::TooMany,
        "a sent three since the count began"
    );
    assert_eq!(
        store
            .add_again_invite(&NewInvite {
                counted_since: 300_000,
                ..invite("i6", a, b, 330_000)
            })
            .await
            .unwrap(),
        sent,
        "a new night counts afresh"
    );
}

/// Invitations to several pairs sent at once, on any nodes, never pass the sender's
/// nightly limit together: each counts and writes in turn.
async fn invitations_at_once_keep_the_nightly_limit(store: Store) {
    let (a, b) = two_users(&store).await;
    let mut pairs = Vec::new();
    for i in 0..7i64 {
        let partner = if i == 0 {
            b
        } else {
            let phone = format!("0105555{i:04}");
            verify_phone(&store, &phone, 1000).await;
            let name = format!("partner{i}");
            store
                .register_user(&user(&name, &phone, 2000), 0)
                .await
                .unwrap()
                .unwrap()
        };
        let r = ended_room(&store, a, partner, &format!("again-n{i}"), 10_000 + i).await;
        store.wish_again(&r, a, 20_000, DAYS_30).await.unwrap();
        let pair = store
            .wish_again(&r, partner, 21_000, DAYS_30)
            .await
            .unwrap()
            .unwrap();
        pairs.push((pair, partner));
    }
    let ids: Vec<String> = (0..pairs.len()).map(|i| format!("night-{i}")).collect();
    let invites: Vec<NewInvite<'_>> = pairs
        .iter()
        .zip(&ids)
        .map(|(&(pair_id, to_user), id)| NewInvite {
            id,
            pair_id,
            from_user: a,
            to_user,
            now: 100_000,
            until: 160_000,
            counted_since: 0,
            at_most: 5,
        })
        .collect();
    let sent =
        futures_util::future::join_all(invites.iter().map(|i| store.add_again_invite(i))).await;
    let outcomes: Vec<InviteOutcome> = sent.into_iter().map(Result::unwrap).collect();
    let count = |o: InviteOutcome| outcomes.iter().filter(|x| **x == o).count();
    assert_eq!(count(InviteOutcome::Sent), 5, "{outcomes:?}");
    assert_eq!(count(InviteOutcome::TooMany), 2, "{outcomes:?}");
}

/// Nodes starting together take turns under the migrations' lock, and a turn may last
/// longer than a request waits for a lock: a store that starts behind one waits for it.
#[tokio::test]
async fn a_store_starting_behind_another_s_migration_waits_for_it() {
    use sqlx::Connection as _;
    let url = telepathy_store::testing::fresh_url(Backend::Postgres).await;
    let _first = Store::connect(&url).await.unwrap();
    let mut holder = sqlx::AnyConnection::connect(&url).await.unwrap();
    for sql in [
        "BEGIN",
        "LOCK TABLE _sqlx_migrations IN ACCESS EXCLUSIVE MODE",
    ] {
        sqlx::query(sql).execute(&mut holder).await.unwrap();
    }
    let held = telepathy_store::WAIT + std::time::Duration::from_secs(1);
    let release = tokio::spawn(async move {
        tokio::time::sleep(held).await;
        sqlx::query("COMMIT").execute(&mut holder).await.unwrap();
    });
    let started = std::time::Instant::now();
    let second = Store::connect(&url).await;
    assert!(
        second.is_ok(),
        "the second start waited: {:?}",
        second.err()
    );
    assert!(started.elapsed() >= held, "it did wait for the lock");
    release.await.unwrap();
}
