import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/platform/adapters/registry.js';
import { postbackTemplateProblem } from '../../src/platform/adapters/network-postback.adapter.js';
import { ConfigError, loadConfig } from '../../src/config.js';

const postbackEnv = (env: Record<string, string>) => loadConfig(env).adapters.find((a) => a.definition.name === 'network-postback')?.env;

describe('adapters declare their own configuration', () => {
  it('network-postback reads SVC_NETWORK_POSTBACK_URL; unset (or empty) keeps it disabled', () => {
    const url = 'https://network.example/postback?order={order_id}&click={click_id}';
    expect(postbackEnv({ SVC_NETWORK_POSTBACK_URL: url })).toEqual({ SVC_NETWORK_POSTBACK_URL: url });
    expect(postbackEnv({})).toEqual({ SVC_NETWORK_POSTBACK_URL: undefined });
    expect(postbackEnv({ SVC_NETWORK_POSTBACK_URL: '' })).toEqual({ SVC_NETWORK_POSTBACK_URL: undefined });
  });

  it.each([
    ['ftp://network.example/p', 'must be an absolute http(s) URL template'],
    ['network.example/p?o={order_id}', 'must be an absolute http(s) URL template'],
    ['https:///nohost', 'must be an absolute http(s) URL template'],
    ['https://network.example/p?o={order_id}\r\nHost: evil.example', 'must not contain control characters'],
    ['https://network.example/p\u0000', 'must not contain control characters'],
    ['https://network.example/p\u0085', 'must not contain control characters'],
    [`https://network.example/${'a'.repeat(2048)}`, 'Too big: expected string to have <=2048 characters'],
  ])('refuses %j at start with one line that does not echo it', (value, message) => {
    let error: unknown;
    try {
      loadConfig({ SVC_NETWORK_POSTBACK_URL: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`SVC_NETWORK_POSTBACK_URL: ${message}`);
  });

  it('exports the template check on its own (for the settings validation to share)', () => {
    expect(postbackTemplateProblem('http://n.example/p?c={click_id}')).toBeUndefined();
    expect(postbackTemplateProblem('https://n.example/\t')).toBe('must not contain control characters');
    expect(postbackTemplateProblem('javascript:alert(1)')).toBe('must be an absolute http(s) URL template');
  });

  it('the README\'s configuration table shows each adapter variable with the description its adapter declares', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const variables = ADAPTERS.flatMap((a) => Object.entries(a.env));
    expect(variables.map(([name]) => name)).toContain('SVC_NETWORK_POSTBACK_URL');
    for (const [name, { description }] of variables) {
      expect(readme).toMatch(new RegExp(`^\\| \`${name}\` \\| [^|]+ \\| ${description.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\|$`, 'm'));
    }
  });
});
