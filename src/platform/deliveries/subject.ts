/**
 * What a delivery is about, as the feature that queues it defines it. The outbox knows only
 * how a message is sent (posted, a reply in a thread, an edit in place, a Home published);
 * each feature names its subjects, the payload its hooks read back, and whether the
 * messages carry security details.
 */
import { z } from 'zod';
import type { Queryable } from '../store/db.js';
import type { Delivery } from './repo.js';

/** A delivery as its subject's hooks see it: its payload decoded by the subject's schema. */
export type Delivered<P> = Delivery & { payload: P };

/** How a feature hears about the deliveries it queued, inside the transaction that records the outcome. */
export interface SubjectHooks<P> {
  /** Posted as `messageTs`, in the thread `threadTs` if it was a reply. */
  posted?(tx: Queryable, delivery: Delivered<P>, messageTs: string, threadTs?: string): Promise<void>;
  /** Slack refused it for good (`channel`: the channel itself is the problem), or its deadline passed. */
  failed?(tx: Queryable, delivery: Delivered<P>, failure: { reason: string; channel: boolean }): Promise<void>;
}

export interface Subject<P = Record<string, never>> {
  /** Its name, stored as the delivery's kind: unique among every feature's subjects. */
  readonly kind: string;
  /** What its deliveries are called in lists (App Home). */
  readonly label: string;
  /** What a delivery carries for its hooks. */
  readonly payload: z.ZodType<P>;
  /** Its messages carry security details: shown only to those allowed to see them. */
  readonly sensitive: boolean;
  /** `home`: the message is a person's App Home (the delivery's channel is the person), published rather than posted. */
  readonly via: 'message' | 'home';
  readonly hooks: SubjectHooks<P>;
}

/** A subject; `label` defaults to its kind, `sensitive` to false, `via` to a message. */
export function defineSubject<P>(
  definition: Pick<Subject<P>, 'kind' | 'payload'> &
    Partial<Omit<Subject<P>, 'kind' | 'payload' | 'hooks'>> & { hooks?: SubjectHooks<NoInfer<P>> },
): Subject<P> {
  return { label: definition.kind, sensitive: false, via: 'message', hooks: {}, ...definition };
}

/** Any subject, whatever its payload (the worker decodes each with its own schema). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySubject = Subject<any>;

/** A note to a person that their channel refused a feature's delivery for good: the outbox's own subject. */
export const NOTICE = defineSubject({ kind: 'notice', payload: z.object({}) });

/** Every subject the app knows, by kind (the outbox's own and the features'); refuses a duplicate. */
export class Subjects {
  private readonly byKind = new Map<string, AnySubject>();

  constructor(subjects: readonly AnySubject[]) {
    for (const subject of [NOTICE, ...subjects]) {
      if (this.byKind.has(subject.kind))
        throw new Error(`delivery subject '${subject.kind}' is defined twice: each subject needs its own kind`);
      this.byKind.set(subject.kind, subject);
    }
  }

  get(kind: string): AnySubject | undefined {
    return this.byKind.get(kind);
  }

  /** Whether deliveries of this kind carry security details (an unknown kind is treated as if it did). */
  sensitive(kind: string): boolean {
    return this.byKind.get(kind)?.sensitive ?? true;
  }

  kinds(): string[] {
    return [...this.byKind.keys()];
  }
}
