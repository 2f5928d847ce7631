use crate::ErrorCode;

/// The mood a user leaves after a chat (spec: five options).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emotion {
    Glad,
    Okay,
    Sad,
    Happy,
    Angry,
}

impl Emotion {
    /// In the order of the specification (the feedback modal orders them by mood).
    pub const ALL: [Emotion; 5] = [Self::Glad, Self::Okay, Self::Sad, Self::Happy, Self::Angry];

    pub fn as_korean(self) -> &'static str {
        match self {
            Self::Glad => "기뻐요",
            Self::Okay => "괜찮아요",
            Self::Sad => "슬퍼요",
            Self::Happy => "행복해요",
            Self::Angry => "화나요",
        }
    }

    pub fn parse(input: &str) -> Result<Self, ErrorCode> {
        Self::ALL
            .into_iter()
            .find(|e| e.as_korean() == input.trim())
            .ok_or(ErrorCode::EmotionRequired)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_five_options_only() {
        for e in Emotion::ALL {
            assert_eq!(Emotion::parse(e.as_korean()), Ok(e));
        }
        assert_eq!(Emotion::parse(""), Err(ErrorCode::EmotionRequired));
        assert_eq!(Emotion::parse("몰라요"), Err(ErrorCode::EmotionRequired));
    }
}
