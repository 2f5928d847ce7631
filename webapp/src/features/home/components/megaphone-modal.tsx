import { useState } from 'react';
import { toast } from 'sonner';
import { useAppConfig } from '@/api/app-config';
import { Button } from '@/components/button';
import { Modal } from '@/components/modal';
import { TextField } from '@/components/text-field';
import { limits } from '@/config/limits';
import { ko } from '@/i18n/ko';
import { sendFrame, useSocketEvent } from '@/lib/socket';
import { charLength } from '@/lib/validation';
import { useMegaphonePurchase } from '../hooks/use-megaphone-purchase';
import { megaphoneTextRefusals } from '../lib/megaphone-refusals';

interface MegaphoneModalProps {
  open: boolean;
  onClose: () => void;
  count: number;
  userId: number | undefined;
  nickname: string | undefined;
}

/** The spec's megaphone modal: with megaphones, a message to send; without, the packs on sale. */
export function MegaphoneModal({ open, onClose, count, userId, nickname }: MegaphoneModalProps) {
  const [buying, setBuying] = useState(false);
  const [message, setMessage] = useState('');
  const [sending, setSending] = useState(false);
  /** The server's word on what the message says (a phone number in it, say), until it changes. */
  const [refusal, setRefusal] = useState<string | null>(null);
  const purchase = useMegaphonePurchase(nickname);
  const { data: config } = useAppConfig();
  const showPacks = buying || count === 0;
  const length = charLength(message.trim());

  useSocketEvent('megaphoneSent', (sent) => {
    if (!sending) return;
    setSending(false);
    setMessage('');
    toast.success(sent.message || ko.megaphone.sent);
    onClose();
  });
  // A refusal of what the message says is told under the field; any other by the page's
  // error toast. Either way the form opens again.
  useSocketEvent('error', (error) => {
    if (error.event !== 'megaphone:send') return;
    setSending(false);
    if (megaphoneTextRefusals.has(error.code)) setRefusal(error.message);
  });

  function onSend() {
    const text = message.trim();
    if (text === '') {
      toast.error(ko.megaphone.empty);
      return;
    }
    // Said beside the field already; the server refuses it too.
    if (charLength(text) > limits.megaphoneMaxLength) return;
    if (!sendFrame('megaphone:send', { message: text, userId })) {
      toast.error(ko.megaphone.notConnected);
      return;
    }
    setSending(true);
  }

  const order = purchase.demoOrder;
  return (
    <>
      <Modal
        open={open && order === null}
        title={showPacks ? ko.megaphone.buyTitle : ko.megaphone.title}
        description={showPacks ? (count === 0 ? ko.megaphone.buyDescription : ko.megaphone.owned(count)) : ko.megaphone.owned(count)}
        onClose={onClose}
        className="megaphone-modal"
      >
        {showPacks ? (
          <ul className="pack-list">
            {(config?.megaphonePacks ?? []).map((pack) => (
              <li key={pack.item} className="pack">
                <div className="pack__what">
                  <span className="pack__name">{ko.megaphone.pack(pack.count)}</span>
                  {pack.count > 1 ? <span className="pack__unit">{ko.megaphone.perUnit(Math.round(pack.price / pack.count))}</span> : null}
                </div>
                <span className="pack__price">{ko.megaphone.price(pack.price)}</span>
                <Button
                  size="sm"
                  loading={purchase.busy === pack.item}
                  disabled={purchase.busy !== null}
                  onClick={() => void purchase.buy(pack.item)}
                >
                  {purchase.busy === pack.item ? ko.megaphone.paying : ko.megaphone.buy}
                </Button>
              </li>
            ))}
          </ul>
        ) : (
          <form
            className="megaphone-form"
            onSubmit={(event) => {
              event.preventDefault();
              onSend();
            }}
          >
            <TextField
              label={ko.megaphone.composeLabel}
              labelAside={
                <span className="megaphone-form__counter" data-over={length > limits.megaphoneMaxLength || undefined}>
                  {ko.megaphone.counter(length, limits.megaphoneMaxLength)}
                </span>
              }
              error={length > limits.megaphoneMaxLength ? ko.megaphone.tooLong : refusal}
              placeholder={ko.megaphone.placeholder}
              value={message}
              autoComplete="off"
              onChange={(event) => {
                setMessage(event.target.value);
                setRefusal(null);
              }}
            />
            <Button type="submit" block loading={sending} disabled={sending}>
              {sending ? ko.megaphone.sending : ko.megaphone.send}
            </Button>
          </form>
        )}
        <div className="modal__actions">
          {count > 0 ? (
            <Button
              variant="ghost"
              block
              onClick={() => {
                setBuying(!buying);
              }}
            >
              {buying ? ko.megaphone.backToCompose : ko.megaphone.buyMore}
            </Button>
          ) : null}
          <Button variant="subtle" block onClick={onClose}>
            {ko.megaphone.close}
          </Button>
        </div>
      </Modal>
      <Modal
        open={order !== null}
        role="alertdialog"
        title={ko.megaphone.demoTitle}
        description={
          order ? ko.megaphone.demoDescription(ko.megaphone.pack(order.megaphones), ko.megaphone.price(order.amount)) : null
        }
      >
        <div className="modal__actions">
          <Button block onClick={() => void purchase.confirmDemo()}>
            {ko.megaphone.demoPay}
          </Button>
          <Button variant="ghost" block onClick={purchase.cancelDemo}>
            {ko.megaphone.cancel}
          </Button>
        </div>
      </Modal>
    </>
  );
}
