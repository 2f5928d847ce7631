import { useEffect, useRef } from 'react';
import { ComingSoon } from '@/components/coming-soon';
import { Icon } from '@/components/icons';
import { ko } from '@/i18n/ko';

/**
 * Covers the main screen while the service is closed: the opening hours, the time until the
 * next opening and the comment board of those waiting. The navigation stays usable, so it is no
 * modal dialog; the page it covers is made inert instead (out of reach of the keyboard and of
 * assistive technology), all but the megaphones, which still speak.
 */
export function ClosedOverlay({ nextOpenAt }: { nextOpenAt: string | null }) {
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const covered = Array.from(ref.current?.parentElement?.children ?? []).filter(
      (element) => element !== ref.current && element.getAttribute('role') !== 'status' && !element.hasAttribute('inert'),
    );
    for (const element of covered) element.setAttribute('inert', '');
    return () => {
      for (const element of covered) element.removeAttribute('inert');
    };
  }, []);

  useEffect(() => {
    // The page behind is out of use while closed; it should not scroll under the overlay.
    const { overflow } = document.body.style;
    document.body.style.overflow = 'hidden';
    return () => {
      document.body.style.overflow = overflow;
    };
  }, []);

  return (
    <div ref={ref} className="closed-overlay" role="dialog" aria-labelledby="closed-title" aria-describedby="closed-description">
      <div className="closed-overlay__panel">
        <div className="closed-overlay__icon">
          <Icon name="moon" size={34} />
        </div>
        <h2 id="closed-title" className="closed-overlay__title">
          {ko.closed.title}
        </h2>
        <p id="closed-description" className="closed-overlay__text">
          {ko.closed.description}
        </p>
        <ComingSoon nextOpenAt={nextOpenAt} />
      </div>
    </div>
  );
}
