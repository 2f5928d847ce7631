/** Business constants of the specification (section 9) that the screens use. */
export const limits = {
  /** Seconds an SMS verification code stays valid on screen. */
  codeCountdownSeconds: 180,
  birthdateDigits: 8,
  codeDigits: 6,
  nicknameMaxLength: 20,
  /** The comment board: longest comment, how many the closed screen shows, how often it refreshes. */
  commentMaxLength: 100,
  commentsShown: 3,
  commentRefreshMs: 10_000,
} as const;
