import { Card } from '@/components/page';
import { ko } from '@/i18n/ko';

export function HelpPage() {
  return (
    <main className="page-body">
      <h1 className="page-title">{ko.minimal.helpTitle}</h1>
      {ko.minimal.helpItems.map((item) => (
        <Card key={item.q} as="article">
          <h2 className="card-title">{item.q}</h2>
          <p className="card-text">{item.a}</p>
        </Card>
      ))}
    </main>
  );
}
