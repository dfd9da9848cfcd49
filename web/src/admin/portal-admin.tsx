import { useState } from 'preact/hooks';
import { adminApi, type Answer } from '../api';
import { dateTime } from '../format';
import { CopyButton, ErrorBox, Field, Notice, useAsync, useFormFrom, useSubmit } from '../ui';

/** The admin's side of the affiliate portal: invitations, the sign-up setting, payout details. */

type Invite = Answer<'POST /admin/api/affiliates/{ref_code}/invite'>;
type Settings = Answer<'GET /admin/api/settings'>['settings'];

/** "Invite" on an affiliate's row; the single-use link (72 h) appears under it, ready to copy. */
export function InviteButton({ refCode, onError }: { refCode: string; onError: (e: unknown) => void }) {
  const [invite, setInvite] = useState<Invite>();
  const create = async () => {
    onError(undefined);
    try {
      setInvite(await adminApi.post<Invite>(`/affiliates/${encodeURIComponent(refCode)}/invite`));
    } catch (err) {
      onError(err);
    }
  };
  return (
    <>
      <button type="button" class="btn btn-small" onClick={create}>
        {invite ? 'New invite' : 'Invite'}
      </button>
      {invite && (
        <div class="invite-link small" data-testid="invite-link">
          <input readOnly value={invite.invite_url} aria-label={`Invitation link of ${refCode}`} onFocus={(e) => (e.target as HTMLInputElement).select()} />
          <CopyButton text={invite.invite_url} label="Copy invite link" />
          <span class="muted">single use, until {dateTime(invite.expires_at)}</span>
        </div>
      )}
    </>
  );
}

/** Who may sign up on /portal (setting affiliate_signup). */
export function PortalSignupSetting() {
  const settings = useAsync(() => adminApi.get<{ settings: Settings }>('/settings'), 'settings-signup');
  const [value, setValue] = useFormFrom<{ settings: Settings }, Settings['affiliate_signup']>(settings.data, (d) => d.settings.affiliate_signup, 'closed');
  const { error, notice, run } = useSubmit();
  const save = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      await adminApi.patch('/settings', { affiliate_signup: value });
      return 'Saved.';
    });
  };
  return (
    <form class="card form-grid form-stack" onSubmit={save} aria-label="Affiliate portal">
      <h2>Affiliate portal</h2>
      <Field label="Sign-up at /portal/signup" hint="Affiliates you invite (Affiliates → Invite) can always join">
        <select name="affiliate_signup" value={value} disabled={!settings.data} onChange={(e) => setValue((e.target as HTMLSelectElement).value as Settings['affiliate_signup'])}>
          <option value="closed">closed: by invitation only</option>
          <option value="review">review: new affiliates wait for approval</option>
          <option value="open">open: anyone can join at once</option>
        </select>
      </Field>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={!settings.data}>
          Save
        </button>
      </div>
      <ErrorBox error={error ?? settings.error} />
      {notice && <Notice>{notice}</Notice>}
    </form>
  );
}

/** The payout details of these affiliates as they are now (one request). */
export async function fetchPayoutDetails(refCodes: string[]): Promise<Record<string, string>> {
  const codes = [...new Set(refCodes)].sort().join(',');
  if (!codes) return {};
  return (await adminApi.get<Answer<'GET /admin/api/payout-details'>>(`/payout-details?ref_codes=${encodeURIComponent(codes)}`)).payout_details;
}

/**
 * The payout details of the affiliates on a page of withdrawals (one request per page), fetched again
 * whenever `version` changes (the page bumps it when it reloads its list: an affiliate may have changed
 * them meanwhile).
 */
export function usePayoutDetails(refCodes: string[], version: number): Record<string, string> {
  const codes = [...new Set(refCodes)].sort().join(',');
  const answer = useAsync(() => fetchPayoutDetails(refCodes), `${codes}|${version}`);
  return answer.data ?? {};
}
