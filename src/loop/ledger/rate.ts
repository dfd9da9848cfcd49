import { z } from 'zod';
import { toRateBp } from '../../platform/money.js';

const RATE_MESSAGE = 'must be a percentage 0-100 with at most 2 decimal places';

/**
 * A commission rate at the edge (docs/ledger.md#money-and-rates), declared once for settings, affiliates and rules:
 * a JSON number 0–100 with at most 2 decimals, exactly (no tolerance: 25.0000000001 is a 400).
 * Parses to integer basis points of a percent (hundredths), which is what is stored and computed with.
 */
export const rateBpField = z
  .custom<number>((v) => toRateBp(v) !== undefined, RATE_MESSAGE)
  .meta({ type: 'number', minimum: 0, maximum: 100, multipleOf: 0.01, description: 'Percent, at most 2 decimal places' })
  .transform((v) => toRateBp(v) as number);
