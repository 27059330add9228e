/**
 * Socket Mode as Slack serves it: `apps.connections.open` (with the app-level token) hands
 * out a single-use WebSocket URL; on connecting the app gets `hello`; requests arrive as
 * envelopes with an `envelope_id` the app must ack (with a response payload where one is
 * accepted); `disconnect` with `refresh_requested` asks the app to reconnect. Tests can
 * also drop the socket abruptly.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { isRecord, type Json } from './types.js';

export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

export interface Acked {
  acked: boolean;
  payload?: unknown;
}

export class SocketModeHub {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  private readonly tickets = new Set<string>();
  private readonly waiting = new Map<string, (ack: Acked) => void>();
  private readonly connectedWaiters = new Set<() => void>();
  /** Connections made so far (each `hello` sent). */
  connections = 0;

  constructor(
    readonly appToken: string,
    private readonly baseUrl: () => string,
  ) {}

  get connected(): boolean {
    return this.sockets.size > 0;
  }

  /** `apps.connections.open`: a single-use URL to connect to. */
  open(): string {
    const ticket = randomBytes(12).toString('hex');
    this.tickets.add(ticket);
    return `${this.baseUrl().replace(/^http/, 'ws')}/link/?ticket=${ticket}`;
  }

  /** The HTTP server's `upgrade`: only a ticket from `open` is let in, once. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== '/link/' || !this.tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.sockets.add(ws);
      this.connections++;
      // With ws's default binaryType ('nodebuffer') each message is one Buffer.
      ws.on('message', (data) => this.received((data as Buffer).toString()));
      // Slack pings its connections; a client that hears nothing for a while takes the connection for dead.
      const ping = setInterval(() => ws.ping(), 10_000);
      ping.unref();
      ws.on('close', () => {
        clearInterval(ping);
        this.sockets.delete(ws);
      });
      ws.on('error', () => this.sockets.delete(ws));
      ws.send(
        JSON.stringify({
          type: 'hello',
          num_connections: this.sockets.size,
          debug_info: { host: 'offline-slack', approximate_connection_time: 18060 },
          connection_info: { app_id: 'A_LOOKOUT' },
        }),
      );
      for (const wake of this.connectedWaiters) wake();
      this.connectedWaiters.clear();
    });
  }

  private received(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (!isRecord(message) || typeof message.envelope_id !== 'string') return;
    const resolve = this.waiting.get(message.envelope_id);
    if (!resolve) return;
    this.waiting.delete(message.envelope_id);
    resolve({ acked: true, ...(message.payload !== undefined ? { payload: message.payload } : {}) });
  }

  /** Waits up to `ms` for the app to be connected (it may be reconnecting). */
  private async whenConnected(ms: number): Promise<boolean> {
    if (this.connected) return true;
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.connectedWaiters.delete(wake);
        resolve(false);
      }, ms);
      this.connectedWaiters.add(wake);
    });
  }

  /** Sends an envelope on a connection and waits for its ack until `deadlineMs`; not acked when there is no connection in time. */
  async send(type: EnvelopeType, payload: Json, deadlineMs: number, retry = 0): Promise<Acked> {
    const started = Date.now();
    if (!(await this.whenConnected(deadlineMs))) return { acked: false };
    const socket = [...this.sockets][0]!;
    const envelopeId = randomBytes(16).toString('hex');
    const answered = new Promise<Acked>((resolve) => {
      const timer = setTimeout(
        () => {
          if (this.waiting.delete(envelopeId)) resolve({ acked: false });
        },
        Math.max(0, deadlineMs - (Date.now() - started)),
      );
      this.waiting.set(envelopeId, (ack) => {
        clearTimeout(timer);
        resolve(ack);
      });
    });
    socket.send(
      JSON.stringify({
        envelope_id: envelopeId,
        type,
        payload,
        accepts_response_payload: type !== 'events_api',
        retry_attempt: retry,
        retry_reason: retry > 0 ? 'timeout' : '',
      }),
    );
    return answered;
  }

  /** Asks every connection to reconnect, as Slack does before it closes one. */
  refresh(): void {
    for (const ws of this.sockets)
      ws.send(
        JSON.stringify({ type: 'disconnect', reason: 'refresh_requested', debug_info: { host: 'offline-slack' } }),
      );
  }

  /** Drops every connection without a word, as a network failure would. */
  drop(): void {
    for (const ws of this.sockets) ws.terminate();
    this.sockets.clear();
  }

  close(): void {
    this.drop();
    for (const resolve of this.waiting.values()) resolve({ acked: false });
    this.waiting.clear();
    this.wss.close();
  }
}
