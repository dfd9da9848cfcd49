import { useEffect, useRef, useState } from 'preact/hooks';
import { adminApi, type Answer, type ItemOf } from '../api';
import { money } from '../format';
import { type FormSentences, refusalOf, SAY } from '../refusal';
import { ErrorBox, Field } from '../ui';

type Order = ItemOf<'GET /api/orders'>;
export type RefundAnswer = Answer<'POST /api/orders/refund'>;

const SENTENCES: FormSentences = { fields: { amount: SAY.amount } };

/** What is left to refund, in cents: the order's amount less its refunds (subtracted in cents, never in floats). */
export function refundableCents(o: Pick<Order, 'amount' | 'refunded_amount'>): number {
  return Math.round(o.amount * 100) - Math.round((o.refunded_amount ?? 0) * 100);
}

/**
 * "5", "5.00" and "5,00" are 5; anything else goes as typed, so the service's 400 names the field
 * (docs/ledger.md#refunds-and-clawbacks decides what may be refunded: the dialog never second-guesses the 422).
 */
function amountOf(text: string): number | string {
  const t = text.trim().replace(',', '.');
  return /^\d+(\.\d+)?$/.test(t) ? Number(t) : text;
}

/**
 * Refunds all or part of a paid order (docs/ledger.md#refunds-and-clawbacks): a modal with the amount
 * prefilled with what is left. The service's refusal (422 refund_exceeds_amount, 400 on the amount) is shown
 * in the dialog, which stays open to correct it; it cannot be closed or sent again while a refund is on its
 * way.
 */
export function RefundDialog({ order, onDone, onClose }: { order: Order; onDone: (answer: RefundAnswer) => void; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [amount, setAmount] = useState((refundableCents(order) / 100).toFixed(2));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const refused = refusalOf(error, SENTENCES);

  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      const answer = await adminApi.post<RefundAnswer>('/orders/refund', { order_id: order.order_id, amount: amountOf(amount) });
      onDone(answer);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby="refund-title"
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onClose();
      }}
    >
      <form method="dialog" aria-label="Refund" onSubmit={submit}>
        <h2 id="refund-title">Refund order {order.order_id}</h2>
        <div class="dialog-body">
          <p>
            Order amount {money(order.amount)}, refunded so far {money(order.refunded_amount ?? 0)}; {money(refundableCents(order) / 100)} left.
          </p>
          <p>An open commission is reduced or voided; a paid one is clawed back from the affiliate’s balance.</p>
          <Field label="Amount to refund" error={refused.at('amount')}>
            <input name="amount" type="text" inputMode="decimal" autocomplete="off" required value={amount} disabled={busy} onInput={(e) => setAmount((e.target as HTMLInputElement).value)} />
          </Field>
          <ErrorBox error={refused.rest} />
        </div>
        <div class="actions">
          <button type="button" class="btn" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" class="btn btn-danger" disabled={busy || amount.trim() === ''}>
            {busy ? 'Refunding…' : 'Refund'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
