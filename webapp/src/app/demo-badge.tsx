import { useAppConfig } from '@/api/app-config';
import { ko } from '@/i18n/ko';

/** A visible mark that the providers behind this server are demo stand-ins; a landmark of its own, as all content sits in one. */
export function DemoBadge() {
  const { data } = useAppConfig();
  if (!data?.demo) return null;
  return (
    <aside className="demo-badge" aria-label={ko.app.demoBadgeLabel}>
      <span className="demo-badge__pill">{ko.app.demoBadge}</span>
      <span>{ko.app.demoBadgeText}</span>
    </aside>
  );
}
