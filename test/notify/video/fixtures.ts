/** Deliveries as the route parses them, a realistic lifecycle, and a small seeded PRNG. */

import { parseDelivery } from "../../../src/platform/delivery.js";
import type { Delivery } from "../../../src/platform/schemas.js";
import { applyDelivery, initialState, type VideoState } from "../../../src/video/state.js";

export const T0 = Date.parse("2025-03-14T18:00:00.000Z");
export const VIDEO = "x1abc";
export const OWNER = "owner42";
export const CTX = { teamId: "T1", profileId: "prof1", channelId: "C1", videoId: VIDEO } as const;

/** A delivery through the real parser, so known/generic shapes are exactly what the worker gets. */
export function delivery(type: string, timestamp: number, data: Record<string, unknown>): Delivery {
  const r = parseDelivery({ type, timestamp, data });
  if (!r.ok) throw new Error(`bad test delivery ${type}: ${r.error}`);
  return r.value;
}

const ref = (videoId = VIDEO) => ({ owner_id: OWNER, video_id: videoId });

export const ev = {
  created: (t: number, v?: string) => delivery("video.created", t, ref(v)),
  published: (t: number, v?: string) => delivery("video.published", t, ref(v)),
  complete: (t: number, v?: string) => delivery("video.complete", t, ref(v)),
  deleted: (t: number, v?: string) => delivery("video.deleted", t, ref(v)),
  processing: (t: number, preset: string, progress: number, v?: string) =>
    delivery("video.format.processing", t, {
      ...ref(v),
      preset_name: preset,
      status: "processing",
      progress,
    }),
  ready: (t: number, preset: string, v?: string) =>
    delivery("video.format.ready", t, { ...ref(v), preset_name: preset, status: "ready" }),
  error: (t: number, preset: string, extra: Record<string, unknown> = {}, v?: string) =>
    delivery("video.format.error", t, { ...ref(v), preset_name: preset, ...extra }),
  formatDeleted: (t: number, preset: string, v?: string) =>
    delivery("video.format.deleted", t, { ...ref(v), preset_name: preset }),
};

export const PRESETS = ["240p", "480p", "720p"] as const;

/**
 * 1 created, 30 processing events over 3 presets (10 each, 10%..100%, interleaved, faster for
 * smaller presets), 3 ready, published (after 240p and 480p are ready), complete. Timestamps
 * strictly increase in this order.
 */
export function lifecycle(): Delivery[] {
  type Step = { at: number; make: (t: number) => Delivery };
  const steps: Step[] = [{ at: 0, make: (t) => ev.created(t) }];
  const speed: Record<string, number> = { "240p": 1_000, "480p": 2_000, "720p": 3_000 };
  for (const preset of PRESETS) {
    const step = speed[preset] ?? 1_000;
    for (let i = 1; i <= 10; i++) {
      steps.push({ at: 500 + i * step, make: (t) => ev.processing(t, preset, i * 10) });
    }
    steps.push({ at: 500 + 10 * step + 400, make: (t) => ev.ready(t, preset) });
  }
  steps.push({ at: 500 + 20_000 + 700, make: (t) => ev.published(t) });
  steps.push({ at: 500 + 30_000 + 900, make: (t) => ev.complete(t) });
  steps.sort((a, b) => a.at - b.at);
  // Make timestamps strictly increasing (ties get +1 ms in order).
  let last = -1;
  return steps.map((s) => {
    const at = Math.max(s.at, last + 1);
    last = at;
    return s.make(T0 + at);
  });
}

export function applyAll(deliveries: readonly Delivery[], start: VideoState = initialState(CTX)): VideoState {
  return deliveries.reduce((s, d) => applyDelivery(s, d), start);
}

/** mulberry32: a tiny seeded PRNG, [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function int(rand: () => number, n: number): number {
  return Math.floor(rand() * n);
}

export function pick<T>(rand: () => number, items: readonly T[]): T {
  const item = items[int(rand, items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

/** Fisher–Yates with the seeded PRNG. */
export function shuffle<T>(rand: () => number, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = int(rand, i + 1);
    const a = out[i] as T;
    out[i] = out[j] as T;
    out[j] = a;
  }
  return out;
}

/** Shuffled, with some deliveries repeated (as fresh copies) at random places. */
export function shuffledWithDuplicates(rand: () => number, items: readonly Delivery[]): Delivery[] {
  const out = shuffle(rand, items);
  const dups = 1 + int(rand, 10);
  for (let i = 0; i < dups; i++) {
    out.splice(int(rand, out.length + 1), 0, structuredClone(pick(rand, items)));
  }
  return out;
}

/** The state with `seen` sorted: the one thing allowed to depend on arrival order. */
export function normalized(s: VideoState): VideoState {
  return { ...s, seen: [...s.seen].sort() };
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Seeds of the random permutations (200 orders per property). */
export const DELIVERY_SEEDS: readonly number[] = Array.from({ length: 200 }, (_, i) => 1000 + i * 7919);
