/** `/visitor <visitor_id> [visit <visit_id>]` → the ids, or a one-line usage error. */
import { code, isSafeId, type UsageError } from '../../kernel/text.js';

export const VISITOR_USAGE = '/visitor <visitor_id> [visit <visit_id>]';
export const VISITOR_HELP = [`Usage: ${VISITOR_USAGE}`, 'Shows a visitor card with its security checks.'];

export type VisitorCommand = { kind: 'visitor'; visitorId: string; visitId?: string } | UsageError;

const fail = (message: string): UsageError => ({ kind: 'error', message, usage: VISITOR_USAGE });

function stripWrapping(word: string): string {
  const m = /^(["“”„‟`'])(.*)(["“”„‟`'])$/su.exec(word);
  return m ? (m[2] ?? '') : word;
}

/** A visitor id (and a visit id) as an agent gives them, checked as the command checks them. */
export function visitorIds(visitorId: string, visitId?: string): VisitorCommand {
  const bad = (what: string, id: string) =>
    fail(`${code(id)} is not a valid ${what} id (up to 128 letters, digits and _ . : -).`);
  if (!isSafeId(visitorId)) return bad('visitor', visitorId);
  if (visitId !== undefined && !isSafeId(visitId)) return bad('visit', visitId);
  return { kind: 'visitor', visitorId, ...(visitId !== undefined ? { visitId } : {}) };
}

export function parseVisitorCommand(text: string): VisitorCommand {
  const words = (typeof text === 'string' ? text : '').trim().split(/\s+/u).filter(Boolean).map(stripWrapping);
  const [visitorId, keyword, visitId, ...extra] = words;
  const bad = (what: string, id: string) =>
    fail(`${code(id)} is not a valid ${what} id (up to 128 letters, digits and _ . : -).`);
  if (visitorId === undefined) return fail('Give a visitor id.');
  if (!isSafeId(visitorId)) return bad('visitor', visitorId);
  if (keyword === undefined) return { kind: 'visitor', visitorId };
  if (keyword.toLowerCase() !== 'visit') {
    return fail(`Don't understand ${code(keyword)} after the visitor id; use \`visit <visit_id>\`.`);
  }
  if (visitId === undefined) return fail('`visit` needs a visit id.');
  if (!isSafeId(visitId)) return bad('visit', visitId);
  if (extra.length > 0) return fail(`Don't understand ${code(extra.join(' '))} at the end.`);
  return { kind: 'visitor', visitorId, visitId };
}
