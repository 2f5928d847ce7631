//! Typed values for account input. Each `parse` is the one home of its rule; the web app
//! mirrors these rules and both are tested against `testdata/validation-cases.json`.

use chrono::{Datelike, NaiveDate};

use crate::ErrorCode;

/// A login name: 4–20 characters of lowercase ASCII letters, digits and `_`.
///
/// Lowercase only, so that `Alice` and `alice` can never be two people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Username(String);

impl Username {
    pub fn parse(input: &str) -> Result<Self, ErrorCode> {
        let s = input.trim();
        if s.is_empty() {
            return Err(ErrorCode::UsernameRequired);
        }
        let ok_chars = s
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !ok_chars || !(4..=20).contains(&s.len()) {
            return Err(ErrorCode::UsernameInvalid);
        }
        Ok(Self(s.to_owned()))
    }
}

impl AsRef<str> for Username {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Where a new password is chosen. Every context holds it to the sign-up rule
/// (`Password::parse_new`: 8+ characters with two of letters, digits and other characters),
/// where the spec lets a reset or a change take 6 characters: a password changed later must
/// not be weaker than the one the account was made with. The contexts differ only in the
/// message of a confirmation that does not match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasswordContext {
    /// Sign-up.
    Register,
    /// Find-password reset: the sign-up rule, and equal to its confirmation.
    Reset,
    /// Password change: the sign-up rule, and equal to its confirmation.
    Change,
}

/// The longest password we accept, so that hashing cost stays bounded.
const MAX_PASSWORD_CHARS: usize = 64;
/// The shortest operator password.
pub const OPERATOR_PASSWORD_MIN_CHARS: usize = 12;

/// A password that met the rule of its context. Never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(***)")
    }
}

impl Password {
    /// The sign-up rule (spec section 5).
    pub fn parse_new(input: &str) -> Result<Self, ErrorCode> {
        if input.is_empty() {
            return Err(ErrorCode::FieldsRequired);
        }
        let chars = input.chars().count();
        if chars > MAX_PASSWORD_CHARS {
            return Err(ErrorCode::PasswordTooLong);
        }
        let letters = input.chars().any(char::is_alphabetic);
        let digits = input.chars().any(|c| c.is_ascii_digit());
        let specials = input
            .chars()
            .any(|c| !c.is_alphabetic() && !c.is_ascii_digit() && !c.is_whitespace());
        let classes = [letters, digits, specials].iter().filter(|b| **b).count();
        if chars < 8 || classes < 2 {
            return Err(ErrorCode::PasswordWeak);
        }
        Ok(Self(input.to_owned()))
    }

    /// An operator's password, stronger than a user's: operators see chats and sanction
    /// people. At least `OPERATOR_PASSWORD_MIN_CHARS` characters holding three of lowercase
    /// letters, uppercase letters, digits and symbols (anything else but spaces, Hangul
    /// included).
    pub fn parse_operator(input: &str) -> Result<Self, ErrorCode> {
        let chars = input.chars().count();
        if chars > MAX_PASSWORD_CHARS {
            return Err(ErrorCode::PasswordTooLong);
        }
        let lower = input.chars().any(char::is_lowercase);
        let upper = input.chars().any(char::is_uppercase);
        let digits = input.chars().any(|c| c.is_ascii_digit());
        let symbols = input.chars().any(|c| {
            !c.is_lowercase() && !c.is_uppercase() && !c.is_ascii_digit() && !c.is_whitespace()
        });
        let classes = [lower, upper, digits, symbols]
            .iter()
            .filter(|b| **b)
            .count();
        if chars < OPERATOR_PASSWORD_MIN_CHARS || classes < 3 {
            return Err(ErrorCode::OperatorPasswordWeak);
        }
        Ok(Self(input.to_owned()))
    }

    /// A password typed to log in or to prove the current one: anything non-empty.
    pub fn parse_existing(input: &str) -> Result<Self, ErrorCode> {
        if input.is_empty() {
            return Err(ErrorCode::FieldsRequired);
        }
        if input.chars().count() > MAX_PASSWORD_CHARS {
            return Err(ErrorCode::LoginFailed);
        }
        Ok(Self(input.to_owned()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// What a login form gives, a user's or an operator's, read the one way both logins read it.
#[derive(Debug)]
pub struct Credentials {
    pub username: Username,
    pub password: Password,
}

impl Credentials {
    /// A blank field is `FIELDS_REQUIRED`. A malformed username (after lowercasing) or an
    /// over-long password is simply `LOGIN_FAILED`: saying more would tell a stranger about
    /// our rules for existing accounts.
    pub fn parse(username: &str, password: &str) -> Result<Self, ErrorCode> {
        if username.trim().is_empty() || password.is_empty() {
            return Err(ErrorCode::FieldsRequired);
        }
        let (Ok(username), Ok(password)) = (
            Username::parse(&username.to_lowercase()),
            Password::parse_existing(password),
        ) else {
            return Err(ErrorCode::LoginFailed);
        };
        Ok(Self { username, password })
    }
}

/// A new password of any context: the sign-up rule (a password left empty in a reset or a
/// change reads as the spec's "check it again"), then equal to the confirmation when one is
/// given.
pub fn check_new_password(
    context: PasswordContext,
    password: &str,
    confirmation: Option<&str>,
) -> Result<Password, ErrorCode> {
    if context == PasswordContext::Register {
        return Password::parse_new(password);
    }
    let mismatch = match context {
        PasswordContext::Change => ErrorCode::NewPasswordMismatch,
        _ => ErrorCode::ResetPasswordMismatch,
    };
    if password.is_empty() {
        return Err(mismatch);
    }
    let password = Password::parse_new(password)?;
    if confirmation.is_some_and(|c| c != password.expose()) {
        return Err(mismatch);
    }
    Ok(password)
}

/// Strips the separators people type in phone numbers.
pub fn normalize_phone(input: &str) -> String {
    input
        .chars()
        .filter(|c| !matches!(c, '-' | ' ' | '.'))
        .collect()
}

/// A Korean mobile number, digits only: 010/011/016/017/018/019 and 10 or 11 digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phone(String);

impl Phone {
    pub fn parse(input: &str) -> Result<Self, ErrorCode> {
        let s = normalize_phone(input.trim());
        if s.is_empty() {
            return Err(ErrorCode::PhoneRequired);
        }
        let prefix_ok = ["010", "011", "016", "017", "018", "019"]
            .iter()
            .any(|p| s.starts_with(p));
        if !prefix_ok || !(10..=11).contains(&s.len()) || !s.chars().all(|c| c.is_ascii_digit()) {
            return Err(ErrorCode::PhoneInvalid);
        }
        Ok(Self(s))
    }

    /// The number with its middle hidden, for showing which phone a code went to:
    /// `010-****-5678`.
    pub fn masked(&self) -> String {
        let s = &self.0;
        let tail = &s[s.len() - 4..];
        format!("{}-****-{}", &s[..3], tail)
    }
}

impl AsRef<str> for Phone {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// A date of birth given as `YYYYMMDD` or `YYYY-MM-DD`, a real date from 1900 on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Birthdate(NaiveDate);

impl Birthdate {
    pub fn parse(input: &str) -> Result<Self, ErrorCode> {
        let digits: String = input.trim().chars().filter(|c| *c != '-').collect();
        if digits.len() != 8 || !digits.chars().all(|c| c.is_ascii_digit()) {
            return Err(ErrorCode::BirthdateInvalid);
        }
        let date = NaiveDate::parse_from_str(&digits, "%Y%m%d")
            .map_err(|_| ErrorCode::BirthdateInvalid)?;
        if date.year() < 1900 {
            return Err(ErrorCode::BirthdateInvalid);
        }
        Ok(Self(date))
    }

    /// Full years of age on `today`.
    pub fn age_on(&self, today: NaiveDate) -> u32 {
        let born = self.0;
        let mut age = today.year() - born.year();
        if (today.month(), today.day()) < (born.month(), born.day()) {
            age -= 1;
        }
        u32::try_from(age).unwrap_or(0)
    }

    /// The date as `YYYY-MM-DD`, the stored form.
    pub fn iso(&self) -> String {
        self.0.format("%Y-%m-%d").to_string()
    }

    pub fn date(&self) -> NaiveDate {
        self.0
    }
}

/// Gender as the spec writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gender {
    Male,
    Female,
}

impl Gender {
    pub fn parse(input: &str) -> Result<Self, ErrorCode> {
        match input.trim() {
            "남성" => Ok(Self::Male),
            "여성" => Ok(Self::Female),
            _ => Err(ErrorCode::GenderInvalid),
        }
    }

    pub fn as_korean(self) -> &'static str {
        match self {
            Self::Male => "남성",
            Self::Female => "여성",
        }
    }
}

/// A nickname: 1–20 characters of Korean letters, English letters and digits, with no
/// abusive word in it (`moderation`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nickname(String);

impl Nickname {
    pub const MAX_CHARS: usize = 20;

    pub fn parse(input: &str) -> Result<Self, ErrorCode> {
        let s = input.trim();
        if s.is_empty() {
            return Err(ErrorCode::NicknameRequired);
        }
        let ok = s.chars().all(|c| c.is_ascii_alphanumeric() || is_hangul(c));
        if !ok || s.chars().count() > Self::MAX_CHARS {
            return Err(ErrorCode::NicknameInvalid);
        }
        crate::moderation::check_nickname_words(s)?;
        Ok(Self(s.to_owned()))
    }
}

impl Nickname {
    /// What two nicknames must not share: the name with case and spaces aside, so that
    /// "Moon Cat" cannot pass for "mooncat".
    pub fn key(&self) -> String {
        self.0
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| c.to_ascii_lowercase())
            .collect()
    }
}

impl AsRef<str> for Nickname {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// A comment of the board: one line of 1–100 characters after cleaning (`text`) and
/// trimming, with no abusive word in it, and its contact details and links masked
/// (`moderation::mask_contacts`, as early in a chat): the board is public, read by guests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentText(String);

impl CommentText {
    pub const MAX_CHARS: usize = 100;

    pub fn parse(input: &str) -> Result<Self, ErrorCode> {
        let cleaned = crate::text::clean_line(input);
        let s = cleaned.trim();
        if s.is_empty() {
            return Err(ErrorCode::CommentEmpty);
        }
        if s.chars().count() > Self::MAX_CHARS {
            return Err(ErrorCode::CommentTooLong);
        }
        if !crate::moderation::is_clean(s) {
            return Err(ErrorCode::ContentNotAllowed);
        }
        Ok(Self(crate::moderation::mask_contacts(s)))
    }
}

impl AsRef<str> for CommentText {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Hangul syllables and compatibility jamo (ㅋㅋ is a fine nickname).
fn is_hangul(c: char) -> bool {
    matches!(c, '\u{AC00}'..='\u{D7A3}' | '\u{3131}'..='\u{318E}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nicknames_differing_in_case_alone_share_a_key() {
        let key = |s: &str| Nickname::parse(s).unwrap().key();
        assert_eq!(key("MoonCat"), key("mooncat"));
        assert_eq!(key(" 달빛Cat7 "), "달빛cat7");
        assert_ne!(key("달빛고양이"), key("달빛고양이2"));
    }

    #[test]
    fn masks_the_middle_of_a_phone() {
        assert_eq!(
            Phone::parse("010-1234-5678").unwrap().masked(),
            "010-****-5678"
        );
        assert_eq!(
            Phone::parse("0111234567").unwrap().masked(),
            "011-****-4567"
        );
    }

    #[test]
    fn age_counts_full_years() {
        let b = Birthdate::parse("20120615").unwrap();
        let day = |s| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        assert_eq!(b.age_on(day("2026-06-14")), 13);
        assert_eq!(b.age_on(day("2026-06-15")), 14);
        assert_eq!(b.age_on(day("2011-01-01")), 0);
    }

    #[test]
    fn operator_passwords_are_long_and_mixed() {
        let cases: &[(&str, Result<(), ErrorCode>)] = &[
            ("Abcdefghij1!", Ok(())),
            ("abcdefghij12", Err(ErrorCode::OperatorPasswordWeak)),
            ("abcdefghijK1", Ok(())),
            ("abcdefghij1!", Ok(())),
            ("ABCDEFGHIJ1!", Ok(())),
            ("abcdefghijK!", Ok(())),
            ("Abcdefgh1!", Err(ErrorCode::OperatorPasswordWeak)),
            ("Abcdefghi1!", Err(ErrorCode::OperatorPasswordWeak)),
            ("abcdef ghijk", Err(ErrorCode::OperatorPasswordWeak)),
            ("비밀번호는길어야안전해요1a", Ok(())),
            ("123456789012", Err(ErrorCode::OperatorPasswordWeak)),
            ("", Err(ErrorCode::OperatorPasswordWeak)),
        ];
        for (input, expected) in cases {
            assert_eq!(
                &Password::parse_operator(input).map(drop),
                expected,
                "{input:?}"
            );
        }
        let long = format!("Aa1!{}", "x".repeat(MAX_PASSWORD_CHARS));
        assert_eq!(
            Password::parse_operator(&long).map(drop),
            Err(ErrorCode::PasswordTooLong)
        );
    }

    #[test]
    fn a_login_reads_its_fields_one_way() {
        let check = |username: &str, password: &str, expected: Result<&str, ErrorCode>| {
            let got = Credentials::parse(username, password);
            let got = got.as_ref().map(|c| c.username.as_ref()).map_err(|e| *e);
            assert_eq!(got, expected, "{username:?} {password:?}");
        };
        check("mina", "x", Ok("mina"));
        check(" Mina_2 ", "secret", Ok("mina_2"));
        check("", "secret", Err(ErrorCode::FieldsRequired));
        check("   ", "secret", Err(ErrorCode::FieldsRequired));
        check("mina", "", Err(ErrorCode::FieldsRequired));
        check("mi", "secret", Err(ErrorCode::LoginFailed));
        check("mina!", "secret", Err(ErrorCode::LoginFailed));
        let long = "x".repeat(MAX_PASSWORD_CHARS + 1);
        check("mina", &long, Err(ErrorCode::LoginFailed));
        check("mina", &long[1..], Ok("mina"));
    }

    #[test]
    fn passwords_never_print() {
        let p = Password::parse_new("abcdefg1").unwrap();
        assert_eq!(format!("{p:?}"), "Password(***)");
    }

    #[test]
    fn change_and_reset_use_their_own_mismatch_message() {
        assert_eq!(
            check_new_password(PasswordContext::Change, "abcdefg1", Some("abcdefg2")),
            Err(ErrorCode::NewPasswordMismatch)
        );
        assert_eq!(
            check_new_password(PasswordContext::Reset, "abcdefg1", Some("abcdefg2")),
            Err(ErrorCode::ResetPasswordMismatch)
        );
        assert!(check_new_password(PasswordContext::Reset, "abcdefg1", None).is_ok());
    }

    #[test]
    fn change_and_reset_never_take_a_password_weaker_than_sign_up_does() {
        for context in [PasswordContext::Reset, PasswordContext::Change] {
            for weak in ["abcdef", "123456", "abcdefgh", "abc12"] {
                assert_eq!(
                    check_new_password(context, weak, Some(weak)),
                    Err(ErrorCode::PasswordWeak),
                    "{context:?} {weak:?}"
                );
            }
            assert!(check_new_password(context, "abcdefg1", Some("abcdefg1")).is_ok());
        }
    }

    #[test]
    fn comments_are_trimmed_capped_and_clean() {
        assert_eq!(CommentText::parse("   "), Err(ErrorCode::CommentEmpty));
        assert_eq!(
            CommentText::parse(" 빨리 열어주세요 ").unwrap().as_ref(),
            "빨리 열어주세요"
        );
        assert!(CommentText::parse(&"가".repeat(100)).is_ok());
        assert_eq!(
            CommentText::parse(&"가".repeat(101)),
            Err(ErrorCode::CommentTooLong)
        );
        assert_eq!(
            CommentText::parse("tlqkf 왜 안 열어"),
            Err(ErrorCode::ContentNotAllowed)
        );
        assert!(CommentText::parse("시발점에서 다시").is_ok());
        // Masked, not refused: the length in characters is kept.
        assert_eq!(
            CommentText::parse(" 010-1234-5678 로 연락 ")
                .unwrap()
                .as_ref(),
            "************* 로 연락"
        );
    }
}
