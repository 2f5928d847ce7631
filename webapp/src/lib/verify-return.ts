/**
 * Where the identity check returns to: a page that needed the real name (the word set's
 * transfer) sends the user to `/verify?next=/likes`; the provider's redirect loses the query,
 * so the page is kept in this tab's session storage until the result page offers the way back.
 */
const key = 'verifyReturn';

/** Only a path of this app: never another origin. */
function isAppPath(path: string | null): path is string {
  return path !== null && path.startsWith('/') && !path.startsWith('//');
}

export function rememberVerifyReturn(next: string | null): void {
  try {
    if (isAppPath(next)) window.sessionStorage.setItem(key, next);
    else window.sessionStorage.removeItem(key);
  } catch {
    // Without storage the result page leads to /main.
  }
}

export function verifyReturn(): string | null {
  try {
    const path = window.sessionStorage.getItem(key);
    return isAppPath(path) ? path : null;
  } catch {
    return null;
  }
}
