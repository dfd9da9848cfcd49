import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type FieldIssue, ValidationError } from '../errors.js';
import { type Currency, maxMinor, toMinor } from '../money.js';

/**
 * Money at the edge (docs/api.md#conventions, docs/api.md#payouts): a JSON number, 0 < amount <= 1e9, with at most as many decimals
 * as the program currency has (JPY 0, USD 2, KWD 3). The currency is a setting, read per request, so the
 * route schema checks what does not depend on it and keeps the number in a MoneyInput; `moneyInputHook`
 * (a preHandler that app.ts adds to exactly the routes whose body schema holds a moneyField, see
 * `holdsMoney`) turns every MoneyInput of the validated body into integer minor units or answers 400
 * naming the field. Handlers therefore only ever see integers, which is what the schema's output type
 * says. Proved by test/integration/payouts.test.ts; that no other route runs it (a webhook's raw bytes
 * above all), by test/unit/money-input.test.ts and test/integration/route-sweep.test.ts
 * (docs/architecture.md#every-route).
 */
export class MoneyInput {
  constructor(readonly value: number) {}
}

/** No ISO 4217 currency has more than 4 decimals (CLF, UYW); anything finer is refused by the schema. */
const MAX_DIGITS: Currency = { code: '', digits: 4 };

export const moneyField = z
  .custom<number>((v) => {
    const fine = toMinor(v, MAX_DIGITS);
    return fine !== undefined && fine > 0 && fine <= maxMinor(MAX_DIGITS);
  }, 'must be a number greater than 0 and at most 1000000000 with at most the currency\'s decimal places')
  .meta({ type: 'number', exclusiveMinimum: 0, maximum: 1_000_000_000, description: "At most the program currency's decimal places (USD 2, JPY 0, KWD 3)" })
  // the cast is resolved by resolveMoney before the handler runs (see above)
  .transform((v) => new MoneyInput(v) as unknown as number);

interface ZodNode {
  readonly _zod?: { readonly def?: Record<string, unknown> };
}

/**
 * Whether a route's body schema can hold a moneyField anywhere (wrapped in optional, nullable, partial,
 * arrays, unions...), read once when the route is registered. A `.meta()` copy of moneyField shares its
 * definition, so definitions are compared, not only instances.
 */
export function holdsMoney(schema: unknown, seen = new Set<unknown>()): boolean {
  const def = (schema as ZodNode | null)?._zod?.def;
  if (!def || seen.has(def)) return false;
  if (schema === moneyField || def === (moneyField as unknown as ZodNode)._zod?.def) return true;
  seen.add(def);
  const children: unknown[] = [];
  for (const key of ['innerType', 'in', 'out', 'element', 'left', 'right', 'keyType', 'valueType', 'rest', 'catchall']) children.push(def[key]);
  if (def.shape && typeof def.shape === 'object') children.push(...Object.values(def.shape as Record<string, unknown>));
  for (const key of ['options', 'items']) if (Array.isArray(def[key])) children.push(...(def[key] as unknown[]));
  if (typeof def.getter === 'function') children.push((def.getter as () => unknown)());
  return children.some((child) => holdsMoney(child, seen));
}

function collect(value: unknown, path: string[], found: { path: string[]; input: MoneyInput; parent: Record<string, unknown>; key: string }[]): void {
  if (value === null || typeof value !== 'object') return;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (child instanceof MoneyInput) found.push({ path: [...path, key], input: child, parent: value as Record<string, unknown>, key });
    else if (child !== null && typeof child === 'object') collect(child, [...path, key], found);
  }
}

/** Converts the MoneyInputs of `body` in place; a value with more decimals than `cur` has is a field issue. */
export function resolveMoneyInputs(body: unknown, cur: Currency): void {
  const found: Parameters<typeof collect>[2] = [];
  collect(body, [], found);
  const issues: FieldIssue[] = [];
  for (const f of found) {
    const minor = toMinor(f.input.value, cur);
    if (minor === undefined) {
      issues.push({ field: f.path.join('.'), message: `must have at most ${cur.digits} decimal places (${cur.code})` });
      continue;
    }
    f.parent[f.key] = minor;
  }
  if (issues.length > 0) throw new ValidationError(issues);
}

/**
 * The preHandler of a route whose body schema holds money, synchronous (no promise on hot paths): it runs
 * after authentication and validation, on the schema's output (never raw bytes: a Buffer or a string is
 * left alone), and reads the currency setting only when the body holds money.
 */
export function moneyInputHook(currency: () => Promise<Currency>) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
    const body = request.body;
    if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || ArrayBuffer.isView(body)) {
      done();
      return;
    }
    const found: Parameters<typeof collect>[2] = [];
    collect(body, [], found);
    if (found.length === 0) {
      done();
      return;
    }
    currency().then(
      (cur) => {
        try {
          resolveMoneyInputs(body, cur);
          done();
        } catch (err) {
          done(err as Error);
        }
      },
      (err: unknown) => done(err as Error),
    );
  };
}
