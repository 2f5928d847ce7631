import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { toast } from 'sonner';
import { answerAgain, openInvite } from '@/api/answer-again';
import type { Schemas } from '@/api/client';
import { Button } from '@/components/button';
import { Icon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { limits } from '@/config/limits';
import { ko } from '@/i18n/ko';
import { secondsUntil } from '@/lib/countdown';
import { useServerNow } from '@/lib/server-clock';
import { useSocketEvent } from '@/lib/socket';

type AgainInvite = Schemas['AgainInvite'];

/** What an invitation's push opens the app with (see the server's `again_invite_url`). */
const INVITE_PARAM = 'invite';

/** The countdown is redrawn this often, so its seconds turn over on time. */
const TICK_MS = 250;

/**
 * 다시 텔레파시 received: wherever the user is, the other of a pair asks to meet again under
 * the word they first shared. One invitation at a time, each closing by itself when its minute
 * is over; a match (this one accepted, or any other) closes them all, the user being in a chat.
 */
export function AgainInvitation() {
  const [invites, setInvites] = useState<AgainInvite[]>([]);
  const [params, setParams] = useSearchParams();
  const opened = params.get(INVITE_PARAM);

  function add(invite: AgainInvite) {
    setInvites((current) => (current.some((each) => each.inviteId === invite.inviteId) ? current : [...current, invite]));
  }

  useSocketEvent('againInvite', add);

  // Opened from the invitation's push (`?invite=`): asked for while it waits. The address
  // forgets it, so a reload does not ask again.
  useEffect(() => {
    if (opened === null) return;
    setParams(
      (current) => {
        current.delete(INVITE_PARAM);
        return current;
      },
      { replace: true },
    );
    void openInvite(opened).then((outcome) => {
      if (outcome.ok) add(outcome.data.invite);
      else if (!outcome.network) toast(outcome.message ?? ko.again.acceptFailed);
    });
  }, [opened, setParams]);

  useSocketEvent('matched', () => {
    setInvites([]);
  });

  const invite = invites[0];
  if (!invite) return null;
  return (
    <InvitationDialog
      key={invite.inviteId}
      invite={invite}
      onDone={() => {
        setInvites((current) => current.filter((each) => each.inviteId !== invite.inviteId));
      }}
    />
  );
}

interface InvitationDialogProps {
  invite: AgainInvite;
  /** Answered, refused or lapsed: the next one, if any, shows. */
  onDone: () => void;
}

/**
 * The invitation: who it is from is said only as the word the two shared; 수락하기 opens the
 * chat for both (the server's `matched` takes the user there), 다음에요 (or Escape) closes it
 * and tells the sender nothing.
 */
function InvitationDialog({ invite, onDone }: InvitationDialogProps) {
  const now = useServerNow(TICK_MS);
  const left = secondsUntil(invite.expiresAt, now);
  const [accepting, setAccepting] = useState(false);
  // Focus goes to what the dialog says, not to a button a keystroke meant for the page could press.
  const bodyRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    // An answer on its way is waited for: it may open the chat at the last second.
    if (left === 0 && !accepting) onDone();
  }, [left, accepting, onDone]);

  async function accept() {
    setAccepting(true);
    const outcome = await answerAgain({ inviteId: invite.inviteId, accept: true });
    if (!outcome.ok) toast.error(outcome.network ? ko.again.acceptServerError : (outcome.message ?? ko.again.acceptFailed));
    onDone();
  }

  function decline() {
    onDone();
    // Nothing follows a decline, and nothing is told of it: its answer changes nothing here.
    void answerAgain({ inviteId: invite.inviteId, accept: false });
  }

  return (
    <Modal
      open
      title={ko.again.inviteTitle(invite.word)}
      description={ko.again.inviteText}
      role="alertdialog"
      className="again-invite"
      initialFocus={bodyRef}
      onClose={accepting ? undefined : decline}
    >
      <span className="again-invite__icon" aria-hidden="true">
        <Icon name="heart" size={28} />
      </span>
      <div ref={bodyRef} className="again-invite__body" tabIndex={-1}>
        <p className="again-invite__left" role="timer" aria-label={ko.again.inviteLeft(left)}>
          {ko.again.inviteLeft(left)}
        </p>
        <span className="again-invite__bar" aria-hidden="true">
          <span style={{ width: `${String(Math.min(100, (left / limits.againInviteSeconds) * 100))}%` }} />
        </span>
      </div>
      <div className="modal__actions modal__actions--row">
        <Button variant="secondary" block disabled={accepting} onClick={decline}>
          {ko.again.decline}
        </Button>
        <Button block loading={accepting} onClick={() => void accept()}>
          {accepting ? ko.again.accepting : ko.again.accept}
        </Button>
      </div>
    </Modal>
  );
}
