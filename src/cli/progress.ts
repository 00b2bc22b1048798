// Progress of a multi-phase command: on a terminal one line per phase that turns from "…" to "✓" in place (as
// kind prints its steps); otherwise (CI logs, pipes) one plain line per finished phase.
import type { WriteStream } from 'node:tty';

export interface ProgressOptions {
  /** where to write (default process.stderr) */
  out?: NodeJS.WritableStream;
  /** force the terminal or plain style (default: whether out is a TTY) */
  tty?: boolean;
}

export class Progress {
  private readonly out: NodeJS.WritableStream;
  private readonly tty: boolean;
  private current?: { title: string; start: number };
  private timer?: NodeJS.Timeout;
  private frame = 0;
  private readonly t0 = performance.now();

  constructor(opts: ProgressOptions = {}) {
    this.out = opts.out ?? process.stderr;
    this.tty = opts.tty ?? Boolean((this.out as WriteStream).isTTY);
  }

  /** Starts a phase, finishing the previous one as done. */
  phase(title: string): void {
    if (this.current?.title === title) return;
    this.done();
    this.current = { title, start: performance.now() };
    if (this.tty) {
      this.draw();
      this.timer = setInterval(() => this.draw(), 100);
      this.timer.unref();
    }
  }

  /** Finishes the current phase (detail: shown after its title). */
  done(detail?: string): void {
    const c = this.finish();
    if (!c) return;
    const ms = Math.round(performance.now() - c.start);
    const text = `${c.title}${detail ? ` ${detail}` : ''} (${ms} ms)`;
    this.out.write(this.tty ? `\r\x1b[2K ✓ ${text}\n` : `${text}\n`);
  }

  /** Finishes the current phase as failed. */
  fail(detail?: string): void {
    const c = this.finish();
    if (!c) return;
    const text = `${c.title}${detail ? `: ${detail}` : ''}`;
    this.out.write(this.tty ? `\r\x1b[2K ✗ ${text}\n` : `failed: ${text}\n`);
  }

  /** Milliseconds since the progress began. */
  elapsedMs(): number {
    return Math.round(performance.now() - this.t0);
  }

  private finish(): { title: string; start: number } | undefined {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const c = this.current;
    this.current = undefined;
    return c;
  }

  private draw(): void {
    if (!this.current) return;
    const spin = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'[this.frame++ % 10];
    this.out.write(`\r\x1b[2K ${spin} ${this.current.title} …`);
  }
}
