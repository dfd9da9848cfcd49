import { z } from 'zod';

/** `limit` and `cursor` of every list (CONTRACT §1: default 50, max 500); cursors are read by db/keyset.ts. */
export const listQuerySchema = z.object({
  limit: z.coerce.number().int('must be an integer').min(1).max(500).default(50),
  cursor: z.string().max(1000).optional(),
});
