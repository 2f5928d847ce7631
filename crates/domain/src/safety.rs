//! Reports and restrictions: what a report may say, and how a restricted account is told
//! why and until when.

use chrono::{DateTime, Utc};
use chrono_tz::Asia::Seoul;

use crate::limits::{REPORT_EXTRA_MAX_CHARS, SANCTION_REASON_MAX_CHARS, SUSPEND_DAYS_MAX};
use crate::ErrorCode;

/// A reason a user may give for a report (the report modal's choices).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReportReason {
    Ad,
    Harassment,
    Threat,
    Sexual,
    Other,
}

impl ReportReason {
    pub const ALL: [ReportReason; 5] = [
        Self::Ad,
        Self::Harassment,
        Self::Threat,
        Self::Sexual,
        Self::Other,
    ];

    /// The label the modal shows, and the value the web app sends.
    pub fn label(self) -> &'static str {
        match self {
            Self::Ad => "광고/홍보성 메시지",
            Self::Harassment => "욕설/비하",
            Self::Threat => "위협",
            Self::Sexual => "성적인 발언/행위",
            Self::Other => "기타",
        }
    }

    /// The stored code.
    pub fn code(self) -> &'static str {
        match self {
            Self::Ad => "ad",
            Self::Harassment => "harassment",
            Self::Threat => "threat",
            Self::Sexual => "sexual",
            Self::Other => "other",
        }
    }

    /// Reads a label or a code.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        Self::ALL
            .into_iter()
            .find(|r| r.label() == text || r.code() == text)
    }
}

/// A report's content, checked: at least one reason or some text, the text at most
/// `REPORT_EXTRA_MAX_CHARS` characters after trimming.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportForm {
    pub reasons: Vec<ReportReason>,
    pub extra: String,
}

impl ReportForm {
    pub fn parse(reasons: &[String], extra: &str) -> Result<Self, ErrorCode> {
        let cleaned = crate::text::clean(extra);
        let extra = cleaned.trim();
        if extra.chars().count() > REPORT_EXTRA_MAX_CHARS {
            return Err(ErrorCode::ReportTooLong);
        }
        let mut parsed = Vec::new();
        for r in reasons {
            let reason = ReportReason::parse(r).ok_or(ErrorCode::ReportReasonInvalid)?;
            if !parsed.contains(&reason) {
                parsed.push(reason);
            }
        }
        if parsed.is_empty() && extra.is_empty() {
            return Err(ErrorCode::ReportEmpty);
        }
        Ok(Self {
            reasons: parsed,
            extra: extra.to_owned(),
        })
    }
}

/// What an operator may do about a user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SanctionKind {
    /// A warning: recorded and shown, nothing is stopped.
    Warn,
    /// No login and no chat until a time.
    Suspend,
    /// No login and no chat, for good.
    Ban,
}

impl SanctionKind {
    pub fn code(self) -> &'static str {
        match self {
            Self::Warn => "warn",
            Self::Suspend => "suspend",
            Self::Ban => "ban",
        }
    }

    pub fn parse(code: &str) -> Option<Self> {
        [Self::Warn, Self::Suspend, Self::Ban]
            .into_iter()
            .find(|k| k.code() == code)
    }

    /// Whether the account is stopped while it holds.
    pub fn restricts(self) -> bool {
        !matches!(self, Self::Warn)
    }
}

/// A sanction an operator orders, checked: a suspension has 1–`SUSPEND_DAYS_MAX` days,
/// and every sanction a reason of 1–`SANCTION_REASON_MAX_CHARS` characters (the user reads
/// it, in Korean). Days given with a warning or a ban mean nothing and are dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SanctionOrder {
    pub kind: SanctionKind,
    /// Days of a suspension.
    pub days: Option<i64>,
    pub reason: String,
}

impl SanctionOrder {
    pub fn parse(kind: &str, days: Option<i64>, reason: &str) -> Result<Self, ErrorCode> {
        let kind = SanctionKind::parse(kind.trim()).ok_or(ErrorCode::SanctionKindInvalid)?;
        let days = match kind {
            SanctionKind::Suspend => Some(
                days.filter(|d| (1..=SUSPEND_DAYS_MAX).contains(d))
                    .ok_or(ErrorCode::SanctionDaysInvalid)?,
            ),
            SanctionKind::Warn | SanctionKind::Ban => None,
        };
        Ok(Self {
            kind,
            days,
            reason: parse_reason(reason)?,
        })
    }

    /// When a suspension given at `now_ms` ends; `None` for a warning or a ban.
    pub fn until(&self, now_ms: i64) -> Option<i64> {
        self.days
            .map(|d| now_ms.saturating_add(d.saturating_mul(24 * 60 * 60 * 1000)))
    }

    /// The line the report queue and the audit log show: `7일 정지: 욕설`.
    pub fn summary(&self) -> String {
        let what = match (self.kind, self.days) {
            (SanctionKind::Warn, _) => "경고".to_owned(),
            (SanctionKind::Suspend, Some(d)) => format!("{d}일 정지"),
            (SanctionKind::Suspend, None) => "정지".to_owned(),
            (SanctionKind::Ban, _) => "영구 정지".to_owned(),
        };
        format!("{what}: {}", self.reason)
    }
}

/// An operator's decision on a report: dismiss it (a note is optional) or sanction the
/// reported user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Dismiss { note: String },
    Sanction(SanctionOrder),
}

impl Decision {
    /// `action` is `dismiss`, `warn`, `suspend` or `ban`.
    pub fn parse(action: &str, days: Option<i64>, reason: &str) -> Result<Self, ErrorCode> {
        if action.trim() == "dismiss" {
            let cleaned = crate::text::clean(reason);
            let note = cleaned.trim();
            if note.chars().count() > SANCTION_REASON_MAX_CHARS {
                return Err(ErrorCode::SanctionReasonTooLong);
            }
            return Ok(Self::Dismiss {
                note: note.to_owned(),
            });
        }
        SanctionOrder::parse(action, days, reason).map(Self::Sanction)
    }

    /// The report's status after it: `dismissed` or `actioned`.
    pub fn status(&self) -> &'static str {
        match self {
            Self::Dismiss { .. } => "dismissed",
            Self::Sanction(_) => "actioned",
        }
    }

    /// The report's resolution line: `기각` (with the note), or the sanction's summary.
    pub fn summary(&self) -> String {
        match self {
            Self::Dismiss { note } if note.is_empty() => "기각".to_owned(),
            Self::Dismiss { note } => format!("기각: {note}"),
            Self::Sanction(order) => order.summary(),
        }
    }
}

/// An operator's reason, trimmed: 1–`SANCTION_REASON_MAX_CHARS` characters.
pub fn parse_reason(reason: &str) -> Result<String, ErrorCode> {
    let cleaned = crate::text::clean(reason);
    let reason = cleaned.trim();
    if reason.is_empty() {
        return Err(ErrorCode::SanctionReasonRequired);
    }
    if reason.chars().count() > SANCTION_REASON_MAX_CHARS {
        return Err(ErrorCode::SanctionReasonTooLong);
    }
    Ok(reason.to_owned())
}

/// A suspension or ban in force: what the user is told at login and on an open socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restriction {
    pub kind: SanctionKind,
    /// The operator's reason, in Korean, shown to the user.
    pub reason: String,
    /// Unix milliseconds; `None` for a ban.
    pub until: Option<i64>,
}

impl Restriction {
    /// The Korean sentence the user reads.
    pub fn message(&self) -> String {
        let reason = if self.reason.trim().is_empty() {
            "운영정책 위반".to_owned()
        } else {
            self.reason.trim().to_owned()
        };
        match self.until {
            Some(until) => format!(
                "운영정책 위반으로 {}까지 이용이 정지되었어요. 사유: {reason}",
                seoul_minute(until)
            ),
            None => format!("운영정책 위반으로 이용이 영구 정지되었어요. 사유: {reason}"),
        }
    }
}

/// The Korean sentence a warned user reads.
pub fn warning_message(reason: &str) -> String {
    let reason = reason.trim();
    let reason = if reason.is_empty() {
        "운영정책 위반"
    } else {
        reason
    };
    format!("운영정책 위반으로 경고를 받았어요. 같은 일이 반복되면 이용이 정지될 수 있어요. 사유: {reason}")
}

/// `2026년 11월 30일 20:05` in Seoul time.
pub fn seoul_minute(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .unwrap_or_default()
        .with_timezone(&Seoul)
        .format("%Y년 %-m월 %-d일 %H:%M")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_report_needs_a_reason_or_text() {
        assert_eq!(ReportForm::parse(&[], "  "), Err(ErrorCode::ReportEmpty));
        let form = ReportForm::parse(&[], " 계속 욕을 해요 ").unwrap();
        assert_eq!(form.extra, "계속 욕을 해요");
        let form = ReportForm::parse(&strings(&["욕설/비하", "threat", "욕설/비하"]), "").unwrap();
        assert_eq!(
            form.reasons,
            vec![ReportReason::Harassment, ReportReason::Threat]
        );
    }

    #[test]
    fn report_text_is_capped_and_reasons_are_closed() {
        let long = "가".repeat(REPORT_EXTRA_MAX_CHARS + 1);
        assert_eq!(
            ReportForm::parse(&strings(&["기타"]), &long),
            Err(ErrorCode::ReportTooLong)
        );
        assert!(ReportForm::parse(&[], &"가".repeat(REPORT_EXTRA_MAX_CHARS)).is_ok());
        assert_eq!(
            ReportForm::parse(&strings(&["스팸"]), ""),
            Err(ErrorCode::ReportReasonInvalid)
        );
    }

    #[test]
    fn decisions_need_their_days_and_reasons() {
        /// (action, days, reason, the resolution line or the error)
        type Case<'a> = (&'a str, Option<i64>, &'a str, Result<&'a str, ErrorCode>);
        let cases: &[Case] = &[
            ("dismiss", None, "", Ok("기각")),
            ("dismiss", Some(3), " 오해였어요 ", Ok("기각: 오해였어요")),
            ("warn", None, " 욕설 ", Ok("경고: 욕설")),
            ("warn", None, "  ", Err(ErrorCode::SanctionReasonRequired)),
            ("suspend", Some(7), "욕설", Ok("7일 정지: 욕설")),
            ("suspend", None, "욕설", Err(ErrorCode::SanctionDaysInvalid)),
            (
                "suspend",
                Some(0),
                "욕설",
                Err(ErrorCode::SanctionDaysInvalid),
            ),
            ("suspend", Some(365), "욕설", Ok("365일 정지: 욕설")),
            (
                "suspend",
                Some(366),
                "욕설",
                Err(ErrorCode::SanctionDaysInvalid),
            ),
            (
                "suspend",
                Some(-1),
                "욕설",
                Err(ErrorCode::SanctionDaysInvalid),
            ),
            ("ban", Some(7), "협박", Ok("영구 정지: 협박")),
            ("ban", None, "", Err(ErrorCode::SanctionReasonRequired)),
            ("delete", None, "욕설", Err(ErrorCode::SanctionKindInvalid)),
            ("", None, "욕설", Err(ErrorCode::SanctionKindInvalid)),
        ];
        for (action, days, reason, expected) in cases {
            let got = Decision::parse(action, *days, reason);
            assert_eq!(
                got.as_ref().map(Decision::summary).map_err(|e| *e),
                expected.map(str::to_owned),
                "{action} {days:?} {reason:?}"
            );
        }
        let long = "가".repeat(SANCTION_REASON_MAX_CHARS + 1);
        for action in ["dismiss", "warn", "ban"] {
            assert_eq!(
                Decision::parse(action, None, &long),
                Err(ErrorCode::SanctionReasonTooLong)
            );
        }
        let order = SanctionOrder::parse("suspend", Some(2), "욕설").unwrap();
        assert_eq!(order.until(1000), Some(1000 + 2 * 86_400_000));
        assert_eq!(
            SanctionOrder::parse("ban", Some(2), "욕설")
                .unwrap()
                .until(1000),
            None
        );
        assert_eq!(
            Decision::parse("dismiss", None, "").unwrap().status(),
            "dismissed"
        );
        assert_eq!(
            Decision::parse("warn", None, "욕설").unwrap().status(),
            "actioned"
        );
    }

    #[test]
    fn a_restriction_says_why_and_until_when_in_seoul_time() {
        let until = "2026-11-30T11:05:00Z"
            .parse::<DateTime<Utc>>()
            .unwrap()
            .timestamp_millis();
        let r = Restriction {
            kind: SanctionKind::Suspend,
            reason: "욕설".into(),
            until: Some(until),
        };
        assert_eq!(
            r.message(),
            "운영정책 위반으로 2026년 11월 30일 20:05까지 이용이 정지되었어요. 사유: 욕설"
        );
        let ban = Restriction {
            kind: SanctionKind::Ban,
            reason: String::new(),
            until: None,
        };
        assert!(ban.message().contains("영구 정지"));
        assert!(ban.message().ends_with("운영정책 위반"));
    }
}
