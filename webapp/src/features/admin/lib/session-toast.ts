import { toast } from 'sonner';
import { koAdmin } from '@/i18n/ko-admin';

/** The toast every lost session shows; one at a time, however many calls failed at once. */
export function toastSessionLost() {
  toast.error(koAdmin.app.sessionExpired, { id: 'admin-session-lost' });
}
