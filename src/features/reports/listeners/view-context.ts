import { z } from 'zod';
import type { ModalContext } from '../modals.js';

const modalContext = z.object({
  q: z.string().min(1).max(2100),
  u: z.url({ protocol: /^https?$/ }),
  e: z.boolean(),
  c: z.string().max(64).optional(),
});

/** A modal's private_metadata, checked on the way back; null when it is not ours. */
export function readContext(metadata: string | undefined): ModalContext | null {
  if (!metadata) return null;
  try {
    const parsed = modalContext.safeParse(JSON.parse(metadata));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
