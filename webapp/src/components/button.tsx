import type { AnchorHTMLAttributes, ButtonHTMLAttributes, ReactNode, Ref } from 'react';
import { Link, type LinkProps } from 'react-router';
import { Spinner } from './spinner';

export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger' | 'subtle';

interface StyleProps {
  variant?: ButtonVariant;
  block?: boolean;
  size?: 'md' | 'sm';
}

function classes({ variant = 'primary', block = false, size = 'md' }: StyleProps, extra?: string): string {
  return ['btn', `btn--${variant}`, size === 'sm' ? 'btn--sm' : '', block ? 'btn--block' : '', extra ?? '']
    .filter(Boolean)
    .join(' ');
}

interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement>, StyleProps {
  /** Shows a spinner and keeps the button disabled; the label should say what is happening. */
  loading?: boolean;
  ref?: Ref<HTMLButtonElement>;
}

export function Button({ variant, block, size, loading = false, className, disabled, children, type, ...rest }: ButtonProps) {
  return (
    <button
      type={type ?? 'button'}
      className={classes({ variant, block, size }, className)}
      disabled={disabled === true || loading}
      aria-busy={loading || undefined}
      {...rest}
    >
      {loading ? <Spinner size="sm" /> : null}
      {children}
    </button>
  );
}

interface ButtonLinkProps extends LinkProps, StyleProps {}

/** An in-app link that looks like a button. */
export function ButtonLink({ variant, block, size, className, ...rest }: ButtonLinkProps) {
  return <Link className={classes({ variant, block, size }, className)} {...rest} />;
}

interface ExternalButtonLinkProps extends AnchorHTMLAttributes<HTMLAnchorElement>, StyleProps {
  href: string;
  children: ReactNode;
}

/** A link to another site, opened in a new tab. */
export function ExternalButtonLink({ variant, block, size, className, children, ...rest }: ExternalButtonLinkProps) {
  return (
    <a className={classes({ variant, block, size }, className)} target="_blank" rel="noopener noreferrer" {...rest}>
      {children}
    </a>
  );
}
