import net from 'node:net';

export interface SmtpReply {
  readonly code: number;
  readonly text: string;
}

/**
 * Sends one message over its own SMTP connection, one command at a time (EHLO, MAIL FROM, RCPT TO each,
 * DATA, the dot-stuffed source, QUIT) and answers the first reply that is not the expected one, or
 * the reply to the message's end. `source` is sent as given (CRLF line ends expected); a reply that
 * does not come within `timeoutMs` fails the call, and the socket is closed in every case. `localAddress`
 * binds the client to another loopback address (127.0.0.2, ...), so the server sees another client IP.
 */
export async function sendSmtp(port: number, envelope: { from: string; to: string | readonly string[] }, source: Buffer, timeoutMs = 60_000, localAddress?: string): Promise<SmtpReply> {
  const socket = net.connect({ host: '127.0.0.1', port, ...(localAddress ? { localAddress } : {}) });
  socket.setNoDelay(true);
  const replies: SmtpReply[] = [];
  let pending = '';
  let lines: string[] = [];
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    pending += chunk;
    // a reply ends with a line whose fourth character is a space ("250 ok"; "250-…" lines continue it)
    for (let end = pending.indexOf('\r\n'); end >= 0; end = pending.indexOf('\r\n')) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 2);
      lines.push(line);
      if (line.length < 4 || line[3] === ' ') {
        replies.push({ code: Number(line.slice(0, 3)), text: lines.join('\n') });
        lines = [];
      }
    }
    wake?.();
  });
  socket.on('error', (err) => {
    failure ??= err;
    wake?.();
  });
  socket.on('close', () => {
    failure ??= new Error('the SMTP server closed the connection');
    wake?.();
  });
  const reply = async (): Promise<SmtpReply> => {
    if (replies.length === 0 && !failure) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(() => {
          failure ??= new Error(`no SMTP reply within ${timeoutMs} ms`);
          resolve();
        }, timeoutMs);
      });
      clearTimeout(timer);
      wake = undefined;
    }
    const next = replies.shift();
    if (!next) throw failure;
    return next;
  };
  const command = (line: string) => {
    socket.write(`${line}\r\n`);
    return reply();
  };
  try {
    let r = await reply();
    if (r.code !== 220) return r;
    r = await command('EHLO hostile.example');
    if (r.code !== 250) return r;
    r = await command(`MAIL FROM:<${envelope.from}>`);
    if (r.code !== 250) return r;
    for (const to of typeof envelope.to === 'string' ? [envelope.to] : envelope.to) {
      r = await command(`RCPT TO:<${to}>`);
      if (r.code !== 250) return r;
    }
    r = await command('DATA');
    if (r.code !== 354) return r;
    socket.write(dotStuffed(source));
    socket.write(source.length === 0 || source.subarray(-2).toString('latin1') === '\r\n' ? '.\r\n' : '\r\n.\r\n');
    const final = await reply();
    await command('QUIT').catch(() => undefined);
    return final;
  } finally {
    socket.destroy();
  }
}

/** RFC 5321 4.5.2: a line that starts with a dot gets one more. */
function dotStuffed(source: Buffer): Buffer {
  const text = source.toString('latin1');
  return text.startsWith('.') || text.includes('\n.') ? Buffer.from(text.replace(/^\./gm, '..'), 'latin1') : source;
}
