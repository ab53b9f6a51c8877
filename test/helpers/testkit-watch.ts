import { request } from 'node:https';
import type { RunningServer } from '../../src/index.js';

/**
 * A watch that reports how it ended: `clean` when the server finished the response (the stream's end),
 * not when the connection broke. Events are collected as they come.
 */
export function openWatch(server: Pick<RunningServer, 'url' | 'caCertPem' | 'adminToken'>, path: string, token = server.adminToken) {
  const events: { type: string; object: any }[] = [];
  let opened!: (status: number) => void;
  const openedP = new Promise<number>((r) => (opened = r));
  const ended = new Promise<{ clean: boolean; status: number }>((resolve) => {
    const req = request(new URL(path, server.url), { headers: { authorization: `Bearer ${token}` }, ca: server.caCertPem, agent: false }, (res) => {
      opened(res.statusCode ?? 0);
      let buf = '';
      res.on('data', (c: Buffer) => {
        buf += c.toString('utf8');
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) events.push(JSON.parse(line));
        }
      });
      res.on('end', () => resolve({ clean: true, status: res.statusCode ?? 0 }));
      res.on('error', () => resolve({ clean: false, status: res.statusCode ?? 0 }));
    });
    req.on('error', () => resolve({ clean: false, status: 0 }));
    req.end();
  });
  return { events, opened: openedP, ended };
}
