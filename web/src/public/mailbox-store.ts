import type { Answer } from '../api';
/** The visitor's mailbox lives in localStorage so a reload (or a later visit) keeps the inbox. */
export interface StoredMailbox {
  address: string;
  token: string;
  created_at: string;
}

const KEY = 'svc_mailbox';

export function loadMailbox(): StoredMailbox | undefined {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return undefined;
    const m = JSON.parse(raw) as Partial<StoredMailbox>;
    return typeof m.address === 'string' && typeof m.token === 'string' ? (m as StoredMailbox) : undefined;
  } catch {
    return undefined;
  }
}

export function saveMailbox(m: StoredMailbox): void {
  localStorage.setItem(KEY, JSON.stringify({ address: m.address, token: m.token, created_at: m.created_at }));
}

export function forgetMailbox(): void {
  localStorage.removeItem(KEY);
}

export type PublicConfig = Answer<'GET /public/config'>;
