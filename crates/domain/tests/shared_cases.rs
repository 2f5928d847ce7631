//! The rules checked against the table the web app reads too.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use telepathy_domain::safety::ReportForm;
use telepathy_domain::wordset::{CustomWord, RealName, RefundAccount, RefundBank};
use telepathy_domain::{
    check_new_password, Birthdate, ErrorCode, Nickname, Password, PasswordContext, Phone, Username,
};

fn table() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/validation-cases.json"
    );
    let text = std::fs::read_to_string(path).expect("read the shared table");
    serde_json::from_str(&text).expect("parse the shared table")
}

fn code_name(code: ErrorCode) -> String {
    // SCREAMING_SNAKE_CASE of the variant name, as the API spells it.
    let mut out = String::new();
    for (i, c) in format!("{code:?}").chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

fn check(rule: &str, validate: impl Fn(&str) -> Result<(), ErrorCode>) {
    check_named(rule, |s| validate(s).err().map(code_name));
}

fn check_named(rule: &str, validate: impl Fn(&str) -> Option<String>) {
    let table = table();
    let cases = table[rule].as_array().expect("cases of the rule");
    assert!(!cases.is_empty());
    for case in cases {
        let input = case["input"].as_str().expect("input");
        let expected = case["error"].as_str();
        let got = validate(input);
        assert_eq!(got.as_deref(), expected, "rule {rule}, input {input:?}");
    }
}

#[test]
fn username() {
    check("username", |s| Username::parse(s).map(drop));
}

#[test]
fn register_password() {
    check("registerPassword", |s| Password::parse_new(s).map(drop));
}

#[test]
fn new_password() {
    // The table names the mismatch generically; both contexts must agree with it.
    for (context, name) in [
        (PasswordContext::Reset, ErrorCode::ResetPasswordMismatch),
        (PasswordContext::Change, ErrorCode::NewPasswordMismatch),
    ] {
        check_named("newPassword", |s| {
            check_new_password(context, s, None).err().map(|e| {
                if e == name {
                    "MISMATCH".to_owned()
                } else {
                    code_name(e)
                }
            })
        });
    }
}

#[test]
fn phone() {
    check("phone", |s| Phone::parse(s).map(drop));
}

#[test]
fn birthdate() {
    check("birthdate", |s| Birthdate::parse(s).map(drop));
}

#[test]
fn nickname() {
    check("nickname", |s| Nickname::parse(s).map(drop));
}

#[test]
fn real_name() {
    check("realName", |s| RealName::parse(s).map(drop));
}

#[test]
fn wordset_word() {
    check("wordsetWord", |s| CustomWord::parse(s).map(drop));
}

#[test]
fn refund_bank() {
    check("refundBank", |s| RefundBank::parse(s).map(drop));
}

#[test]
fn refund_account() {
    check("refundAccount", |s| RefundAccount::parse(s).map(drop));
}

#[test]
fn report() {
    let table = table();
    let cases = table["report"].as_array().expect("report cases");
    assert!(!cases.is_empty());
    for case in cases {
        let reasons: Vec<String> = case["reasons"]
            .as_array()
            .expect("reasons")
            .iter()
            .map(|r| r.as_str().expect("a reason").to_owned())
            .collect();
        let extra = case["extra"].as_str().expect("extra");
        let got = ReportForm::parse(&reasons, extra).err().map(code_name);
        assert_eq!(
            got.as_deref(),
            case["error"].as_str(),
            "report {reasons:?}, {extra:?}"
        );
    }
}

#[test]
fn messages_match_the_table() {
    let table = table();
    let messages = table["messages"].as_object().expect("messages");
    for code in ErrorCode::ALL {
        if let Some(text) = messages.get(&code_name(*code)) {
            assert_eq!(text.as_str(), Some(code.message()), "{code:?}");
        }
    }
    for name in messages.keys() {
        assert!(
            ErrorCode::ALL.iter().any(|c| &code_name(*c) == name),
            "the table names {name}, which the domain lacks"
        );
    }
}
