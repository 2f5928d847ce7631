//! The voice the server speaks in, held: every Korean text it says is in 해요체 and quotes a
//! word in ‘…’, but for the texts the product specification quotes word for word. The rule
//! and that allow list live in `testdata/voice.json`, which the web app's catalogue test reads
//! too (ARCHITECTURE.md, "Voice").

use std::time::Duration;

use regex::Regex;
use serde_json::Value;

use crate::safety::{warning_message, Restriction, SanctionKind};
use crate::{megaphone, questions, ErrorCode, Notice};

/// The texts the specification quotes word for word: they keep their 합니다체.
fn verbatim() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/voice.json");
    let text = std::fs::read_to_string(path).expect("read testdata/voice.json");
    let table: Value = serde_json::from_str(&text).expect("parse testdata/voice.json");
    table["verbatim"]
        .as_array()
        .expect("the verbatim texts")
        .iter()
        .map(|t| t.as_str().expect("a verbatim text").to_owned())
        .collect()
}

/// What breaks the voice in `text`, if anything.
fn fault(text: &str) -> Option<&'static str> {
    // A sentence that ends in ~니다 (합니다, 습니다, 입니다), ~십시오 or asks in ~니까.
    let formal = Regex::new(r"(니다|십시오)([^가-힣]|$)|니까\?").expect("the pattern");
    if formal.is_match(text) {
        return Some("합니다체: say it in 해요체 (~해요, ~했어요, ~예요)");
    }
    if text.contains(['“', '”', '"', '\'']) {
        return Some("another quotation mark: quote in ‘…’");
    }
    if text.matches('‘').count() != text.matches('’').count() {
        return Some("an unclosed ‘…’");
    }
    None
}

/// Every Korean text of this crate the user reads, each with where it comes from.
fn texts() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for code in ErrorCode::ALL {
        out.push((format!("ErrorCode::{code:?}"), code.message().to_owned()));
    }
    for notice in Notice::ALL {
        out.push((format!("Notice::{notice:?}"), notice.message().to_owned()));
    }
    out.push((
        "megaphone::too_soon".to_owned(),
        megaphone::too_soon(Duration::from_secs(7)),
    ));
    for until in [Some(1_764_500_700_000), None] {
        let restriction = Restriction {
            kind: SanctionKind::Suspend,
            reason: "욕설".to_owned(),
            until,
        };
        out.push(("Restriction::message".to_owned(), restriction.message()));
    }
    out.push(("warning_message".to_owned(), warning_message("욕설")));
    for text in questions::all() {
        out.push(("questions".to_owned(), text.to_owned()));
    }
    out
}

#[test]
fn the_rule_catches_the_formal_register_and_other_quotation_marks() {
    for wrong in [
        "닉네임이 저장되었습니다.",
        "이미 처리된 신고입니다",
        "결제에 실패했습니다: 카드 한도 초과",
        "잠시 후 다시 시도하십시오.",
        "탈퇴하시겠습니까?",
        "“봄”을 고른 사람을 기다리고 있어요",
        "'봄'으로 할까요?",
        "‘봄으로 할까요?",
    ] {
        assert!(fault(wrong).is_some(), "{wrong}");
    }
    for right in [
        "닉네임이 저장되었어요.",
        "이미 처리된 신고예요.",
        "‘봄’을 고른 사람을 기다리고 있어요",
        "지금 들어와서 같은 단어를 고른 사람과 이어져 보세요.",
    ] {
        assert_eq!(fault(right), None, "{right}");
    }
}

#[test]
fn every_text_the_server_says_is_in_the_apps_voice() {
    let verbatim = verbatim();
    let faults: Vec<String> = texts()
        .into_iter()
        .filter(|(_, text)| !verbatim.contains(text))
        .filter_map(|(from, text)| fault(&text).map(|why| format!("{from}: {text:?}: {why}")))
        .collect();
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}
