import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { requestWithdrawalSchema } from '../../src/loop/withdrawals/withdrawal.schemas.js';
import { createOrderSchema, refundOrderSchema } from '../../src/loop/orders/order.schemas.js';
import { holdsMoney, moneyField } from '../../src/platform/http/money-input.js';
import { LOOP_SETTING_FIELDS } from '../../src/context.js';
import { settingsPatchSchema } from '../../src/platform/settings/settings.service.js';

/**
 * The money preHandler is added to a route only when its body schema holds a moneyField
 * (docs/architecture.md#every-route): holdsMoney must find one however it is wrapped, and nothing else.
 */
describe('holdsMoney', () => {
  it('finds money however the schema wraps it', () => {
    expect(holdsMoney(moneyField)).toBe(true);
    expect(holdsMoney(createOrderSchema)).toBe(true);
    expect(holdsMoney(refundOrderSchema)).toBe(true); // optional().meta(): a copy sharing moneyField's definition
    expect(holdsMoney(requestWithdrawalSchema)).toBe(true);
    expect(holdsMoney(settingsPatchSchema(LOOP_SETTING_FIELDS))).toBe(true); // partial() of nullable()
    expect(holdsMoney(z.strictObject({ lines: z.array(z.object({ amount: moneyField })) }))).toBe(true);
    expect(holdsMoney(z.union([z.string(), z.object({ amount: moneyField.nullable() })]))).toBe(true);
    expect(holdsMoney(z.record(z.string(), moneyField))).toBe(true);
    expect(holdsMoney(moneyField.meta({ description: 'a copy' }))).toBe(true);
  });

  it('finds none where there is none, a number or a look-alike transform included', () => {
    expect(holdsMoney(z.strictObject({ amount: z.number(), name: z.string().max(3) }))).toBe(false);
    expect(holdsMoney(z.object({ n: z.number().transform((v) => v * 100) }))).toBe(false);
    expect(holdsMoney(z.array(z.string()))).toBe(false);
    expect(holdsMoney(undefined)).toBe(false);
    expect(holdsMoney({ type: 'object' })).toBe(false); // a JSON schema, not zod
  });

  it('terminates on a recursive schema', () => {
    type Tree = { children: Tree[] };
    const tree: z.ZodType<Tree> = z.lazy(() => z.object({ children: z.array(tree) }));
    expect(holdsMoney(tree)).toBe(false);
  });
});
