import type { ComponentChildren, FunctionComponent } from 'preact';
import { onLinkClick } from './router';

export interface ShellPage {
  readonly path: string;
  readonly label: string;
  readonly view: FunctionComponent;
}

/** The signed-in frame of the admin area and the affiliate portal: brand, section links, who is signed in, sign-out. */
export function AppShell(props: {
  class: string;
  brand: string;
  home: string;
  navLabel: string;
  pages: readonly ShellPage[];
  page: ShellPage;
  who: ComponentChildren;
  signOutLabel: string;
  onSignOut: () => void;
  /** A count beside a page's link (the Review page's open cases), with its words for screen readers. */
  counts?: Readonly<Record<string, { count: number; label: string }>>;
}) {
  const View = props.page.view;
  return (
    <div class={props.class}>
      <header class="admin-header">
        <a class="brand" href={props.home} onClick={onLinkClick}>
          {props.brand}
        </a>
        <nav aria-label={props.navLabel}>
          {props.pages.map((p) => (
            <a key={p.path} href={p.path} onClick={onLinkClick} aria-current={p.path === props.page.path ? 'page' : undefined}>
              {p.label}
              {props.counts?.[p.path] && (
                <>
                  <span class="nav-count" aria-hidden="true" title={props.counts[p.path]?.label}>
                    {props.counts[p.path]?.count}
                  </span>
                  <span class="sr-only">: {props.counts[p.path]?.label}</span>
                </>
              )}
            </a>
          ))}
        </nav>
        <div class="who">
          {props.who}
          <button type="button" class="btn btn-small" onClick={props.onSignOut}>
            {props.signOutLabel}
          </button>
        </div>
      </header>
      <main class="admin-main">
        <h1>{props.page.label}</h1>
        <View />
      </main>
    </div>
  );
}
