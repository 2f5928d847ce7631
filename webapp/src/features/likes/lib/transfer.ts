/**
 * The bank transfer of a custom word set on screen: what is shown, copied and scanned, and how
 * long the page checks for the deposit (spec section 9).
 */

/** The page checks for the deposit this long; a deposit seen later still pays (24 hours). */
export const CHECK_SECONDS = 60;
/** Status polls while checking. */
export const POLL_MS = 1000;
/** On a phone, after the banking app was opened, checking starts this much later. */
export const BANK_APP_DELAY_MS = 2000;

/** A transfer to make: where, how much, and the memo that identifies it. */
export interface TransferView {
  id: number;
  depositor: string;
  amount: number;
  bank: string;
  account: string;
  holder: string;
}

/** The account number as digits only, as banking apps take it. */
export function accountDigits(account: string): string {
  return account.replace(/\D/g, '');
}

/**
 * Toss's transfer link: it opens the app's transfer screen with the bank, account and amount
 * filled in (the memo is typed by the user). Scanned from the desktop QR code, it does the same.
 */
export function tossLink(transfer: TransferView): string {
  const query = new URLSearchParams({
    amount: String(transfer.amount),
    bank: transfer.bank,
    accountNo: accountDigits(transfer.account),
    origin: 'qr',
  });
  return `supertoss://send?${query.toString()}`;
}

/** A phone or tablet, where a banking app can be opened instead of scanning a QR code. */
export function isMobileDevice(userAgent: string = navigator.userAgent): boolean {
  return /Android|iPhone|iPad|iPod|Mobile/i.test(userAgent);
}

/** Whole seconds left of the check that started at `startedAt`, at `now` (never below 0). */
export function secondsLeft(startedAt: number, now: number): number {
  return Math.max(0, CHECK_SECONDS - Math.floor((now - startedAt) / 1000));
}
