//! Business constants of the accounts flow (spec section 9 and our own safety limits).

use std::time::Duration;

/// Life of a phone verification code (spec: 180-second countdown).
pub const CODE_TTL: Duration = Duration::from_secs(180);
/// Tries of one code, right or wrong: a code is tried only from the browser it was sent
/// for, so nobody else spends them, and a guesser has five in a million per SMS.
pub const CODE_MAX_ATTEMPTS: i64 = 5;
/// How long a browser keeps its code flow (the cookie that binds codes to it): long enough
/// to ask again and type the code, well past one code's life.
pub const CODE_FLOW_TTL: Duration = Duration::from_secs(60 * 60);
/// How long a verified phone may be used to register.
pub const VERIFIED_PHONE_TTL: Duration = Duration::from_secs(15 * 60);
/// Minimum gap between two codes to one phone asked for from one network: another
/// network's asking (a stranger's) does not hold the owner back.
pub const SMS_COOLDOWN: Duration = Duration::from_secs(60);
/// Codes one phone may receive per day when asked for from one network.
pub const SMS_DAILY_PER_PHONE: u32 = 5;
/// Codes one phone may receive per day from all networks together, against texting a
/// stranger's phone from many. A device that logged in to the phone's account before, or
/// any browser on a network the account's sessions began from in `KNOWN_NETWORK_WITHIN`,
/// is not held back by it (a password reset from the owner's own browser, or a new one at
/// home or at work).
pub const SMS_DAILY_PER_PHONE_ALL: u32 = 10;
/// How far back a network the account logged in from counts as its owner's.
pub const KNOWN_NETWORK_WITHIN: Duration = Duration::from_secs(90 * 24 * 60 * 60);
/// Codes one client address may request per day.
pub const SMS_DAILY_PER_IP: u32 = 30;
/// Failed logins per client address, whatever the username, in `LOGIN_WINDOW`.
pub const LOGIN_PER_IP: u32 = 50;
/// Login tries per client address, failed or not, in `LOGIN_WINDOW`: each costs the node
/// an Argon2id hash, the most expensive thing it does for a stranger.
pub const LOGIN_TRIES_PER_IP: u32 = 100;
/// Successful logins (new sessions) of one account in `LOGIN_WINDOW`, from anywhere: a
/// person logs in a few times a day, not dozens of times a minute.
pub const LOGINS_PER_ACCOUNT: u32 = 10;
/// Window of the login limits.
pub const LOGIN_WINDOW: Duration = Duration::from_secs(10 * 60);
/// The back-off of one username, whatever the address, for tries from devices that never
/// logged in to it: guesses spread over many addresses are held back too. The owner's own
/// devices (see `DEVICE_TRUST`) are not.
pub const LOGIN_ACCOUNT_BACKOFF: [(u32, Duration); 3] = [
    (10, Duration::from_secs(10 * 60)),
    (20, Duration::from_secs(60 * 60)),
    (50, Duration::from_secs(24 * 60 * 60)),
];
/// How long a browser that logged in to an account is known as that account's device,
/// exempt from the limits strangers trip for it.
pub const DEVICE_TRUST: Duration = Duration::from_secs(365 * 24 * 60 * 60);
/// The back-off of one client address for one username: at most this many failed logins
/// in each window, so the address waits longer the more it fails (5 minutes after 5
/// failures, the hour after 10, the day after 20). Other addresses, the owner's among
/// them, are not held back.
pub const LOGIN_BACKOFF: [(u32, Duration); 3] = [
    (5, Duration::from_secs(5 * 60)),
    (10, Duration::from_secs(60 * 60)),
    (20, Duration::from_secs(24 * 60 * 60)),
];
/// Password changes one account may try in `PASSWORD_CHANGE_WINDOW` (the current password
/// is checked there too).
pub const PASSWORD_CHANGES_PER_USER: u32 = 10;
/// Window of the password-change limit.
pub const PASSWORD_CHANGE_WINDOW: Duration = Duration::from_secs(10 * 60);
/// Account look-ups (check-user, check-username) per address in `LOOKUP_WINDOW`.
pub const LOOKUPS_PER_IP: u32 = 60;
/// Window of the look-up limits.
pub const LOOKUP_WINDOW: Duration = Duration::from_secs(10 * 60);
/// Nickname checks (is it free?) per user in `LOOKUP_WINDOW`: the sign-up modal asks as
/// the name is typed. Per account, not per address, so people behind one address do not
/// share it.
pub const NICKNAME_CHECKS_PER_USER: u32 = 60;
/// Reads of one phone's code from the demo SMS outbox in `OUTBOX_WINDOW`: a code is read
/// once or a few times.
pub const OUTBOX_READS_PER_PHONE: u32 = 10;
/// Reads of the demo SMS outbox per client address in `OUTBOX_WINDOW`: enough for the load
/// generator's largest sign-up run (1,000 users) from this machine.
pub const OUTBOX_READS_PER_IP: u32 = 3000;
/// Window of the outbox limits.
pub const OUTBOX_WINDOW: Duration = Duration::from_secs(10 * 60);
/// Identity verifications one account may start in `IDENTITY_WINDOW`.
pub const IDENTITY_PREPARES_PER_USER: u32 = 10;
/// Window of the identity verification limit.
pub const IDENTITY_WINDOW: Duration = Duration::from_secs(60 * 60);
/// Youngest age allowed to join.
pub const MIN_AGE: u32 = 14;
/// How long a nickname is kept before it may change (spec: 1 month).
pub const NICKNAME_KEEP_DAYS: i64 = 30;
/// Life of a login session.
pub const SESSION_TTL: Duration = Duration::from_secs(30 * 24 * 60 * 60);
/// How long after a match contact details and links in chat messages are masked: spam bots
/// and grooming start in the first messages of a chat.
pub const CONTACT_SHIELD: Duration = Duration::from_secs(5 * 60);

/// A report's free text, at most this many characters (after trimming).
pub const REPORT_EXTRA_MAX_CHARS: usize = 200;
/// Reports a user may file in a day.
pub const REPORTS_PER_DAY: u32 = 20;
/// The operations team handles a report within this time (the policy's promise).
pub const REPORT_DUE: Duration = Duration::from_secs(24 * 60 * 60);
/// Messages of one sender in one chat masked as abusive before the chat is flagged for
/// the operators without a report.
pub const FLAG_AFTER_MASKED: u32 = 3;
/// A withdrawn account's personal data is kept this long, then erased (the privacy
/// policy's promise).
pub const WITHDRAWN_KEEP_DAYS: i64 = 183;

/// Comments a logged-in user may post, per `COMMENT_WINDOW`.
pub const COMMENTS_PER_USER: u32 = 5;
/// Comments one client address may post (guests and users alike), per `COMMENT_WINDOW`.
pub const COMMENTS_PER_IP: u32 = 20;
pub const COMMENT_WINDOW: Duration = Duration::from_secs(10 * 60);
/// Comments the board shows.
pub const COMMENTS_SHOWN: i64 = 30;

/// Shared words listed on /mywords, newest first; My page counts them all.
pub const WORD_HISTORY_SHOWN: i64 = 500;
/// An operator's reason for a sanction (shown to the user) or a lift, at most this many
/// characters after trimming.
pub const SANCTION_REASON_MAX_CHARS: usize = 200;
/// The longest suspension, in days (longer is a ban).
pub const SUSPEND_DAYS_MAX: i64 = 365;
/// An operator session ends after this long without a request.
pub const OPERATOR_IDLE: Duration = Duration::from_secs(30 * 60);
/// An operator session ends this long after its login, however busy.
pub const OPERATOR_SESSION_MAX: Duration = Duration::from_secs(12 * 60 * 60);
/// An operator session's idle deadline moves at most this often (one write a minute, not
/// one per request).
pub const OPERATOR_SLIDE_EVERY: Duration = Duration::from_secs(60);
/// The back-off of one operator's wrong second-factor codes: at most this many in each
/// window. With three codes valid at a time (the step before, now and after), 20 tries a
/// day find one with a chance of about 6 in 100,000, and only after the password.
pub const TOTP_BACKOFF: [(u32, Duration); 3] = [
    (5, Duration::from_secs(5 * 60)),
    (10, Duration::from_secs(60 * 60)),
    (20, Duration::from_secs(24 * 60 * 60)),
];

/// Megaphones one user may send per `MEGAPHONE_WINDOW`: each shows on every screen for 5 s.
pub const MEGAPHONES_PER_USER: u32 = 1;
pub const MEGAPHONE_WINDOW: Duration = Duration::from_secs(10);
/// Card orders (payment windows opened) one user may issue per `PAYMENT_WINDOW`.
pub const CARD_ORDERS_PER_USER: u32 = 20;
/// Payment verifications one user may ask for per `PAYMENT_WINDOW` (each asks PortOne).
pub const PAYMENT_CHECKS_PER_USER: u32 = 30;
/// PortOne notifications one address may send per `PAYMENT_WINDOW` (each asks PortOne).
pub const PAYMENT_NOTICES_PER_IP: u32 = 600;
pub const PAYMENT_WINDOW: Duration = Duration::from_secs(10 * 60);
/// The price of one custom word set of four words, in won (spec section 9).
pub const WORDSET_PRICE_WON: i64 = 1_000;
/// How long a bank transfer stays open for its deposit. The web app checks for 60 s
/// (`TRANSFER_CHECK_WINDOW`), but a deposit confirmed later still pays.
pub const TRANSFER_OPEN: Duration = Duration::from_secs(24 * 60 * 60);
/// How long the web app polls a transfer's status before showing it as not yet seen.
pub const TRANSFER_CHECK_WINDOW: Duration = Duration::from_secs(60);
/// Demo mode: a pending transfer counts as paid this long after it was opened.
pub const DEMO_TRANSFER_PAID_AFTER: Duration = Duration::from_secs(5);
/// Transfers one user may open (or look up again) per `TRANSFER_WINDOW`.
pub const TRANSFERS_PER_USER: u32 = 10;
/// Real-name changes one user may make per `TRANSFER_WINDOW`.
pub const REAL_NAME_UPDATES_PER_USER: u32 = 10;
/// Word sets one user may submit per `TRANSFER_WINDOW` (each needs its own payment too).
pub const WORDSETS_PER_USER: u32 = 10;
pub const TRANSFER_WINDOW: Duration = Duration::from_secs(60 * 60);
/// Deposit notifications one client address may send per `TRANSFER_WINDOW`.
pub const DEPOSIT_NOTICES_PER_IP: u32 = 600;
/// An approved word set is reflected within this time of its submission (the spec's
/// promise); operators see sets past it as overdue.
pub const WORDSET_REVIEW_DUE: Duration = Duration::from_secs(24 * 60 * 60);
/// Every node reads the approved word sets this often.
pub const WORDSET_REFRESH: Duration = Duration::from_secs(20);
/// An approved set joins the rotation no sooner than this after its approval: longer than
/// `WORDSET_REFRESH`, so every node knows it before its first round.
pub const WORDSET_ACTIVATE_AFTER: Duration = Duration::from_secs(60);
/// Bell changes (consent, subscribe, unsubscribe) per user per [`PUSH_WINDOW`].
pub const PUSH_CHANGES_PER_USER: u32 = 30;
pub const PUSH_WINDOW: Duration = Duration::from_secs(10 * 60);
/// The longest push endpoint we keep (the browsers' are a few hundred characters).
pub const PUSH_ENDPOINT_MAX_CHARS: usize = 1_000;

/// The largest WebSocket frame a client may send, in bytes; a larger one closes the
/// socket (1009).
pub const SOCKET_FRAME_MAX_BYTES: usize = 16 * 1024;
/// Frames a user may send over all their sockets, on every node together, in each
/// `SOCKET_FRAME_WINDOW`, any frame counted (text or binary, readable or not); the next
/// ones are refused unread, and a socket that goes on sending after as many refusals is
/// closed (1008). A socket closed and opened again, on the same node or another, gets
/// nothing new within the window.
pub const SOCKET_FRAMES_PER_WINDOW: u32 = 40;
/// Window of the socket frame limit, aligned on the shared clock so that every node counts
/// the same one.
pub const SOCKET_FRAME_WINDOW: Duration = Duration::from_secs(10);
/// Sockets one account may hold at once, over every node: a person uses a phone and a
/// computer, with a few tabs open. A socket opened beyond them closes the account's
/// oldest, wherever it is, so a forgotten tab gives way to the one in use and a script
/// cannot pile sockets up on one account.
pub const SOCKETS_PER_USER: usize = 5;
/// Sockets one account may open in `SOCKET_OPEN_WINDOW`, over every node: a phone on a
/// train that reconnects every second or two for a minute stays well within it, and a
/// script that opens and closes sockets in a loop is refused the upgrade (each one costs a
/// session read, an attach and a `hello`).
pub const SOCKET_OPENS_PER_USER: u32 = 60;
/// Window of the socket opening limit.
pub const SOCKET_OPEN_WINDOW: Duration = Duration::from_secs(60);

/// The round's echo is shown only when at least this many picks were made in the round:
/// with fewer, a user who knows their own pick could tell what the few others picked.
pub const ROUND_ECHO_MIN_PICKS: u64 = 5;

/// 다시 텔레파시: how long after a chat ended its members may say they wish to meet again.
pub const AGAIN_WISH_WITHIN: Duration = Duration::from_secs(60 * 60);
/// How long a pair, made when both members of a chat wished it, lasts.
pub const AGAIN_PAIR_DAYS: Duration = Duration::from_secs(30 * 24 * 60 * 60);
/// How long an invitation of a pair waits for its answer.
pub const AGAIN_INVITE_WAITS: Duration = Duration::from_secs(60);
/// Invitations a user may send in one service evening, to all their pairs together.
pub const AGAIN_INVITES_A_NIGHT: i64 = 5;
