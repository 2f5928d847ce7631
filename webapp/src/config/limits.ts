/** Business constants of the specification (section 9) that the screens use. */
export const limits = {
  /** Seconds an SMS verification code stays valid on screen. */
  codeCountdownSeconds: 180,
  /** Seconds before another code may be sent to the same phone (the server's SMS_COOLDOWN). */
  smsCooldownSeconds: 60,
  birthdateDigits: 8,
  codeDigits: 6,
  nicknameMaxLength: 20,
  /** The comment board: longest comment, how many the closed screen shows, how often it refreshes. */
  commentMaxLength: 100,
  commentsShown: 3,
  commentRefreshMs: 10_000,
  /** Months a nickname is kept before it may change. */
  nicknameKeepMonths: 1,
  /** Words shown in each round. */
  wordsPerRound: 4,
  /** How long the main screen shows the picks of the round that just closed (`roundEcho`). */
  roundEchoShownMs: 6000,
  /** The opening hours the screens state, Asia/Seoul; the server decides when matching is open. */
  serviceHours: { open: '20:00', close: '02:00' },
  /** Characters of a megaphone's message. */
  megaphoneMaxLength: 20,
  /** Characters of a report's text. */
  reportExtraMaxLength: 200,
  /** After an accepted report, the reporter leaves the chat this long later. */
  reportLeaveDelayMs: 2000,
  /** The operations team reviews a report within this many hours. */
  reportReviewHours: 24,
  /** Months chat messages, and a withdrawn account's records, are kept (privacy policy). */
  retentionMonths: 6,
  /** The price of one custom word set of four words, in won (the server refuses any other). */
  wordsetPriceWon: 1000,
  /** Seconds an invitation to meet again waits for its answer (the server's AGAIN_INVITE_WAITS). */
  againInviteSeconds: 60,
} as const;

/** The reasons a report may give, as the codes the server reads; their labels are in ko.report.reasons. */
export const reportReasons = ['ad', 'harassment', 'threat', 'sexual', 'other'] as const;

export type ReportReason = (typeof reportReasons)[number];
