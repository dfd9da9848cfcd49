import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { SmtpGateway } from '../../src/mail/smtp/smtp-gateway.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, TEST_API_KEY, type TestService } from '../helpers/service.js';

/** POST /mcp with the official SDK's client (docs/mcp.md). */
describeEachDatabase('MCP: an agent creates a mailbox, waits for mail sent over SMTP and reads it', (dialect) => {
  let t: TestService;
  let base: string;
  let smtpPort: number;
  let client: Client;
  beforeAll(async () => {
    t = await startTestService(dialect, { env: { SMTP_PORT: '0' } });
    base = await t.service.start();
    smtpPort = (t.service.ctx.background.find((task) => task.name === 'smtp') as SmtpGateway).address().port;
    client = new Client({ name: 'svc-test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TEST_API_KEY}` } } }));
  });
  afterAll(async () => {
    await client?.close();
    await t.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    return { ...result, json: result.isError ? undefined : JSON.parse((result.content as { text: string }[])[0]!.text) };
  };

  it('lists the tools with their input schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['affiliate_summary', 'create_mailbox', 'list_fraud_cases', 'list_messages', 'read_message', 'wait_for_message']);
    const wait = tools.find((tool) => tool.name === 'wait_for_message')!;
    expect(wait.inputSchema).toMatchObject({ type: 'object', required: ['address'], properties: { address: { type: 'string' }, timeout: { type: 'number', maximum: 60 } } });
    expect(Object.keys(tools.find((tool) => tool.name === 'create_mailbox')!.inputSchema.properties ?? {}).sort()).toEqual(['domain', 'name']);
    expect(Object.keys(tools.find((tool) => tool.name === 'affiliate_summary')!.inputSchema.properties ?? {}).sort()).toEqual(['from', 'ref_code', 'to']);
  });

  it('create → mail over SMTP → wait → read → list', async () => {
    const created = await call('create_mailbox', { name: 'agent.one' });
    expect(created.json.mailbox).toMatchObject({ address: 'agent.one@svc.test', ref_code: null, token: expect.any(String) });
    const address = created.json.mailbox.address as string;

    const waiting = call('wait_for_message', { address, timeout: 20, from: 'acme', subject: 'confirm' });
    await vi.waitFor(() => expect(t.service.ctx.services.messageWaits.open).toBe(1));
    const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
    await smtp.sendMail({
      from: 'Acme <noreply@acme.example>',
      to: address,
      subject: 'Confirm your Acme account',
      text: 'Your verification code is 604118.\nOr confirm here: https://acme.example/confirm/Zx81Kq0pL3mN5vB7cX9a',
      html: '<p>Your verification code is <b>604118</b>.</p><a href="https://acme.example/confirm/Zx81Kq0pL3mN5vB7cX9a">Confirm account</a>',
    });
    const waited = await waiting;
    expect(waited.json.message).toMatchObject({
      mailbox: address,
      from: 'noreply@acme.example',
      subject: 'Confirm your Acme account',
      code: '604118',
      verification_link: 'https://acme.example/confirm/Zx81Kq0pL3mN5vB7cX9a',
      links: ['https://acme.example/confirm/Zx81Kq0pL3mN5vB7cX9a'],
    });
    const id = waited.json.message.id as string;

    const read = await call('read_message', { address, id });
    expect(read.json.message).toMatchObject({ id, code: '604118', text: expect.stringContaining('604118') });
    expect((await call('list_messages', { address })).json.messages).toMatchObject([{ id, code: '604118' }]);
    expect((await call('list_messages', { address, q: 'acme confirm' })).json.messages).toHaveLength(1);
    // Nothing newer: null at the timeout.
    expect((await call('wait_for_message', { address, timeout: 0.2, after: id })).json).toEqual({ message: null });
  });

  it('never offers a link to an inward host (docs/api.md#links): wait and read leave them out', async () => {
    const created = await call('create_mailbox', { name: 'agent.inward' });
    const address = created.json.mailbox.address as string;
    const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
    await smtp.sendMail({
      from: 'Acme <noreply@acme.example>',
      to: address,
      subject: 'Confirm your Acme account',
      text: 'Confirm here: http://169.254.169.254/latest/meta-data/confirm\nOr: http://127.1/verify/abcdefghijklmnopqrst',
      html: '<a href="http://2852039166/confirm">Confirm account</a> <a href="http://metadata.internal/confirm">Confirm</a> <a href="https://acme.example/help">Help</a>',
    });
    const waited = await call('wait_for_message', { address, timeout: 20 });
    expect(waited.json.message).toMatchObject({ subject: 'Confirm your Acme account', links: ['https://acme.example/help'], verification_link: null });
    const read = await call('read_message', { address, id: waited.json.message.id });
    expect(read.json.message).toMatchObject({ links: ['https://acme.example/help'], verification_link: null });
  });

  it('answers refusals as tool errors, and the affiliate summary', async () => {
    const missing = await call('read_message', { address: 'nobody@svc.test', id: 'msg_x' });
    expect(missing.isError).toBe(true);
    expect((missing.content as { text: string }[])[0]!.text).toMatch(/^mailbox_not_found/);
    const badName = await call('create_mailbox', { name: 'no spaces' });
    expect(badName.isError).toBe(true);
    expect((badName.content as { text: string }[])[0]!.text).toMatch(/^invalid_request/);
    const summary = await call('affiliate_summary', { from: '2026-01-01', to: '2026-01-31' });
    expect(summary.json).toMatchObject({ summary: [], totals: { clicks: 0, mailboxes: 0 } });
    expect((await call('affiliate_summary', { from: '2026-02-01', to: '2026-01-01' })).isError).toBe(true);
  });

  it('lists fraud cases, read only (docs/api.md#fraud-review)', async () => {
    expect((await t.api('POST', '/api/affiliates', { ref_code: 'mcpann', email: 'ann@acme.example' })).statusCode).toBe(201);
    await t.api('POST', '/api/orders', { order_id: 'mcp-o1', email: 'ann@acme.example', amount: 40, product: 'p', ref_code: 'mcpann' });
    await t.api('POST', '/api/orders/pay', { order_id: 'mcp-o1' });
    const listed = await call('list_fraud_cases', { status: 'open' });
    expect(listed.isError).toBeFalsy();
    const cases = (listed.json as { cases: { ref_code: string; signal: string; action: string; held: { amount: number } }[] }).cases;
    expect(cases.map((c) => [c.ref_code, c.signal, c.action, c.held.amount])).toEqual([['mcpann', 'self_referral', 'hold', 4]]);
    expect(((await call('list_fraud_cases', { status: 'released' })).json as { cases: unknown[] }).cases).toEqual([]);
    expect((await call('list_fraud_cases', { status: 'closed' })).isError).toBe(true);
  });

  it('refuses a request without the API key (401) and GET (405)', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(`${base}/mcp`, { method: 'POST', headers, body });
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    expect((await fetch(`${base}/mcp`, { method: 'POST', headers: { ...headers, authorization: 'Bearer wrong' }, body })).status).toBe(401);
    const get = await fetch(`${base}/mcp`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(await get.json()).toMatchObject({ success: false, error: { code: 'method_not_allowed' } });
  });
});
