import { useEffect, useRef, useState } from 'preact/hooks';
import { adminApi, type Answer, type ItemOf } from '../api';
import { currencyDigits, money, moneyWith } from '../format';
import { type FormSentences, refusalOf, SAY } from '../refusal';
import { ErrorBox, Field, useSubmit } from '../ui';

type Order = ItemOf<'GET /api/orders'>;
export type RefundAnswer = Answer<'POST /api/orders/refund'>;

const SENTENCES: FormSentences = { fields: { amount: SAY.amount } };

/** What is left to refund, in minor units of its currency: the amount less its refunds (subtracted in minor units, never in floats). */
export function refundableMinor(o: Pick<Order, 'amount' | 'refunded_amount' | 'currency'>): number {
  const scale = 10 ** currencyDigits(o.currency);
  return Math.round(o.amount * scale) - Math.round((o.refunded_amount ?? 0) * scale);
}

/** refundableMinor as the amount the form shows: "12.50" USD, "1250" JPY. */
function refundableText(o: Pick<Order, 'amount' | 'refunded_amount' | 'currency'>): string {
  const digits = currencyDigits(o.currency);
  return (refundableMinor(o) / 10 ** digits).toFixed(digits);
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
  const [amount, setAmount] = useState(refundableText(order));
  const { busy, error, run } = useSubmit();
  const refused = refusalOf(error, SENTENCES);

  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);

  // onDone closes the dialog: it is never enabled again after a refund went through
  const submit = (e: Event) => {
    e.preventDefault();
    if (busy) return;
    return run(async () => onDone(await adminApi.post<RefundAnswer>('/orders/refund', { order_id: order.order_id, amount: amountOf(amount) })));
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
            Order amount {moneyWith(order.amount, order.currency)}, refunded so far {money(order.refunded_amount ?? 0, order.currency)}; {money(refundableMinor(order) / 10 ** currencyDigits(order.currency), order.currency)} left.
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
