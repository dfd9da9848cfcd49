import { ApiError, issueSentence } from './api';

/**
 * What the service refused, said where it belongs (README.md#web): each field the form holds gets the
 * form's own sentence under it ("Choose a name of letters, digits and . _ + -"), never a validator's
 * wording; whatever the form has no place for stays for the form's error box.
 */

/** A form's sentence for a refused field: what the field takes, in the person's words; or made from the service's message. */
export type FieldSentence = string | ((message: string) => string);

export interface FormSentences {
  /** By the field name of the request body, as the service names it in `details` (docs/api.md#conventions). */
  readonly fields: Readonly<Record<string, FieldSentence>>;
  /** Refusals that are about one field without naming it (409 affiliate_exists is about the ref code). */
  readonly codes?: Readonly<Record<string, { readonly field: string; readonly sentence: string }>>;
}

export interface Refusal {
  /** The sentence to show at this field, when the service refused it. */
  at(field: string): string | undefined;
  /** What the form's error box shows: what no field of the form took; undefined when nothing is left. */
  readonly rest: unknown;
}

export function refusalOf(error: unknown, sentences: FormSentences): Refusal {
  const atField = new Map<string, string>();
  let rest: unknown = error;
  if (error instanceof ApiError) {
    const byCode = sentences.codes?.[error.code];
    if (byCode) {
      atField.set(byCode.field, byCode.sentence);
      rest = undefined;
    } else {
      const issues = error.fieldIssues();
      const unplaced: string[] = [];
      for (const issue of issues) {
        const sentence = sentences.fields[issue.field];
        if (sentence === undefined) unplaced.push(issueSentence(issue));
        else if (!atField.has(issue.field)) atField.set(issue.field, typeof sentence === 'string' ? sentence : sentence(issue.message));
      }
      if (issues.length > 0) rest = unplaced.length > 0 ? unplaced.join(' ') : undefined;
    }
  }
  return { at: (field) => atField.get(field), rest };
}

/** Sentences more than one form says (the same field, the same rule). */
export const SAY = {
  refCode: 'Choose a ref code of 1 to 64 letters, digits, _ and - (no spaces).',
  refCodeTaken: 'An affiliate with this ref code exists already. Choose another one.',
  email: 'Enter an email address like name@example.com.',
  newPassword: 'Choose a password of 10 to 200 characters.',
  wrongPassword: 'That is not your current password.',
  rate: 'Enter a rate from 0 to 100 %, with at most 2 decimals, like 12.5.',
  amount: 'Enter an amount above 0 with at most 2 decimals, like 25.50.',
  iban: 'Enter a valid IBAN of a SEPA country (its check digits or length are wrong).',
  bic: 'Enter a BIC of 8 or 11 letters and digits, or leave it empty.',
  wholeNumber: (from: number, to: number, unit = '') => `Enter a whole number${unit ? ` of ${unit}` : ''} from ${from} to ${to}.`,
  /** `example`: a full http(s) address of the kind wanted, on an example domain. */
  webUrl: (what: string, example: string) => `Enter the full address of ${what}, like ${example}`,
} as const;
