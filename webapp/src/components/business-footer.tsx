import { useId, useState } from 'react';
import { businessInfo } from '@/config/business-info';
import { ko } from '@/i18n/ko';

/** The operator's details, folded away until asked for. */
export function BusinessFooter() {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const rows: [string, string][] = [
    ['상호', businessInfo.operator],
    ['대표자', businessInfo.representative],
    ['사업자등록번호', businessInfo.businessRegistrationNumber],
    ['통신판매업 신고번호', businessInfo.mailOrderSalesRegistrationNumber],
    ['주소', businessInfo.address],
    ['전화', businessInfo.phone],
    ['이메일', businessInfo.email],
    ['호스팅 제공자', businessInfo.hostingProvider],
  ];
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
        {businessInfo.serviceName} {ko.main.businessInfo}
        <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" className="business-footer__chevron">
          <path d="M6 9l6 6 6-6" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      </button>
      <dl id={panelId} className="business-footer__panel" hidden={!open}>
        {rows.map(([term, value]) => (
          <div key={term} className="business-footer__row">
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </footer>
  );
}
