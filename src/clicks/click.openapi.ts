import { z } from 'zod';
import type { ApiOperation } from '../http/openapi.js';

/** CONTRACT §4, the promotion link. */
export const clickOperations: readonly ApiOperation[] = [
  {
    method: 'get',
    path: '/go/{ref_code}',
    tag: 'links',
    summary: 'Promotion link: count a click, set svc_ref, redirect to the landing page',
    description:
      'An active code records the click (unless HEAD or a known bot), sets the svc_ref cookie for cookie_lifetime_days and redirects to landing_url with ref added. Network click ids (awc, cjevent, irclickid, clickid, transaction_id) are kept with the click. An unknown or disabled code redirects to the landing page without ref, cookie or click.',
    auth: 'none',
    params: z.object({ ref_code: z.string() }),
    responses: {
      302: { description: 'To the landing page', headers: { Location: 'landing_url, with ref for an active code', 'Set-Cookie': 'svc_ref (and svc_click with network ids) for an active code' } },
    },
  },
];
