import { type ComponentChildren, cloneElement, isValidElement } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { errorText } from './api';

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> {what}…
    </p>
  );
}

export function ErrorBox({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (!error) return null;
  return (
    <div class="alert alert-error" role="alert">
      <span>{errorText(error)}</span>
      {onRetry && (
        <button type="button" class="btn btn-small" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Notice({ children, kind = 'ok' }: { children: ComponentChildren; kind?: 'ok' | 'error' }) {
  return (
    <div class={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Clipboard API needs a secure context; fall back to a selection the user can copy.
      const input = document.createElement('textarea');
      input.value = text;
      document.body.append(input);
      input.select();
      document.execCommand('copy');
      input.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <button type="button" class="btn btn-small" onClick={copy} aria-label={`${label}: ${text}`}>
      {copied ? 'Copied ✓' : label}
    </button>
  );
}

/**
 * What a form's action shows: busy while it runs (its buttons disabled), then either its notice or its
 * refusal. `run` clears both before it starts; the action returns the notice (a string, or nothing), or throws.
 * `initialError` is a refusal the form shows before anything is submitted (a session check that failed).
 */
export function useSubmit(initialError?: unknown) {
  const [running, setRunning] = useState<string>();
  const [error, setError] = useState<unknown>(initialError);
  const [notice, setNotice] = useState<string>();
  /** `what` names the action while it runs (`running`), for a page whose several actions share one notice. */
  const run = async (action: () => Promise<unknown>, what = 'submit') => {
    setRunning(what);
    setError(undefined);
    setNotice(undefined);
    try {
      const said = await action();
      setNotice(typeof said === 'string' && said !== '' ? said : undefined);
    } catch (err) {
      setError(err);
    } finally {
      setRunning(undefined);
    }
  };
  /** Takes the notice away (an edit after a save: what is shown is no longer what was saved). */
  const dismiss = () => setNotice(undefined);
  /** Takes the notice and the refusal away (another form on the page starts). */
  const clear = () => {
    setError(undefined);
    setNotice(undefined);
  };
  /** Shows a notice of what an action elsewhere did (a dialog, a form of its own), in place of the refusal. */
  const tell = (text: string) => {
    setError(undefined);
    setNotice(text);
  };
  /** Shows the refusal of an action elsewhere (a row's own form), in place of the notice. */
  const fail = (err: unknown) => {
    setNotice(undefined);
    setError(err);
  };
  return { busy: running !== undefined, running, error, notice, run, dismiss, clear, tell, fail };
}

/** A form's submit button: disabled while its action runs (or while `disabled`), saying so with `busyLabel`. */
export function SubmitButton({ busy, busyLabel, disabled = false, children }: { busy: boolean; busyLabel: string; disabled?: boolean; children: ComponentChildren }) {
  return (
    <button type="submit" class="btn btn-primary" disabled={busy || disabled}>
      {busy ? busyLabel : children}
    </button>
  );
}

export interface AsyncState<T> {
  data?: T;
  error?: unknown;
  loading: boolean;
  /** Loads again; settles once the newest load has (so a form can say "saved" only when it shows what was saved). */
  reload: () => Promise<void>;
}

/** Loads once per change of `key`; a later answer never overwrites a newer one. */
export function useAsync<T>(fn: () => Promise<T>, key: string): AsyncState<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  const waiting = useRef<(() => void)[]>([]);
  useEffect(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    const settled = () => {
      if (mine !== seq.current) return false;
      for (const resolve of waiting.current.splice(0)) resolve();
      return true;
    };
    fn().then(
      (data) => settled() && setState({ data, loading: false }),
      (error: unknown) => settled() && setState((s) => ({ data: s.data, error, loading: false })),
    );
  }, [key, tick]);
  const reload = useCallback(
    () =>
      new Promise<void>((resolve) => {
        waiting.current.push(resolve);
        setTick((t) => t + 1);
      }),
    [],
  );
  return { ...state, reload };
}

/**
 * The fields of a form that edits loaded data. They show `toForm(data)` in the very render in which the
 * data arrives and the fields become enabled: copying the data in with a useEffect ran after paint, so
 * what was typed into the enabled fields before that was overwritten and the save sent the old value.
 * Edits apply on top of that data; newer data (the reload after a save) starts the form over from it.
 */
export function useFormFrom<D, F>(data: D | undefined, toForm: (data: D) => F, empty: F): [F, (form: F) => void] {
  const [draft, setDraft] = useState<{ from: D | undefined; form: F }>();
  const form = draft && draft.from === data ? draft.form : data === undefined ? empty : toForm(data);
  return [form, (next: F) => setDraft({ from: data, form: next })];
}

interface ConfirmRequest {
  title: string;
  body?: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  resolve: (ok: boolean) => void;
}

let openConfirm: ((req: ConfirmRequest) => void) | undefined;

/** Asks before destructive actions with a real modal dialog (focus trapped, Esc cancels). */
export function confirmAction(title: string, confirmLabel: string, body?: ComponentChildren, danger = true): Promise<boolean> {
  return new Promise((resolve) => {
    if (!openConfirm) {
      resolve(window.confirm(title));
      return;
    }
    openConfirm({ title, body, confirmLabel, danger, resolve });
  });
}

export function ConfirmHost() {
  const [req, setReq] = useState<ConfirmRequest | undefined>();
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    openConfirm = setReq;
    return () => {
      openConfirm = undefined;
    };
  }, []);
  useEffect(() => {
    const d = ref.current;
    if (req && d && !d.open) d.showModal();
  }, [req]);
  const close = (ok: boolean) => {
    ref.current?.close();
    req?.resolve(ok);
    setReq(undefined);
  };
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby="confirm-title"
      onCancel={(e) => {
        e.preventDefault();
        close(false);
      }}
    >
      {req && (
        <form method="dialog" onSubmit={(e) => {
            e.preventDefault();
            close(true);
          }}
        >
          <h2 id="confirm-title">{req.title}</h2>
          {req.body && <div class="dialog-body">{req.body}</div>}
          <div class="actions">
            {/* A destructive action starts on Cancel, so a reflex Enter does no harm. */}
            <button type="button" class="btn" onClick={() => close(false)} autofocus={req.danger}>
              Cancel
            </button>
            <button type="submit" class={`btn ${req.danger ? 'btn-danger' : 'btn-primary'}`} autofocus={!req.danger}>
              {req.confirmLabel}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}

const CONTROLS = new Set(['input', 'textarea', 'select']);

/**
 * A labelled control. `error` is the service's refusal of this field in a person's words (refusal.ts):
 * shown under it, and a lone input, textarea or select is marked invalid and described by it.
 */
export function Field({ label, hint, error, children }: { label: string; hint?: string; error?: string; children: ComponentChildren }) {
  const errorId = useId();
  const control =
    error && isValidElement(children) && typeof children.type === 'string' && CONTROLS.has(children.type)
      ? cloneElement(children, { 'aria-invalid': 'true', 'aria-describedby': errorId })
      : children;
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control comes in as children, inside the label
    <label class="field">
      <span class="field-label">{label}</span>
      {control}
      {hint && !error && <span class="field-hint">{hint}</span>}
      {error && (
        <span class="field-error" id={errorId} role="alert">
          {error}
        </span>
      )}
    </label>
  );
}

/** A state as a badge; `label` words it for people where the state's name would mislead ("paid out"). */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return <span class={`badge badge-${status}`}>{label ?? status}</span>;
}
