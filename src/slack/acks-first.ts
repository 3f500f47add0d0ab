/**
 * Acknowledgements first. Slack wants every request acknowledged within 3 s. A listener acks,
 * then works (reads the platform, renders, answers on the response_url); under a burst, that work
 * would run between the acks of the requests still waiting on the same event loop, so the last
 * acks would wait for the work of the first ones.
 * More: README.md ("acks-first.ts").
 */
import type { App, ReceiverEvent } from "@slack/bolt";
import type { FetchFunction } from "@slack/web-api";

export interface AcksFirstOptions {
  /** Longest wait for a turn while acks keep coming (default 1,000 ms). */
  maxWaitMs?: number;
  now?: () => number;
}

interface Waiting {
  resolve: () => void;
  since: number;
}

export class AcksFirst {
  private readonly maxWaitMs: number;
  private readonly now: () => number;
  private queue: Array<Waiting | undefined> = [];
  private head = 0;
  private acks = 0;
  private acksSeen = 0;
  private pumping = false;

  constructor(opts: AcksFirstOptions = {}) {
    this.maxWaitMs = opts.maxWaitMs ?? 1_000;
    this.now = opts.now ?? Date.now;
  }

  /** Work waiting for a turn. */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  /** Resolves on a later iteration of the event loop, one that acknowledged nothing. */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      this.queue.push({ resolve, since: this.now() });
      if (!this.pumping) {
        this.pumping = true;
        setImmediate(this.pump);
      }
    });
  }

  /** `ack`, counted; its caller resumes on a turn. */
  ack(ack: ReceiverEvent["ack"]): ReceiverEvent["ack"] {
    return async (response) => {
      await ack(response);
      this.acks += 1;
      await this.turn();
    };
  }

  /** `fetch` that starts on a turn. */
  fetch(inner: FetchFunction = globalThis.fetch): FetchFunction {
    return async (url, init) => {
      await this.turn();
      return inner(url, init);
    };
  }

  /** In the check phase, after the iteration's I/O (where the acks are written). */
  private readonly pump = (): void => {
    const acked = this.acks !== this.acksSeen;
    this.acksSeen = this.acks;
    const first = this.queue[this.head];
    if (first && (!acked || this.now() - first.since >= this.maxWaitMs)) {
      this.queue[this.head] = undefined;
      this.head += 1;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      first.resolve();
    }
    if (this.waiting > 0) setImmediate(this.pump);
    else this.pumping = false;
  };
}

/**
 * Every request the app receives, whatever the receiver (HTTP, Socket Mode), acks through
 * `turns`: the listeners (and, for events, which Bolt acks itself, the whole middleware chain)
 * resume after the ack on a turn.
 */
export function acksFirst(app: App, turns: AcksFirst): void {
  const processEvent = app.processEvent.bind(app);
  app.processEvent = (event: ReceiverEvent) => processEvent({ ...event, ack: turns.ack(event.ack) });
}
