/**
 * `npm ci` runs this (postinstall): the PGlite data directory template is made while
 * installing, so the first `npm start` of a fresh clone does not wait for initdb. It
 * never fails the install: without the template the first start makes it instead.
 */
import { MIGRATIONS } from './compose.js';
import { ensureTemplate } from './platform/store/db.js';

try {
  const template = await ensureTemplate(MIGRATIONS);
  console.log(
    template
      ? `lookout: PGlite data directory template ready (${template})`
      : 'lookout: no place to keep the PGlite template; the first start makes the data directory',
  );
} catch (error) {
  console.warn(
    `lookout: could not prepare the PGlite template (${error instanceof Error ? error.message : String(error)}); the first start will`,
  );
}
