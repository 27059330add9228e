/**
 * `npm ci` runs this (postinstall): the PGlite data directory template, and a spare copy for the
 * first start to take, are made while installing, so the first `npm start` of a fresh clone
 * neither waits for initdb nor copies the template. It never fails the install: without them
 * the first start makes the data directory instead.
 */
import { MIGRATIONS } from './compose.js';
import { ensureSpare } from './platform/store/template.js';

try {
  console.log(
    (await ensureSpare(MIGRATIONS))
      ? 'lookout: PGlite data directory template and its spare ready (node_modules/.cache/lookout)'
      : 'lookout: no place to keep the PGlite template; the first start makes the data directory',
  );
} catch (error) {
  console.warn(
    `lookout: could not prepare the PGlite template (${error instanceof Error ? error.message : String(error)}); the first start will`,
  );
}
