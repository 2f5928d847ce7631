/** Routes only for logged-in users; guests are sent to /login. */
const memberOnly = [
  '/main',
  '/mypage',
  '/mywords',
  '/likes',
  '/chatpage',
  // Changing a password needs the current one and a session: a guest would be refused only
  // on submit (a forgotten password is /findpassword).
  '/changepassword',
  // Identity verification belongs to an account: the server refuses to start one for a guest.
  '/verify',
  '/verify/callback',
];
/** Routes only for guests; members are sent to /main. */
const guestOnly = ['/login', '/register'];

function matches(pathname: string, routes: readonly string[]): boolean {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return routes.includes(path);
}

/**
 * Member pages that show before the login check answers: the pages of the bottom navigation,
 * whose requests wait for a session known. The others act for the account as they open (a
 * chat, identity verification) and wait behind a spinner.
 */
const framedEarly = ['/main', '/mypage', '/mywords', '/likes'];

/** While the login check is out, `pathname` waits behind a spinner rather than showing its frame. */
export function waitsForLogin(pathname: string): boolean {
  return matches(pathname, memberOnly) && !matches(pathname, framedEarly);
}

/** Where the auth rule of the specification sends a visitor of `pathname`, or null to stay. */
export function authRedirect(pathname: string, loggedIn: boolean): string | null {
  if (loggedIn && matches(pathname, guestOnly)) return '/main';
  if (!loggedIn && matches(pathname, memberOnly)) return '/login';
  return null;
}
