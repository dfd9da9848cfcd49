import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { caseView, listCasesSchema } from '../../loop/fraud/fraud.schemas.js';
import type { Services } from '../../context.js';
import { AppError, ValidationError } from '../../platform/errors.js';
import { MAX_WAIT_SECONDS } from '../messages/message-waits.js';
import { apiMailboxSchema, mailboxJson } from '../mailboxes/mailbox.service.js';
import { reportQuerySchema } from '../../loop/reports/report.service.js';

/** The answer of a tool: its JSON as text (what every MCP client shows) and as structured content. */
function answer(value: Record<string, unknown>) {
  return { content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

/** A refusal by the service (unknown mailbox, bad input): the tool's error, worded for the agent. */
function refused(err: unknown) {
  if (!(err instanceof AppError)) throw err;
  const details = err.details ? ` ${JSON.stringify(err.details)}` : '';
  return { content: [{ type: 'text' as const, text: `${err.code}: ${err.message}${details}` }], isError: true };
}

async function run(work: () => Promise<Record<string, unknown>>) {
  try {
    return answer(await work());
  } catch (err) {
    return refused(err);
  }
}

/** Input checked by the same schema as the HTTP route's, refused the same way (`invalid_request` naming the fields). */
function parsed<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(result.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })));
  return result.data;
}

const address = z.string().min(3).max(320).describe('The mailbox address, e.g. "ab12cd@svc.test"');

/** The HTTP request an MCP server answers, as its tools need it. */
export interface McpRequest {
  /** Aborted when the client goes away: a wait_for_message ends at once. */
  readonly signal: AbortSignal;
  /** Called before a tool waits up to `ms` in silence, so that the connection outlives the wait (holdOpenFor). */
  readonly holdOpen: (ms: number) => void;
}

/**
 * The Model Context Protocol server of svc (docs/mcp.md): tools for an agent that signs up somewhere and
 * needs the code or the confirmation link, and for the affiliate figures. Each call of POST /mcp builds one
 * (stateless); the tools call the same services as the HTTP API with the API key.
 */
export function createMcpServer(services: Services, request: McpRequest): McpServer {
  const { signal } = request;
  const server = new McpServer({ name: 'svc', version: '1.0.0' });

  server.registerTool(
    'create_mailbox',
    {
      title: 'Create a mailbox',
      description: 'Creates a temporary mailbox and answers its address and the token that reads it (shown once). Without a name, a random one.',
      inputSchema: {
        name: z.string().max(64).optional().describe('The part before @ (letters, digits and . _ + -); random when absent'),
        domain: z.string().max(253).optional().describe('One of the service\'s mail domains (a non-public one too); the first active public one when absent'),
      },
    },
    (input) =>
      run(async () => {
        const { name, domain } = parsed(apiMailboxSchema, input);
        return { mailbox: mailboxJson(await services.mailboxes.create({ anonymous: false, name: name ?? null, domain: domain ?? null })) };
      }),
  );

  server.registerTool(
    'wait_for_message',
    {
      title: 'Wait for a message',
      description: `Waits up to \`timeout\` seconds (default 30, at most ${MAX_WAIT_SECONDS}) for a message in the mailbox whose sender and subject contain the given parts (any case), and answers it with its verification code, links and verification link; a message already there answers at once. \`message\` is null when none came in time.`,
      inputSchema: {
        address,
        timeout: z.number().min(0).max(MAX_WAIT_SECONDS).optional().describe('Seconds to wait'),
        from: z.string().min(1).max(320).optional().describe('Part of the sender address or name'),
        subject: z.string().min(1).max(200).optional().describe('Part of the subject'),
        after: z.string().max(100).optional().describe('A message id: only messages that arrived after it'),
      },
    },
    ({ address, timeout, from, subject, after }) =>
      run(async () => {
        const mailbox = await services.mailReader.getMailbox(address);
        const timeoutMs = (timeout ?? 30) * 1000;
        request.holdOpen(timeoutMs);
        // no client: the MCP request carrying this wait holds its client's slot (mcp.routes.ts)
        const message = await services.messageWaits.wait(mailbox, { after: after ?? null, from, subject }, timeoutMs, signal);
        return { message };
      }),
  );

  server.registerTool(
    'list_messages',
    {
      title: 'List messages',
      description: 'The newest 50 messages of the mailbox (id, sender, subject, time, verification code), newest first; `q` keeps those whose subject, sender or text hold every word of it.',
      inputSchema: { address, q: z.string().max(200).optional().describe('Words to search for') },
    },
    ({ address, q }) =>
      run(async () => {
        const mailbox = await services.mailReader.getMailbox(address);
        const page = await services.mailReader.list(mailbox, 50, undefined, q);
        return { messages: page.items };
      }),
  );

  server.registerTool(
    'read_message',
    {
      title: 'Read a message',
      description: 'One message with its text, sanitised HTML, verification code, links and verification link.',
      inputSchema: { address, id: z.string().min(1).max(100).describe('The message id, from list_messages or wait_for_message') },
    },
    ({ address, id }) =>
      run(async () => {
        const mailbox = await services.mailReader.getMailbox(address);
        return { message: await services.mailReader.read(mailbox, id) };
      }),
  );

  server.registerTool(
    'affiliate_summary',
    {
      title: 'Affiliate summary',
      description: 'Clicks, mailboxes, orders and commission per affiliate (amounts in cents), and the totals; optionally one affiliate and a range of UTC days.',
      inputSchema: {
        ref_code: z.string().max(64).optional().describe('One affiliate'),
        from: z.string().max(10).optional().describe('First day, YYYY-MM-DD'),
        to: z.string().max(10).optional().describe('Last day, YYYY-MM-DD'),
      },
    },
    (input) =>
      run(async () => {
        return await services.reports.summary(parsed(reportQuerySchema, input));
      }),
  );

  server.registerTool(
    'list_fraud_cases',
    {
      title: 'List fraud cases',
      description:
        'Fraud review cases (docs/api.md#fraud-review), newest first, at most 50: signal, action (flag or hold), status, evidence in words and what each holds. Read only: releasing or rejecting a case is for a person, in the admin area.',
      inputSchema: {
        status: z.enum(['open', 'released', 'rejected']).optional().describe('Only cases in this status (open: still to review)'),
        ref_code: z.string().max(64).optional().describe('One affiliate'),
      },
    },
    (input) =>
      run(async () => {
        const q = parsed(listCasesSchema, { ...input, limit: 50 });
        const page = await services.fraud.list({ status: q.status, refCode: q.ref_code, limit: 50 });
        const cur = await services.settings.currency();
        return { cases: page.items.map((c) => caseView(c.row, c.held, cur)) };
      }),
  );

  return server;
}
