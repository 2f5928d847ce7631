import { ButtonLink } from '@/components/button';
import { Card, PageBody, PageHeader } from '@/components/page';
import { ko } from '@/i18n/ko';
import { Icon } from '@/components/icons';

/** The chat room; it opens from a match, which arrives with the word game. */
export function ChatPage() {
  return (
    <>
      <PageHeader title={ko.minimal.chatTitle} backTo="/main" />
      <PageBody>
        <Card className="empty-state">
          <div className="empty-state__icon">
            <Icon name="bubble" size={36} />
          </div>
          <p className="empty-state__text">{ko.minimal.chatEmpty}</p>
          <ButtonLink to="/main" block>
            {ko.minimal.toMain}
          </ButtonLink>
        </Card>
      </PageBody>
    </>
  );
}
