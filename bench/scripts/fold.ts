/**
 * Folding one claim's batch into a video's state, as the worker does: time and allocation of 200
 * deliveries of one video (progress of 60 presets, error events with 8 KiB details, unknown events
 * with bulky data). Run: `node --expose-gc --max-semi-space-size=256 --import tsx bench/scripts/fold.ts`
 * (a young generation large enough that no collection hides what one batch allocates).
 */

import { parseDelivery } from "../../src/platform/delivery.js";
import type { Delivery } from "../../src/platform/schemas.js";
import { applyDelivery, initialState, type VideoState } from "../../src/video/state.js";

const T0 = Date.parse("2025-03-14T18:00:00.000Z");
const ref = { owner_id: "owner42", video_id: "x1bench" };
const big = "x".repeat(8 * 1024);

function d(type: string, timestamp: number, data: Record<string, unknown>): Delivery {
  const r = parseDelivery({ type, timestamp, data });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function batch(n: number, bulky: boolean): Delivery[] {
  const out: Delivery[] = [];
  for (let i = 0; i < n; i++) {
    const t = T0 + i * 10;
    if (!bulky && i % 50 === 49)
      out.push(d("video.format.ready", t, { ...ref, preset_name: `p${i % 5}`, status: "ready" }));
    else if (!bulky)
      out.push(
        d("video.format.processing", t, {
          ...ref,
          preset_name: `p${i % 5}`,
          status: "processing",
          progress: i % 100,
        }),
      );
    else if (i % 10 === 3)
      out.push(d("video.format.error", t, { ...ref, preset_name: `p${i}`, details: big }));
    else if (i % 10 === 7) out.push(d("video.transcript.ready", t, { ...ref, blob: big }));
    else
      out.push(
        d("video.format.processing", t, {
          ...ref,
          preset_name: `p${i % 60}`,
          status: "processing",
          progress: i % 100,
        }),
      );
  }
  return out;
}

function fold(ds: readonly Delivery[]): VideoState {
  let s = initialState({ teamId: "T1", profileId: "prof1", channelId: "C1", videoId: "x1bench" });
  for (const x of ds) s = applyDelivery({ ...s, channelId: "C1" }, x);
  return s;
}

const gc = (globalThis as { gc?: () => void }).gc;

function measure(name: string, ds: readonly Delivery[]): void {
  for (let i = 0; i < 3; i++) fold(ds);
  const rounds = 20;
  let allocated = 0;
  let ms = 0;
  for (let i = 0; i < rounds; i++) {
    gc?.();
    const heap = process.memoryUsage().heapUsed;
    const t = performance.now();
    const s = fold(ds);
    ms += performance.now() - t;
    allocated += Math.max(0, process.memoryUsage().heapUsed - heap);
    if (s.eventCount === 0) throw new Error("nothing folded");
  }
  const last = fold(ds);
  console.log(
    JSON.stringify({
      batch: name,
      deliveries: ds.length,
      msPerBatch: Number((ms / rounds).toFixed(2)),
      heapGrowthPerBatchKiB: Math.round(allocated / rounds / 1024),
      stateJsonKiB: Math.round(JSON.stringify(last).length / 1024),
      presets: Object.keys(last.presets).length,
      milestones: last.milestones.length,
    }),
  );
}

measure("typical (progress of 5 presets)", batch(200, false));
measure("bulky (60 presets, 8 KiB error details and unknown events)", batch(200, true));
