//! The terms a person agrees to at sign-up: five documents, three of them required. Each
//! is at a version, the effective date of its text, which the ledger of answers records.
//! The web app shows the same documents at the same dates; both are tested against
//! `testdata/terms.json`.

use crate::ErrorCode;

/// One terms document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Terms {
    /// 서비스 이용약관 (required).
    Service,
    /// 개인정보 처리방침 (required).
    Privacy,
    /// 청소년 보호정책 (required).
    Youth,
    /// 서비스 개선 목적 정보 활용 동의 (optional).
    Improve,
    /// 알림 수신 동의 (optional; withdrawn and given again on My page).
    Alarm,
}

impl Terms {
    pub const ALL: [Terms; 5] = [
        Self::Service,
        Self::Privacy,
        Self::Youth,
        Self::Improve,
        Self::Alarm,
    ];

    /// The short name of the document, as the terms modal, `/terms/{type}` and the ledger
    /// call it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Service => "service",
            Self::Privacy => "privacy",
            Self::Youth => "youth",
            Self::Improve => "improve",
            Self::Alarm => "alarm",
        }
    }

    /// Whether the service may be used without agreeing.
    pub fn required(self) -> bool {
        matches!(self, Self::Service | Self::Privacy | Self::Youth)
    }

    /// The effective date of the text in force; a new text gets a new date.
    pub fn version(self) -> &'static str {
        match self {
            Self::Service | Self::Privacy | Self::Youth | Self::Improve | Self::Alarm => {
                "2026-12-01"
            }
        }
    }
}

/// The documents a registration agrees to: every required one among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agreement(Vec<Terms>);

impl Agreement {
    /// The documents ticked; refused with `TermsRequired` unless every required one is.
    pub fn parse(agreed: impl IntoIterator<Item = Terms>) -> Result<Self, ErrorCode> {
        let mut terms: Vec<Terms> = Vec::new();
        for t in agreed {
            if !terms.contains(&t) {
                terms.push(t);
            }
        }
        if Terms::ALL
            .iter()
            .any(|t| t.required() && !terms.contains(t))
        {
            return Err(ErrorCode::TermsRequired);
        }
        Ok(Self(terms))
    }

    pub fn agrees_to(&self, terms: Terms) -> bool {
        self.0.contains(&terms)
    }

    /// The documents agreed to, in the order of `Terms::ALL`.
    pub fn terms(&self) -> impl Iterator<Item = Terms> + '_ {
        Terms::ALL.into_iter().filter(|t| self.0.contains(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Row {
        #[serde(rename = "type")]
        kind: String,
        required: bool,
        version: String,
    }

    #[test]
    fn the_documents_are_those_of_the_shared_table() {
        let rows: Vec<Row> =
            serde_json::from_str(include_str!("../../../testdata/terms.json")).unwrap();
        let names: Vec<&str> = rows.iter().map(|r| r.kind.as_str()).collect();
        let ours: Vec<&str> = Terms::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(names, ours);
        for (row, terms) in rows.iter().zip(Terms::ALL) {
            assert_eq!(row.required, terms.required(), "{}", row.kind);
            assert_eq!(row.version, terms.version(), "{}", row.kind);
        }
    }

    #[test]
    fn a_registration_needs_every_required_document() {
        use Terms::*;
        assert_eq!(
            Agreement::parse([Service, Privacy]),
            Err(ErrorCode::TermsRequired)
        );
        assert_eq!(Agreement::parse([]), Err(ErrorCode::TermsRequired));
        assert_eq!(
            Agreement::parse([Alarm, Improve, Youth, Privacy]),
            Err(ErrorCode::TermsRequired)
        );
        let agreed = Agreement::parse([Alarm, Youth, Service, Privacy, Youth]).unwrap();
        assert_eq!(
            agreed.terms().collect::<Vec<_>>(),
            vec![Service, Privacy, Youth, Alarm]
        );
        assert!(agreed.agrees_to(Alarm));
        assert!(!agreed.agrees_to(Improve));
    }
}
