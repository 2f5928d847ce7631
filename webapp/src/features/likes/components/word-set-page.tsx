import { Card, PageBody, PageHeader } from '@/components/page';
import { ko } from '@/i18n/ko';
import { Icon } from '@/components/icons';

/** The form for four words and refund details; arrives with the payment flow. */
export function WordSetPage() {
  return (
    <>
      <PageHeader title={ko.minimal.wordsetTitle} fallback="/likes" />
      <PageBody>
        <Card className="empty-state">
          <div className="empty-state__icon">
            <Icon name="pencil" size={36} />
          </div>
          <p className="empty-state__title">{ko.minimal.wordsetSoon}</p>
        </Card>
      </PageBody>
    </>
  );
}
