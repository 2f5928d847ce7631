//! The comment board of the closed hours.

use serde_json::json;

use crate::helpers::TestApp;

crate::both!(
    comments_come_newest_first_with_the_author_from_the_session,
    bad_comments_are_refused_and_posting_is_limited,
    comments_are_cleaned_before_they_are_stored,
    contact_details_and_links_are_masked_on_the_public_board,
    disguised_contact_details_are_masked_on_the_board,
);

async fn comments_come_newest_first_with_the_author_from_the_session(mut app: TestApp) {
    assert_eq!(app.get("/api/comments").await.body, json!([]));
    // A guest posts as guest_user, shown as 익명, whatever the payload claims.
    let guest = app
        .post(
            "/api/comments",
            json!({ "username": "admin", "nickname": "운영자", "content": "  빨리 열어주세요  " }),
        )
        .await;
    let posted = &guest.assert_ok()["comment"];
    assert_eq!(posted["nickname"], json!("익명"));
    assert_eq!(posted["username"], json!("guest_user"));
    assert_eq!(posted["content"], json!("빨리 열어주세요"));

    app.sign_up("alice", "abcdefg1", "01011112222").await;
    app.post("/api/nickname/set-nickname", json!({ "nickname": "별빛" }))
        .await
        .assert_ok();
    app.post(
        "/api/comments",
        json!({ "username": "bobby", "nickname": "달빛", "content": "8시에 봐요" }),
    )
    .await
    .assert_ok();

    let list = app.get("/api/comments").await;
    let list = list.body.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["content"], json!("8시에 봐요"), "newest first");
    assert_eq!(list[0]["nickname"], json!("별빛"));
    // No login ID is ever shown.
    assert_eq!(list[0]["username"], json!("별빛"));
    assert_eq!(list[1]["nickname"], json!("익명"));
    assert!(list[0]["createdAt"].as_str().unwrap().contains('T'));
}

async fn bad_comments_are_refused_and_posting_is_limited(mut app: TestApp) {
    let post = |content: String| json!({ "content": content });
    app.post("/api/comments", post("   ".into()))
        .await
        .assert_error(400, "COMMENT_EMPTY");
    app.post("/api/comments", json!({}))
        .await
        .assert_error(400, "COMMENT_EMPTY");
    app.post("/api/comments", post("가".repeat(101)))
        .await
        .assert_error(400, "COMMENT_TOO_LONG");
    let abusive = app
        .post("/api/comments", post("ㅅㅂ 언제 열어".into()))
        .await;
    abusive.assert_error(400, "CONTENT_NOT_ALLOWED");
    assert_eq!(
        app.get("/api/comments").await.body,
        json!([]),
        "nothing stored"
    );

    // A member: 5 per 10 minutes.
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    for i in 0..5 {
        app.post("/api/comments", post(format!("댓글 {i}")))
            .await
            .assert_ok();
    }
    app.post("/api/comments", post("여섯째".into()))
        .await
        .assert_error(429, "RATE_LIMITED");
    // One address: 20 per 10 minutes, members and guests together.
    app.cookie = None;
    for i in 0..15 {
        app.post("/api/comments", post(format!("손님 {i}")))
            .await
            .assert_ok();
    }
    app.post("/api/comments", post("넘침".into()))
        .await
        .assert_error(429, "RATE_LIMITED");
    assert_eq!(
        app.get("/api/comments")
            .await
            .body
            .as_array()
            .unwrap()
            .len(),
        20
    );
}

/// What the board stores is cleaned first (`domain::text`), on SQLite as on PostgreSQL, which
/// refuses a NUL byte: control characters, direction overrides and line breaks do not reach
/// it, and a comment of nothing else is empty.
async fn comments_are_cleaned_before_they_are_stored(mut app: TestApp) {
    let posted = app
        .post(
            "/api/comments",
            json!({ "content": "열\u{0}어\u{202e}주\r\n세요\u{200b}" }),
        )
        .await;
    assert_eq!(
        posted.assert_ok()["comment"]["content"],
        json!("열어주 세요")
    );
    app.post("/api/comments", json!({ "content": "\u{0}\u{7}\u{feff}" }))
        .await
        .assert_error(400, "COMMENT_EMPTY");
    let list = app.get("/api/comments").await;
    assert_eq!(list.body[0]["content"], json!("열어주 세요"));
    assert_eq!(list.body.as_array().unwrap().len(), 1);
}

/// The board is public: contact details and links are masked before a comment is stored,
/// by the chat's own rules (`moderation::mask_contacts`), whoever posts it. Times and plain
/// numbers stay as written.
async fn contact_details_and_links_are_masked_on_the_public_board(mut app: TestApp) {
    let said = [
        ("번호 010-1234-5678 문자줘", "번호 ************* 문자줘"),
        (
            "open.kakao.com/o/abcdef 들어와",
            "*********************** 들어와",
        ),
        ("공일공 일이삼사 오육칠팔", "*************"),
        ("8시 30분에 열어요?", "8시 30분에 열어요?"),
    ];
    for (content, shown) in said {
        let posted = app
            .post("/api/comments", json!({ "content": content }))
            .await;
        assert_eq!(posted.assert_ok()["comment"]["content"], json!(shown));
    }
    app.sign_up("alice", "abcdefg1", "01011112222").await;
    let posted = app
        .post(
            "/api/comments",
            json!({ "content": "카톡 아이디 abc123 https://example.com/path" }),
        )
        .await;
    let masked = "카톡 아이디 ****** ************************";
    assert_eq!(posted.assert_ok()["comment"]["content"], json!(masked));

    let list = app.get("/api/comments").await;
    let list: Vec<_> = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["content"].clone())
        .collect();
    assert_eq!(
        list,
        [
            json!(masked),
            json!("8시 30분에 열어요?"),
            json!("*************"),
            json!("*********************** 들어와"),
            json!("번호 ************* 문자줘"),
        ]
    );
    // What the board stores is the masked text: no one reads more, operators neither.
    let stored = app.state.store.recent_comments(10).await.unwrap();
    assert!(
        stored.iter().all(|c| !c.content.contains("1234")),
        "{stored:?}"
    );
}

/// Contact details disguised as other scripts' digits, digit signs, numbers spelled out,
/// split messenger names and spelled addresses are masked on the board too.
async fn disguised_contact_details_are_masked_on_the_board(mut app: TestApp) {
    let disguised = [
        ("𝟎𝟏𝟎-𝟏𝟐𝟑𝟒-𝟓𝟔𝟕𝟖 연락줘", "𝟏𝟐𝟑𝟒"),
        ("٠١٠-١٢٣٤-٥٦٧٨ 연락줘", "١٢٣٤"),
        ("⑴⑵⑶⑷ 말고 ⓪①⓪-①②③④-⑤⑥⑦⑧", "①②③④"),
        ("⁰¹⁰ ¹²³⁴ ⁵⁶⁷⁸", "¹²³⁴"),
        ("공일공 하나둘삼사 오육칠팔", "하나둘삼사"),
        ("〇一〇-一二三四-五六七八", "一二三四"),
        ("ㅋㅏ톡 아이디 abc123", "abc123"),
        ("카\u{200c}톡 아이디 abc123", "abc123"),
        ("abc 골뱅이 naver 닷컴 으로 보내", "naver"),
        ("hxxp://example.com/path 들어와", "example.com"),
    ];
    for (content, hidden) in disguised {
        let posted = app
            .post("/api/comments", json!({ "content": content }))
            .await;
        let shown = posted.assert_ok()["comment"]["content"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            shown.contains('*') && !shown.contains(hidden),
            "{content:?} was shown as {shown:?}"
        );
    }
}
