/**
 * TypeScript types for the web app, generated from /openapi.json (`npm run gen:web-types` writes
 * web/src/api-types.ts; a test fails when that file differs from what the running app would generate).
 * In-house rather than openapi-typescript: its releases want TypeScript 5 as a peer and we build with 7;
 * the document only uses a small part of JSON Schema (objects, arrays, enums, consts, unions, nullables).
 */

interface Schema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}

interface Operation {
  parameters?: { name: string; in: string; required?: boolean; schema: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

const SCALAR: Record<string, string> = { string: 'string', number: 'number', integer: 'number', boolean: 'boolean', null: 'null' };

function key(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  return unique.length === 0 ? 'never' : unique.join(' | ');
}

/** One JSON Schema as a TypeScript type, indented for `depth`. */
export function typeOf(schema: Schema | undefined, depth = 0): string {
  if (!schema) return 'unknown';
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return union(schema.enum.map((v) => JSON.stringify(v)));
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return union(alternatives.map((s) => wrap(typeOf(s, depth))));
  if (schema.allOf) return schema.allOf.map((s) => wrap(typeOf(s, depth))).join(' & ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return schema.properties ? objectOf(schema, depth) : 'unknown';
  return union(
    types.map((t) => {
      if (t === 'object') return objectOf(schema, depth);
      if (t === 'array') return `${wrap(typeOf(schema.items, depth))}[]`;
      return SCALAR[t] ?? 'unknown';
    }),
  );
}

function wrap(type: string): string {
  return /[|&]/.test(type) && !/^\{[\s\S]*\}$/.test(type) ? `(${type})` : type;
}

function objectOf(schema: Schema, depth: number): string {
  const entries = Object.entries(schema.properties ?? {});
  if (entries.length === 0) return typeof schema.additionalProperties === 'object' ? `Record<string, ${typeOf(schema.additionalProperties, depth)}>` : 'Record<string, unknown>';
  const pad = '  '.repeat(depth + 1);
  const required = new Set(schema.required ?? []);
  const lines = entries.map(([name, s]) => `${pad}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(s, depth + 1)};`);
  return `{\n${lines.join('\n')}\n${'  '.repeat(depth)}}`;
}

function parametersOf(op: Operation, where: 'path' | 'query', depth: number): string {
  const params = (op.parameters ?? []).filter((p) => p.in === where);
  if (params.length === 0) return 'never';
  return objectOf({ properties: Object.fromEntries(params.map((p) => [p.name, p.schema])), required: params.filter((p) => p.required).map((p) => p.name) }, depth);
}

/** The whole generated module: one entry per operation, keyed `METHOD /path`. */
export function webTypesFrom(doc: { paths: Record<string, Record<string, Operation>> }): string {
  const out: string[] = [
    '// Generated from /openapi.json by `npm run gen:web-types` (src/platform/http/web-types.ts). Do not edit:',
    '// test/integration/web-types.test.ts fails when this file is stale. Long because it is generated.',
    '',
    '/** Every error answer (CONTRACT §1). */',
    'export interface ErrorBody {',
    '  success: false;',
    '  error: { code: string; message: string; details?: unknown };',
    '}',
    '',
    '/** Every operation of the API: its path and query parameters, its JSON body and its JSON answers by status. */',
    'export interface Operations {',
  ];
  for (const path of Object.keys(doc.paths).sort()) {
    const ops = doc.paths[path] ?? {};
    for (const method of Object.keys(ops).sort()) {
      const op = ops[method] as Operation;
      const body = op.requestBody?.content?.['application/json']?.schema;
      const responses = Object.entries(op.responses ?? {})
        .map(([status, r]) => {
          const json = r.content?.['application/json']?.schema;
          const type = !json ? 'unknown' : json.properties?.success?.const === false ? 'ErrorBody' : typeOf(json, 3);
          return `      ${/^\d+$/.test(status) ? status : JSON.stringify(status)}: ${type};`;
        })
        .join('\n');
      out.push(
        `  ${JSON.stringify(`${method.toUpperCase()} ${path}`)}: {`,
        `    params: ${parametersOf(op, 'path', 2)};`,
        `    query: ${parametersOf(op, 'query', 2)};`,
        `    body: ${body ? typeOf(body, 2) : 'never'};`,
        `    responses: {\n${responses}\n    };`,
        '  };',
      );
    }
  }
  out.push('}', '');
  return out.join('\n');
}
