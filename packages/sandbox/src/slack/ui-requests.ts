/** What the page sends: its JSON bodies, checked, and the errors it is answered with. */
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { contentType, HttpError, readBody } from './http-util.js';

const MAX_UI_BODY = 256 * 1024;

export class UiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail?: string,
  ) {
    super(detail ?? code);
  }
}

// ---- request shapes -------------------------------------------------------------------

export const id = z.string().min(1).max(200);
const value = z.union([z.string().max(4000), z.array(z.string().max(4000)).max(100)]);

export const commandBody = z.object({
  channel: id,
  user: id,
  text: z
    .string()
    .max(4000)
    .refine((t) => t.trim() !== '', 'must not be empty'),
  thread_ts: z
    .string()
    .regex(/^\d+\.\d+$/)
    .optional(),
});

export const actionBody = z
  .object({
    user: id,
    action_id: z.string().min(1).max(255),
    block_id: z.string().min(1).max(255).optional(),
    value: value.optional(),
    channel: id.optional(),
    ts: z
      .string()
      .regex(/^\d+\.\d+$/)
      .optional(),
    view_id: id.optional(),
    home: z.literal(true).optional(),
  })
  .refine((b) => b.home === true || b.view_id !== undefined || (b.channel !== undefined && b.ts !== undefined), {
    message: 'give home, view_id, or channel and ts',
  });

export const submitBody = z.object({
  user: id,
  view_id: id,
  values: z.record(z.string().max(255), z.union([value, z.number()])).default({}),
});

export const closeBody = z.object({ user: id, view_id: id });

export async function jsonBody<T>(req: IncomingMessage, schema: z.ZodType<T>): Promise<T> {
  const type = contentType(req);
  if (type !== 'application/json') throw new UiError(400, 'invalid_content_type', 'send application/json');
  let raw: string;
  try {
    raw = await readBody(req, MAX_UI_BODY);
  } catch (error) {
    if (error instanceof HttpError) throw new UiError(error.status, error.body);
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw) as unknown;
  } catch {
    throw new UiError(400, 'invalid_json', 'the body is not JSON');
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const detail = result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
    throw new UiError(400, 'invalid_arguments', detail);
  }
  return result.data;
}
