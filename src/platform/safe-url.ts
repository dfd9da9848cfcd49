/**
 * The one rule for URLs an operator gives svc (landing_url, webhook_url, the network postback
 * template): an absolute http(s) URL with no control characters. The WHATWG parser silently drops
 * TAB/CR/LF inside a URL, so a value can parse and still carry a header-splitting CR/LF when it is
 * used as it was typed (a Location header, a log line): the characters are refused before parsing.
 */

/** C0 controls, DEL and C1 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `value` is not a URL svc accepts, or undefined when it is. */
export function httpUrlProblem(value: string): string | undefined {
  if (CONTROL_CHARACTERS.test(value)) return 'must not contain control characters (CR, LF, TAB, ...)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return 'must be an absolute http(s) URL';
  return undefined;
}
