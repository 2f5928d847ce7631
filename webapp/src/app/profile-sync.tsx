import { useEffect } from 'react';
import { useProfile } from '@/api/profile';
import { removeLocal, storageKeys, writeLocal } from '@/lib/storage';

/** Keeps the username and nickname local-storage keys of the specification in step with the profile. */
export function ProfileSync() {
  const { data: profile } = useProfile();
  useEffect(() => {
    if (!profile) return;
    writeLocal(storageKeys.username, profile.username);
    if (profile.nickname) {
      writeLocal(storageKeys.nickname, profile.nickname);
      removeLocal(storageKeys.needNicknameSetup);
    }
  }, [profile]);
  return null;
}
