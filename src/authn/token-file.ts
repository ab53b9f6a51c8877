/**
 * Static token file (spec 5.3, `--token-auth-file`): CSV rows `token,user,uid[,group...]`. Groups may be
 * separate columns or, as the reference writes them, one quoted column `"g1,g2"`; both forms mix.
 * Tokens never appear in error messages: the file is a secret, logs are not.
 */
import { readFileSync } from 'node:fs';
import { bearerToken } from './bearer.js';
import type { AuthRequest, Authenticator, UserInfo } from './types.js';

interface CsvField {
  value: string;
  quoted: boolean;
}
interface CsvRecord {
  line: number;
  fields: CsvField[];
}

class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

/**
 * RFC 4180 records with the line each starts on. Quoted fields may hold commas, doubled quotes and line
 * breaks; blank lines and lines starting with `#` are skipped; spaces around fields are allowed.
 */
function parseCsv(input: string): CsvRecord[] {
  const text = input.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const n = text.length;
  const records: CsvRecord[] = [];
  let i = 0;
  let line = 1;

  while (i < n) {
    const eol = text.indexOf('\n', i);
    const lineEnd = eol === -1 ? n : eol;
    const lineText = text.slice(i, lineEnd).trim();
    if (lineText === '' || lineText.startsWith('#')) {
      i = lineEnd + 1;
      line++;
      continue;
    }

    const start = line;
    const fields: CsvField[] = [];
    for (;;) {
      let j = i;
      while (isBlank(text[j])) j++;
      if (text[j] === '"') {
        i = j + 1;
        let value = '';
        for (;;) {
          if (i >= n) throw new CsvError(start, 'unterminated quoted field');
          const c = text[i]!;
          if (c === '"') {
            if (text[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          value += c;
          i++;
        }
        while (isBlank(text[i])) i++;
        if (i < n && text[i] !== ',' && text[i] !== '\n') {
          throw new CsvError(line, 'unexpected character after a closing quote');
        }
        fields.push({ value, quoted: true });
      } else {
        let k = i;
        while (k < n && text[k] !== ',' && text[k] !== '\n') {
          if (text[k] === '"') throw new CsvError(line, 'a quote inside an unquoted field');
          k++;
        }
        fields.push({ value: text.slice(i, k).trim(), quoted: false });
        i = k;
      }
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '\n') {
        i++;
        line++;
      }
      break;
    }
    records.push({ line: start, fields });
  }
  return records;
}

/** Parses the token file; every error is `<file>:<line>: <what>` so an operator can fix it at start-up. */
export function parseTokenFile(text: string, fileName: string): Map<string, UserInfo> {
  let records: CsvRecord[];
  try {
    records = parseCsv(text);
  } catch (e) {
    if (e instanceof CsvError) throw new Error(`${fileName}:${e.line}: ${e.message}`);
    throw e;
  }

  const tokens = new Map<string, UserInfo>();
  const lineOf = new Map<string, number>();
  for (const { line, fields } of records) {
    const where = `${fileName}:${line}`;
    if (fields.length < 3) {
      throw new Error(`${where}: expected at least 3 columns (token, user name, user uid), found ${fields.length}`);
    }
    const [token, username, uid] = fields.map((f) => f.value) as [string, string, string];
    if (token === '') throw new Error(`${where}: empty token`);
    // Unsendable in `Authorization: Bearer <token>`, so such a row could only ever be a silent mistake.
    if (/\s/.test(token)) throw new Error(`${where}: token contains whitespace, which a bearer header cannot carry`);
    if (username === '') throw new Error(`${where}: empty user name`);
    // Two users behind one token is a mistake either way; silently picking one would hide it.
    const previous = lineOf.get(token);
    if (previous !== undefined) throw new Error(`${where}: duplicate token, already defined on line ${previous}`);

    const groups: string[] = [];
    for (const f of fields.slice(3)) {
      for (const g of f.value.split(',')) {
        const name = g.trim();
        if (name !== '' && !groups.includes(name)) groups.push(name);
      }
    }
    const user: UserInfo = { username, groups };
    if (uid !== '') user.uid = uid;
    tokens.set(token, user);
    lineOf.set(token, line);
  }
  return tokens;
}

/** Knows the tokens of one file; unknown tokens get "no opinion" since another method may know them. */
export class TokenFileAuthenticator implements Authenticator {
  constructor(private readonly tokens: ReadonlyMap<string, UserInfo>) {}

  /** Read once: the spec says the list changes only by restart. */
  static fromFile(path: string): TokenFileAuthenticator {
    return new TokenFileAuthenticator(parseTokenFile(readFileSync(path, 'utf8'), path));
  }

  authenticate(req: AuthRequest): UserInfo | undefined {
    const token = bearerToken(req.headers);
    if (token === undefined) return undefined;
    const user = this.tokens.get(token);
    if (user === undefined) return undefined;
    // A copy, so later stages (group adder, impersonation) cannot change the table.
    const copy: UserInfo = { ...user, groups: [...user.groups] };
    if (user.extra) copy.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
    return copy;
  }
}
