import type { AddressInfo, Socket } from 'node:net';
import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  readonly to: string[];
  readonly from: string;
  readonly subject: string;
  readonly messageId: string;
  readonly text: string;
  readonly html: string;
}

/** accept: 250; refuse: 451 to DATA; hang: never answers the greeting. */
export type SmtpMode = 'accept' | 'refuse' | 'hang';

export interface SmtpCapture {
  readonly url: string;
  readonly mails: CapturedMail[];
  /** Every Message-ID that reached DATA, refused ones included. */
  readonly attempted: string[];
  mode: SmtpMode;
  close(): Promise<void>;
}

/** A real SMTP server in the test process that keeps what svc sends. */
export async function startSmtpCapture(): Promise<SmtpCapture> {
  const sockets = new Set<Socket>();
  const capture: SmtpCapture = {
    url: '',
    mails: [],
    attempted: [],
    mode: 'accept',
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      if (capture.mode === 'hang') return; // the client waits for a greeting that never comes
      callback();
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        void PostalMime.parse(Buffer.concat(chunks)).then((m) => {
          const messageId = m.messageId ?? '';
          capture.attempted.push(messageId);
          if (capture.mode === 'refuse') {
            const err = Object.assign(new Error('try again later'), { responseCode: 451 });
            callback(err);
            return;
          }
          capture.mails.push({
            to: (m.to ?? []).map((a) => ('address' in a ? (a.address ?? '') : '')),
            from: m.from && 'address' in m.from ? (m.from.address ?? '') : '',
            subject: m.subject ?? '',
            messageId,
            text: m.text ?? '',
            html: m.html ?? '',
          });
          callback();
        });
      });
    },
  });
  server.server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return Object.assign(capture, { url: `smtp://127.0.0.1:${port}` });
}

/** The first link in a mail's text after `label: `. */
export function linkIn(mail: CapturedMail, label: string): string {
  const line = mail.text.split('\n').find((l) => l.startsWith(`${label}: `));
  if (!line) throw new Error(`no "${label}" link in:\n${mail.text}`);
  return line.slice(label.length + 2).trim();
}
