/** Business constants of the specification (section 9) that the screens use. */
export const limits = {
  /** Seconds an SMS verification code stays valid on screen. */
  codeCountdownSeconds: 180,
  birthdateDigits: 8,
  codeDigits: 6,
  nicknameMaxLength: 20,
} as const;
