/**
 * Extra users for a test server: each gets a random bearer token, served through a static token file
 * (spec 5.3) written next to the caller's own `tokenAuthFile`, whose users are kept.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestUser {
  name: string;
  groups?: string[];
  /** Default: the name. */
  uid?: string;
}

/** Characters a token file row cannot hold without quoting rules we do not want users to think about. */
const UNSAFE = /[",\r\n]/;

export function checkUsers(users: readonly TestUser[]): void {
  const seen = new Set<string>();
  users.forEach((u, i) => {
    if (typeof u?.name !== 'string' || u.name === '') throw new Error(`users[${i}].name: required, a non-empty string`);
    if (UNSAFE.test(u.name)) throw new Error(`users[${i}].name: may not contain quotes, commas or line breaks`);
    if (seen.has(u.name)) throw new Error(`users[${i}].name: ${u.name} is given twice`);
    seen.add(u.name);
    if (u.uid !== undefined && (typeof u.uid !== 'string' || u.uid === '' || UNSAFE.test(u.uid))) throw new Error(`users[${i}].uid: a non-empty string without quotes, commas or line breaks`);
    (u.groups ?? []).forEach((g, j) => {
      if (typeof g !== 'string' || g === '' || UNSAFE.test(g)) throw new Error(`users[${i}].groups[${j}]: a non-empty string without quotes, commas or line breaks`);
    });
  });
}

/** Writes the token file into `dir`; returns its path and each user's token. */
export function writeUserTokens(users: readonly TestUser[], dir: string, existingFile?: string): { file: string; tokens: Record<string, string> } {
  checkUsers(users);
  const tokens: Record<string, string> = {};
  let text = existingFile ? readFileSync(existingFile, 'utf8') : '';
  if (text !== '' && !text.endsWith('\n')) text += '\n';
  for (const u of users) {
    const token = randomBytes(24).toString('base64url');
    tokens[u.name] = token;
    const groups = u.groups ?? [];
    text += `${token},${u.name},${u.uid ?? u.name}${groups.length > 0 ? `,"${groups.join(',')}"` : ''}\n`;
  }
  const file = join(dir, 'test-users.csv');
  writeFileSync(file, text, { mode: 0o600 });
  return { file, tokens };
}
