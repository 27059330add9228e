export type ApiErrorKind =
  'unauthorized' | 'not_found' | 'rate_limited' | 'unavailable' | 'timeout' | 'bad_response' | 'bad_request';

const RETRYABLE: ReadonlySet<ApiErrorKind> = new Set(['rate_limited', 'unavailable']);

/**
 * A failed call to the analytics API. `message` is fit to show a person (it
 * names no secret); `detail` is for the log.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    readonly info: {
      path: string;
      status?: number;
      retryAfterMs?: number;
      detail?: string;
      attempts?: number;
    },
  ) {
    super(message);
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

/** What a person should be told for each kind, given the path asked. */
export function messageFor(kind: ApiErrorKind, what: string, extra?: string): string {
  switch (kind) {
    case 'unauthorized':
      return `The analytics API refused our API key for ${what}. An admin should check ANALYTICS_API_KEY.`;
    case 'not_found':
      return `The analytics API has nothing at ${what}${extra ? ` (${extra})` : ''}.`;
    case 'rate_limited':
      return `The analytics API is rate-limiting us (${what}). Try again in a minute.`;
    case 'unavailable':
      return `The analytics API is unavailable right now (${what}${extra ? `: ${extra}` : ''}). Try again in a few minutes.`;
    case 'timeout':
      return `The analytics API took too long to answer ${what}. Try a shorter date range, or again later.`;
    case 'bad_response':
      return `The analytics API sent an answer we could not read for ${what}${extra ? ` (${extra})` : ''}.`;
    case 'bad_request':
      return `The analytics API refused the request for ${what}${extra ? `: ${extra}` : ''}.`;
  }
}
