import { useId, useState } from 'react';
import { useAppConfig } from '@/api/app-config';
import { ko } from '@/i18n/ko';
import { businessRows } from '@/lib/business';
import { BusinessDetails } from './business-details';

/** The operator's details the server is configured with, folded away until asked for; none, no footer. */
export function BusinessFooter() {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const { data } = useAppConfig();
  const rows = businessRows(data?.business);
  if (rows.length === 0) return null;
  return (
    <footer className="business-footer">
      <button
        type="button"
        className="business-footer__toggle"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => {
          setOpen((value) => !value);
        }}
      >
        {ko.business.toggle(ko.app.name)}
        <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" className="business-footer__chevron">
          <path d="M6 9l6 6 6-6" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      </button>
      <BusinessDetails id={panelId} rows={rows} hidden={!open} className="business-footer__panel" />
    </footer>
  );
}
