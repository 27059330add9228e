/** What the page asks once loaded (not its files). */
const PAGE_REQUEST = /^\/ui\/(?!assets\/|vendor\/|emoji\.json$)/;

/**
 * `npm start` serves the page before the app has started: the page and its files are served
 * at once, and its own requests (`/ui/…`) wait until the app has started. If it did not,
 * they are answered with why.
 */
export class PageHold {
  /** While held: settles with why the app did not start, or undefined once it has. */
  private starting: Promise<string | undefined> | undefined;

  /** Holds the page's requests until the returned function is called (with an error: the app did not start). */
  hold(): (error?: Error) => void {
    let release!: (problem: string | undefined) => void;
    const starting = new Promise<string | undefined>((resolve) => (release = resolve));
    this.starting = starting;
    return (error) => {
      if (this.starting === starting && !error) this.starting = undefined;
      release(error && `Lookout did not start: ${error.message}`);
    };
  }

  /** For a request of the page while held: a promise of why the app did not start (undefined once it has); else undefined. */
  held(pathname = '/ui/'): Promise<string | undefined> | undefined {
    return this.starting && PAGE_REQUEST.test(pathname) ? this.starting : undefined;
  }
}
