import type { ReactNode } from 'react';
import { useAppConfig } from '@/api/app-config';
import { BusinessDetails } from '@/components/business-details';
import { Icon, type IconName } from '@/components/icons';
import { Card } from '@/components/page';
import { limits, reportReasons } from '@/config/limits';
import { ko } from '@/i18n/ko';
import { businessRows } from '@/lib/business';
import { DEFAULT_ROUND_SECONDS } from '@/lib/round-clock';
import '../help.css';

const sections = {
  how: 'help-how',
  faq: 'help-faq',
  report: 'help-report',
  contact: 'help-contact',
} as const;

/**
 * /helppage: how the service works, the questions people ask, how a report is handled, and how
 * to reach the operator (the contact facts the server is configured with; none, no contact card).
 */
export function HelpPage() {
  const { data } = useAppConfig();
  const business = data?.business;
  const email = business?.email;
  const rows = businessRows(business, { officers: true });
  const hasContact = email !== undefined || rows.length > 0;
  const contents: [string, string][] = [
    [sections.how, ko.help.howTitle],
    [sections.faq, ko.help.faqTitle],
    [sections.report, ko.help.reportTitle],
    ...(hasContact ? [[sections.contact, ko.help.contactTitle] as [string, string]] : []),
  ];

  return (
    <main className="page-body help-page">
      <header className="help-hero">
        <h1 className="page-title">{ko.help.title}</h1>
        <p className="lead">{ko.help.lead}</p>
        <nav className="help-contents" aria-label={ko.help.contents}>
          {contents.map(([id, title]) => (
            <a key={id} className="help-contents__link" href={`#${id}`}>
              {title}
            </a>
          ))}
        </nav>
      </header>

      <HelpSection id={sections.how} icon="sparkles" title={ko.help.howTitle}>
        <Steps steps={ko.help.howSteps(DEFAULT_ROUND_SECONDS, limits.wordsPerRound)} />
        <div className="help-hours">
          <span className="help-hours__icon" aria-hidden="true">
            <Icon name="moon" size={22} />
          </span>
          <div>
            <p className="help-hours__label">
              {ko.help.hoursTitle} <span className="help-hours__zone">{ko.help.hoursZone}</span>
            </p>
            <p className="help-hours__time">{ko.help.hours}</p>
            <p className="help-hours__text">{ko.help.hoursText}</p>
          </div>
        </div>
      </HelpSection>

      <HelpSection id={sections.faq} icon="help" title={ko.help.faqTitle}>
        <div className="faq">
          {ko.help.faq.map((item) => (
            <details key={item.q} className="faq__item">
              <summary className="faq__question">
                <span>{item.q}</span>
                <svg className="faq__chevron" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
                  <path d="M6 9l6 6 6-6" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
                </svg>
              </summary>
              <p className="faq__answer">{item.a}</p>
            </details>
          ))}
        </div>
      </HelpSection>

      <HelpSection id={sections.report} icon="siren" title={ko.help.reportTitle}>
        <Steps steps={ko.help.reportSteps} />
        <div className="help-reasons">
          <p className="help-reasons__label">{ko.help.reportReasons}</p>
          <ul className="help-reasons__list">
            {reportReasons.map((reason) => (
              <li key={reason} className="help-reasons__item">
                {ko.report.reasons[reason]}
              </li>
            ))}
          </ul>
        </div>
        <p className="help-note">
          <Icon name="shield" size={20} />
          <span>{ko.help.reportPrivacy}</span>
        </p>
      </HelpSection>

      {hasContact ? (
        <HelpSection id={sections.contact} icon="mail" title={ko.help.contactTitle}>
          {email ? (
            <>
              <p className="card-text">{ko.help.contactText}</p>
              <a className="help-mail" href={`mailto:${email}`}>
                <span className="help-mail__icon" aria-hidden="true">
                  <Icon name="mail" size={22} />
                </span>
                <span className="help-mail__body">
                  <span className="help-mail__label">{ko.help.contactEmail}</span>
                  <span className="help-mail__address">{email}</span>
                </span>
                <svg className="help-mail__chevron" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
                  <path d="M9 5l7 7-7 7" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
                </svg>
              </a>
            </>
          ) : null}
          {rows.length > 0 ? (
            <div className="help-business">
              <h3 className="help-business__title">{ko.help.businessTitle}</h3>
              <BusinessDetails rows={rows} />
            </div>
          ) : null}
        </HelpSection>
      ) : null}
    </main>
  );
}

function HelpSection({ id, icon, title, children }: { id: string; icon: IconName; title: string; children: ReactNode }) {
  return (
    <Card className="help-section">
      <h2 id={id} className="help-section__title">
        <span className="help-section__icon" aria-hidden="true">
          <Icon name={icon} size={20} />
        </span>
        {title}
      </h2>
      {children}
    </Card>
  );
}

function Steps({ steps }: { steps: readonly { title: string; text: string }[] }) {
  return (
    <ol className="help-steps">
      {steps.map((step, index) => (
        <li key={step.title} className="help-steps__item">
          <span className="help-steps__number" aria-hidden="true">
            {index + 1}
          </span>
          <div>
            <p className="help-steps__title">{step.title}</p>
            <p className="help-steps__text">{step.text}</p>
          </div>
        </li>
      ))}
    </ol>
  );
}
