import { useState } from 'react';
import { useMegaphoneCount } from '@/api/megaphones';
import type { Profile } from '@/api/profile';
import { Icon } from '@/components/icons';
import { ko } from '@/i18n/ko';
import { readLocal, storageKeys, writeLocal } from '@/lib/storage';
import { usePaymentReturn } from '../hooks/use-megaphone-purchase';
import { MegaphoneIntro } from './megaphone-intro';
import { MegaphoneModal } from './megaphone-modal';

/** The megaphone button of /main: the introduction the first time, then the megaphone modal. */
export function MegaphoneButton({ profile }: { profile: Profile | undefined }) {
  const { data } = useMegaphoneCount();
  const count = data?.count ?? 0;
  const [open, setOpen] = useState<'intro' | 'modal' | null>(null);
  usePaymentReturn();

  return (
    <>
      <button
        type="button"
        className="icon-button icon-button--soft megaphone-button"
        aria-label={ko.megaphone.buttonWithCount(count)}
        onClick={() => {
          setOpen(readLocal(storageKeys.seenMegaphoneIntro) === 'true' ? 'modal' : 'intro');
        }}
      >
        <Icon name="megaphone" size={24} />
        {count > 0 ? (
          <span className="megaphone-button__count" aria-hidden="true">
            {count > 99 ? '99+' : count}
          </span>
        ) : null}
      </button>
      <MegaphoneIntro
        open={open === 'intro'}
        onConfirm={() => {
          writeLocal(storageKeys.seenMegaphoneIntro, 'true');
          setOpen('modal');
        }}
        onClose={() => {
          setOpen(null);
        }}
      />
      <MegaphoneModal
        open={open === 'modal'}
        onClose={() => {
          setOpen(null);
        }}
        count={count}
        userId={profile?.userId}
        nickname={profile?.nickname ?? undefined}
      />
    </>
  );
}
