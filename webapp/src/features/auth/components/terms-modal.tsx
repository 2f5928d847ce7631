import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Button } from '@/components/button';
import { FormMessage } from '@/components/form-message';
import { Modal } from '@/components/modal';
import { termsItems, termsPath, type TermsType } from '@/config/terms';
import { ko } from '@/i18n/ko';
import { agreesToRequired, saveTermsAgreement, type TermsAgreement } from '../hooks/registration-draft';

type Agreement = TermsAgreement;

const none: Agreement = { service: false, privacy: false, youth: false, improve: false, alarm: false };

interface TermsModalProps {
  open: boolean;
  onClose: () => void;
  /** Called once the required terms are agreed to; by default the modal goes on to /register. */
  onAgreed?: () => void;
}

/**
 * Agreement to the terms before sign-up. The three required terms must be ticked to go on;
 * each label opens its document in a new tab so the ticks here are kept. The answers are kept
 * for the registration, which sends every one of them.
 */
export function TermsModal({ open, onClose, onAgreed }: TermsModalProps) {
  const navigate = useNavigate();
  const [agreement, setAgreement] = useState<Agreement>(none);
  const [warning, setWarning] = useState<string | null>(null);
  const allAgreed = termsItems.every((item) => agreement[item.type]);

  function toggle(type: TermsType) {
    setAgreement((current) => ({ ...current, [type]: !current[type] }));
    setWarning(null);
  }

  function toggleAll() {
    const next = !allAgreed;
    setAgreement({ service: next, privacy: next, youth: next, improve: next, alarm: next });
    setWarning(null);
  }

  function goNext() {
    if (!agreesToRequired(agreement)) {
      setWarning(ko.terms.requiredWarning);
      return;
    }
    saveTermsAgreement(agreement);
    if (onAgreed) onAgreed();
    else void navigate('/register');
  }

  return (
    <Modal open={open} onClose={onClose} title={ko.terms.modalTitle} description={ko.terms.modalDescription} className="terms-modal">
      <button
        type="button"
        className="terms-all"
        aria-pressed={allAgreed}
        onClick={toggleAll}
      >
        <span className="check-visual" data-checked={allAgreed || undefined} aria-hidden="true" />
        {ko.terms.agreeAll}
      </button>
      <ul className="terms-list">
        {termsItems.map((item) => {
          const checkboxId = `terms-${item.type}`;
          const labelId = `terms-${item.type}-label`;
          return (
            <li key={item.type} className="terms-list__item">
              <input
                id={checkboxId}
                type="checkbox"
                className="check"
                checked={agreement[item.type]}
                onChange={() => {
                  toggle(item.type);
                }}
                aria-labelledby={`${checkboxId}-badge ${labelId}`}
              />
              <span id={`${checkboxId}-badge`} className={`terms-badge ${item.required ? 'terms-badge--required' : ''}`}>
                {item.required ? ko.terms.required : ko.terms.optional}
              </span>
              <Link id={labelId} className="terms-list__label" to={termsPath(item.slug)} target="_blank" rel="noopener">
                {ko.terms.labels[item.type]}
                <span className="visually-hidden"> {ko.app.opensInNewTab}</span>
                <svg className="terms-list__chevron" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
                  <path d="M9 5l7 7-7 7" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
                </svg>
              </Link>
            </li>
          );
        })}
      </ul>
      <FormMessage message={warning} />
      <div className="modal__actions">
        <Button block onClick={goNext}>
          {ko.terms.next}
        </Button>
      </div>
    </Modal>
  );
}
