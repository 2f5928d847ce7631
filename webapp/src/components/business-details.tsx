import type { BusinessRow } from '@/lib/business';

interface BusinessDetailsProps {
  rows: BusinessRow[];
  id?: string;
  hidden?: boolean;
  className?: string;
}

/** The rows as a definition list. */
export function BusinessDetails({ rows, id, hidden, className }: BusinessDetailsProps) {
  return (
    <dl id={id} className={['business-details', className ?? ''].filter(Boolean).join(' ')} hidden={hidden}>
      {rows.map(({ label, value }) => (
        <div key={label} className="business-details__row">
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
