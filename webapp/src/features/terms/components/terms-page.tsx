import { Link, Navigate, useParams } from 'react-router';
import { useAppConfig } from '@/api/app-config';
import { ButtonLink } from '@/components/button';
import { Card, PageBody, PageHeader } from '@/components/page';
import { FullScreenSpinner } from '@/components/spinner';
import { termsItems, termsPath } from '@/config/terms';
import { ko } from '@/i18n/ko';
import { termsDocuments, type TermsSlug } from '../content';
import { Icon } from '@/components/icons';
import '../terms.css';

function isSlug(value: string): value is TermsSlug {
  return Object.hasOwn(termsDocuments, value);
}

/**
 * /terms/{type}: a document by its slug; a short type (service, privacy, youth, improve, alarm)
 * redirects to its slug; anything else says that the type does not exist.
 */
export function TermsPage() {
  const { type = '' } = useParams();
  if (isSlug(type)) return <TermsDocumentView slug={type} />;
  const item = termsItems.find((candidate) => candidate.type === type);
  if (item) return <Navigate to={termsPath(item.slug)} replace />;
  return <UnknownTerms />;
}

/** Not a terms type: says so, and offers the documents that exist. */
function UnknownTerms() {
  return (
    <>
      <PageHeader title={ko.terms.pageTitle} />
      <PageBody>
        <Card className="stack center">
          <div className="result-icon result-icon--error">
            <Icon name="question" size={32} strokeWidth={2.4} />
          </div>
          <h2 className="card-title">{ko.terms.notFoundTitle}</h2>
          <p role="alert" className="card-text">
            {ko.terms.unknownType}
          </p>
        </Card>
        <nav className="card terms-links" aria-label={ko.terms.available}>
          <h2 className="terms-links__title">{ko.terms.available}</h2>
          <ul>
            {termsItems.map((item) => (
              <li key={item.slug}>
                <Link className="terms-links__link" to={termsPath(item.slug)}>
                  {ko.terms.labels[item.type]}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <ButtonLink to="/main" block>
          {ko.terms.toMain}
        </ButtonLink>
      </PageBody>
    </>
  );
}

function formatDate(iso: string): string {
  const [year, month, day] = iso.split('-');
  return year && month && day ? `${year}년 ${Number(month)}월 ${Number(day)}일` : iso;
}

/** A document with the operator's facts the server tells; without an answer, with none of them. */
function TermsDocumentView({ slug }: { slug: TermsSlug }) {
  const { data, error } = useAppConfig();
  if (!data && !error) return <FullScreenSpinner label={ko.app.loading} />;
  const document = termsDocuments[slug](data?.business ?? {});
  return (
    <>
      <PageHeader title={document.title} />
      <PageBody className="terms-page">
        <article className="card terms-document" aria-labelledby="terms-title">
          <header className="terms-document__header">
            <span className={`terms-badge ${document.required ? 'terms-badge--required' : ''}`}>
              {document.required ? ko.terms.required : ko.terms.optional}
            </span>
            <h2 id="terms-title" className="terms-document__title">
              {document.title}
            </h2>
            <p className="terms-document__date">
              <time dateTime={document.effectiveDate}>{ko.terms.effectiveDate(formatDate(document.effectiveDate))}</time>
            </p>
          </header>
          {document.intro ? <p className="terms-document__intro">{document.intro}</p> : null}
          {document.sections.map((section) => (
            <section key={section.heading} className="terms-section">
              <h3 className="terms-section__heading">{section.heading}</h3>
              {section.paragraphs?.map((paragraph) => (
                <p key={paragraph} className="terms-section__paragraph">
                  {paragraph}
                </p>
              ))}
              {section.items && section.items.length > 0 ? (
                <ol className="terms-section__items">
                  {section.items.map((item) => (
                    <li key={item}>{item}</li>
                  ))}
                </ol>
              ) : null}
            </section>
          ))}
        </article>
      </PageBody>
    </>
  );
}
