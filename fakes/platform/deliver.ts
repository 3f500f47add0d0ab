/**
 * Webhook deliveries (spec section 6): single events and whole video lifecycles, POSTed with
 * undici from one of the emulated fixed source addresses. Never throws: a failed connection is a
 * result with status 0 and the error message as body.
 */
import { randomInt } from "node:crypto";
import { Agent, request } from "undici";
import type { DeliverOptions, DeliveryResult, LifecycleOptions, SandboxProfile } from "./types.js";

/** Emulates the spec's three fixed source addresses; the first is deliver()'s default. */
export const SANDBOX_WEBHOOK_SOURCE_IPS = ["127.0.0.2", "127.0.0.3", "127.0.0.4"];
export const WEBHOOK_USER_AGENT = "platform-sandbox-webhooks/2";
export const DEFAULT_PRESETS = ["240p", "480p", "720p"];

export interface WebhookEvent {
  type: string;
  timestamp: number;
  data: Record<string, unknown>;
}

export function randomVideoId(): string {
  let id = "x";
  for (let i = 0; i < 6; i++) id += randomInt(36).toString(36);
  return id;
}

/**
 * `data` of each event type. Shown by the spec: created/published/deleted, processing, ready.
 * Choices ("not shown"): video.complete {owner_id, video_id}; video.format.error {owner_id,
 * video_id, preset_name, status: "error"}; video.format.deleted {owner_id, video_id, preset_name}.
 */
export function eventData(
  type: string,
  ownerId: string,
  videoId: string,
  presetName = "720p",
  progress = 50,
): Record<string, unknown> {
  const base = { owner_id: ownerId, video_id: videoId };
  switch (type) {
    case "video.format.processing":
      return { ...base, preset_name: presetName, status: "processing", progress };
    case "video.format.ready":
      return { ...base, preset_name: presetName, status: "ready" };
    case "video.format.error":
      return { ...base, preset_name: presetName, status: "error" };
    case "video.format.deleted":
      return { ...base, preset_name: presetName };
    default:
      return base;
  }
}

/**
 * The events of one video's life in true order, timestamps 1 ms apart from `now`. Presets encode
 * in parallel, each starting one round after the previous (lower qualities finish first).
 * Choices: a `formatError` preset stops after half its progress steps with video.format.error;
 * video.published follows the second ready format (the first if only one preset); video.complete
 * is sent at the end when at least one format is ready, even if another failed; `deleteAtEnd`
 * sends video.format.deleted for each ready format, then video.deleted.
 */
export function lifecycleEvents(ownerId: string, opts: LifecycleOptions, now: number): WebhookEvent[] {
  const videoId = opts.videoId ?? randomVideoId();
  const presets = opts.presets ?? DEFAULT_PRESETS;
  const steps = Math.max(1, Math.floor(opts.progressSteps ?? 10));
  const events: WebhookEvent[] = [];
  let t = now;
  const push = (type: string, preset?: string, progress?: number) =>
    events.push({ type, timestamp: t++, data: eventData(type, ownerId, videoId, preset, progress) });

  push("video.created");
  const state = presets.map((name, index) => ({ name, index, step: 0, done: false }));
  const readyNames: string[] = [];
  const publishAfter = Math.min(2, presets.length);
  for (let round = 0; state.some((p) => !p.done); round++) {
    for (const p of state) {
      if (p.done || round < p.index) continue;
      if (p.name === opts.formatError && p.step >= Math.floor(steps / 2)) {
        push("video.format.error", p.name);
        p.done = true;
        continue;
      }
      p.step += 1;
      push("video.format.processing", p.name, Math.round((100 * p.step) / steps));
      if (p.step < steps) continue;
      push("video.format.ready", p.name);
      p.done = true;
      readyNames.push(p.name);
      if (readyNames.length === publishAfter) push("video.published");
    }
  }
  if (readyNames.length > 0) push("video.complete");
  if (opts.deleteAtEnd) {
    for (const name of readyNames) push("video.format.deleted", name);
    push("video.deleted");
  }
  return events;
}

function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** The callback URL with its origin replaced by `deliverTo`'s (path and query kept). */
export function targetUrl(callbackUrl: string, deliverTo: string | undefined): URL {
  const url = new URL(callbackUrl);
  if (deliverTo === undefined) return url;
  return new URL(`${url.pathname}${url.search}`, new URL(deliverTo).origin);
}

export interface DelivererDeps {
  profile(id: string): SandboxProfile | undefined;
  now(): number;
  deliverTo: string | undefined;
  /** called for every delivery actually sent */
  onSent(): void;
  /** called with each event the sandbox builds, before it is sent, unless its video is to stay unknown */
  onVideoEvent?(profileId: string, type: string, videoId: string): void;
}

export class Deliverer {
  private readonly agents = new Map<string, Agent>();

  constructor(private readonly deps: DelivererDeps) {}

  async deliver(
    profileId: string,
    event: { type: string; data?: Record<string, unknown>; timestamp?: number },
    opts: DeliverOptions = {},
  ): Promise<DeliveryResult> {
    const { type } = event;
    const profile = this.deps.profile(profileId);
    const data = event.data ?? eventData(type, profileId, randomVideoId());
    if (profile !== undefined && opts.rawBody === undefined && !opts.unknownVideo) {
      const videoId = data.video_id;
      if (typeof videoId === "string" && videoId !== "") this.deps.onVideoEvent?.(profileId, type, videoId);
    }
    const callback = profile?.webhook.callback_url ?? null;
    if (profile === undefined || callback === null) {
      const body = profile === undefined ? `unknown profile ${profileId}` : "";
      return { type, status: 0, body, skipped: "no-webhook" };
    }
    if (!opts.force && !(profile.webhook.events ?? []).includes(type)) {
      return { type, status: 0, body: "", skipped: "not-subscribed" };
    }
    try {
      const url = targetUrl(callback, opts.deliverTo ?? this.deps.deliverTo);
      // Default source address only towards IPv4 loopback targets: binding 127.0.0.2 cannot reach others.
      const local =
        opts.localAddress ??
        (/^127\.\d+\.\d+\.\d+$/.test(url.hostname) ? SANDBOX_WEBHOOK_SOURCE_IPS[0] : undefined);
      const body =
        opts.rawBody ?? JSON.stringify({ type, timestamp: event.timestamp ?? this.deps.now(), data });
      this.deps.onSent();
      const res = await request(url, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", "user-agent": WEBHOOK_USER_AGENT, ...opts.headers },
        dispatcher: this.agent(local),
      });
      return { type, status: res.statusCode, body: await res.body.text() };
    } catch (err) {
      return { type, status: 0, body: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Delivers a lifecycle; results in the order the deliveries were started. */
  async lifecycle(profileId: string, opts: LifecycleOptions = {}): Promise<DeliveryResult[]> {
    const events = lifecycleEvents(profileId, opts, this.deps.now());
    const queue = opts.shuffle ? shuffled(events) : events;
    const results: DeliveryResult[] = [];
    const deliverOpts: DeliverOptions = {
      force: opts.force,
      localAddress: opts.localAddress,
      deliverTo: opts.deliverTo,
      unknownVideo: opts.unknownVideo,
    };
    let next = 0;
    const worker = async () => {
      while (next < queue.length) {
        const index = next++;
        const event = queue[index];
        if (event === undefined) break;
        results[index] = await this.deliver(profileId, event, deliverOpts);
      }
    };
    const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 1));
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
    return results;
  }

  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.destroy()));
  }

  private agent(localAddress: string | undefined): Agent {
    const key = localAddress ?? "";
    let agent = this.agents.get(key);
    if (agent === undefined) {
      agent = new Agent({
        ...(localAddress === undefined ? {} : { localAddress }),
        connectTimeout: 5_000,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      this.agents.set(key, agent);
    }
    return agent;
  }
}
