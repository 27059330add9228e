import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightGate } from '../../../src/platform/slack/preflight-gate.js';
import { ResponseUrls } from '../../../src/platform/slack/respond.js';

/** A response_url read back from a tampered message or modal must not make Lookout post anywhere but Slack. */
describe('ResponseUrls.post', () => {
  const hits: string[] = [];
  let responses: ResponseUrls;
  let evil: Server;
  let slack: Server;
  const url = (s: Server, path: string) => `http://127.0.0.1:${(s.address() as AddressInfo).port}${path}`;

  beforeAll(async () => {
    const serve = (name: string) =>
      createServer((req, res) => {
        hits.push(`${name} ${req.url}`);
        req.resume();
        res.writeHead(200).end('{}');
      });
    evil = serve('evil');
    slack = serve('slack');
    await Promise.all([evil, slack].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
    responses = new ResponseUrls(new PreflightGate(), url(slack, '/api/'));
  });
  afterAll(async () => {
    await responses.close();
    await Promise.all([evil, slack].map((s) => new Promise((r) => s.close(r))));
  });

  it("refuses any origin but Slack's and the configured Slack API's, without a request", async () => {
    await expect(responses.post(url(evil, '/steal'), { text: 'report rows' })).rejects.toThrow(/not Slack's/);
    await expect(responses.post('https://evil.example/hooks', { text: 'x' })).rejects.toThrow(/not Slack's/);
    await expect(responses.post('javascript:alert(1)', { text: 'x' })).rejects.toThrow(/not Slack's|not a URL/);
    await expect(responses.post('not a url', { text: 'x' })).rejects.toThrow(/not a URL/);
    await responses.post(url(slack, '/response/1'), { text: 'fine' });
    expect(hits).toEqual(['slack /response/1']);
  });
});
