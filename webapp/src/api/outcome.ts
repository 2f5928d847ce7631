/**
 * Results of API calls. The server answers errors with `{ success: false, code, message }` where
 * `message` is the Korean text to show; callers pick their own fallback text when it is absent.
 */

/** What a failed call tells: an answer from the server, or none at all (network failure). */
export type Failure =
  | { ok: false; network: false; status: number; code: string | undefined; message: string | undefined }
  | { ok: false; network: true };

export type Outcome<T> = { ok: true; data: T } | Failure;

interface ClientResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

function field(value: unknown, name: string): string | undefined {
  if (typeof value !== 'object' || value === null || !(name in value)) return undefined;
  const found: unknown = (value as Record<string, unknown>)[name];
  return typeof found === 'string' && found !== '' ? found : undefined;
}

/** A 2xx body that still says `success: false` is a failure too. */
function saysFailure(data: unknown): boolean {
  return typeof data === 'object' && data !== null && 'success' in data && data.success === false;
}

/** Turns an openapi-fetch call into an Outcome; never throws. */
export async function settle<T>(request: Promise<ClientResult<T>>): Promise<Outcome<T>> {
  let result: ClientResult<T>;
  try {
    result = await request;
  } catch {
    return { ok: false, network: true };
  }
  const { data, error, response } = result;
  if (data !== undefined && response.ok && !saysFailure(data)) return { ok: true, data };
  const body = error ?? data;
  return {
    ok: false,
    network: false,
    status: response.status,
    code: field(body, 'code'),
    message: field(body, 'message'),
  };
}

/** The server's message of a failure, if it sent one. */
export function serverMessage(failure: Failure): string | undefined {
  return failure.network ? undefined : failure.message;
}

/** Thrown by GET fetchers so SWR sees an error state. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;

  constructor(status: number, code: string | undefined, message: string | undefined) {
    super(message ?? `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/** For GET fetchers: the data, or an ApiError (or the network's TypeError) thrown. */
export async function unwrap<T>(request: Promise<ClientResult<T>>): Promise<T> {
  const { data, error, response } = await request;
  if (data !== undefined && response.ok) return data;
  throw new ApiError(response.status, field(error, 'code'), field(error, 'message'));
}
