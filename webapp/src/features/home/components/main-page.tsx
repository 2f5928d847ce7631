import { Link } from 'react-router';
import { useProfile } from '@/api/profile';
import { BusinessFooter } from '@/components/business-footer';
import { Card } from '@/components/page';
import { ko } from '@/i18n/ko';
import { readLocal, storageKeys } from '@/lib/storage';
import { NicknameModal } from './nickname-modal';
import { Icon } from '@/components/icons';

/** Home after login. The word rounds arrive here with the game; for now: who we are and when we are open. */
export function MainPage() {
  const { data: profile } = useProfile();
  const needsNickname = profile ? !profile.nickname : readLocal(storageKeys.needNicknameSetup) === 'true';

  return (
    <main className="page-body main-page">
      <header className="main-hero">
        <div className="main-hero__top">
          <span className="main-hero__greeting">{profile?.nickname ? ko.main.greeting(profile.nickname) : '\u00a0'}</span>
          <Link to="/helppage" className="icon-button icon-button--soft" aria-label={ko.main.help}>
            <Icon name="help" size={24} />
          </Link>
        </div>
        <div className="main-hero__orbs" aria-hidden="true">
          <span className="orb orb--a" />
          <span className="orb orb--b" />
        </div>
        <h1 className="main-hero__title">{ko.main.title}</h1>
        <p className="main-hero__subtitle">{ko.main.subtitle}</p>
      </header>

      <Card className="hours-card">
        <div className="hours-card__icon">
          <Icon name="moon" size={26} />
        </div>
        <div>
          <h2 className="card-title">{ko.main.hoursTitle}</h2>
          <p className="hours-card__time">{ko.main.hours}</p>
          <p className="hours-card__text">{ko.main.hoursNotice}</p>
        </div>
      </Card>

      <Card>
        <h2 className="card-title">{ko.main.howTitle}</h2>
        <ol className="steps">
          {ko.main.howSteps.map((step, index) => (
            <li key={step} className="steps__item">
              <span className="steps__number" aria-hidden="true">
                {index + 1}
              </span>
              <span>{step}</span>
            </li>
          ))}
        </ol>
      </Card>

      <BusinessFooter />
      <NicknameModal open={needsNickname} />
    </main>
  );
}
