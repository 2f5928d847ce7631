/** The app's mark: two overlapping thought bubbles meeting in the middle. */
export function BrandMark({ size = 56 }: { size?: number }) {
  return (
    <svg className="brand-mark" width={size} height={size} viewBox="0 0 64 64" aria-hidden="true">
      <defs>
        <linearGradient id="brand-a" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="var(--brand-from)" />
          <stop offset="1" stopColor="var(--brand-to)" />
        </linearGradient>
      </defs>
      <rect width="64" height="64" rx="20" fill="url(#brand-a)" />
      <circle cx="25" cy="32" r="12" fill="none" stroke="#fff" strokeWidth="3.5" opacity="0.95" />
      <circle cx="39" cy="32" r="12" fill="none" stroke="#fff" strokeWidth="3.5" opacity="0.95" />
      <circle cx="32" cy="32" r="3.2" fill="#fff" />
    </svg>
  );
}
