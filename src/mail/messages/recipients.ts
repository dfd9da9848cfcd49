/**
 * Recipient lists as mail parsing services send them: bare addresses, `Name <addr>`, quoted names
 * that contain commas, several separated by commas. Answers trimmed, lower-cased, unique addresses;
 * parts that hold no address are skipped.
 */
export function parseRecipients(to: string): string[] {
  const out = new Set<string>();
  for (const part of splitOutsideQuotes(to)) {
    const angle = /<([^<>]*)>\s*$/.exec(part);
    const candidate = (angle ? angle[1]! : part).trim().replace(/^mailto:/i, '').toLowerCase();
    if (isAddress(candidate)) out.add(candidate);
  }
  return [...out];
}

/**
 * One sender as a header writes it: `"Jane Doe" <jane@x.y>` or `Jane <jane@x.y>` gives the address and
 * the display name (quotes and escapes removed); a bare value is the address with no name.
 */
export function parseSender(value: string): { address: string; name: string | null } {
  // Scanned, not matched with a regex: a lazy pattern over 100 KB of '<' took seconds (ReDoS).
  const v = value.trim();
  const open = v.lastIndexOf('<');
  if (!v.endsWith('>') || open < 0) return { address: v, name: null };
  const address = v.slice(open + 1, -1);
  if (address.includes('>')) return { address: v, name: null };
  let name = v.slice(0, open).trim();
  if (name.length >= 2 && name.startsWith('"') && name.endsWith('"')) name = name.slice(1, -1).replace(/\\(.)/g, '$1');
  return { address: address.trim(), name: name || null };
}

export function isAddress(value: string): boolean {
  return value.length <= 320 && /^[^\s@<>",;:()[\]\\]+@[a-z0-9.-]+\.?[a-z0-9-]*$/i.test(value) && !value.endsWith('.');
}

export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

function splitOutsideQuotes(value: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  let angle = 0;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === '\\' && quoted && i + 1 < value.length) {
      current += ch + value[++i];
      continue;
    }
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === '<') angle++;
    else if (!quoted && ch === '>') angle = Math.max(0, angle - 1);
    if ((ch === ',' || ch === ';') && !quoted && angle === 0) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter(Boolean);
}
