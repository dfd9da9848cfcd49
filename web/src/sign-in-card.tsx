import type { ComponentChildren } from 'preact';

/**
 * The card every page before a session stands on: the admin's log-in, and the portal's sign-in, reset,
 * invitation, sign-up and email confirmation. A form when it submits (named by `label`; the page never
 * reloads), a named section when it only tells something, else a plain card (a page still loading).
 */
export function SignInCard({ title, label, onSubmit, children }: { title: string; label?: string; onSubmit?: () => unknown; children: ComponentChildren }) {
  const inside = (
    <>
      <h1>{title}</h1>
      {children}
    </>
  );
  return (
    <main class="login">
      {onSubmit ? (
        <form
          class="card login-card"
          aria-label={label}
          onSubmit={(e) => {
            e.preventDefault();
            onSubmit();
          }}
        >
          {inside}
        </form>
      ) : label ? (
        <section class="card login-card" aria-label={label}>
          {inside}
        </section>
      ) : (
        <div class="card login-card">{inside}</div>
      )}
    </main>
  );
}
