//! The paid custom word set (spec sections 4, 5 and 9): the real name a bank transfer is
//! made under, the depositor code the transfer carries as its memo, the four words, and
//! the account a refund goes to if the set is rejected. The web app mirrors the input rules
//! and both are tested against `testdata/validation-cases.json`.

use crate::{moderation, ErrorCode};

/// A person's name as the bank shows it: 1–20 characters of Hangul syllables, English
/// letters and single spaces, trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RealName(String);

impl RealName {
    pub const MAX_CHARS: usize = 20;

    pub fn parse(input: &str) -> Result<Self, ErrorCode> {
        let s = collapse_spaces(input);
        if s.is_empty() {
            return Err(ErrorCode::RealNameRequired);
        }
        let ok = s
            .chars()
            .all(|c| is_syllable(c) || c.is_ascii_alphabetic() || c == ' ');
        if !ok || s.chars().count() > Self::MAX_CHARS {
            return Err(ErrorCode::RealNameInvalid);
        }
        Ok(Self(s))
    }
}

impl AsRef<str> for RealName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// The memo a transfer carries so that it can be told apart from every other pending
/// one: the first three letters of the payer's name and four digits (`김민준0427`), at most
/// seven characters, which every Korean bank lets a sender type as the recipient's memo.
/// Spaces are left out and English letters are capitals, so a memo is compared as
/// [`DepositorCode::normalize`] gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepositorCode(String);

impl DepositorCode {
    /// Letters of the name the code keeps.
    const NAME_CHARS: usize = 3;
    /// The longest code.
    pub const MAX_CHARS: usize = 7;

    /// The code of `name` with `number` (taken modulo 10,000) as its four digits.
    pub fn new(name: &RealName, number: u16) -> Self {
        let prefix: String = name
            .0
            .chars()
            .filter(|c| *c != ' ')
            .take(Self::NAME_CHARS)
            .collect();
        Self(normalize_memo(&format!("{prefix}{:04}", number % 10_000)))
    }

    /// A memo as a bank reports it, in the form codes are kept: without white space,
    /// English letters as capitals.
    pub fn normalize(memo: &str) -> String {
        normalize_memo(memo)
    }
}

impl AsRef<str> for DepositorCode {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

fn normalize_memo(memo: &str) -> String {
    crate::text::clean_line(memo)
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// One word of a custom set: 1–6 Hangul syllables, as the built-in catalogue's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomWord(String);

impl CustomWord {
    pub const MAX_CHARS: usize = 6;

    pub fn parse(input: &str) -> Result<Self, ErrorCode> {
        let s = input.trim();
        if s.is_empty() {
            return Err(ErrorCode::WordsetWordsRequired);
        }
        let count = s.chars().count();
        if count > Self::MAX_CHARS || !s.chars().all(is_syllable) {
            return Err(ErrorCode::WordsetWordInvalid);
        }
        Ok(Self(s.to_owned()))
    }
}

impl AsRef<str> for CustomWord {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Four different custom words, none abusive: one round's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordSet([CustomWord; 4]);

impl WordSet {
    pub fn parse(words: &[String]) -> Result<Self, ErrorCode> {
        if words.len() != 4 || words.iter().any(|w| w.trim().is_empty()) {
            return Err(ErrorCode::WordsetWordsRequired);
        }
        let parsed = words
            .iter()
            .map(|w| CustomWord::parse(w))
            .collect::<Result<Vec<_>, _>>()?;
        for (i, word) in parsed.iter().enumerate() {
            if parsed[..i].contains(word) {
                return Err(ErrorCode::WordsetWordsDuplicate);
            }
        }
        if parsed.iter().any(|w| !moderation::is_clean(w.as_ref())) {
            return Err(ErrorCode::ContentNotAllowed);
        }
        let [a, b, c, d]: [CustomWord; 4] = parsed
            .try_into()
            .map_err(|_| ErrorCode::WordsetWordsRequired)?;
        Ok(Self([a, b, c, d]))
    }

    pub fn words(&self) -> [&str; 4] {
        let [a, b, c, d] = &self.0;
        [a.as_ref(), b.as_ref(), c.as_ref(), d.as_ref()]
    }
}

/// The bank of a refund account: 2–20 characters of Hangul syllables, English letters and
/// single spaces (`국민`, `IBK기업`, `SC제일`, `Citi Bank`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundBank(String);

impl RefundBank {
    pub fn parse(input: &str) -> Result<Self, ErrorCode> {
        let s = collapse_spaces(input);
        let count = s.chars().count();
        let ok = s
            .chars()
            .all(|c| is_syllable(c) || c.is_ascii_alphabetic() || c == ' ');
        if !ok || !(2..=20).contains(&count) {
            return Err(ErrorCode::RefundBankInvalid);
        }
        Ok(Self(s))
    }
}

impl AsRef<str> for RefundBank {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// A refund account number: 4–20 digits. Hyphens and spaces people type are dropped.
#[derive(Clone, PartialEq, Eq)]
pub struct RefundAccount(String);

impl std::fmt::Debug for RefundAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RefundAccount({})", self.masked())
    }
}

impl RefundAccount {
    pub fn parse(input: &str) -> Result<Self, ErrorCode> {
        let s: String = input
            .trim()
            .chars()
            .filter(|c| !matches!(c, '-' | ' '))
            .collect();
        if !(4..=20).contains(&s.len()) || !s.chars().all(|c| c.is_ascii_digit()) {
            return Err(ErrorCode::RefundAccountInvalid);
        }
        Ok(Self(s))
    }

    /// The number with all but its last four digits hidden: `******7890`.
    pub fn masked(&self) -> String {
        mask_account(&self.0)
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// An account number with all but its last four digits hidden.
pub fn mask_account(digits: &str) -> String {
    let count = digits.chars().count();
    digits
        .chars()
        .enumerate()
        .map(|(i, c)| if i + 4 < count { '*' } else { c })
        .collect()
}

/// Trimmed, with each run of white space made one space.
fn collapse_spaces(input: &str) -> String {
    input.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A complete Hangul syllable (가–힣); lone jamo are no word.
fn is_syllable(c: char) -> bool {
    ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn depositor_codes_are_short_and_spaced_out() {
        let code = |name: &str, n| DepositorCode::new(&RealName::parse(name).unwrap(), n);
        assert_eq!(code("김민준", 427).as_ref(), "김민준0427");
        assert_eq!(code("남궁 민수", 9).as_ref(), "남궁민0009");
        assert_eq!(code("Kim Mina", 12345).as_ref(), "KIM2345");
        assert_eq!(code("이", 1).as_ref(), "이0001");
        for name in ["김민준", "남궁 민수", "Kim Mina", "Jo"] {
            assert!(code(name, 9999).as_ref().chars().count() <= DepositorCode::MAX_CHARS);
        }
        assert_eq!(DepositorCode::normalize(" kim 2345 "), "KIM2345");
        assert_eq!(DepositorCode::normalize("김민준 0427"), "김민준0427");
    }

    #[test]
    fn word_sets_are_four_different_clean_words() {
        let ok = WordSet::parse(&words(&["바다", "노을", "한강", "아이스크림"])).unwrap();
        assert_eq!(ok.words(), ["바다", "노을", "한강", "아이스크림"]);
        let trimmed = WordSet::parse(&words(&[" 바다 ", "노을", "한강", "별"])).unwrap();
        assert_eq!(trimmed.words()[0], "바다");
        let cases: &[(&[&str], ErrorCode)] = &[
            (&["바다", "노을", "한강"], ErrorCode::WordsetWordsRequired),
            (
                &["바다", "노을", "한강", " "],
                ErrorCode::WordsetWordsRequired,
            ),
            (
                &["바다", "노을", "한강", "별", "달"],
                ErrorCode::WordsetWordsRequired,
            ),
            (
                &["바다", "노을", "한강", "바다"],
                ErrorCode::WordsetWordsDuplicate,
            ),
            (
                &["바다", "노을", "한강", "sea"],
                ErrorCode::WordsetWordInvalid,
            ),
            (
                &["바다", "노을", "한강", "일곱글자단어다"],
                ErrorCode::WordsetWordInvalid,
            ),
            (
                &["바다", "노을", "한강", "ㅋㅋ"],
                ErrorCode::WordsetWordInvalid,
            ),
            (
                &["바다", "노을", "한강", "시발"],
                ErrorCode::ContentNotAllowed,
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(WordSet::parse(&words(input)), Err(*expected), "{input:?}");
        }
    }

    #[test]
    fn account_numbers_are_digits_and_print_masked() {
        let a = RefundAccount::parse("110-123-456789").unwrap();
        assert_eq!(a.expose(), "110123456789");
        assert_eq!(a.masked(), "********6789");
        assert_eq!(format!("{a:?}"), "RefundAccount(********6789)");
        assert_eq!(mask_account("1234"), "1234");
    }
}
