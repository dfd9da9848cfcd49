import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventWebhooks } from '../../src/platform/http/events.openapi.js';

/**
 * The README's event table against the event catalogue, read where /openapi.json reads it (its
 * `webhooks`): every event in the catalogue's order, its description as "when", and the fields its
 * `data` column names, with their nullability. `{…}` leaves an object's fields unsaid.
 */

const README = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');

interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly anyOf?: readonly JsonSchema[];
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
}

interface Row {
  readonly event: string;
  readonly when: string;
  readonly data: string;
}

/** The rows of the first table in "## Webhooks": `| event | when | data |`. */
function eventTable(): Row[] {
  const start = README.indexOf('\n## Webhooks\n');
  if (start < 0) throw new Error('README.md has no "## Webhooks" section');
  const lines = README.slice(start).split('\n');
  const head = lines.findIndex((l) => l.startsWith('| event |'));
  if (head < 0) throw new Error('no event table in "## Webhooks"');
  const rows: Row[] = [];
  for (const line of lines.slice(head + 2)) {
    if (!line.startsWith('|')) break;
    // a cell may hold `\|` (markdown's escaped pipe): split on the others
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim().replaceAll('\\|', '|'));
    const [event, when, data] = cells as [string, string, string];
    rows.push({ event: /^`([^`]+)`$/.exec(event)?.[1] ?? event, when, data: /^`([^`]+)`/.exec(data)?.[1] ?? data });
  }
  return rows;
}

/** An object as the table writes it: `{a, b|null, c:{…}, d:{x, y}|null, e:"literal"}`; no fields: `{…}`. */
interface Shape {
  readonly fields?: readonly Field[];
}
interface Field {
  readonly name: string;
  readonly nullable: boolean;
  readonly shape?: Shape;
  readonly literal?: string;
}

function parseShape(text: string): Shape {
  let at = 0;
  const expect = (token: string) => {
    if (!text.startsWith(token, at)) throw new Error(`expected ${token} at ${at} in ${text}`);
    at += token.length;
  };
  const skipSpace = () => {
    while (text[at] === ' ') at++;
  };
  const object = (): Shape => {
    expect('{');
    if (text.startsWith('…}', at)) {
      at += 2;
      return {};
    }
    const fields: Field[] = [];
    for (;;) {
      skipSpace();
      const name = /^[a-z_]+/.exec(text.slice(at))?.[0];
      if (!name) throw new Error(`expected a field name at ${at} in ${text}`);
      at += name.length;
      let shape: Shape | undefined;
      let literal: string | undefined;
      if (text[at] === ':') {
        at++;
        if (text[at] === '{') shape = object();
        else {
          const quoted = /^"([^"]*)"/.exec(text.slice(at));
          if (!quoted) throw new Error(`expected an object or "literal" at ${at} in ${text}`);
          literal = quoted[1];
          at += quoted[0].length;
        }
      }
      const nullable = text.startsWith('|null', at);
      if (nullable) at += 5;
      fields.push({ name, nullable, shape, literal });
      if (text[at] === '}') {
        at++;
        return { fields };
      }
      expect(',');
    }
  };
  const shape = object();
  if (at !== text.length) throw new Error(`unexpected ${text.slice(at)} in ${text}`);
  return shape;
}

/** The schema without its null alternative, and whether it had one. */
function withoutNull(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  if (schema.anyOf) {
    const others = schema.anyOf.filter((s) => s.type !== 'null');
    return { schema: others.length === 1 ? (others[0] as JsonSchema) : { anyOf: others }, nullable: others.length < schema.anyOf.length };
  }
  if (Array.isArray(schema.type)) return { schema: { ...schema, type: schema.type.filter((t) => t !== 'null') }, nullable: schema.type.includes('null') };
  return { schema, nullable: false };
}

/** What the table says that the schema does not: an empty list when they agree. */
function disagreements(shape: Shape, schema: JsonSchema, path: string): string[] {
  if (!shape.fields) return [];
  const properties = schema.properties ?? {};
  const named = shape.fields.map((f) => f.name);
  const problems: string[] = [];
  const missing = Object.keys(properties).filter((k) => !named.includes(k));
  if (missing.length > 0) problems.push(`${path}: the table lacks ${missing.join(', ')}`);
  for (const field of shape.fields) {
    const property = properties[field.name];
    if (!property) {
      problems.push(`${path}.${field.name}: not in the catalogue`);
      continue;
    }
    const { schema: inner, nullable } = withoutNull(property);
    if (nullable !== field.nullable) problems.push(`${path}.${field.name}: ${nullable ? 'may be null, the table does not say |null' : 'is never null, the table says |null'}`);
    if (field.literal !== undefined && inner.const !== field.literal && !(inner.enum ?? []).includes(field.literal)) {
      problems.push(`${path}.${field.name}: the catalogue never has "${field.literal}"`);
    }
    if (field.shape) problems.push(...disagreements(field.shape, inner, `${path}.${field.name}`));
  }
  return problems;
}

type Webhooks = Record<string, { post: { summary: string; requestBody: { content: { 'application/json': { schema: { properties: { data: JsonSchema } } } } } } }>;

describe("README's event table (## Webhooks) against the event catalogue", () => {
  const catalogue = eventWebhooks() as Webhooks;
  const rows = eventTable();

  it('has one row per catalogued event, in the catalogue\'s order, with its description', () => {
    // on failure the expected rows show what to write
    expect(rows.map((r) => `| \`${r.event}\` | ${r.when} |`)).toEqual(Object.entries(catalogue).map(([type, hook]) => `| \`${type}\` | ${hook.post.summary} |`));
  });

  it.each(Object.keys(catalogue))('%s: the data column names the fields of its data, no other, and says which may be null', (type) => {
    const row = rows.find((r) => r.event === type);
    expect(row, `no README row for ${type}`).toBeDefined();
    const data = (catalogue[type] as Webhooks[string]).post.requestBody.content['application/json'].schema.properties.data;
    expect(disagreements(parseShape((row as Row).data), data, 'data')).toEqual([]);
  });

  it('notices what it checks: a missing field, an extra one, a wrong |null, an unknown literal', () => {
    const schema: JsonSchema = {
      properties: { a: { type: 'string' }, b: { anyOf: [{ properties: { x: { type: 'string' } } }, { type: 'null' }] }, c: { type: ['string', 'null'] }, s: { const: 'paid' } },
    };
    expect(disagreements(parseShape('{a, b:{x}|null, c|null, s:"paid"}'), schema, 'data')).toEqual([]);
    expect(disagreements(parseShape('{a, b:{…}|null, c|null, s}'), schema, 'data')).toEqual([]);
    expect(disagreements(parseShape('{a, b:{x, y}, c, s:"due", z}'), schema, 'data')).toEqual([
      'data.b: may be null, the table does not say |null',
      'data.b.y: not in the catalogue',
      'data.c: may be null, the table does not say |null',
      'data.s: the catalogue never has "due"',
      'data.z: not in the catalogue',
    ]);
    expect(disagreements(parseShape('{a}'), schema, 'data')).toEqual(['data: the table lacks b, c, s']);
  });
});
