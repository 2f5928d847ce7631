/** Business constants of the specification (section 9) that the screens use. */
export const limits = {
  /** Seconds an SMS verification code stays valid on screen. */
  codeCountdownSeconds: 180,
  birthdateDigits: 8,
  codeDigits: 6,
  nicknameMaxLength: 20,
  /** Characters of a report's text. */
  reportExtraMaxLength: 200,
  /** After an accepted report, the reporter leaves the chat this long later. */
  reportLeaveDelayMs: 2000,
  /** The operations team reviews a report within this many hours. */
  reportReviewHours: 24,
} as const;

/** The reasons a report may give, as the codes the server reads; their labels are in ko.report.reasons. */
export const reportReasons = ['ad', 'harassment', 'threat', 'sexual', 'other'] as const;

export type ReportReason = (typeof reportReasons)[number];
