import { useState, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { toast } from 'sonner';
import { useAppConfig } from '@/api/app-config';
import { useMegaphoneCount } from '@/api/megaphones';
import { useProfile } from '@/api/profile';
import { useSessionCache } from '@/api/session';
import { useWordHistory } from '@/api/word-history';
import { ConfirmDialog } from '@/components/alert-dialog';
import { Button, ButtonLink } from '@/components/button';
import { NicknameModal } from '@/components/nickname-modal';
import { Card } from '@/components/page';
import { Spinner } from '@/components/spinner';
import { ko } from '@/i18n/ko';
import { formatKoreanDayAndTime } from '@/lib/date';
import { operatorLinks, type Destination } from '@/lib/links';
import { useActiveChat } from '@/lib/socket';
import { useLogout } from '../api/logout';
import { unsubscribePush } from '../api/push';
import { forgetThisDevice } from '../lib/bell';
import { useWithdraw } from '../api/withdraw';
import { BellCard } from './bell-card';
import { InstallCard } from './install-card';
import { TonightCard } from './tonight-card';
import { Icon, type IconName } from '@/components/icons';
import '../mypage.css';

export function MyPage() {
  const navigate = useNavigate();
  const { data: profile, error: profileError, isLoading } = useProfile();
  const { data: wordHistory } = useWordHistory();
  const { data: megaphones } = useMegaphoneCount();
  const { data: config } = useAppConfig();
  const links = operatorLinks(config);
  const { markLoggedOut } = useSessionCache();
  const { trigger: logout, isMutating: loggingOut } = useLogout();
  const { trigger: withdraw, isMutating: withdrawing } = useWithdraw();
  const [confirmWithdraw, setConfirmWithdraw] = useState(false);
  const [changingNickname, setChangingNickname] = useState(false);
  const activeChat = useActiveChat();

  async function onLogout() {
    await forgetThisDevice(unsubscribePush);
    const outcome = await logout();
    if (!outcome.ok && outcome.network) toast.error(ko.mypage.logoutFailed);
    // The local session ends either way; a failed call leaves only a cookie the server expires.
    await markLoggedOut();
    void navigate('/login', { replace: true });
  }

  async function onWithdraw() {
    const outcome = await withdraw();
    if (!outcome.ok) {
      setConfirmWithdraw(false);
      toast.error(outcome.network ? ko.mypage.withdrawError : ko.mypage.withdrawFailed(outcome.message ?? ko.mypage.unknownError));
      return;
    }
    toast.success(ko.mypage.withdrawDone);
    await markLoggedOut();
    void navigate('/register', { replace: true });
  }

  return (
    <main className="page-body my-page">
      <h1 className="page-title">{ko.mypage.title}</h1>

      <div className="my-page__columns">
        <div className="my-page__primary">
          <Card className="profile-card">
            <div className="profile-card__avatar" aria-hidden="true">
              {profile?.nickname ? Array.from(profile.nickname)[0] : '?'}
            </div>
            {isLoading ? (
              <Spinner label={ko.app.loading} />
            ) : profileError ? (
              <p role="alert">{ko.mypage.profileLoadFailed}</p>
            ) : (
              <dl className="profile-card__facts">
                <div>
                  <dt>{ko.mypage.nickname}</dt>
                  <dd className="profile-card__nickname">{profile?.nickname ?? ko.mypage.nicknameMissing}</dd>
                  {profile?.nickname ? (
                    <dd className="profile-card__nickname-change">
                      {profile.nickname_changeable_at ? (
                        <span className="profile-card__note">
                          {ko.mypage.nicknameChangeableFrom(formatKoreanDayAndTime(profile.nickname_changeable_at))}
                        </span>
                      ) : (
                        <Button
                          size="sm"
                          variant="secondary"
                          onClick={() => {
                            setChangingNickname(true);
                          }}
                        >
                          {ko.mypage.changeNickname}
                        </Button>
                      )}
                    </dd>
                  ) : null}
                </div>
                <div>
                  <dt>{ko.mypage.username}</dt>
                  <dd>{profile?.username}</dd>
                </div>
              </dl>
            )}
          </Card>

          {activeChat ? (
            <Card className="current-word">
              <span className="current-word__label">{ko.mypage.currentWord}</span>
              <span className="current-word__word">{activeChat.word}</span>
              <span className="current-word__partner">{ko.mypage.currentPartner(activeChat.partnerNickname)}</span>
              <ButtonLink to="/chatpage" size="sm" variant="secondary" className="current-word__action">
                {ko.mypage.backToChat}
              </ButtonLink>
            </Card>
          ) : null}

          <div className="stat-grid">
            <Card className="stat">
              <span className="stat__label">{ko.mypage.telepathyCount}</span>
              <span className="stat__value">{ko.mypage.countUnit(wordHistory?.total ?? 0)}</span>
            </Card>
            <Card className="stat">
              <span className="stat__label">{ko.mypage.megaphoneCount}</span>
              <span className="stat__value">{ko.mypage.megaphoneUnit(megaphones?.count ?? 0)}</span>
            </Card>
          </div>

          <TonightCard />
        </div>

        <div className="my-page__side">
          <Card className="menu-card">
            <ul className="menu">
              <MenuItem icon="book" to={{ kind: 'page', to: '/mywords' }}>
                {ko.mypage.wordHistory}
              </MenuItem>
              {links.paymentInquiry ? (
                <MenuItem icon="card" to={links.paymentInquiry}>
                  {ko.mypage.paymentInquiry}
                </MenuItem>
              ) : null}
              <MenuItem icon="help" to={links.faq}>
                {ko.mypage.faq}
              </MenuItem>
              <MenuItem icon="lock" to={{ kind: 'page', to: '/changepassword' }}>
                {ko.mypage.changePassword}
              </MenuItem>
              <MenuItem icon="logout" onClick={() => void onLogout()} busy={loggingOut}>
                {ko.mypage.logout}
              </MenuItem>
            </ul>
          </Card>

          <InstallCard />

          <BellCard />

          <button
            type="button"
            className="withdraw-link"
            onClick={() => {
              setConfirmWithdraw(true);
            }}
          >
            {ko.mypage.withdraw}
          </button>
        </div>
      </div>

      <ConfirmDialog
        open={confirmWithdraw}
        title={ko.mypage.withdrawTitle}
        message={ko.mypage.withdrawDescription}
        confirmLabel={ko.mypage.withdrawConfirm}
        danger
        busy={withdrawing}
        onCancel={() => {
          setConfirmWithdraw(false);
        }}
        onConfirm={() => void onWithdraw()}
      />
      <NicknameModal
        open={changingNickname}
        onClose={() => {
          setChangingNickname(false);
        }}
      />
    </main>
  );
}

interface MenuItemProps {
  icon: IconName;
  children: ReactNode;
  onClick?: () => void;
  /** Where it goes; none, a button. */
  to?: Destination;
  busy?: boolean;
}

function MenuItem({ icon, children, onClick, to, busy = false }: MenuItemProps) {
  const site = to?.kind === 'site';
  const content = (
    <>
      <span className="menu__icon">
        <Icon name={icon} size={22} />
      </span>
      <span className="menu__label">{children}</span>
      {site ? <span className="visually-hidden">{ko.app.opensInNewTab}</span> : null}
      {busy ? (
        <Spinner size="sm" />
      ) : (
        <svg className="menu__chevron" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
          {site ? (
            <path d="M14 5h5v5M19 5l-8 8M17 14v5H5V7h5" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
          ) : (
            <path d="M9 5l7 7-7 7" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
          )}
        </svg>
      )}
    </>
  );
  return (
    <li>
      {to?.kind === 'page' ? (
        <Link className="menu__item" to={to.to}>
          {content}
        </Link>
      ) : to?.kind === 'site' ? (
        <a className="menu__item" href={to.href} target="_blank" rel="noopener noreferrer">
          {content}
        </a>
      ) : to?.kind === 'mail' ? (
        <a className="menu__item" href={to.href}>
          {content}
        </a>
      ) : (
        <button type="button" className="menu__item" onClick={onClick} disabled={busy}>
          {content}
        </button>
      )}
    </li>
  );
}
