import { useAppConfig } from '@/api/app-config';
import { ko } from '@/i18n/ko';

/** A visible mark that the providers behind this server are demo stand-ins. */
export function DemoBadge() {
  const { data } = useAppConfig();
  if (!data?.demo) return null;
  return (
    <div className="demo-badge" role="note">
      <span className="demo-badge__pill">{ko.app.demoBadge}</span>
      <span>{ko.app.demoBadgeText}</span>
    </div>
  );
}
