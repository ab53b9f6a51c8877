/**
 * The audit log with `--workers`: only the supervisor writes the file. Each worker formats its events
 * into lines and sends them over IPC, a tick's worth in one message; the supervisor appends each message
 * with one write of whole lines, so lines of different workers never interleave, rotation happens in one
 * place, and a blocking request waits for the supervisor's acknowledgement that its lines are written.
 */
import type { LineWriter } from '../audit/log-file.js';
import { openLogWriter, type AuditLogOptions } from '../audit/log-sink.js';

export interface AuditLinesMessage {
  orch: 'audit';
  id: number;
  text: string;
}

export interface AuditAckMessage {
  orch: 'audit-ack';
  id: number;
  ok: boolean;
}

/** How long a worker's shutdown waits for the supervisor to acknowledge what it sent. */
const CLOSE_TIMEOUT_MS = 10_000;

/** Worker side: lines go to the supervisor. */
export class SupervisorLineWriter implements LineWriter {
  private nextId = 1;
  private texts: string[] = [];
  private dones: ((ok: boolean) => void)[] = [];
  private scheduled = false;
  private readonly waiting = new Map<number, ((ok: boolean) => void)[]>();
  private readonly onMessage = (m: unknown) => {
    const ack = m as Partial<AuditAckMessage> | null;
    if (ack?.orch !== 'audit-ack' || typeof ack.id !== 'number') return;
    this.settle(ack.id, ack.ok === true);
  };

  constructor(private readonly send: (m: AuditLinesMessage, sent: (e: Error | null) => void) => boolean) {
    process.on('message', this.onMessage);
  }

  write(text: string): Promise<boolean> {
    return new Promise<boolean>((done) => {
      this.texts.push(text);
      this.dones.push(done);
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  async close(): Promise<void> {
    if (this.scheduled) this.flush();
    const deadline = Date.now() + CLOSE_TIMEOUT_MS;
    while (this.waiting.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    for (const id of [...this.waiting.keys()]) this.settle(id, false);
    process.off('message', this.onMessage);
  }

  private flush(): void {
    this.scheduled = false;
    if (this.texts.length === 0) return;
    const id = this.nextId++;
    const text = this.texts.join('');
    this.waiting.set(id, this.dones);
    this.texts = [];
    this.dones = [];
    try {
      this.send({ orch: 'audit', id, text }, (e) => {
        if (e) this.settle(id, false);
      });
    } catch {
      this.settle(id, false); // the channel to the supervisor is gone
    }
  }

  private settle(id: number, ok: boolean): void {
    const dones = this.waiting.get(id);
    this.waiting.delete(id);
    dones?.forEach((d) => d(ok));
  }
}

/** Supervisor side: owns the file (opened at start, so a bad path stops the start) and acknowledges each message. */
export class SupervisorAuditLog {
  private readonly writer: LineWriter;

  constructor(opts: AuditLogOptions, say: (msg: string) => void) {
    this.writer = openLogWriter(opts, say);
  }

  receive(m: AuditLinesMessage, reply: (ack: AuditAckMessage) => void): void {
    void this.writer.write(m.text).then((ok) => reply({ orch: 'audit-ack', id: m.id, ok }));
  }

  close(): Promise<void> {
    return this.writer.close();
  }
}
