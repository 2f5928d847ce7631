import { useId, useState } from 'react';
import { Link } from 'react-router';
import { ConfirmDialog } from '@/components/alert-dialog';
import { BrandMark } from '@/components/brand';
import { Icon } from '@/components/icons';
import { Card } from '@/components/page';
import { Spinner } from '@/components/spinner';
import { termsPath } from '@/config/terms';
import { ko } from '@/i18n/ko';
import { useBell } from '../hooks/use-bell';

/**
 * "8시에 알려주기": a switch that has the server push a notification to this device when the
 * service opens at 20:00. Asks for the consent to notifications first when it is not given,
 * and lets a user who gave it withdraw it (which silences every device). Under it, the push
 * as it will come: the server's title and text, with the first words of the next evening.
 */
export function BellCard() {
  const bell = useBell();
  const titleId = useId();
  const textId = useId();
  const noticeId = useId();
  const previewId = useId();
  const [askingConsent, setAskingConsent] = useState(false);
  const [confirmingWithdrawal, setConfirmingWithdrawal] = useState(false);

  const consent = bell.state?.consent === true;
  const devices = bell.state?.devices ?? 0;
  const notice =
    bell.support === 'unsupported'
      ? ko.bell.unsupported
      : bell.support === 'ios-browser'
        ? ko.bell.iosBrowser
        : bell.permission === 'denied'
          ? ko.bell.denied
          : bell.loadFailed
            ? ko.bell.loadFailed
            : null;
  // Out of use for good (until the page changes) versus busy for a moment: a busy switch keeps
  // its focus, so it is marked aria-disabled rather than disabled.
  const unusable = notice !== null || bell.loading;

  function onToggle() {
    if (bell.busy) return;
    if (bell.on) void bell.turnOff();
    else if (consent) void bell.turnOn({ consentGiven: true });
    else setAskingConsent(true);
  }

  return (
    <Card className="bell-card">
      <div className="bell-card__head">
        <span className="bell-card__icon" aria-hidden="true">
          <Icon name="bell" size={22} />
        </span>
        <div className="bell-card__body">
          <h2 id={titleId} className="card-title">
            {ko.bell.title}
          </h2>
          <p id={textId} className="bell-card__text">
            {ko.bell.text}
          </p>
        </div>
        <button
          type="button"
          role="switch"
          className="switch"
          aria-checked={bell.on}
          aria-labelledby={titleId}
          aria-describedby={notice ? `${textId} ${noticeId}` : textId}
          disabled={unusable && !bell.busy}
          aria-disabled={bell.busy || undefined}
          aria-busy={bell.busy || bell.loading || undefined}
          onClick={onToggle}
        >
          <span className="switch__thumb">{bell.busy || (bell.loading && notice === null) ? <Spinner size="sm" /> : null}</span>
        </button>
      </div>

      {bell.state ? (
        <figure className="bell-card__preview" aria-labelledby={previewId}>
          <figcaption id={previewId} className="bell-card__preview-label">{ko.bell.previewLabel}</figcaption>
          <div className="bell-card__push">
            <span className="bell-card__push-icon" aria-hidden="true">
              <BrandMark size={28} />
            </span>
            <div>
              <p className="bell-card__push-title">{bell.state.preview.title}</p>
              <p className="bell-card__push-body">{bell.state.preview.body}</p>
            </div>
          </div>
        </figure>
      ) : null}

      {notice ? (
        <p id={noticeId} className="bell-card__notice">
          {notice}
        </p>
      ) : null}

      {consent ? (
        <div className="bell-card__footer">
          {devices > 1 ? <span className="bell-card__devices">{ko.bell.devices(devices)}</span> : null}
          <button
            type="button"
            className="bell-card__withdraw"
            disabled={bell.busy}
            onClick={() => {
              setConfirmingWithdrawal(true);
            }}
          >
            {ko.bell.withdraw}
          </button>
        </div>
      ) : null}

      <ConfirmDialog
        open={askingConsent}
        title={ko.bell.consentTitle}
        message={
          <>
            {ko.bell.consentText}
            <Link className="bell-card__terms text-link text-link--strong" to={termsPath('notification-consent')} target="_blank" rel="noopener">
              {ko.bell.consentTerms}
              <span className="visually-hidden"> {ko.app.opensInNewTab}</span>
            </Link>
          </>
        }
        confirmLabel={ko.bell.consentConfirm}
        onCancel={() => {
          setAskingConsent(false);
        }}
        onConfirm={() => {
          setAskingConsent(false);
          // Straight from the tap: the browser's permission prompt needs it.
          void bell.turnOn({ consentGiven: false });
        }}
      />

      <ConfirmDialog
        open={confirmingWithdrawal}
        title={ko.bell.withdrawTitle}
        message={ko.bell.withdrawText}
        confirmLabel={ko.bell.withdrawConfirm}
        busy={bell.busy}
        onCancel={() => {
          setConfirmingWithdrawal(false);
        }}
        onConfirm={() => {
          void bell.withdraw().then(() => {
            setConfirmingWithdrawal(false);
          });
        }}
      />
    </Card>
  );
}
