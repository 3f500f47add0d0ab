import { describe, expect, it } from "vitest";
import { lifecycleEvents } from "../../fakes/platform/deliver.js";
import { SANDBOX_WEBHOOK_SOURCE_IPS, type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import { sandboxWithReceiver } from "./per-file.js";
import { Receiver } from "./receiver.js";

const ALL_EVENTS = [
  "video.created",
  "video.deleted",
  "video.published",
  "video.complete",
  "video.format.ready",
  "video.format.processing",
  "video.format.error",
  "video.format.deleted",
];
const P = SEED.profiles;
const NOW = 1_740_000_000_000;

let sb: Sandbox;
let rx: Receiver;
sandboxWithReceiver(
  (s, r) => {
    sb = s;
    rx = r;
  },
  { now: () => NOW },
);

/** newsroom subscribed to everything, delivering to the receiver. */
const subscribeAll = (callback = "https://bot.example.com/hooks/platform/tok123") =>
  sb.setWebhook(P.newsroom, { callback_url: callback, events: ALL_EVENTS });

describe("deliver", () => {
  it("POSTs {type, timestamp, data} as JSON with the sandbox user agent from 127.0.0.2", async () => {
    const result = await sb.deliver(
      P.studio,
      { type: "video.created", data: { owner_id: P.studio, video_id: "x8abc12" } },
      { deliverTo: rx.origin },
    );
    expect(result).toEqual({ type: "video.created", status: 200, body: "ok" });
    expect(rx.received).toHaveLength(1);
    const got = rx.received[0];
    expect(got?.method).toBe("POST");
    expect(got?.url).toBe("/platform");
    expect(got?.remoteAddress).toBe("127.0.0.2");
    expect(SANDBOX_WEBHOOK_SOURCE_IPS).toEqual(["127.0.0.2", "127.0.0.3", "127.0.0.4"]);
    expect(got?.headers["content-type"]).toBe("application/json");
    expect(got?.headers["user-agent"]).toBe("platform-sandbox-webhooks/2");
    expect(got?.json).toEqual({
      type: "video.created",
      timestamp: NOW,
      data: { owner_id: P.studio, video_id: "x8abc12" },
    });
  });

  it("uses another source address when asked", async () => {
    await sb.deliver(
      P.studio,
      { type: "video.deleted" },
      { deliverTo: rx.origin, localAddress: "127.0.0.3" },
    );
    expect(rx.received[0]?.remoteAddress).toBe("127.0.0.3");
  });

  it("rewrites only the origin, keeping path and query", async () => {
    subscribeAll("https://bot.example.com/hooks/platform/tok123?workspace=T1");
    await sb.deliver(P.newsroom, { type: "video.created" }, { deliverTo: `${rx.origin}/ignored/path` });
    expect(rx.received[0]?.url).toBe("/hooks/platform/tok123?workspace=T1");
  });

  it("uses the sandbox's deliverTo by default", async () => {
    const other = await startSandbox({ deliverTo: rx.origin });
    try {
      const r = await other.deliver(P.studio, { type: "video.published" });
      expect(r.status).toBe(200);
      expect(rx.received[0]?.url).toBe("/platform");
    } finally {
      await other.close();
    }
  });

  it("sends only subscribed types unless forced", async () => {
    const skipped = await sb.deliver(P.studio, { type: "video.format.ready" }, { deliverTo: rx.origin });
    expect(skipped).toEqual({ type: "video.format.ready", status: 0, body: "", skipped: "not-subscribed" });
    expect(rx.received).toHaveLength(0);
    const forced = await sb.deliver(
      P.studio,
      { type: "video.format.ready" },
      { deliverTo: rx.origin, force: true },
    );
    expect(forced.status).toBe(200);
    expect(rx.received).toHaveLength(1);
    expect(sb.stats().deliveries).toBe(1);
  });

  it("skips profiles without a webhook, even when forced", async () => {
    const r = await sb.deliver(P.newsroom, { type: "video.created" }, { deliverTo: rx.origin, force: true });
    expect(r).toMatchObject({ type: "video.created", status: 0, skipped: "no-webhook" });
    expect((await sb.deliver("x0nope0", { type: "video.created" })).skipped).toBe("no-webhook");
    expect(rx.received).toHaveLength(0);
    expect(sb.stats().deliveries).toBe(0);
  });

  it("fills in default data and sends raw bodies and extra headers as given", async () => {
    await sb.deliver(P.studio, { type: "video.deleted" }, { deliverTo: rx.origin });
    const data = rx.received[0]?.json?.data;
    expect(Object.keys(data ?? {}).sort()).toEqual(["owner_id", "video_id"]);
    expect(data?.owner_id).toBe(P.studio);
    expect(data?.video_id).toMatch(/^x[0-9a-z]{6}$/);
    await sb.deliver(
      P.studio,
      { type: "video.created" },
      {
        deliverTo: rx.origin,
        rawBody: "{not json",
        headers: { "x-test": "1", "content-type": "text/plain" },
      },
    );
    expect(rx.received[1]?.body).toBe("{not json");
    expect(rx.received[1]?.headers["x-test"]).toBe("1");
    expect(rx.received[1]?.headers["content-type"]).toBe("text/plain");
  });

  it("reports the receiver's status and body", async () => {
    rx.status = 403;
    rx.answer = "forbidden source";
    expect(await sb.deliver(P.studio, { type: "video.created" }, { deliverTo: rx.origin })).toEqual({
      type: "video.created",
      status: 403,
      body: "forbidden source",
    });
  });

  it("returns status 0 with the error message when the connection fails", async () => {
    const closed = new Receiver();
    await closed.start();
    const origin = closed.origin;
    await closed.close();
    const r = await sb.deliver(P.studio, { type: "video.created" }, { deliverTo: origin });
    expect(r.status).toBe(0);
    expect(r.type).toBe("video.created");
    expect(r.body).toMatch(/ECONNREFUSED|connect/i);
    expect(r.skipped).toBeUndefined();
  });
});

type Ev = { type: string; timestamp: number; data: Record<string, unknown> };

describe("deliverLifecycle", () => {
  it("delivers a realistic lifecycle in order with rising timestamps", async () => {
    subscribeAll();
    const results = await sb.deliverLifecycle(P.newsroom, { deliverTo: rx.origin, videoId: "x7life1" });
    const events = rx.events() as Ev[];
    expect(results).toHaveLength(36);
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(events.map((e) => e.type)).toEqual(results.map((r) => r.type));
    expect(events).toHaveLength(1 + 30 + 3 + 1 + 1);
    expect(events[0]).toEqual({
      type: "video.created",
      timestamp: NOW,
      data: { owner_id: P.newsroom, video_id: "x7life1" },
    });
    expect(events.at(-1)?.type).toBe("video.complete");
    expect(events.at(-1)?.data).toEqual({ owner_id: P.newsroom, video_id: "x7life1" });
    for (let i = 1; i < events.length; i++) {
      expect(events[i]?.timestamp).toBeGreaterThanOrEqual((events[i - 1]?.timestamp ?? 0) + 1);
    }
    for (const preset of ["240p", "480p", "720p"]) {
      const processing = events.filter(
        (e) => e.type === "video.format.processing" && e.data.preset_name === preset,
      );
      expect(processing.map((e) => e.data.progress)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
      expect(processing[0]?.data).toEqual({
        owner_id: P.newsroom,
        video_id: "x7life1",
        preset_name: preset,
        status: "processing",
        progress: 10,
      });
      const ready = events.findIndex((e) => e.type === "video.format.ready" && e.data.preset_name === preset);
      expect(events[ready]?.data).toEqual({
        owner_id: P.newsroom,
        video_id: "x7life1",
        preset_name: preset,
        status: "ready",
      });
      expect(ready).toBeGreaterThan(events.indexOf(processing.at(-1) as Ev));
    }
    // interleaved: 480p starts before 240p is ready
    const types = events.map((e) => `${e.type}:${e.data.preset_name ?? ""}`);
    expect(types.indexOf("video.format.processing:480p")).toBeLessThan(
      types.indexOf("video.format.ready:240p"),
    );
    const published = types.indexOf("video.published:");
    expect(published).toBe(types.indexOf("video.format.ready:480p") + 1);
    expect(published).toBeLessThan(types.indexOf("video.format.ready:720p"));
    expect(sb.stats().deliveries).toBe(36);
  });

  it("ends a formatError preset in video.format.error, still completes, and can delete at the end", async () => {
    subscribeAll();
    await sb.deliverLifecycle(P.newsroom, {
      deliverTo: rx.origin,
      formatError: "480p",
      deleteAtEnd: true,
      progressSteps: 4,
    });
    const events = rx.events() as Ev[];
    const tag = (e: Ev) => `${e.type}${e.data.preset_name ? `:${e.data.preset_name}` : ""}`;
    const tags = events.map(tag);
    expect(events.filter((e) => e.data.preset_name === "480p").map(tag)).toEqual([
      "video.format.processing:480p",
      "video.format.processing:480p",
      "video.format.error:480p",
    ]);
    const error = events.find((e) => e.type === "video.format.error");
    expect(error?.data).toMatchObject({ preset_name: "480p", status: "error" });
    expect(Object.keys(error?.data ?? {}).sort()).toEqual(["owner_id", "preset_name", "status", "video_id"]);
    expect(tags).not.toContain("video.format.ready:480p");
    expect(tags.indexOf("video.published")).toBe(tags.indexOf("video.format.ready:720p") + 1);
    expect(tags.slice(-4)).toEqual([
      "video.complete",
      "video.format.deleted:240p",
      "video.format.deleted:720p",
      "video.deleted",
    ]);
    expect(Object.keys(events.at(-2)?.data ?? {}).sort()).toEqual(["owner_id", "preset_name", "video_id"]);
  });

  it("shuffle delivers in another order but with the true timestamps", async () => {
    subscribeAll();
    const expected = lifecycleEvents(P.newsroom, { videoId: "x5huff1" }, NOW);
    await sb.deliverLifecycle(P.newsroom, { deliverTo: rx.origin, videoId: "x5huff1", shuffle: true });
    const events = rx.events() as Ev[];
    expect(events.map((e) => e.timestamp)).not.toEqual(expected.map((e) => e.timestamp));
    expect([...events].sort((a, b) => a.timestamp - b.timestamp)).toEqual(expected);
  });

  it("delivers concurrently when asked", async () => {
    subscribeAll();
    rx.delayMs = 30;
    const results = await sb.deliverLifecycle(P.newsroom, {
      deliverTo: rx.origin,
      concurrency: 4,
      presets: ["480p"],
    });
    expect(results).toHaveLength(1 + 10 + 1 + 1 + 1);
    expect(rx.received).toHaveLength(results.length);
    expect(rx.maxInFlight).toBeGreaterThan(1);
    expect(rx.maxInFlight).toBeLessThanOrEqual(4);
  });

  it("skips unsubscribed events unless forced", async () => {
    const results = await sb.deliverLifecycle(P.studio, {
      deliverTo: rx.origin,
      deleteAtEnd: true,
      progressSteps: 2,
    });
    const sent = results.filter((r) => r.skipped === undefined).map((r) => r.type);
    expect(sent).toEqual(["video.created", "video.published", "video.deleted"]);
    expect(results.filter((r) => r.skipped === "not-subscribed").length).toBeGreaterThan(0);
    expect(rx.received).toHaveLength(3);
    rx.clear();
    const forced = await sb.deliverLifecycle(P.studio, {
      deliverTo: rx.origin,
      progressSteps: 2,
      force: true,
    });
    expect(rx.received).toHaveLength(forced.length);
  });
});

describe("lifecycleEvents", () => {
  it("builds the exact sequence for one preset", () => {
    const events = lifecycleEvents("x2owner", { videoId: "x1", presets: ["1080p"], progressSteps: 3 }, 1000);
    expect(events.map((e) => [e.type, e.timestamp, e.data.progress])).toEqual([
      ["video.created", 1000, undefined],
      ["video.format.processing", 1001, 33],
      ["video.format.processing", 1002, 67],
      ["video.format.processing", 1003, 100],
      ["video.format.ready", 1004, undefined],
      ["video.published", 1005, undefined],
      ["video.complete", 1006, undefined],
    ]);
  });

  it("sends no complete when every format fails, and random ids otherwise", () => {
    const events = lifecycleEvents("x2owner", { presets: ["720p"], formatError: "720p" }, 0);
    expect(events.map((e) => e.type)).not.toContain("video.complete");
    expect(events.map((e) => e.type)).not.toContain("video.published");
    expect(events[0]?.data.video_id).toMatch(/^x[0-9a-z]{6}$/);
  });
});
