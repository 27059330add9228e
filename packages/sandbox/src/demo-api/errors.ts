/** A request the demo API refuses: an HTTP status, a short code and a one-line message (the JSON error body). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiFailure';
  }

  get body(): { error: string; message: string } {
    return { error: this.code, message: this.message };
  }
}

export const badRequest = (message: string): ApiFailure => new ApiFailure(400, 'bad_request', message);
export const notFound = (message: string): ApiFailure => new ApiFailure(404, 'not_found', message);
