import { Card } from '@/components/page';
import { ko } from '@/i18n/ko';
import { Icon } from '@/components/icons';

/** The custom word-set purchase; the payment flow arrives in a later version. */
export function LikesPage() {
  return (
    <main className="page-body">
      <h1 className="page-title">{ko.minimal.likesTitle}</h1>
      <Card className="empty-state">
        <div className="empty-state__icon">
          <Icon name="heart" size={36} />
        </div>
        <p className="empty-state__text">{ko.minimal.likesDescription}</p>
        <p className="empty-state__title">{ko.minimal.likesSoon}</p>
      </Card>
    </main>
  );
}
