import { describe, expect, it } from 'vitest';
import { ListenError } from '../../src/platform/listen-error.js';

function failure(code: string, message = `listen ${code}`): Error {
  return Object.assign(new Error(message), { code });
}

describe('ListenError', () => {
  it('names what, the address and the port, and says why in words', () => {
    expect(new ListenError('HTTP', '0.0.0.0', 80, failure('EACCES')).message).toBe(
      'cannot listen for HTTP on 0.0.0.0:80: permission denied (EACCES): ports below 1024 need root or CAP_NET_BIND_SERVICE',
    );
    expect(new ListenError('SMTP', '::1', 25, failure('EADDRINUSE')).message).toBe(
      'cannot listen for SMTP on [::1]:25: the address is already in use (EADDRINUSE): another process listens on that port',
    );
    expect(new ListenError('SMTP', '10.1.2.3', 2525, failure('EADDRNOTAVAIL')).message).toBe(
      'cannot listen for SMTP on 10.1.2.3:2525: the address is not available on this machine (EADDRNOTAVAIL)',
    );
  });

  it('says how to start on another port when the port is taken or privileged, and how to turn SMTP off', () => {
    expect(new ListenError('HTTP', '127.0.0.1', 8080, failure('EADDRINUSE'), { variable: 'PORT' }).message).toBe(
      'cannot listen for HTTP on 127.0.0.1:8080: the address is already in use (EADDRINUSE): another process listens on that port; to use another port: PORT=8081 npm start',
    );
    expect(new ListenError('SMTP', '127.0.0.1', 2525, failure('EADDRINUSE'), { variable: 'SMTP_PORT', canTurnOff: true }).message).toBe(
      'cannot listen for SMTP on 127.0.0.1:2525: the address is already in use (EADDRINUSE): another process listens on that port; to use another port: SMTP_PORT=2526 npm start (or SMTP_PORT=off npm start for none)',
    );
    expect(new ListenError('HTTP', '0.0.0.0', 80, failure('EACCES'), { variable: 'PORT' }).message).toBe(
      'cannot listen for HTTP on 0.0.0.0:80: permission denied (EACCES): ports below 1024 need root or CAP_NET_BIND_SERVICE; to use another port: PORT=8080 npm start',
    );
    // another port would not help an address that is not this machine's
    expect(new ListenError('HTTP', '10.1.2.3', 8080, failure('EADDRNOTAVAIL'), { variable: 'PORT' }).message).not.toContain('PORT=');
  });

  it('keeps an unknown cause on one line, with its code', () => {
    const err = new ListenError('HTTP', '127.0.0.1', 8080, failure('EWHAT', 'first line\n  second line'));
    expect(err.message).toBe('cannot listen for HTTP on 127.0.0.1:8080: first line second line (EWHAT)');
    expect(err.code).toBe('EWHAT');
  });
});
