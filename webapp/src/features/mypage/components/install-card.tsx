import { Button } from '@/components/button';
import { Icon } from '@/components/icons';
import { Card } from '@/components/page';
import { ko } from '@/i18n/ko';
import { promptInstall, useInstall } from '@/lib/install';

/**
 * Offers to install the app where the browser can (Chromium's install dialog), and explains
 * Safari's "홈 화면에 추가" on iOS; says nothing inside the installed app or where neither applies.
 */
export function InstallCard() {
  const { canPrompt, standalone, ios } = useInstall();
  if (standalone || (!canPrompt && !ios)) return null;
  return (
    <Card className="install-card">
      <div className="install-card__icon" aria-hidden="true">
        <img src="/icons/icon-192.png" alt="" width={44} height={44} />
      </div>
      <div className="install-card__body">
        <h2 className="card-title">{ko.install.title}</h2>
        <p className="card-text">{ko.install.text}</p>
        {canPrompt ? (
          <Button size="sm" onClick={() => void promptInstall()}>
            {ko.install.button}
          </Button>
        ) : (
          <ol className="install-card__steps" aria-label={ko.install.iosLabel}>
            <li>
              <Icon name="share" size={18} />
              {ko.install.iosShare}
            </li>
            <li>{ko.install.iosAdd}</li>
          </ol>
        )}
      </div>
    </Card>
  );
}
