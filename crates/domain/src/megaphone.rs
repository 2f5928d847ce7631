//! Megaphones: the packs on sale (spec section 9) and what a megaphone may say.

use std::time::Duration;

use crate::ErrorCode;

/// How long a megaphone is on every screen (spec: the notification closes after 5 s).
/// Megaphones take turns: each has the air to itself for this long.
pub const ON_AIR: Duration = Duration::from_secs(5);

/// How far ahead megaphones may wait for their turn; past it a new one is refused (and
/// not spent) rather than shown long after it was sent.
pub const AIR_WAIT_MAX: Duration = Duration::from_secs(60);

/// What a sender is told who sends again within `limits::MEGAPHONE_WINDOW`: the pace, and
/// how long to wait (in whole seconds, rounded up). The message of
/// `ErrorCode::MegaphoneTooSoon` when the wait is not known.
pub fn too_soon(wait: Duration) -> String {
    let seconds = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
    format!(
        "확성기는 {}초에 한 번 보낼 수 있어요. {seconds}초 뒤에 다시 보내주세요.",
        crate::limits::MEGAPHONE_WINDOW.as_secs()
    )
}

/// A pack of megaphones on sale. Its `item` name is what the payment call carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pack {
    One,
    Five,
    Ten,
}

impl Pack {
    /// Every pack, cheapest first.
    pub const ALL: [Self; 3] = [Self::One, Self::Five, Self::Ten];

    /// The spec's item names: `megaphone_1`, `megaphone_5`, `megaphone_10`.
    pub fn item(self) -> &'static str {
        match self {
            Self::One => "megaphone_1",
            Self::Five => "megaphone_5",
            Self::Ten => "megaphone_10",
        }
    }

    pub fn parse(item: &str) -> Result<Self, ErrorCode> {
        Self::ALL
            .into_iter()
            .find(|p| p.item() == item)
            .ok_or(ErrorCode::PackInvalid)
    }

    /// How many megaphones the pack holds.
    pub fn count(self) -> i64 {
        match self {
            Self::One => 1,
            Self::Five => 5,
            Self::Ten => 10,
        }
    }

    /// The price in won (spec: 1 for 500, 5 for 2,000, 10 for 3,500).
    pub fn price(self) -> i64 {
        match self {
            Self::One => 500,
            Self::Five => 2_000,
            Self::Ten => 3_500,
        }
    }

    /// The order's name in the payment window and on the card statement.
    pub fn name(self) -> &'static str {
        match self {
            Self::One => "텔레파시 확성기 1개",
            Self::Five => "텔레파시 확성기 5개",
            Self::Ten => "텔레파시 확성기 10개",
        }
    }
}

/// What a megaphone says: one line, cleaned (`text`) and trimmed, 1 to 20 characters, nothing abusive, and no contact
/// details or links (a megaphone reaches everyone online).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MegaphoneText(String);

impl MegaphoneText {
    /// The spec's "maximum of 20 characters".
    pub const MAX_CHARS: usize = 20;

    pub fn parse(input: &str) -> Result<Self, ErrorCode> {
        let cleaned = crate::text::clean_line(input);
        let s = cleaned.trim();
        if s.is_empty() {
            return Err(ErrorCode::MegaphoneEmpty);
        }
        if s.chars().count() > Self::MAX_CHARS {
            return Err(ErrorCode::MegaphoneTooLong);
        }
        if !crate::moderation::is_clean(s) {
            return Err(ErrorCode::ContentNotAllowed);
        }
        if !crate::moderation::find_contacts(s).is_empty() {
            return Err(ErrorCode::MegaphoneContact);
        }
        Ok(Self(s.to_owned()))
    }
}

impl AsRef<str> for MegaphoneText {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sender_too_soon_is_told_how_long_to_wait() {
        assert_eq!(
            too_soon(Duration::from_millis(6_200)),
            "확성기는 10초에 한 번 보낼 수 있어요. 7초 뒤에 다시 보내주세요."
        );
        assert!(too_soon(Duration::ZERO).contains(" 1초 뒤에"));
        assert!(ErrorCode::MegaphoneTooSoon
            .message()
            .starts_with("확성기는 10초에 한 번"));
    }

    #[test]
    fn packs_are_the_specs() {
        let packs: Vec<_> = Pack::ALL
            .iter()
            .map(|p| (p.item(), p.count(), p.price()))
            .collect();
        assert_eq!(
            packs,
            [
                ("megaphone_1", 1, 500),
                ("megaphone_5", 5, 2000),
                ("megaphone_10", 10, 3500)
            ]
        );
        for p in Pack::ALL {
            assert_eq!(Pack::parse(p.item()), Ok(p));
        }
        assert_eq!(Pack::parse("megaphone_100"), Err(ErrorCode::PackInvalid));
        assert_eq!(Pack::parse(""), Err(ErrorCode::PackInvalid));
    }

    #[test]
    fn a_megaphone_says_one_to_twenty_characters() {
        assert_eq!(
            MegaphoneText::parse("  안녕하세요  ").unwrap().as_ref(),
            "안녕하세요"
        );
        assert_eq!(MegaphoneText::parse(" \n "), Err(ErrorCode::MegaphoneEmpty));
        let twenty = "가".repeat(20);
        assert!(MegaphoneText::parse(&twenty).is_ok());
        assert_eq!(
            MegaphoneText::parse(&format!("{twenty}가")),
            Err(ErrorCode::MegaphoneTooLong)
        );
    }

    #[test]
    fn a_megaphone_carries_no_abuse_and_no_contacts() {
        assert_eq!(
            MegaphoneText::parse("시발"),
            Err(ErrorCode::ContentNotAllowed)
        );
        for contact in [
            "010-1234-5678로 연락",
            "공일공 일이삼사 오육칠팔",
            "01012345678",
            "telepathy.kr 놀러와",
        ] {
            assert_eq!(
                MegaphoneText::parse(contact),
                Err(ErrorCode::MegaphoneContact),
                "{contact}"
            );
        }
        // Abuse is told as abuse, even beside a number.
        assert_eq!(
            MegaphoneText::parse("시발 010-1234-5678"),
            Err(ErrorCode::ContentNotAllowed)
        );
    }
}
