import { ApiError, settle, unwrap, type Outcome } from '@/api/outcome';

/**
 * The operator session is short (30 minutes idle). Every console call goes through the two
 * functions below, which tell the console when the server answered 401: the session ended
 * (`OPERATOR_ONLY`) or was never past its second factor (`SECOND_FACTOR_REQUIRED`). The
 * console's layout listens and sends the operator back to log in.
 */
type Listener = (code: string | undefined) => void;

const listeners = new Set<Listener>();

export function onSessionLost(listener: Listener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

function sessionLost(code: string | undefined) {
  for (const listener of listeners) listener(code);
}

interface ClientResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** `unwrap` for the console's reads: the data, or an ApiError thrown (a 401 also reported). */
export async function unwrapConsole<T>(request: Promise<ClientResult<T>>): Promise<T> {
  try {
    return await unwrap(request);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) sessionLost(error.code);
    throw error;
  }
}

/** `settle` for the console's actions: an Outcome (a 401 also reported). */
export async function settleConsole<T>(request: Promise<ClientResult<T>>): Promise<Outcome<T>> {
  const outcome = await settle(request);
  if (!outcome.ok && !outcome.network && outcome.status === 401) sessionLost(outcome.code);
  return outcome;
}

/** Where a 401's code sends the operator: back to the second factor, or to the login. */
export function reentryPath(code: string | undefined): string {
  return code === 'SECOND_FACTOR_REQUIRED' ? '/admin/totp' : '/admin';
}
