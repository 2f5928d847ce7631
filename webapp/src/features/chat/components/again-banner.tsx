import { Icon } from '@/components/icons';
import { ko } from '@/i18n/ko';

/**
 * The line atop a chat the two opened again (다시 텔레파시), in place of the round's "같은
 * 단어를 떠올렸어요": they met under this word before and both wished to meet again.
 */
export function AgainBanner({ word }: { word: string }) {
  return (
    <div className="chat-banner chat-banner--again">
      <span className="chat-banner__icon" aria-hidden="true">
        <Icon name="heart" size={20} />
      </span>
      <div>
        <p className="chat-banner__text">{ko.again.banner(word)}</p>
        <p className="chat-banner__hint">{ko.again.bannerHint}</p>
      </div>
    </div>
  );
}
