import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast } from 'sonner';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { limits } from '@/config/limits';
import { ko } from '@/i18n/ko';
import { writeChatInfo } from '@/lib/chat-session';
import { chatInfo, matchedFor } from '@/test/chat-info';
import { connectTabSocket, fakeTabSocketPerTest } from '@/test/fake-socket';
import { jsonResponse, renderRoute } from '@/test/render';
import { ChatPage } from './chat-page';

vi.mock('sonner', () => ({ toast: Object.assign(vi.fn(), { success: vi.fn(), error: vi.fn() }) }));

const info = chatInfo;

const accepted = '신고가 접수되었어요. 운영팀이 24시간 이내에 확인할게요.';

let fetchMock: Mock<(request: Request) => Promise<Response>>;
let reports: unknown[];

/** The server: reports answer `reportAnswer`, everything else succeeds. */
function serve(reportAnswer: () => Promise<Response> = () => Promise.resolve(jsonResponse({ success: true, message: accepted }))) {
  fetchMock.mockImplementation(async (request) => {
    const path = new URL(request.url).pathname;
    if (path === '/api/report') {
      reports.push(await request.json());
      return reportAnswer();
    }
    return jsonResponse({ success: true, message: '대화가 종료되었어요.' });
  });
}

fakeTabSocketPerTest();

beforeEach(() => {
  fetchMock = vi.fn<(request: Request) => Promise<Response>>();
  reports = [];
  serve();
  vi.stubGlobal('fetch', fetchMock);
  vi.mocked(toast.success).mockClear();
  vi.mocked(toast.error).mockClear();
  writeChatInfo(info);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function setup() {
  const user = userEvent.setup();
  const view = renderRoute(<ChatPage />, { path: '/chatpage', extraPaths: ['/main'] });
  return { user, ...view };
}

/** The tab's socket, connected: the test speaks for the server. */
const connect = connectTabSocket;

async function openReport(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole('button', { name: ko.report.open }));
  return screen.getByRole('dialog', { name: ko.report.title });
}

describe('report from the chat', () => {
  it('asks for a reason or some text before sending anything', async () => {
    const { user } = setup();
    const dialog = await openReport(user);
    await user.click(within(dialog).getByRole('button', { name: ko.report.submit }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('신고 사유를 선택하거나 내용을 입력해주세요.');
    await user.type(within(dialog).getByLabelText(ko.report.extraLabel), '   ');
    await user.click(within(dialog).getByRole('button', { name: ko.report.submit }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent(ko.validation.REPORT_EMPTY);
    expect(reports).toEqual([]);
  });

  it('counts the text as it is written and stops at 200 characters', async () => {
    const { user } = setup();
    const dialog = await openReport(user);
    const text = within(dialog).getByLabelText(ko.report.extraLabel);
    expect(within(dialog).getByText('0/200')).toBeInTheDocument();
    await user.type(text, '욕을 해요');
    expect(within(dialog).getByText('5/200')).toBeInTheDocument();
    await user.clear(text);
    await user.click(text);
    await user.paste('가'.repeat(250));
    expect(text).toHaveValue('가'.repeat(limits.reportExtraMaxLength));
    expect(within(dialog).getByText('200/200')).toBeInTheDocument();
    await user.type(text, '나');
    expect(text).toHaveValue('가'.repeat(limits.reportExtraMaxLength));
    expect(text).toHaveAccessibleDescription(ko.report.counterLabel(200, 200));
  });

  it('sends the reasons and text, says so, and leaves after exactly 2 s without the mood question', async () => {
    const { user, router } = setup();
    expect(screen.getByText(ko.chat.emptyHint)).toBeInTheDocument();
    const dialog = await openReport(user);
    await user.click(within(dialog).getByRole('checkbox', { name: ko.report.reasons.threat }));
    await user.click(within(dialog).getByRole('checkbox', { name: ko.report.reasons.harassment }));
    await user.type(within(dialog).getByLabelText(ko.report.extraLabel), '  계속 욕을 해요 ');

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    fireEvent.click(within(dialog).getByRole('button', { name: ko.report.submit }));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(reports).toEqual([{ roomId: 'room-1', reportedId: 12, reasons: ['harassment', 'threat'], extraMessage: '계속 욕을 해요' }]);
    expect(toast.success).toHaveBeenCalledWith(accepted);
    expect(screen.queryByRole('dialog', { name: ko.report.title })).not.toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: ko.chat.inputLabel })).toBeDisabled();
    expect(screen.getByText(ko.report.leavingSoon)).toBeInTheDocument();
    // Nobody is asked to say hello in a chat that is being left.
    expect(screen.queryByText(ko.chat.emptyHint)).not.toBeInTheDocument();

    await act(async () => {
      await vi.advanceTimersByTimeAsync(limits.reportLeaveDelayMs - 1);
    });
    expect(router.state.location.pathname).toBe('/chatpage');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
    await vi.waitFor(() => {
      expect(router.state.location.pathname).toBe('/main');
    });
    expect(localStorage.getItem('chatInfo')).toBeNull();
    // The mood question on /main reads feedbackInfo: a reported chat leaves none.
    expect(localStorage.getItem('feedbackInfo')).toBeNull();
    expect(fetchMock.mock.calls.some(([request]) => new URL(request.url).pathname === '/api/match/end')).toBe(true);
  });

  it("shows the server's refusal and stays in the chat", async () => {
    serve(() =>
      Promise.resolve(jsonResponse({ success: false, code: 'REPORT_NOT_PARTNER', message: '함께 대화한 상대만 신고할 수 있어요.' }, 403)),
    );
    const { user, router } = setup();
    const dialog = await openReport(user);
    await user.click(within(dialog).getByRole('checkbox', { name: ko.report.reasons.ad }));
    await user.click(within(dialog).getByRole('button', { name: ko.report.submit }));
    await waitFor(() => {
      expect(toast.error).toHaveBeenCalledWith('함께 대화한 상대만 신고할 수 있어요.');
    });
    expect(screen.getByRole('dialog', { name: ko.report.title })).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: ko.chat.inputLabel })).toBeEnabled();
    expect(router.state.location.pathname).toBe('/chatpage');
  });

  it.each([
    ['a network failure', () => Promise.reject(new TypeError('Failed to fetch'))],
    ['a server error', () => Promise.resolve(jsonResponse({ success: false, code: 'INTERNAL', message: '서버 오류' }, 500))],
  ])('says a generic error after %s', async (_, answer) => {
    serve(answer);
    const { user } = setup();
    const dialog = await openReport(user);
    await user.click(within(dialog).getByRole('checkbox', { name: ko.report.reasons.sexual }));
    await user.click(within(dialog).getByRole('button', { name: ko.report.submit }));
    await waitFor(() => {
      expect(toast.error).toHaveBeenCalledWith(ko.report.serverError);
    });
  });

  it('cannot be changed or closed while sending', async () => {
    let answer: (response: Response) => void = () => undefined;
    serve(() => new Promise((resolve) => (answer = resolve)));
    const { user } = setup();
    const dialog = await openReport(user);
    await user.click(within(dialog).getByRole('checkbox', { name: ko.report.reasons.other }));
    await user.click(within(dialog).getByRole('button', { name: ko.report.submit }));
    const sending = await within(dialog).findByRole('button', { name: ko.report.submitting });
    expect(sending).toBeDisabled();
    expect(within(dialog).getByRole('button', { name: ko.app.cancel })).toBeDisabled();
    expect(within(dialog).getByRole('checkbox', { name: ko.report.reasons.other })).toBeDisabled();
    await user.keyboard('{Escape}');
    expect(dialog).toBeInTheDocument();
    answer(jsonResponse({ success: true, message: accepted }));
    await waitFor(() => {
      expect(dialog).not.toBeInTheDocument();
    });
  });

  it('is reached by keyboard and closes with Escape, giving focus back', async () => {
    const { user } = setup();
    const button = screen.getByRole('button', { name: ko.report.open });
    button.focus();
    await user.keyboard('{Enter}');
    const dialog = screen.getByRole('dialog', { name: ko.report.title });
    expect(within(dialog).getByRole('checkbox', { name: ko.report.reasons.ad })).toHaveFocus();
    await user.keyboard(' ');
    expect(within(dialog).getByRole('checkbox', { name: ko.report.reasons.ad })).toBeChecked();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog', { name: ko.report.title })).not.toBeInTheDocument();
    expect(button).toHaveFocus();
  });
});

describe('a chat ended by a report', () => {
  it('ends for the reported user, who reads why and leaves without the mood question', async () => {
    const { user, router } = setup();
    const socket = connect();
    act(() => {
      socket.receive('chatEndedByReport', { roomId: 'room-1', reason: 'report', byUserId: info.partnerId });
    });
    const ended = screen.getByRole('alertdialog', { name: ko.chat.endedTitle });
    expect(ended).toHaveTextContent(ko.chat.endedByReport);
    expect(screen.getByRole('textbox', { name: ko.chat.inputLabel })).toBeDisabled();
    expect(screen.getByRole('button', { name: ko.report.open })).toBeDisabled();
    await user.click(within(ended).getByRole('button', { name: ko.chat.endedLeave }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/main');
    });
    expect(localStorage.getItem('chatInfo')).toBeNull();
    expect(localStorage.getItem('feedbackInfo')).toBeNull();
  });

  it('shows the reporter nothing more: they leave after 2 s', async () => {
    const { router } = setup();
    const socket = connect();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    act(() => {
      socket.receive('chatEndedByReport', { roomId: 'room-1', reason: 'report', byUserId: info.myId });
    });
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: ko.chat.inputLabel })).toBeDisabled();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(limits.reportLeaveDelayMs);
    });
    await vi.waitFor(() => {
      expect(router.state.location.pathname).toBe('/main');
    });
  });

  it('ignores the end of another room', () => {
    setup();
    const socket = connect();
    act(() => {
      socket.receive('chatEndedByReport', { roomId: 'room-2', reason: 'report', byUserId: 99 });
    });
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: ko.chat.inputLabel })).toBeEnabled();
  });

  it('lets a partner who left still be reported', async () => {
    const { user } = setup();
    const socket = connect();
    act(() => {
      socket.receive('chatEnded', { roomId: 'room-1', reason: 'left', byUserId: info.partnerId });
    });
    const ended = screen.getByRole('alertdialog', { name: ko.chat.endedTitle });
    await user.click(within(ended).getByRole('button', { name: ko.report.open }));
    const dialog = screen.getByRole('dialog', { name: ko.report.title });
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: ko.app.cancel }));
    expect(screen.getByRole('alertdialog', { name: ko.chat.endedTitle })).toBeInTheDocument();
  });
});

describe('a chat that ended on this user', () => {
  it('asks the one who was left how it felt, as the one who left is asked', async () => {
    const { user, router } = setup();
    const socket = connect();
    act(() => {
      socket.receive('chatEnded', { roomId: 'room-1', reason: 'left', byUserId: info.partnerId });
    });
    const ended = screen.getByRole('alertdialog', { name: ko.chat.endedTitle });
    expect(ended).toHaveTextContent(ko.chat.endedByPartner(info.partnerNickname));
    await user.click(within(ended).getByRole('button', { name: ko.chat.endedLeave }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/main');
    });
    expect(localStorage.getItem('chatInfo')).toBeNull();
    // The mood question (with its block) on /main reads feedbackInfo.
    expect(JSON.parse(localStorage.getItem('feedbackInfo') ?? 'null')).toMatchObject({ roomId: 'room-1', partnerId: 12 });
  });

  it('says a chat resumed after it ended, ended while this device was away', () => {
    setup();
    const socket = connect();
    act(() => {
      socket.receive('hello', { userId: info.myId, round: { isOpen: true, round: 1000, remaining: 20, words: [], serverTime: 0 } });
    });
    expect(socket.sent).toContainEqual({ event: 'resume', data: { roomId: 'room-1' } });
    act(() => {
      socket.receive('chatEnded', { roomId: 'room-1', reason: 'left' });
    });
    expect(screen.getByRole('alertdialog', { name: ko.chat.endedTitle })).toHaveTextContent(ko.chat.endedWhileAway);
  });
});

describe('the chat page without a stored chat', () => {
  function answer(current: unknown) {
    fetchMock.mockImplementation((request) =>
      Promise.resolve(new URL(request.url).pathname === '/api/match/current' ? jsonResponse(current) : jsonResponse({ success: true })),
    );
  }

  beforeEach(() => {
    localStorage.clear();
  });

  it('says the chat ended when the server says the latest one did, with a way back', async () => {
    answer({ ended: { roomId: 'room-1', word: '고양이', partnerNickname: '별빛' } });
    const { user, router } = setup();
    const heading = await screen.findByRole('heading', { level: 1, name: ko.chat.endedTitle });
    expect(heading).toBeInTheDocument();
    expect(screen.getByText(ko.chat.overText('별빛', '고양이'))).toBeInTheDocument();
    expect(screen.queryByText(ko.chat.missingInfo)).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: ko.chat.overBack }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/main');
    });
  });

  it('opens the room the server says the user sits in, and stores it', async () => {
    answer({
      room: matchedFor({ roomId: 'room-9', word: '바다', round: 1001, question: '가장 기억에 남는 바다는 어디예요?', again: false }),
    });
    setup();
    expect(await screen.findByRole('heading', { level: 1, name: '바다' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: ko.chat.questionRegion })).toHaveTextContent('가장 기억에 남는 바다는 어디예요?');
    expect(JSON.parse(localStorage.getItem('chatInfo') ?? 'null')).toMatchObject({ roomId: 'room-9', partnerId: 12, myId: 7 });
  });

  it('keeps the notice of the specification when the server knows no chat at all', async () => {
    answer({});
    setup();
    expect(await screen.findByRole('alertdialog', { name: ko.chat.missingTitle })).toHaveTextContent(ko.chat.missingInfo);
  });
});
