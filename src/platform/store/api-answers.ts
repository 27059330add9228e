/**
 * Analytics API answers shared by replicas (`api_answers`): a question one replica asked is
 * answered from here on another while it is fresh, and replicas asking at once make one request.
 * The first to ask claims the question (a row without a body); the others read the row again,
 * a little later each time, until the body is there, the claim is gone (its request failed: one
 * of them claims it in turn) or the claim has not been renewed for `claimMs` (its replica
 * stopped or is stuck: it is taken over). The replica asking renews its claim every third of
 * `claimMs` while its request lasts, so a slow request keeps it and a killed replica's lapses
 * within seconds. Only an answer is shared, never a failure. Freshness is judged by the app's
 * clock, as the fetcher's memory is. When the store fails, the API is asked directly.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Queryable } from './db.js';

export interface ApiAnswerOptions {
  /** This replica's name (claims carry it). */
  owner: string;
  now: () => Date;
  /** How long an answer serves after it was asked. */
  freshMs: number;
  /** How long a claim holds unrenewed before another replica takes it over (default 6 s). */
  claimMs?: number;
}

/** An answer, and when it was asked of the API (ms, the app's clock): it is fresh for `freshMs` after. */
export interface SharedAnswer<T> {
  value: T;
  askedAt: number;
}

/** What one replica's share cost the store, and what it found there. */
export interface ApiAnswerStats {
  /** Statements run. */
  queries: number;
  /** Answers read from another replica, and answers written for the others (with their bytes). */
  read: number;
  written: number;
  bytes: number;
  /** Looks that found the question being asked by another replica (this one then waited). */
  waits: number;
  /** Questions asked again: their answer had gone stale, or their claim was abandoned. */
  stale: number;
  takenOver: number;
  /** Statements that failed (the API was asked directly, or the answer was not shared). */
  errors: number;
}

/** A claim on a question: its name (the replica's and a random part) and when it was made (ms). */
interface Claim {
  name: string;
  at: number;
}

/** What one look found: a claim made by it, a fresh answer, or neither (another replica is asking). */
interface Seen {
  claim?: Claim;
  answer?: { body: string; askedAt: number };
}

const FIRST_PAUSE_MS = 20;
const MAX_PAUSE_MS = 250;

export class ApiAnswerRepo {
  readonly stats: ApiAnswerStats = {
    queries: 0,
    read: 0,
    written: 0,
    bytes: 0,
    waits: 0,
    stale: 0,
    takenOver: 0,
    errors: 0,
  };
  private readonly claimMs: number;

  constructor(
    private readonly db: Queryable,
    private readonly o: ApiAnswerOptions,
  ) {
    this.claimMs = o.claimMs ?? 6_000;
  }

  /**
   * The question's answer: another replica's while fresh (or asked at or after `asOf`, ms),
   * else `fetch`'s, shared once it succeeds.
   */
  async answer<T>(account: string, question: string, fetch: () => Promise<T>, asOf?: number): Promise<SharedAnswer<T>> {
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(2 * pause, MAX_PAUSE_MS)) {
      let seen: Seen;
      try {
        seen = await this.lookOrClaim(account, question, asOf);
      } catch {
        this.stats.errors++;
        return { value: await fetch(), askedAt: this.now() };
      }
      if (seen.claim) return this.ask(account, question, seen.claim, fetch);
      if (seen.answer) {
        this.stats.read++;
        return { value: JSON.parse(seen.answer.body) as T, askedAt: seen.answer.askedAt };
      }
      this.stats.waits++;
      await sleep(pause);
    }
  }

  /** Drops these questions' answers (they proved not whole), so the next ask, on any replica, asks the API. */
  async forget(account: string, questions: readonly string[]): Promise<void> {
    this.stats.queries++;
    await this.db
      .query('DELETE FROM api_answers WHERE account = $1 AND question = ANY($2::text[]) AND body IS NOT NULL', [
        account,
        questions,
      ])
      .catch(() => this.stats.errors++);
  }

  /**
   * One statement: the question's fresh answer, or a claim on it when no one holds it (no row, a
   * stale answer, an abandoned claim); neither while another replica is asking it (or has just
   * claimed it: the claim lost the race on the primary key).
   */
  private async lookOrClaim(account: string, question: string, asOf?: number): Promise<Seen> {
    const name = `${this.o.owner}/${randomBytes(6).toString('base64url')}`;
    const now = this.now();
    const freshSince = Math.min(now - this.o.freshMs, asOf ?? Infinity);
    this.stats.queries++;
    const { rows } = await this.db.query<{
      body: string | null;
      asked_at: Date | null;
      answered: boolean | null;
      claimed: boolean;
    }>(
      `WITH held AS (
         SELECT CASE WHEN body IS NOT NULL AND asked_at >= $5 THEN body END AS body, asked_at,
                body IS NOT NULL AS answered, body IS NULL AND asked_at >= $6 AS asking
           FROM api_answers WHERE account = $1 AND question = $2
       ), claimed AS (
         INSERT INTO api_answers (account, question, asked_by, asked_at)
         SELECT $1, $2, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM held WHERE body IS NOT NULL OR asking)
         ON CONFLICT (account, question) DO UPDATE SET asked_by = EXCLUDED.asked_by, asked_at = EXCLUDED.asked_at, body = NULL
         WHERE (api_answers.body IS NOT NULL AND api_answers.asked_at < $5)
            OR (api_answers.body IS NULL AND api_answers.asked_at < $6)
         RETURNING 1
       )
       SELECT held.body, held.asked_at, held.answered, EXISTS (SELECT 1 FROM claimed) AS claimed
         FROM (SELECT 1) AS one LEFT JOIN held ON true`,
      [account, question, name, new Date(now), new Date(freshSince), new Date(now - this.claimMs)],
    );
    const row = rows[0]!;
    if (row.claimed) {
      if (row.answered) this.stats.stale++;
      else if (row.answered === false) this.stats.takenOver++;
      return { claim: { name, at: now } };
    }
    if (row.body !== null) return { answer: { body: row.body, askedAt: new Date(row.asked_at!).getTime() } };
    return {};
  }

  /** Asks the API under this claim, renewing it meanwhile; the answer is written for the others, a failure drops the claim. */
  private async ask<T>(account: string, question: string, claim: Claim, fetch: () => Promise<T>) {
    const renewal = setInterval(() => {
      this.stats.queries++;
      this.db
        .query(
          'UPDATE api_answers SET asked_at = $4 WHERE account = $1 AND question = $2 AND asked_by = $3 AND body IS NULL',
          [account, question, claim.name, new Date(this.now())],
        )
        .catch(() => this.stats.errors++);
    }, this.claimMs / 3);
    renewal.unref();
    let value: T;
    try {
      value = await fetch();
    } catch (error) {
      clearInterval(renewal);
      this.stats.queries++;
      await this.db
        .query('DELETE FROM api_answers WHERE account = $1 AND question = $2 AND asked_by = $3 AND body IS NULL', [
          account,
          question,
          claim.name,
        ])
        .catch(() => this.stats.errors++);
      throw error;
    }
    clearInterval(renewal);
    const body = JSON.stringify(value);
    this.stats.queries++;
    // asked_at goes back to when the question was asked: the answer is fresh from then.
    await this.db
      .query(
        'UPDATE api_answers SET body = $4, asked_at = $5 WHERE account = $1 AND question = $2 AND asked_by = $3 RETURNING 1',
        [account, question, claim.name, body, new Date(claim.at)],
      )
      .then(
        ({ rows }) => {
          if (rows.length === 0) return; // taken over meanwhile: the answer is this replica's alone
          this.stats.written++;
          this.stats.bytes += Buffer.byteLength(body);
        },
        () => this.stats.errors++,
      );
    return { value, askedAt: claim.at };
  }

  private now(): number {
    return this.o.now().getTime();
  }
}

/** Deletes answers and claims asked before `olderThan` (stale or abandoned by then); returns how many. */
export async function pruneAnswers(db: Queryable, olderThan: Date): Promise<number> {
  const { rows } = await db.query('DELETE FROM api_answers WHERE asked_at < $1 RETURNING 1', [olderThan]);
  return rows.length;
}
