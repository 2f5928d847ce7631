export function Spinner({ size = 'md', label }: { size?: 'sm' | 'md'; label?: string }) {
  return (
    <span
      className={`spinner spinner--${size}`}
      role={label ? 'status' : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
    />
  );
}

/** A centred spinner for a whole screen that is still loading. */
export function FullScreenSpinner({ label }: { label: string }) {
  return (
    <div className="fullscreen-center">
      <Spinner label={label} />
    </div>
  );
}
