//! What a person's text may hold, for every surface that stores or shows it: chat
//! messages, comments, megaphones, reports, operators' reasons, and the memo a bank
//! sends. Nicknames, real names and word-set words allow far less (letters only, see
//! their types); this is the floor under all of them.
//!
//! A text is cleaned before anything checks its length or its words, so what is stored
//! is what was checked, the same on SQLite and PostgreSQL:
//! - control characters (C0 but the line break, DEL, C1) are dropped: a NUL byte is
//!   refused by PostgreSQL, and none of them is anything a person means to say;
//!   a tab becomes a space, and CR LF, CR and the Unicode line and paragraph separators
//!   become a line break;
//! - bidirectional embeddings, overrides, isolates and marks are dropped: they reverse
//!   what a reader sees (`U+202E` makes "txt.exe" read "exe.txt") without changing a
//!   letter of what the filter reads;
//! - invisible characters that only split words (zero-width space, word joiner, the byte
//!   order mark, the soft hyphen, the Hangul fillers) are dropped: they hide words from
//!   the filter and from a reader alike. The zero-width joiner and non-joiner stay: emoji
//!   sequences and some scripts need them;
//! - Unicode noncharacters are dropped.
//!
//! Lone surrogates never reach here: JSON with one is refused when it is read.

use std::borrow::Cow;

use crate::ErrorCode;

/// `input` cleaned for a text of several lines (a chat message, a report).
pub fn clean(input: &str) -> Cow<'_, str> {
    clean_with(input, '\n')
}

/// `input` cleaned for a text of one line (a comment, a megaphone): line breaks become
/// spaces.
pub fn clean_line(input: &str) -> Cow<'_, str> {
    clean_with(input, ' ')
}

fn clean_with(input: &str, line_break: char) -> Cow<'_, str> {
    if input.chars().all(|c| keep(c) == Keep::As) && (line_break == '\n' || !input.contains('\n')) {
        return Cow::Borrowed(input);
    }
    let mut out = String::with_capacity(input.len());
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        match keep(c) {
            Keep::As if c == '\n' => out.push(line_break),
            Keep::As => out.push(c),
            Keep::Drop => {}
            Keep::Space => out.push(' '),
            Keep::LineBreak => {
                // CR LF is one break.
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(line_break);
            }
        }
    }
    Cow::Owned(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keep {
    As,
    Drop,
    Space,
    LineBreak,
}

fn keep(c: char) -> Keep {
    match c {
        '\n' => Keep::As,
        '\t' => Keep::Space,
        '\r' | '\u{2028}' | '\u{2029}' | '\u{85}' => Keep::LineBreak,
        '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' => Keep::Drop,
        // Bidirectional marks, embeddings, overrides and isolates.
        '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
            Keep::Drop
        }
        // Invisible word splitters: soft hyphen, zero-width space, word joiner and the
        // invisible operators, the byte order mark, the Hangul fillers.
        '\u{ad}'
        | '\u{200b}'
        | '\u{2060}'..='\u{2064}'
        | '\u{feff}'
        | '\u{115f}'
        | '\u{1160}'
        | '\u{3164}'
        | '\u{ffa0}' => Keep::Drop,
        c if is_noncharacter(c) => Keep::Drop,
        _ => Keep::As,
    }
}

fn is_noncharacter(c: char) -> bool {
    let n = u32::from(c);
    (0xfdd0..=0xfdef).contains(&n) || n & 0xfffe == 0xfffe
}

/// A chat message: cleaned, trimmed, 1 to [`ChatText::MAX_CHARS`] characters. What the
/// partner sees of it is decided later (the abuse filter masks, it never refuses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatText(String);

impl ChatText {
    /// The longest chat message, in characters.
    pub const MAX_CHARS: usize = 1000;

    pub fn parse(input: &str) -> Result<Self, ErrorCode> {
        let cleaned = clean(input);
        let s = cleaned.trim();
        if s.is_empty() {
            return Err(ErrorCode::MessageEmpty);
        }
        if s.chars().count() > Self::MAX_CHARS {
            return Err(ErrorCode::MessageTooLong);
        }
        Ok(Self(s.to_owned()))
    }
}

impl AsRef<str> for ChatText {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_text_is_kept_as_it_is() {
        for text in ["안녕하세요 😀", "줄\n바꿈", "👨‍👩‍👧 가족", "Hello, 세상!"]
        {
            assert!(
                matches!(clean(text), Cow::Borrowed(t) if t == text),
                "{text}"
            );
        }
    }

    #[test]
    fn control_characters_are_dropped_and_breaks_made_one() {
        assert_eq!(clean("a\0b\u{7}c\u{7f}d\u{9b}e"), "abcde");
        assert_eq!(clean("a\tb"), "a b");
        assert_eq!(clean("a\r\nb\rc\u{2028}d"), "a\nb\nc\nd");
        assert_eq!(clean_line("a\r\nb\nc"), "a b c");
    }

    #[test]
    fn direction_overrides_and_invisible_splitters_are_dropped() {
        assert_eq!(clean("\u{202e}exe.txt\u{202c}"), "exe.txt");
        assert_eq!(clean("\u{2067}a\u{2069}\u{200f}"), "a");
        assert_eq!(clean("시\u{200b}발"), "시발");
        assert_eq!(clean("\u{feff}a\u{ad}b\u{3164}"), "ab");
        assert_eq!(clean("a\u{fffe}\u{ffff}\u{fdd0}\u{10ffff}b"), "ab");
    }

    #[test]
    fn a_chat_message_is_cleaned_before_it_is_measured() {
        assert_eq!(
            ChatText::parse("\0\u{200b} \n"),
            Err(ErrorCode::MessageEmpty)
        );
        assert_eq!(
            ChatText::parse(" 안녕\0 ").map(|t| t.as_ref().to_owned()),
            Ok("안녕".to_owned())
        );
        let long = format!("{}{}", "가".repeat(ChatText::MAX_CHARS), "\0".repeat(10));
        assert!(ChatText::parse(&long).is_ok());
        let longer = "가".repeat(ChatText::MAX_CHARS + 1);
        assert_eq!(ChatText::parse(&longer), Err(ErrorCode::MessageTooLong));
    }
}
