import type { ReactNode } from 'react';
import { NavLink, Outlet } from 'react-router';
import { BrandMark } from '@/components/brand';
import { useAppConfig } from '@/api/app-config';
import { ko } from '@/i18n/ko';
import { operatorLinks } from '@/lib/links';

const icons: Record<'main' | 'likes' | 'community' | 'mypage', ReactNode> = {
  main: <path d="M4 10.5 12 4l8 6.5V19a1 1 0 0 1-1 1h-4.5v-5.5h-5V20H5a1 1 0 0 1-1-1z" />,
  likes: <path d="M12 20s-7-4.4-7-10a4 4 0 0 1 7-2.6A4 4 0 0 1 19 10c0 5.6-7 10-7 10z" />,
  community: (
    <>
      <path d="M4 6.5A2.5 2.5 0 0 1 6.5 4h11A2.5 2.5 0 0 1 20 6.5v7a2.5 2.5 0 0 1-2.5 2.5H10l-4 4v-4h0A2 2 0 0 1 4 14z" />
      <path d="M8.5 9h7M8.5 12h4.5" />
    </>
  ),
  mypage: (
    <>
      <circle cx="12" cy="8.5" r="3.8" />
      <path d="M4.5 20a7.5 7.5 0 0 1 15 0" />
    </>
  ),
};

function Icon({ name }: { name: keyof typeof icons }) {
  return (
    <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" className="bottom-nav__icon">
      <g fill="none" stroke="currentColor" strokeWidth="1.9" strokeLinecap="round" strokeLinejoin="round">
        {icons[name]}
      </g>
    </svg>
  );
}

/**
 * Pages with the bottom navigation: main, likes, the community gallery (another site, once the
 * operator names one), my page. On a desktop screen the bar becomes a rail on the left, headed
 * by the brand.
 */
export function MainLayout() {
  const { data: config } = useAppConfig();
  const { community } = operatorLinks(config);
  return (
    <div className="with-bottom-nav">
      <div className="with-bottom-nav__content">
        <Outlet />
      </div>
      <nav className="bottom-nav" aria-label={ko.nav.label}>
        <div className="bottom-nav__brand" aria-hidden="true">
          <BrandMark size={40} />
          <span>{ko.app.name}</span>
        </div>
        <NavLink to="/main" className="bottom-nav__item">
          <Icon name="main" />
          <span>{ko.nav.main}</span>
        </NavLink>
        <NavLink to="/likes" className="bottom-nav__item">
          <Icon name="likes" />
          <span>{ko.nav.likes}</span>
        </NavLink>
        {community ? (
          <a className="bottom-nav__item" href={community} target="_blank" rel="noopener noreferrer">
            <Icon name="community" />
            <span>{ko.nav.community}</span>
            <span className="visually-hidden">{ko.app.opensInNewTab}</span>
          </a>
        ) : null}
        <NavLink to="/mypage" className="bottom-nav__item">
          <Icon name="mypage" />
          <span>{ko.nav.mypage}</span>
        </NavLink>
      </nav>
    </div>
  );
}
