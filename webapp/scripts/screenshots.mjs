// Screenshots of every page at 390 px and 1280 px into /tmp/shots (or SHOTS_DIR).
//
// Without SHOTS_BASE_URL it serves dist/ with `vite preview` and answers /api with canned
// replies, so logged-in pages can be seen without a server. With SHOTS_BASE_URL (a running
// server) the real API answers and only pages reachable as a guest are meaningful.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const webappDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const outDir = process.env.SHOTS_DIR ?? '/tmp/shots';
const previewPort = 4179;
const liveBase = process.env.SHOTS_BASE_URL;
const base = liveBase ?? `http://127.0.0.1:${previewPort}`;

fs.mkdirSync(outDir, { recursive: true });

function startPreview() {
  const child = spawn(
    process.execPath,
    [path.join(webappDir, 'node_modules/vite/bin/vite.js'), 'preview', '--port', String(previewPort), '--strictPort', '--host', '127.0.0.1'],
    { cwd: webappDir, env: { ...process.env, TELEPATHY_DEV_BACKEND: 'http://127.0.0.1:9' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      if (String(chunk).includes(String(previewPort))) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`vite preview exited with ${code}`)));
  });
}

/** Canned API answers for a visitor who is logged in (or not) and has a nickname (or not). */
/** A round as the server describes it; closed rounds say when the service opens next. */
function roundState({ open = true, words = springWords, remaining = 17 } = {}) {
  return {
    isOpen: open,
    round: 1_000,
    remaining,
    words,
    serverTime: Date.now(),
    ...(open ? {} : { nextOpenAt: new Date(Date.now() + (3 * 3600 + 12 * 60 + 34) * 1000).toISOString() }),
  };
}

const springWords = ['봄', '여름', '가을', '겨울'].map((word) => ({ word, paid: false, custom: false }));
const customWords = ['바다', '노을', '한강', '아이스크림'].map((word) => ({ word, paid: false, custom: true }));

/** The custom word set of the visitor: their real name, payments, sets, and the status a check reads. */
const transferDestination = { bank: '데모은행', account: '000-0000-0000', holder: '텔레파시 데모' };
const likesHistory = {
  payments: [
    { id: 12, depositor: '김민준0427', amount: 1000, status: 'paid', used: false, createdAt: '2025-11-21T12:10:00Z', expiresAt: '2025-11-22T12:10:00Z', paidAt: '2025-11-21T12:30:00Z' },
    { id: 9, depositor: '김민준8812', amount: 1000, status: 'paid', used: true, createdAt: '2025-11-18T11:00:00Z', expiresAt: '2025-11-19T11:00:00Z', paidAt: '2025-11-18T11:02:00Z' },
    { id: 7, depositor: '김민준3051', amount: 1000, status: 'expired', used: false, createdAt: '2025-11-15T13:00:00Z', expiresAt: '2025-11-16T13:00:00Z' },
  ],
  wordsets: [
    { id: 4, words: ['첫눈', '붕어빵', '목도리', '군밤'], status: 'pending', createdAt: '2025-11-21T12:40:00Z' },
    { id: 3, words: ['바다', '노을', '한강', '아이스크림'], status: 'approved', createdAt: '2025-11-18T11:10:00Z', reviewedAt: '2025-11-18T15:00:00Z' },
    { id: 2, words: ['시험', '과제', '야근', '월요일'], status: 'rejected', reason: '이미 있는 주제와 비슷해요', createdAt: '2025-11-10T11:10:00Z', reviewedAt: '2025-11-10T15:00:00Z' },
  ],
};
const noLikes = { realName: '김민준', payments: [], wordsets: [], status: 'pending' };
const nameWords = ['민준', '서연', '지우', '하준'].map((word) => ({ word, paid: true, custom: false }));

/** What a demo server tells of its operator (TELEPATHY_BUSINESS_* unset). */
const demoBusiness = { name: '텔레파시 운영팀', email: 'help@telepathy.example' };
/** Every fact configured, to see the longest lists. */
const fullBusiness = {
  name: '텔레파시 운영팀',
  representative: '홍길동',
  registrationNumber: '123-45-67890',
  mailOrderNumber: '제2026-서울마포-0000호',
  address: '서울특별시 마포구 예시로 12, 3층',
  phone: '02-000-0000',
  email: 'help@telepathy.example',
  hosting: '예시 클라우드',
  youthOfficer: { name: '홍길동', position: '운영 책임자', email: 'youth@telepathy.example' },
  privacyOfficer: { name: '홍길동', position: '개발 책임자', email: 'privacy@telepathy.example' },
};

/** The closed screen's board: a member's and two guests' comments, newest first. */
const boardComments = [
  { id: 3, nickname: '별빛Star', username: '별빛Star', content: '오늘 밤엔 꼭 고양이 나왔으면', createdAt: '2025-11-21T09:05:00Z' },
  { id: 2, nickname: '익명', username: 'guest_user', content: '8시 되면 바로 들어올게요!', createdAt: '2025-11-21T08:40:00Z' },
  { id: 1, nickname: '익명', username: 'guest_user', content: '어제 만난 분 또 만나고 싶다', createdAt: '2025-11-21T08:10:00Z' },
];

/** A VAPID public key's shape: an uncompressed P-256 point (65 bytes, the first 4), base64url. */
const pushPublicKey = Buffer.from(Uint8Array.from({ length: 65 }, (_, index) => (index === 0 ? 4 : index))).toString('base64url');
/** The opening bell as the server knows it: consent to notifications, and devices whose bell is on. */
const noBell = { consent: false, devices: 0 };

/**
 * Headless Chromium refuses real push subscriptions, so a shot of the bell on gives the page a
 * subscription of its own, with the permission granted. Runs in the page, before the app.
 */
function fakeBellOn(key) {
  const bytes = Uint8Array.from(atob(key.replace(/-/g, '+').replace(/_/g, '/')), (char) => char.charCodeAt(0));
  const endpoint = 'https://push.example/send/screenshot';
  const subscription = {
    endpoint,
    options: { userVisibleOnly: true, applicationServerKey: bytes.buffer },
    toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh: 'p256dh', auth: 'auth' } }),
    unsubscribe: async () => true,
  };
  const registration = { active: {}, pushManager: { getSubscription: async () => subscription, subscribe: async () => subscription } };
  Object.defineProperty(ServiceWorkerContainer.prototype, 'getRegistration', { value: async () => registration });
  Object.defineProperty(Notification, 'permission', { get: () => 'granted' });
}

/** The browser's permission prompt still open, so the switch stays busy. Runs in the page, before the app. */
function fakeBellAsking() {
  Object.defineProperty(Notification, 'permission', { get: () => 'default' });
  Notification.requestPermission = () => new Promise(() => {});
}

/** Notifications blocked in the browser's site settings. Runs in the page, before the app. */
function fakeBellDenied() {
  Object.defineProperty(Notification, 'permission', { get: () => 'denied' });
}

const restriction = {
  kind: 'suspend',
  reason: '반복된 욕설',
  until: '2026-11-30T11:05:00+00:00',
  message: '운영정책 위반으로 2026년 11월 30일 20:05까지 이용이 정지되었어요. 사유: 반복된 욕설',
};

/** Tonight's word as My page asks for it: the word and how many it connected, `none` before anyone met, or `failed`. */
const tonightWord = { word: '바다', people: 24 };

function mockApi(page, { session, nickname = '달빛Moon', history = false, round = {}, business = demoBusiness, links = {}, login = 'failed', likes = noLikes, push = noBell, warnings = [], tonight = tonightWord }) {
  return page.route('**/api/**', (route) => {
    const url = new URL(route.request().url());
    const json = (body, status = 200) => route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
    switch (url.pathname) {
      case '/api/auth/check':
        return json({ loggedIn: session.loggedIn });
      case '/api/app-config':
        return json({ demo: true, business, megaphonePacks: [], pushPublicKey, links });
      case '/api/push':
        return json({ success: true, ...push });
      case '/api/push/consent': {
        const { agree } = route.request().postDataJSON();
        Object.assign(push, { consent: agree, devices: agree ? push.devices : 0 });
        return json({ success: true, message: agree ? '알림 수신에 동의했어요.' : '알림 수신 동의를 철회했어요.', ...push });
      }
      case '/api/push/subscribe':
        return json({ success: true, message: '저녁 8시에 이 기기로 알려드릴게요.' });
      case '/api/push/unsubscribe':
        return json({ success: true, message: '이 기기에서 8시 알림을 껐어요.' });
      case '/api/nickname/profile':
        return session.loggedIn
          ? json({ success: true, user_id: 7, id: 7, userId: 7, username: 'alice_01', nickname })
          : json({ success: false, code: 'UNAUTHORIZED', message: '로그인이 필요해요.' }, 401);
      case '/api/nickname/check':
        return json({ success: true, message: '사용할 수 있는 닉네임이에요.' });
      case '/api/warnings':
        return json({ success: true, warnings });
      case '/api/word-history':
        return json({
          success: true,
          total: history === 'many' ? 732 : history ? 3 : 0,
          history: history
            ? [
                { word: '바다', partner_nickname: '파도소리', connected_at: '2025-11-21T13:05:00Z' },
                { word: '첫눈', partner_nickname: 'Snow7', connected_at: '2025-11-20T12:40:00Z' },
                { word: '떡볶이', partner_nickname: '매운맛', connected_at: '2025-11-18T14:10:00Z' },
              ]
            : [],
        });
      case '/api/match/tonight':
        if (tonight === 'failed') return json({ success: false, code: 'INTERNAL', message: '잠시 후 다시 시도해주세요.' }, 500);
        return json(tonight === 'none' ? { people: 0 } : tonight);
      case '/api/server-time':
        return json(roundState(round));
      case '/api/match/current-round': {
        const { round: number, remaining, words } = roundState(round);
        return json({ round: number, remaining, words });
      }
      case '/api/comments':
        return route.request().method() === 'POST'
          ? json({ success: true, message: '등록되었어요.', comment: boardComments[0] })
          : json(boardComments);
      case '/api/feedback/add':
        return json({ success: true, message: '소중한 기분을 남겨주셔서 고마워요.' });
      case '/api/match/end':
        return json({ success: true, message: '대화가 종료되었어요.' });
      case '/api/auth/check-username':
        return json({ success: true, isAvailable: true, message: '사용 가능한 아이디입니다.' });
      case '/api/verify-mvp/send':
        return json({ success: true, message: '인증번호가 전송되었어요.' });
      case '/api/password/check-user':
        return json({ exists: true });
      case '/api/password/send-code':
        return json({ success: true, message: '인증번호가 전송되었어요.', maskedPhone: '010-****-5678' });
      case '/api/verify/confirm':
        return json({ success: true, message: '본인인증이 완료되었어요.', user: { name: '홍길동' } });
      case '/api/auth/login':
        return login === 'restricted'
          ? json({ success: false, code: 'ACCOUNT_RESTRICTED', message: restriction.message, restriction }, 403)
          : json({ success: false, code: 'LOGIN_FAILED', message: '아이디 또는 비밀번호가 올바르지 않아요.' }, 401);
      case '/api/report':
        return json({ success: true, message: '신고가 접수되었어요. 운영팀이 24시간 이내에 확인할게요.' });
      case '/api/user/7':
        return json({ success: true, user_id: 7, real_name: likes.realName });
      case '/api/user/update-realname':
        likes.realName = '김민준';
        return json({ success: true, message: '이름이 저장되었어요.' });
      case '/api/sp_payments/create':
        return json({
          success: true,
          message: '아래 계좌로 1,000원을 보내주세요.',
          id: 13,
          depositor: '김민준0427',
          amount: 1000,
          status: 'pending',
          destination: transferDestination,
          expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
          checkSeconds: 60,
        });
      case '/api/sp_payments/status/13':
        return json({ success: true, id: 13, status: likes.status, used: false });
      case '/api/sp_payments/mine':
        return json({ success: true, payments: likes.payments, destination: transferDestination });
      case '/api/wordsets/mine/7':
        return json({ success: true, wordsets: likes.wordsets });
      case '/api/sp_payments/update-refund':
        return json({ ok: true, success: true, message: '소중한 단어를 보내주셔서 고마워요! 검토를 거쳐 24시간 이내에 반영될 거예요.', wordset_id: 5 });
      default:
        return json({ success: false, code: 'NOT_FOUND', message: '없는 주소예요.' }, 404);
    }
  });
}

const viewports = [
  { name: '390', viewport: { width: 390, height: 844 } },
  { name: '1280', viewport: { width: 1280, height: 800 } },
];

const chatInfo = {
  myId: 7,
  myUsername: 'alice_01',
  myNickname: '달빛Moon',
  partnerId: 12,
  partnerUsername: 'star_12',
  partnerNickname: '별빛Star',
  word: '고양이',
  round: 1_000,
  roomId: 'room-1',
  startTime: Date.now() - 5 * 60 * 1000,
};

/** A `roundEcho` frame: the words of the round that closed and how many picked each. */
function roundEcho(words, counts) {
  return { round: 999, words: words.map((word, index) => ({ word, count: counts[index] ?? 0 })) };
}

/** A short conversation on the word of chatInfo, ending a minute ago. */
function conversation() {
  const start = Date.now() - 4 * 60 * 1000;
  const lines = [
    [12, '안녕하세요! 고양이 고르셨네요', 0],
    [7, '네 ㅎㅎ 반가워요! 고양이 키우세요?', 40],
    [12, '두 마리 키워요. 치즈랑 까망이요', 75],
    [12, '둘 다 엄청 자기 마음대로예요 ㅋㅋ', 80],
    [7, '이름 너무 귀여워요', 130],
    [7, '저는 아직 못 키우는데 언젠가 꼭 키우고 싶어요. 고양이랑 살면 제일 좋은 점이 뭐예요?', 135],
  ];
  return lines.map(([senderId, message, offset], index) => {
    const timestamp = start + offset * 1000;
    const mine = senderId === 7;
    return {
      id: `${timestamp}-${index}`,
      roomId: 'room-1',
      senderId,
      senderUsername: mine ? 'alice_01' : 'star_12',
      senderNickname: mine ? '달빛Moon' : '별빛Star',
      receiverId: mine ? 12 : 7,
      receiverUsername: mine ? 'star_12' : 'alice_01',
      receiverNickname: mine ? '별빛Star' : '달빛Moon',
      word: '고양이',
      message,
      timestamp,
    };
  });
}

/**
 * A stand-in for the server's socket: hello with the round, the online count, and answers to
 * what the page sends (a pick waits; a resume replays the conversation). `extra` runs after hello.
 */
function mockSocket(page, { round = {}, online = 12, room = null, messages = [], extra } = {}, session = { loggedIn: true }) {
  return page.routeWebSocket('**/ws', (ws) => {
    const send = (event, data) => ws.send(JSON.stringify({ event, data }));
    send('hello', { userId: 7, round: roundState(round), ...(room ? { roomId: room } : {}) });
    send('onlineCount', { count: online });
    ws.onMessage((text) => {
      const { event, data } = JSON.parse(String(text));
      if (event === 'join_match') send('matchWaiting', { word: data.word, round: data.round });
      if (event === 'getOnlineCount') send('onlineCount', { count: online });
      if (event === 'resume') {
        for (const message of messages) send('chatMessage', message);
        send('resumed', { roomId: data.roomId, count: messages.length });
        extra?.(send, session);
      }
      if (event === 'chatMessage') {
        send('chatMessage', { ...chatMessageFrom(data), clientId: data.clientId });
      }
    });
    if (!room) extra?.(send, session);
  });
}

function chatMessageFrom(data) {
  const timestamp = Date.now();
  return {
    id: `${timestamp}-0`,
    roomId: data.roomId,
    senderId: 7,
    senderUsername: 'alice_01',
    senderNickname: '달빛Moon',
    receiverId: 12,
    receiverUsername: 'star_12',
    receiverNickname: '별빛Star',
    word: '고양이',
    message: data.message,
    timestamp,
  };
}

/** Each shot: a name, the session it needs, and how to reach the state worth seeing. */
const shots = [
  { name: 'login', loggedIn: false, go: '/login' },
  {
    name: 'login-failed',
    loggedIn: false,
    go: '/login',
    act: async (page) => {
      await page.getByLabel('아이디').fill('alice_01');
      await page.getByLabel('비밀번호').fill('wrongpass1');
      await page.getByRole('button', { name: '로그인', exact: true }).click();
      await page.getByRole('alertdialog').waitFor();
    },
  },
  {
    name: 'terms-modal',
    loggedIn: false,
    go: '/login',
    act: async (page) => {
      await page.getByRole('button', { name: '회원가입' }).click();
      await page.getByRole('checkbox').first().check();
      await page.getByRole('button', { name: '다음' }).click();
    },
  },
  { name: 'register-empty', loggedIn: false, go: '/register' },
  {
    name: 'register',
    loggedIn: false,
    go: '/register',
    act: async (page) => {
      await page.getByLabel('아이디').fill('alice_01');
      await page.getByRole('button', { name: '중복 확인' }).click();
      await page.getByText('사용 가능한 아이디입니다.').waitFor();
    },
  },
  {
    name: 'verify-mvp',
    loggedIn: false,
    go: '/register',
    act: async (page) => {
      await page.getByLabel('아이디').fill('alice_01');
      await page.getByRole('button', { name: '중복 확인' }).click();
      await page.getByText('사용 가능한 아이디입니다.').waitFor();
      await page.getByLabel('비밀번호').fill('abcdefg1');
      await page.getByRole('button', { name: '회원가입' }).click();
      await page.waitForURL('**/verify-mvp');
      await page.getByLabel('생년월일').fill('20000101');
      await page.getByRole('radio', { name: '여성' }).check();
      await page.getByLabel('휴대폰 번호').fill('01012345678');
      await page.getByRole('button', { name: '인증번호 받기' }).click();
      await page.getByLabel('인증번호').waitFor();
    },
  },
  {
    name: 'findpassword',
    loggedIn: false,
    go: '/findpassword',
  },
  {
    name: 'findpassword-reset',
    loggedIn: false,
    go: '/findpassword',
    act: async (page) => {
      await page.getByLabel('아이디').fill('alice_01');
      await page.getByRole('button', { name: '다음' }).click();
      await page.getByText('010-****-5678').waitFor();
    },
  },
  {
    name: 'login-restricted',
    loggedIn: false,
    go: '/login',
    login: 'restricted',
    act: async (page) => {
      await page.getByLabel('아이디').fill('alice_01');
      await page.getByLabel('비밀번호').fill('abcdefg1');
      await page.getByRole('button', { name: '로그인', exact: true }).click();
      await page.getByText('이용이 제한된 계정이에요').waitFor();
    },
  },
  {
    name: 'main-restricted',
    loggedIn: true,
    go: '/main',
    socket: {
      extra: (send, session) =>
        setTimeout(() => {
          // The sanction ended the session: the server no longer knows the cookie.
          session.loggedIn = false;
          send('accountRestricted', restriction);
        }, 300),
    },
    act: async (page) => {
      await page.getByRole('alertdialog', { name: '이용이 제한되었어요' }).waitFor();
    },
  },
  { name: 'changepassword', loggedIn: true, go: '/changepassword' },
  { name: 'verify', loggedIn: true, go: '/verify' },
  { name: 'verify-callback', loggedIn: true, go: '/verify/callback?identityVerificationId=demo-123' },
  { name: 'verify-callback-missing', loggedIn: true, go: '/verify/callback' },
  { name: 'terms-service', loggedIn: false, go: '/terms/service' },
  { name: 'terms-youth', loggedIn: false, go: '/terms/youth-protection' },
  { name: 'terms-unknown', loggedIn: false, go: '/terms/unknown' },
  { name: 'main', loggedIn: true, go: '/main' },
  { name: 'main-nickname', loggedIn: true, nickname: null, go: '/main' },
  // The longest nickname (20 characters, all Hangul) beside a four-digit online count.
  { name: 'main-long-nickname', loggedIn: true, nickname: '새벽세시의감성충만한달빛여행자고양이집사', go: '/main', socket: { online: 1234 } },
  {
    name: 'main-nickname-confirm',
    loggedIn: true,
    nickname: null,
    go: '/main',
    act: async (page) => {
      await page.getByRole('textbox', { name: '닉네임' }).fill('달빛Moon');
      await page.getByRole('button', { name: '다음' }).click();
    },
  },
  // The round that just closed, a second into the next: under the words for a few seconds.
  {
    name: 'main-echo',
    loggedIn: true,
    go: '/main',
    socket: { extra: (send) => setTimeout(() => send('roundEcho', roundEcho(['봄', '여름', '가을', '겨울'], [12, 8, 0, 5])), 300) },
    act: async (page) => {
      await page.getByText('방금 라운드: 봄 12 · 여름 8 · 가을 0 · 겨울 5').waitFor();
    },
  },
  {
    name: 'main-echo-long',
    loggedIn: true,
    go: '/main',
    round: { words: customWords },
    socket: {
      round: { words: customWords },
      extra: (send) => setTimeout(() => send('roundEcho', roundEcho(['첫눈오는날', '붕어빵', '목도리', '아이스크림'], [1024, 318, 0, 77])), 300),
    },
    act: async (page) => {
      await page.getByText(/방금 라운드: 첫눈오는날 1024/).waitFor();
    },
  },
  {
    name: 'main-echo-waiting',
    loggedIn: true,
    go: '/main',
    socket: { extra: (send) => setTimeout(() => send('roundEcho', roundEcho(['봄', '여름', '가을', '겨울'], [3, 2, 1, 0])), 300) },
    act: async (page) => {
      await page.getByText('방금 라운드: 봄 3 · 여름 2 · 가을 1 · 겨울 0').waitFor();
      await page.locator('.word-button', { hasText: '여름' }).click();
      await page.getByText(/고른 사람을 기다리고 있어요/).waitFor();
    },
  },
  {
    name: 'main-echo-christmas',
    loggedIn: true,
    go: '/main',
    date: '2025-12-24T21:00:00+09:00',
    socket: { extra: (send) => setTimeout(() => send('roundEcho', roundEcho(['봄', '여름', '가을', '겨울'], [12, 8, 0, 5])), 300) },
    act: async (page) => {
      await page.getByText(/방금 라운드/).waitFor();
    },
  },
  { name: 'main-halloween', loggedIn: true, go: '/main', date: '2025-10-30T21:00:00+09:00' },
  { name: 'main-christmas', loggedIn: true, go: '/main', date: '2025-12-24T21:00:00+09:00' },
  { name: 'mypage', loggedIn: true, go: '/mypage' },
  { name: 'mypage-tonight-none', loggedIn: true, go: '/mypage', tonight: 'none' },
  { name: 'mypage-tonight-failed', loggedIn: true, go: '/mypage', tonight: 'failed' },
  { name: 'mypage-tonight-long', loggedIn: true, go: '/mypage', tonight: { word: '아이스크림', people: 1268 } },
  {
    name: 'main-warned',
    loggedIn: true,
    go: '/main',
    warnings: [
      {
        id: 3,
        reason: '반복된 욕설',
        message: '운영정책 위반으로 경고를 받았어요. 같은 일이 반복되면 이용이 정지될 수 있어요. 사유: 반복된 욕설',
        givenAt: '2025-11-20T13:40:00Z',
      },
    ],
  },
  {
    name: 'mypage-links',
    loggedIn: true,
    go: '/mypage',
    links: { community: 'https://gall.example.kr/telepathy', paymentInquiry: 'https://forms.example.kr/pay', faq: 'https://telepathy.kr/faq' },
  },
  // The opening bell: on here (on two devices), then the consent asked, withdrawn, and where it cannot ring.
  { name: 'mypage-bell-on', loggedIn: true, go: '/mypage', push: { consent: true, devices: 2 }, init: fakeBellOn },
  { name: 'mypage-bell-on-christmas', loggedIn: true, go: '/mypage', push: { consent: true, devices: 1 }, init: fakeBellOn, date: '2025-12-24T21:00:00+09:00' },
  {
    name: 'mypage-bell-consent',
    loggedIn: true,
    go: '/mypage',
    act: async (page) => {
      await page.getByRole('switch', { name: '8시에 알려주기' }).click();
      await page.getByRole('alertdialog', { name: '알림 수신에 동의해주세요' }).waitFor();
    },
  },
  {
    name: 'mypage-bell-withdraw',
    loggedIn: true,
    go: '/mypage',
    push: { consent: true, devices: 2 },
    init: fakeBellOn,
    act: async (page) => {
      await page.getByRole('button', { name: '알림 수신 동의 철회' }).click();
      await page.getByRole('alertdialog', { name: '알림 수신 동의를 철회할까요?' }).waitFor();
    },
  },
  {
    name: 'mypage-bell-busy',
    loggedIn: true,
    go: '/mypage',
    push: { consent: true, devices: 1 },
    init: fakeBellAsking,
    act: async (page) => {
      await page.getByRole('switch', { name: '8시에 알려주기' }).click();
      await page.locator('.switch[aria-busy="true"]').waitFor();
    },
  },
  { name: 'mypage-bell-denied', loggedIn: true, go: '/mypage', push: { consent: true, devices: 1 }, init: fakeBellDenied },
  {
    name: 'mypage-bell-iphone',
    loggedIn: true,
    go: '/mypage',
    userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  },
  {
    name: 'mypage-withdraw',
    loggedIn: true,
    go: '/mypage',
    act: async (page) => {
      await page.getByRole('button', { name: '회원 탈퇴' }).click();
    },
  },
  { name: 'mywords', loggedIn: true, go: '/mywords' },
  { name: 'mywords-filled', loggedIn: true, history: true, go: '/mywords' },
  { name: 'mywords-many', loggedIn: true, history: 'many', go: '/mywords' },
  { name: 'likes-empty', loggedIn: true, go: '/likes' },
  { name: 'likes-history', loggedIn: true, go: '/likes', likes: { realName: '김민준', ...likesHistory, status: 'pending' } },
  {
    name: 'likes-realname',
    loggedIn: true,
    go: '/likes',
    likes: { ...noLikes, realName: null },
    act: async (page) => {
      await page.getByRole('button', { name: '1,000원 입금하고 단어 세트 만들기' }).click();
      await page.getByRole('dialog', { name: '입금자 이름 입력' }).waitFor();
    },
  },
  {
    name: 'likes-pending',
    loggedIn: true,
    go: '/likes',
    act: async (page) => {
      await page.getByRole('button', { name: '1,000원 입금하고 단어 세트 만들기' }).click();
      await page.getByRole('img', { name: /QR 코드/ }).waitFor();
    },
  },
  {
    name: 'likes-pending-phone',
    loggedIn: true,
    go: '/likes',
    userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
    act: async (page) => {
      await page.getByRole('button', { name: '1,000원 입금하고 단어 세트 만들기' }).click();
      await page.getByRole('heading', { name: '아래 계좌로 1,000원을 보내주세요' }).waitFor();
    },
  },
  {
    name: 'likes-checking',
    loggedIn: true,
    go: '/likes',
    act: async (page) => {
      await page.getByRole('button', { name: '1,000원 입금하고 단어 세트 만들기' }).click();
      await page.getByRole('button', { name: '입금했어요' }).click();
      await page.getByRole('heading', { name: '입금을 확인하고 있어요' }).waitFor();
      await page.waitForTimeout(3200);
    },
  },
  {
    name: 'likes-paid',
    loggedIn: true,
    go: '/likes',
    likes: { ...noLikes, status: 'paid' },
    act: async (page) => {
      await page.getByRole('button', { name: '1,000원 입금하고 단어 세트 만들기' }).click();
      await page.getByRole('button', { name: '입금했어요' }).click();
      await page.getByRole('alertdialog', { name: '입금이 확인되었어요!' }).waitFor();
    },
  },
  {
    name: 'likes-expired',
    loggedIn: true,
    go: '/likes',
    clock: true,
    act: async (page) => {
      await page.getByRole('button', { name: '1,000원 입금하고 단어 세트 만들기' }).click();
      await page.getByRole('button', { name: '입금했어요' }).click();
      await page.getByRole('heading', { name: '입금을 확인하고 있어요' }).waitFor();
      await page.clock.fastForward(61_000);
      await page.getByRole('heading', { name: '아직 입금이 확인되지 않았어요' }).waitFor();
    },
  },
  { name: 'helppage', loggedIn: true, go: '/helppage' },
  {
    name: 'helppage-full',
    loggedIn: true,
    go: '/helppage',
    business: fullBusiness,
    act: async (page) => {
      await page.getByText('단어를 골랐는데 연결되지 않았어요.').click();
      await page.getByRole('heading', { name: '문의하기' }).scrollIntoViewIfNeeded();
    },
  },
  { name: 'main-footer', loggedIn: true, go: '/main', business: fullBusiness, act: (page) => page.getByRole('button', { name: '텔레파시 사업자 정보' }).click() },
  { name: 'wordset-nopayment', loggedIn: true, go: '/wordset' },
  { name: 'wordset-guest', loggedIn: false, go: '/wordset' },
  { name: 'wordset-form', loggedIn: true, go: '/wordset?payment=12', likes: { realName: '김민준', ...likesHistory, status: 'paid' } },
  {
    name: 'wordset-errors',
    loggedIn: true,
    go: '/wordset?payment=12',
    likes: { realName: '김민준', ...likesHistory, status: 'paid' },
    act: async (page) => {
      await page.getByLabel('단어 1', { exact: true }).fill('바다');
      await page.getByLabel('단어 2', { exact: true }).fill('바다');
      await page.getByLabel('단어 3', { exact: true }).fill('ㅋㅋ');
      await page.getByLabel('은행', { exact: true }).selectOption('직접 입력');
      await page.getByLabel('은행 이름').fill('국');
      await page.getByLabel('계좌번호').fill('12');
      await page.getByLabel('단어 1', { exact: true }).press('Enter');
      await page.getByRole('alertdialog').waitFor();
    },
  },
  {
    name: 'wordset-thanks',
    loggedIn: true,
    go: '/wordset?payment=12',
    likes: { realName: '김민준', ...likesHistory, status: 'paid' },
    act: async (page) => {
      for (const [i, word] of ['첫눈', '붕어빵', '목도리', '군밤'].entries()) await page.getByLabel(`단어 ${i + 1}`, { exact: true }).fill(word);
      await page.getByLabel('은행', { exact: true }).selectOption('카카오뱅크');
      await page.getByLabel('계좌번호').fill('3333012345678');
      await page.getByRole('button', { name: '저장하기' }).click();
      await page.getByRole('alertdialog', { name: '고마워요!' }).waitFor();
    },
  },
  { name: 'main-custom', loggedIn: true, go: '/main', socket: { round: { words: customWords, remaining: 21 } }, round: { words: customWords, remaining: 21 } },
  { name: 'main-open', loggedIn: true, go: '/main', socket: {} },
  { name: 'main-special', loggedIn: true, go: '/main', socket: { round: { words: nameWords, remaining: 24 } }, round: { words: nameWords, remaining: 24 } },
  {
    name: 'main-waiting',
    loggedIn: true,
    go: '/main',
    socket: {},
    act: async (page) => {
      await page.getByRole('button', { name: '여름' }).click();
      await page.getByText('고른 사람을 기다리고 있어요').waitFor();
    },
  },
  { name: 'main-closed', loggedIn: true, go: '/main', socket: { round: { open: false } }, round: { open: false } },
  {
    name: 'login-closed',
    loggedIn: false,
    go: '/login',
    round: { open: false },
    act: async (page) => {
      await page.getByRole('dialog', { name: '지금은 운영 시간이 아니에요' }).getByText('오늘 밤엔 꼭 고양이').waitFor();
    },
  },
  { name: 'main-feedback', loggedIn: true, go: '/main', socket: {}, storage: { feedbackInfo: chatInfo } },
  {
    name: 'main-feedback-chosen',
    loggedIn: true,
    go: '/main',
    socket: {},
    storage: { feedbackInfo: chatInfo },
    act: async (page) => {
      await page.getByRole('radio', { name: '행복해요' }).check();
    },
  },
  { name: 'main-active-chat', loggedIn: true, go: '/main', socket: { room: 'room-1' }, storage: { chatInfo } },
  { name: 'mypage-current-word', loggedIn: true, go: '/mypage', socket: { room: 'room-1' }, storage: { chatInfo } },
  { name: 'chatpage-missing', loggedIn: true, go: '/chatpage', socket: {} },
  { name: 'chatpage-empty', loggedIn: true, go: '/chatpage', socket: { room: 'room-1' }, storage: { chatInfo } },
  {
    name: 'chatpage-messages',
    loggedIn: true,
    go: '/chatpage',
    socket: { room: 'room-1', messages: conversation() },
    storage: { chatInfo },
    act: async (page) => {
      await page.getByText('고양이랑 살면').waitFor();
    },
  },
  {
    name: 'chatpage-typing',
    loggedIn: true,
    go: '/chatpage',
    socket: { room: 'room-1', messages: conversation(), extra: (send) => setTimeout(() => send('typing', { roomId: 'room-1', userId: 12 }), 300) },
    storage: { chatInfo },
    act: async (page) => {
      await page.getByText('별빛Star님이 입력 중이에요').waitFor();
      await page.getByRole('textbox', { name: '메시지' }).fill('치즈는 무슨 색이에요?');
    },
  },
  {
    name: 'chatpage-ended',
    loggedIn: true,
    go: '/chatpage',
    socket: {
      room: 'room-1',
      messages: conversation(),
      extra: (send) => setTimeout(() => send('chatEnded', { roomId: 'room-1', reason: 'left', byUserId: 12 }), 300),
    },
    storage: { chatInfo },
    act: async (page) => {
      await page.getByRole('alertdialog').waitFor();
    },
  },
  {
    name: 'chatpage-report',
    loggedIn: true,
    go: '/chatpage',
    socket: { room: 'room-1', messages: conversation() },
    storage: { chatInfo },
    act: async (page) => {
      await page.getByText('고양이랑 살면').waitFor();
      await page.getByRole('button', { name: '신고하기' }).click();
      const dialog = page.getByRole('dialog', { name: '신고하기' });
      await dialog.getByRole('checkbox', { name: '욕설/비하' }).check();
      await dialog.getByRole('checkbox', { name: '위협' }).check();
      await dialog.getByLabel('신고 내용').fill('대화 중에 계속 욕을 하고 만나자고 협박했어요.');
    },
  },
  {
    name: 'chatpage-report-empty',
    loggedIn: true,
    go: '/chatpage',
    socket: { room: 'room-1', messages: conversation() },
    storage: { chatInfo },
    act: async (page) => {
      await page.getByText('고양이랑 살면').waitFor();
      await page.getByRole('button', { name: '신고하기' }).click();
      const dialog = page.getByRole('dialog', { name: '신고하기' });
      await dialog.getByRole('button', { name: '신고하기' }).click();
      await dialog.getByRole('alert').filter({ hasText: '신고 사유' }).waitFor();
    },
  },
  {
    name: 'chatpage-reported',
    loggedIn: true,
    go: '/chatpage',
    socket: { room: 'room-1', messages: conversation() },
    storage: { chatInfo },
    act: async (page) => {
      await page.getByText('고양이랑 살면').waitFor();
      await page.getByRole('button', { name: '신고하기' }).click();
      const dialog = page.getByRole('dialog', { name: '신고하기' });
      await dialog.getByRole('checkbox', { name: '광고/홍보성 메시지' }).check();
      await dialog.getByRole('button', { name: '신고하기' }).click();
      await page.getByText('신고가 접수되어 곧 대화방을 나가요.').waitFor();
    },
  },
  {
    name: 'chatpage-ended-report',
    loggedIn: true,
    go: '/chatpage',
    socket: {
      room: 'room-1',
      messages: conversation(),
      extra: (send) => setTimeout(() => send('chatEndedByReport', { roomId: 'room-1', reason: 'report', byUserId: 12 }), 300),
    },
    storage: { chatInfo },
    act: async (page) => {
      await page.getByRole('alertdialog').waitFor();
    },
  },
  {
    name: 'chatpage-leave',
    loggedIn: true,
    go: '/chatpage',
    socket: { room: 'room-1', messages: conversation() },
    storage: { chatInfo },
    act: async (page) => {
      await page.getByText('고양이랑 살면').waitFor();
      await page.getByRole('button', { name: '나가기' }).click();
      await page.getByRole('alertdialog').waitFor();
    },
  },
];

// SHOTS_ONLY=main,chatpage takes only the shots whose names start with one of these.
const only = process.env.SHOTS_ONLY?.split(',').filter(Boolean) ?? [];
const selected = only.length === 0 ? shots : shots.filter((shot) => only.some((prefix) => shot.name.startsWith(prefix)));

const preview = liveBase ? null : await startPreview();
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

let failures = 0;
try {
  for (const { name: size, viewport } of viewports) {
    for (const shot of selected) {
      const context = await browser.newContext({ viewport, locale: 'ko-KR', timezoneId: 'Asia/Seoul', ...(shot.userAgent ? { userAgent: shot.userAgent } : {}) });
      const page = await context.newPage();
      try {
        if (shot.date) await page.clock.setFixedTime(new Date(shot.date));
        if (shot.clock) await page.clock.install();
        if (!liveBase) {
          const session = { loggedIn: shot.loggedIn };
          await mockApi(page, {
            session,
            nickname: shot.nickname === undefined ? '달빛Moon' : shot.nickname,
            history: shot.history ?? false,
            round: shot.round ?? {},
            business: shot.business ?? demoBusiness,
            links: shot.links ?? {},
            warnings: shot.warnings ?? [],
            login: shot.login ?? 'failed',
            likes: structuredClone(shot.likes ?? noLikes),
            push: structuredClone(shot.push ?? noBell),
            tonight: shot.tonight ?? tonightWord,
          });
          const socket = shot.socket ?? (shot.loggedIn ? {} : null);
          if (socket) await mockSocket(page, socket, session);
        }
        if (shot.init) await page.addInitScript(shot.init, pushPublicKey);
        if (shot.storage) {
          await page.addInitScript((entries) => {
            for (const [key, value] of Object.entries(entries)) localStorage.setItem(key, JSON.stringify(value));
          }, shot.storage);
        }
        await page.goto(base + shot.go);
        await page.waitForLoadState('networkidle');
        if (shot.act) await shot.act(page);
        await page.evaluate(() => document.fonts.ready);
        await page.waitForTimeout(350);
        // Full pages on the phone width, unless a long document would shrink to nothing.
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        await page.screenshot({ path: path.join(outDir, `${shot.name}-${size}.png`), fullPage: size === '390' && height < 2000 });
      } catch (error) {
        failures += 1;
        console.error(`${shot.name}-${size}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        await context.close();
      }
    }
  }
} finally {
  await browser.close();
  preview?.kill();
}
console.log(`${selected.length * viewports.length - failures} screenshots in ${outDir}, ${failures} failed`);
process.exitCode = failures > 0 ? 1 : 0;
