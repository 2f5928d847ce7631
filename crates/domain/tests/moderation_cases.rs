//! The abuse filter checked against `testdata/moderation-cases.json`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use telepathy_domain::{moderation, ErrorCode, Nickname};

fn table() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/moderation-cases.json"
    );
    let text = std::fs::read_to_string(path).expect("read the moderation table");
    serde_json::from_str(&text).expect("parse the moderation table")
}

fn cases(part: &str) -> Vec<Value> {
    let table = table();
    let cases = table[part].as_array().expect("cases of the part").clone();
    assert!(!cases.is_empty());
    cases
}

/// Checks one word case; returns what went wrong, if anything.
fn check(case: &Value) -> Option<String> {
    let input = case["input"].as_str().expect("input");
    let abusive = case["abusive"].as_bool().expect("abusive");
    let masked = case["masked"].as_str().expect("masked");
    let note = case["note"].as_str().unwrap_or("");
    let got_clean = moderation::is_clean(input);
    let got_masked = moderation::mask(input);
    if got_clean == abusive || got_masked != masked {
        return Some(format!(
            "{input:?} ({note}): abusive {abusive}, got {}; masked {masked:?}, got {got_masked:?}",
            !got_clean
        ));
    }
    if got_masked.chars().count() != input.chars().count() {
        return Some(format!("{input:?}: mask changed the length"));
    }
    None
}

fn check_contacts(case: &Value) -> Option<String> {
    let input = case["input"].as_str().expect("input");
    let expected = case["contacts_masked"].as_str().expect("contacts_masked");
    let got = moderation::mask_contacts(input);
    (got != expected).then(|| format!("{input:?}: expected {expected:?}, got {got:?}"))
}

fn report(failures: Vec<String>) {
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn words() {
    report(cases("words").iter().filter_map(check).collect());
}

#[test]
fn contacts() {
    report(
        cases("contacts")
            .iter()
            .filter_map(check_contacts)
            .collect(),
    );
}

#[test]
fn nicknames() {
    let failures = cases("nicknames")
        .iter()
        .filter_map(|case| {
            let input = case["input"].as_str().expect("input");
            let expected = case["nickname_error"].as_str();
            let got = Nickname::parse(input).err();
            let got_name = got.map(|e| {
                assert_eq!(e, ErrorCode::ContentNotAllowed, "{input:?}");
                "CONTENT_NOT_ALLOWED"
            });
            (got_name != expected).then(|| format!("{input:?}: expected {expected:?}, got {got:?}"))
        })
        .collect();
    report(failures);
}

#[test]
fn the_table_is_large_enough() {
    assert!(cases("words").len() + cases("contacts").len() >= 120);
    let clean = cases("words")
        .iter()
        .filter(|c| c["abusive"] == Value::Bool(false))
        .count();
    assert!(clean >= 30);
}

#[test]
fn found_ranges_are_what_mask_hides() {
    for case in cases("words") {
        let input = case["input"].as_str().expect("input");
        for range in moderation::find(input) {
            assert!(input.is_char_boundary(range.start) && input.is_char_boundary(range.end));
        }
        for range in moderation::find_contacts(input) {
            assert!(input.is_char_boundary(range.start) && input.is_char_boundary(range.end));
        }
    }
}

#[test]
fn no_round_word_is_flagged() {
    for topic in telepathy_domain::words::CATALOGUE {
        for word in topic.words {
            assert!(moderation::is_clean(word), "{word}");
        }
    }
}

#[test]
fn the_nickname_message_is_the_one_the_product_shows() {
    assert_eq!(
        ErrorCode::ContentNotAllowed.message(),
        "부적절한 표현이 포함되어 있어요. 다른 표현을 사용해주세요."
    );
    assert!(moderation::check_nickname_words("시발").is_err());
    assert!(moderation::check_nickname_words("텔레파시").is_ok());
}
