import { describe, expect, it } from "vitest";
import type { Delivery } from "../../../src/platform/schemas.js";
import {
  applyDelivery,
  DATA_DEPTH_MAX,
  DETAILS_KEPT_MAX,
  dedupeKeyOf,
  initialState,
  MILESTONE_CAP,
  MILESTONE_DATA_MAX,
  type Milestone,
  NAME_KEPT_MAX,
  PRESET_CAP,
  RefusedDelivery,
  SEEN_CAP,
  type Stage,
  stageRank,
  type VideoState,
} from "../../../src/video/state.js";
import { validateState } from "../../../src/video/validate.js";
import {
  applyAll,
  CTX,
  DELIVERY_SEEDS,
  deepFreeze,
  delivery,
  ev,
  int,
  lifecycle,
  normalized,
  OWNER,
  prng,
  shuffle,
  shuffledWithDuplicates,
  T0,
  VIDEO,
} from "./fixtures.js";

const at = (ms: number) => T0 + ms;

describe("initialState", () => {
  it("starts at created with nothing applied", () => {
    const s = initialState({ ...CTX, ownerId: "o1" });
    expect(s).toMatchObject({
      v: 1,
      teamId: "T1",
      profileId: "prof1",
      channelId: "C1",
      videoId: VIDEO,
      ownerId: "o1",
      stage: "created",
      eventCount: 0,
      presets: {},
      milestones: [],
      seen: [],
      parentTs: null,
      renderedHash: null,
      lastRenderAt: null,
    });
    expect(initialState({ ...CTX, videoId: null }).ownerId).toBeNull();
  });
});

describe("dedupeKeyOf", () => {
  it("is the same for the same delivery whatever the key order, nested too", () => {
    const a = delivery("video.moderated", 5, { video_id: "v", nested: { b: 1, a: [1, { y: 2, x: 1 }] } });
    const b = delivery("video.moderated", 5, { nested: { a: [1, { x: 1, y: 2 }], b: 1 }, video_id: "v" });
    expect(dedupeKeyOf(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(dedupeKeyOf(a)).toBe(dedupeKeyOf(b));
  });

  it("differs when type, timestamp or data differ", () => {
    const base = ev.processing(at(1), "720p", 40);
    const keys = new Set([
      dedupeKeyOf(base),
      dedupeKeyOf(ev.processing(at(2), "720p", 40)),
      dedupeKeyOf(ev.processing(at(1), "720p", 41)),
      dedupeKeyOf(ev.processing(at(1), "480p", 40)),
      dedupeKeyOf(delivery("video.other", at(1), base.data)),
      // Array order is data, not presentation.
      dedupeKeyOf(delivery("x", 1, { a: [1, 2] })),
      dedupeKeyOf(delivery("x", 1, { a: [2, 1] })),
    ]);
    expect(keys.size).toBe(7);
  });
});

describe("a full lifecycle in order", () => {
  const ds = lifecycle();
  const last = (type: string) => {
    const d = ds.filter((x) => x.type === type).at(-1);
    if (!d) throw new Error(type);
    return d.timestamp;
  };
  const dataOf = (type: string) => ds.find((x) => x.type === type)?.data;
  const readyAt = (preset: string) => {
    const d = ds.find((x) => x.type === "video.format.ready" && x.data.preset_name === preset);
    if (!d) throw new Error(preset);
    return d.timestamp;
  };

  it("has the realistic shape: 1 created, 30 processing over 3 presets, 3 ready, published, complete", () => {
    const count = (type: string) => ds.filter((d) => d.type === type).length;
    expect(ds).toHaveLength(36);
    expect(count("video.created")).toBe(1);
    expect(count("video.format.processing")).toBe(30);
    expect(count("video.format.ready")).toBe(3);
    expect(count("video.published")).toBe(1);
    expect(count("video.complete")).toBe(1);
    for (let i = 1; i < ds.length; i++) {
      expect(ds[i]?.timestamp).toBeGreaterThan(ds[i - 1]?.timestamp ?? Number.POSITIVE_INFINITY);
    }
  });

  it("ends complete with every preset ready and the two milestones", () => {
    const s = applyAll(ds);
    const publishedAt = last("video.published");
    const completeAt = last("video.complete");
    expect(s).toEqual({
      ...initialState(CTX),
      ownerId: OWNER,
      stage: "complete",
      stageAt: completeAt,
      firstEventAt: T0,
      lastEventAt: completeAt,
      presets: {
        "240p": { status: "ready", progress: 100, at: readyAt("240p") },
        "480p": { status: "ready", progress: 100, at: readyAt("480p") },
        "720p": { status: "ready", progress: 100, at: readyAt("720p") },
      },
      createdAt: T0,
      publishedAt,
      completeAt,
      deletedAt: null,
      eventCount: 36,
      milestones: [
        {
          key: "published",
          type: "video.published",
          timestamp: publishedAt,
          posted: false,
          data: dataOf("video.published"),
        },
        {
          key: "complete",
          type: "video.complete",
          timestamp: completeAt,
          posted: false,
          data: dataOf("video.complete"),
        },
      ],
      seen: ds.map(dedupeKeyOf),
    });
  });

  it("walks the stages forward: created, encoding, published, complete", () => {
    const stages: Stage[] = [];
    ds.reduce((s, d) => {
      const next = applyDelivery(s, d);
      if (stages.at(-1) !== next.stage) stages.push(next.stage);
      return next;
    }, initialState(CTX));
    expect(stages).toEqual(["created", "encoding", "published", "complete"]);
  });

  it("shows progress per preset while encoding", () => {
    const upTo = ds.findIndex((d) => d.type === "video.format.ready");
    const s = applyAll(ds.slice(0, upTo));
    expect(s.stage).toBe("encoding");
    expect(s.stageAt).toBe(ds[1]?.timestamp);
    expect(s.presets["240p"]).toMatchObject({ status: "processing", progress: 100 });
    expect(s.presets["480p"]?.progress).toBe(50);
    expect(s.presets["720p"]?.progress).toBe(30);
  });

  it("reaches formats_ready when every preset is ready before publication", () => {
    const noPublish = ds.filter((d) => d.type !== "video.published" && d.type !== "video.complete");
    const s = applyAll(noPublish);
    expect(s.stage).toBe("formats_ready");
    expect(s.stageAt).toBe(readyAt("720p"));
    expect(s.milestones).toEqual([]);
  });
});

describe("order independence", () => {
  const ds = lifecycle();
  const expected = normalized(applyAll(ds));

  it("any permutation, with duplicates, gives the same final state (except seen order)", () => {
    for (const seed of DELIVERY_SEEDS) {
      const rand = prng(seed);
      const order = shuffledWithDuplicates(rand, ds);
      expect(normalized(applyAll(order)), `seed ${seed}`).toEqual(expected);
    }
  });

  it("never moves backwards: stage rank and every preset's progress only grow, prefix by prefix", () => {
    for (const seed of DELIVERY_SEEDS) {
      const order = shuffledWithDuplicates(prng(seed), ds);
      let prev = initialState(CTX);
      for (const [i, d] of order.entries()) {
        const next = applyDelivery(prev, d);
        const where = `seed ${seed}, step ${i} (${d.type} @${d.timestamp - T0})`;
        expect(stageRank(next.stage), where).toBeGreaterThanOrEqual(stageRank(prev.stage));
        for (const [name, p] of Object.entries(prev.presets)) {
          const q = next.presets[name];
          expect(q, where).toBeDefined();
          expect(q?.progress, where).toBeGreaterThanOrEqual(p.progress);
          if (p.status !== "processing") expect(q?.status, where).toBe(p.status);
        }
        for (const k of ["createdAt", "publishedAt", "completeAt"] as const) {
          if (prev[k] !== null) expect(next[k], where).not.toBeNull();
        }
        expect(next.milestones.length, where).toBeGreaterThanOrEqual(prev.milestones.length);
        prev = next;
      }
    }
  });

  it("applying a delivery twice changes nothing and returns the same state", () => {
    let s = initialState(CTX);
    for (const d of ds) {
      const once = applyDelivery(s, d);
      expect(applyDelivery(once, structuredClone(d))).toBe(once);
      s = once;
    }
    expect(s.eventCount).toBe(ds.length);
  });

  it("is pure: the input state is never modified", () => {
    const rand = prng(7);
    let s = deepFreeze(initialState(CTX));
    for (const d of shuffle(rand, ds)) {
      const before = structuredClone(s);
      const next = applyDelivery(s, d);
      expect(s).toEqual(before);
      expect(next).not.toBe(s);
      s = deepFreeze(next);
    }
  });
});

describe("out-of-order rules", () => {
  it("ignores an older processing event that arrives after a newer one", () => {
    const s = applyAll([ev.processing(at(20), "720p", 60), ev.processing(at(10), "720p", 30)]);
    expect(s.presets["720p"]).toEqual({ status: "processing", progress: 60, at: at(20) });
  });

  it("ignores a processing event (older or newer) once the preset is ready", () => {
    const s = applyAll([
      ev.processing(at(5), "720p", 20),
      ev.ready(at(30), "720p"),
      ev.processing(at(10), "720p", 50),
      ev.processing(at(40), "720p", 10),
    ]);
    expect(s.presets["720p"]).toEqual({ status: "ready", progress: 100, at: at(30) });
    expect(s.stage).toBe("formats_ready");
  });

  it("keeps formats_ready when another preset starts encoding later", () => {
    const s1 = applyAll([ev.ready(at(10), "240p")]);
    expect(s1.stage).toBe("formats_ready");
    const s2 = applyDelivery(s1, ev.processing(at(20), "1080p", 10));
    expect(s2.stage).toBe("formats_ready");
    expect(s2.presets["1080p"]?.progress).toBe(10);
  });

  it("does not go back from published when a late format event arrives", () => {
    const s = applyAll([ev.published(at(50)), ev.processing(at(10), "720p", 30), ev.created(at(1))]);
    expect(s.stage).toBe("published");
    expect(s.stageAt).toBe(at(50));
    expect(s.firstEventAt).toBe(at(1));
    expect(s.createdAt).toBe(at(1));
    expect(s.lastEventAt).toBe(at(50));
  });

  it("a late video.created only fills in the creation time", () => {
    const before = applyAll([ev.processing(at(10), "240p", 50), ev.processing(at(20), "240p", 70)]);
    const after = applyDelivery(before, ev.created(at(2)));
    expect(after).toEqual({
      ...before,
      createdAt: at(2),
      firstEventAt: at(2),
      eventCount: 3,
      seen: after.seen,
    });
    expect(after.stage).toBe("encoding");
  });

  it("complete before published keeps complete and still records both milestones", () => {
    const s = applyAll([ev.complete(at(30)), ev.published(at(20))]);
    expect(s.stage).toBe("complete");
    expect(s.stageAt).toBe(at(30));
    expect(s.milestones.map((m) => m.key)).toEqual(["published", "complete"]);
  });

  it("two deliveries of one milestone keep the earliest, whatever the order", () => {
    const a = ev.published(at(20));
    const b = delivery("video.published", at(10), { owner_id: OWNER, video_id: VIDEO, extra: 1 });
    const s1 = applyAll([a, b]);
    const s2 = applyAll([b, a]);
    expect(normalized(s1)).toEqual(normalized(s2));
    expect(s1.milestones).toHaveLength(1);
    expect(s1.milestones[0]?.timestamp).toBe(at(10));
    expect(s1.publishedAt).toBe(at(10));
  });

  it("keeps a posted milestone as it is", () => {
    const s = applyAll([ev.published(at(20))]);
    const posted: VideoState = { ...s, milestones: s.milestones.map((m) => ({ ...m, posted: true })) };
    const next = applyDelivery(
      posted,
      delivery("video.published", at(5), { owner_id: OWNER, video_id: VIDEO, x: 1 }),
    );
    expect(next.milestones).toEqual(posted.milestones);
  });
});

describe("deletion is terminal", () => {
  const ds = lifecycle();
  const D = Math.floor(((ds[15]?.timestamp ?? 0) + (ds[16]?.timestamp ?? 0)) / 2);
  const withDeletion = [...ds.slice(0, 16), ev.deleted(D), ...ds.slice(16)];

  it("events after the deletion change nothing but `seen`", () => {
    expect(ds[16]?.timestamp).toBeGreaterThan(D);
    const deleted = applyAll(withDeletion.slice(0, 17));
    expect(deleted.stage).toBe("deleted");
    expect(deleted.stageAt).toBe(D);
    expect(deleted.lastEventAt).toBe(D);
    let s = deleted;
    for (const d of withDeletion.slice(17)) {
      const next = applyDelivery(s, d);
      expect({ ...next, seen: [] }).toEqual({ ...deleted, seen: [] });
      expect(next.seen).toContain(dedupeKeyOf(d));
      s = next;
    }
  });

  it("older events arriving after the deletion never undo it", () => {
    const older = lifecycle().filter((d) => d.timestamp <= at(25_000));
    expect(older.map((d) => d.type)).toContain("video.published");
    const s = applyAll([ev.deleted(at(25_000)), ...older]);
    expect(s.stage).toBe("deleted");
    expect(s.deletedAt).toBe(at(25_000));
    expect(s.stageAt).toBe(at(25_000));
    const late = applyAll([
      ev.processing(at(10), "720p", 10),
      ev.deleted(at(100)),
      ev.created(at(1)),
      ev.published(at(50)),
      ev.complete(at(60)),
    ]);
    expect(late.stage).toBe("deleted");
    expect(late.stageAt).toBe(at(100));
    expect(late.milestones.map((m) => m.key)).toEqual(["published", "complete", "deleted"]);
  });

  it("a deletion arriving late drops what happened after it (except presets), in any order", () => {
    const expected = applyAll(withDeletion);
    expect(expected.publishedAt).toBeNull();
    expect(expected.completeAt).toBeNull();
    expect(expected.milestones.map((m) => m.key)).toEqual(["deleted"]);
    const comparable = (s: VideoState) => {
      const { presets: _p, eventCount: _e, seen: _s, ownerId: _o, ...rest } = s;
      return rest;
    };
    for (const seed of DELIVERY_SEEDS) {
      const s = applyAll(shuffledWithDuplicates(prng(seed), withDeletion));
      expect(comparable(s), `seed ${seed}`).toEqual(comparable(expected));
    }
  });

  it("an earlier deletion delivered later moves the deletion time back", () => {
    const s = applyAll([ev.processing(at(5), "240p", 10), ev.deleted(at(50)), ev.deleted(at(30))]);
    expect(s.deletedAt).toBe(at(30));
    expect(s.stageAt).toBe(at(30));
    expect(s.milestones).toHaveLength(1);
    expect(s.milestones[0]?.timestamp).toBe(at(30));
  });
});

describe("format errors and deletions", () => {
  it("marks the preset failed, adds one milestone per preset, keeps encoding the others", () => {
    const s = applyAll([
      ev.processing(at(10), "240p", 50),
      ev.processing(at(11), "720p", 40),
      ev.error(at(20), "720p", { reason: "codec" }),
      ev.processing(at(15), "720p", 45), // older, arrives late
      ev.error(at(25), "720p", { reason: "again" }),
    ]);
    expect(s.presets["720p"]).toEqual({ status: "error", progress: 45, at: at(25) });
    expect(s.stage).toBe("encoding");
    expect(s.milestones).toEqual([
      {
        key: "error:720p",
        type: "video.format.error",
        timestamp: at(20),
        posted: false,
        data: { owner_id: OWNER, video_id: VIDEO, preset_name: "720p", reason: "codec" },
      },
    ]);
  });

  it("an error and a ready: the latest wins (a retry that succeeds shows ready)", () => {
    const a = applyAll([ev.error(at(10), "720p"), ev.ready(at(20), "720p")]);
    const b = applyAll([ev.ready(at(20), "720p"), ev.error(at(10), "720p")]);
    expect(normalized(a)).toEqual(normalized(b));
    expect(a.presets["720p"]?.status).toBe("ready");
    expect(a.milestones.map((m) => m.key)).toEqual(["error:720p"]);
  });

  it("a format deleted after it was ready is deleted; one deleted before is ignored", () => {
    const s = applyAll([ev.ready(at(20), "720p"), ev.formatDeleted(at(10), "720p")]);
    expect(s.presets["720p"]).toEqual({ status: "ready", progress: 100, at: at(20) });
    const t = applyDelivery(s, ev.formatDeleted(at(30), "720p"));
    expect(t.presets["720p"]).toEqual({ status: "deleted", progress: 100, at: at(30) });
    expect(t.milestones.map((m) => m.key)).toEqual(["format-deleted:720p"]);
    expect(t.milestones[0]?.timestamp).toBe(at(10));
  });

  it("an error without a preset name is still a milestone", () => {
    const s = applyDelivery(initialState(CTX), delivery("video.format.error", at(5), { video_id: VIDEO }));
    expect(s.presets).toEqual({});
    expect(s.milestones.map((m) => m.key)).toEqual(["error:"]);
  });

  it("preset names like __proto__ and constructor are plain own entries", () => {
    const s = applyAll([ev.processing(at(1), "__proto__", 30), ev.ready(at(2), "constructor")]);
    expect(Object.keys(s.presets).sort()).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(s.presets)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(s.presets, "__proto__")?.value).toEqual({
      status: "processing",
      progress: 30,
      at: at(1),
    });
    const back = validateState(JSON.parse(JSON.stringify(s)));
    expect(back && Object.keys(back.presets).sort()).toEqual(["__proto__", "constructor"]);
  });
});

describe("unknown event types", () => {
  it("add a generic milestone and leave the stage alone", () => {
    const s = applyAll([
      ev.processing(at(1), "240p", 10),
      delivery("video.moderated", at(5), { video_id: VIDEO, verdict: "ok" }),
    ]);
    expect(s.stage).toBe("encoding");
    expect(s.milestones).toEqual([
      {
        key: `event:video.moderated:${at(5)}`,
        type: "video.moderated",
        timestamp: at(5),
        posted: false,
        data: { video_id: VIDEO, verdict: "ok" },
      },
    ]);
    expect(s.eventCount).toBe(2);
  });

  it("without a video id they go to a state whose videoId is null", () => {
    const d = delivery("profile.updated", at(5), { profile_id: "prof1" });
    expect(d.known).toBe(false);
    const s = applyDelivery(initialState({ ...CTX, videoId: null }), d);
    expect(s.videoId).toBeNull();
    expect(s.ownerId).toBeNull();
    expect(s.milestones.map((m) => m.key)).toEqual([`event:profile.updated:${at(5)}`]);
  });

  it("keep only a bounded excerpt of large data", () => {
    const big = { video_id: VIDEO, blob: "x".repeat(50_000) };
    const s = applyDelivery(initialState(CTX), delivery("video.huge", at(1), big));
    const data = s.milestones[0]?.data ?? {};
    expect(JSON.stringify(data).length).toBeLessThan(2_200);
    expect(String(data._truncated)).toMatch(/^\{"blob":"xxx/);
  });
});

describe("bounded state", () => {
  it("remembers at most SEEN_CAP dedupe keys, dropping the oldest", () => {
    const ds = Array.from({ length: SEEN_CAP + 50 }, (_, i) => ev.processing(at(i), "240p", i % 100));
    const s = applyAll(ds);
    expect(s.seen).toHaveLength(SEEN_CAP);
    expect(s.seen[0]).toBe(dedupeKeyOf(ds[50] ?? ds[0] ?? ev.created(0)));
    expect(s.seen.at(-1)).toBe(dedupeKeyOf(ds.at(-1) ?? ev.created(0)));
  });

  it("drops the oldest posted milestones beyond MILESTONE_CAP, never unposted ones", () => {
    // 20 unposted (oldest), then 70 posted, then 40 unposted: 130 in all.
    let s = initialState({ ...CTX, videoId: null });
    for (let i = 0; i < MILESTONE_CAP + 30; i++) {
      s = applyDelivery(s, delivery("thing.happened", at(i), { i }));
      if (i >= 20 && i < 90) {
        s = {
          ...s,
          milestones: s.milestones.map((m) => ({ ...m, posted: m.posted || m.timestamp === at(i) })),
        };
      }
    }
    expect(s.milestones).toHaveLength(MILESTONE_CAP);
    expect(s.milestones.filter((m) => !m.posted)).toHaveLength(60);
    expect(s.milestones[0]?.timestamp).toBe(at(0));
    expect(s.milestones.find((m) => m.posted)?.timestamp).toBe(at(50));
  });
});

describe("validateState", () => {
  const good = applyAll([
    ...lifecycle().slice(0, 20),
    ev.error(at(99_000), "720p"),
    delivery("video.moderated", at(99_001), { video_id: VIDEO }),
  ]);

  it("reads back what was stored (JSON round trip)", () => {
    const back = validateState(JSON.parse(JSON.stringify(good)));
    expect(back).toEqual(good);
    const withWorker = {
      ...good,
      parentTs: "1700000000.000100",
      renderedHash: "abc",
      lastRenderAt: Date.now(),
    };
    expect(validateState(JSON.parse(JSON.stringify(withWorker)))).toEqual(withWorker);
    // The title read's answer and when it was asked: a 255-emoji title is 510 UTF-16 units.
    for (const title of [
      { title: "🌉".repeat(255) },
      { title: null },
      { notConfirmed: true as const },
      { unknown: "forbidden" },
    ]) {
      const titled = { ...good, title, titleAskedAt: 1_700_000_000_000 };
      expect(validateState(JSON.parse(JSON.stringify(titled)))).toEqual(titled);
    }
  });

  it("rejects corrupt or foreign shapes", () => {
    const mutate = (f: (x: Record<string, unknown>) => void): unknown => {
      const x = structuredClone(good) as unknown as Record<string, unknown>;
      f(x);
      return x;
    };
    const firstPreset = (x: Record<string, unknown>) =>
      Object.values(x.presets as object)[0] as Record<string, unknown>;
    const firstMilestone = (x: Record<string, unknown>) =>
      (x.milestones as Record<string, unknown>[])[0] ?? {};
    const bad: [string, unknown][] = [
      ["null", null],
      ["string", "state"],
      ["empty object", {}],
      ["array", [good]],
      ["version 2", mutate((x) => (x.v = 2))],
      ["unknown stage", mutate((x) => (x.stage = "archived"))],
      ["missing teamId", mutate((x) => delete x.teamId)],
      ["missing eventCount", mutate((x) => delete x.eventCount)],
      ["string timestamp", mutate((x) => (x.lastEventAt = "2025-01-01"))],
      ["negative timestamp", mutate((x) => (x.firstEventAt = -1))],
      ["presets array", mutate((x) => (x.presets = []))],
      ["preset progress 101", mutate((x) => (firstPreset(x).progress = 101))],
      ["preset unknown status", mutate((x) => (firstPreset(x).status = "queued"))],
      ["preset null", mutate((x) => ((x.presets as Record<string, unknown>)["240p"] = null))],
      ["milestone without key", mutate((x) => delete firstMilestone(x).key)],
      ["milestone data array", mutate((x) => (firstMilestone(x).data = [1]))],
      ["milestones object", mutate((x) => (x.milestones = {}))],
      [
        "duplicate milestone keys",
        mutate((x) => (x.milestones = [firstMilestone(x), { ...firstMilestone(x), timestamp: 1 }])),
      ],
      ["deleted without deletedAt", mutate((x) => (x.stage = "deleted"))],
      ["deletedAt but not deleted", mutate((x) => (x.deletedAt = 5))],
      ["first after last", mutate((x) => (x.firstEventAt = (x.lastEventAt as number) + 1))],
      ["seen not hex", mutate((x) => (x.seen = ["nothex"]))],
      ["title not a fact", mutate((x) => (x.title = "Harbour Bridge"))],
      ["title fact with two answers", mutate((x) => (x.title = { title: "a", notConfirmed: true }))],
      ["seen too long", mutate((x) => (x.seen = Array.from({ length: SEEN_CAP + 1 }, () => "a".repeat(64))))],
      ["parentTs number", mutate((x) => (x.parentTs = 17))],
    ];
    for (const [name, value] of bad) expect(validateState(value), name).toBeUndefined();
    expect(validateState(mutate(() => {}))).toEqual(good);
  });
});

describe("random histories", () => {
  it("survive a store round trip and give the same state in any order", () => {
    for (const seed of DELIVERY_SEEDS.slice(0, 40)) {
      const rand = prng(seed);
      const ds = lifecycle().filter(() => rand() < 0.7);
      if (rand() < 0.3) ds.push(ev.error(at(int(rand, 40_000)), "720p"));
      if (rand() < 0.3) ds.push(ev.formatDeleted(at(int(rand, 40_000)), "240p"));
      if (rand() < 0.3) ds.push(delivery("video.moderated", at(int(rand, 40_000)), { video_id: VIDEO }));
      const a = applyAll(ds);
      expect(validateState(JSON.parse(JSON.stringify(a))), `seed ${seed}`).toEqual(a);
      const b = applyAll(shuffledWithDuplicates(rand, ds));
      // formats_ready is sticky; everything else must agree exactly.
      const { stage: sa, stageAt: ta, ...ra } = normalized(a);
      const { stage: sb, stageAt: tb, ...rb } = normalized(b);
      expect(rb, `seed ${seed}`).toEqual(ra);
      if (sa !== "formats_ready" && sb !== "formats_ready" && sa !== "encoding") {
        expect([sb, tb], `seed ${seed}`).toEqual([sa, ta]);
      }
    }
  });
});

describe("caps: a video's state stays bounded whatever the deliveries", () => {
  /** `{ a: { a: ... } }` nested `depth` levels (built without recursion). */
  function deep(depth: number): Record<string, unknown> {
    let v: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < depth; i++) v = { a: v };
    return v;
  }

  it(`keeps at most ${PRESET_CAP} presets and counts the other names once each`, () => {
    let s = initialState(CTX);
    for (let i = 0; i < 70; i++) s = applyDelivery(s, ev.processing(at(i), `p${i}`, 10));
    // Ignored names again (a later progress) are not counted twice; kept presets still move.
    for (let i = 60; i < 70; i++) s = applyDelivery(s, ev.processing(at(100 + i), `p${i}`, 50));
    s = applyDelivery(s, ev.ready(at(200), "p0"));
    expect(Object.keys(s.presets)).toHaveLength(PRESET_CAP);
    expect(s.ignoredPresets).toHaveLength(70 - PRESET_CAP);
    expect(s.presets.p0).toMatchObject({ status: "ready", progress: 100 });
    expect(s.presets.p69).toBeUndefined();
    expect(validateState(JSON.parse(JSON.stringify(s)))).toEqual(s);
  });

  it("long preset names are cut but stay distinct", () => {
    const names = Array.from({ length: 5 }, (_, i) => `${"n".repeat(5000)}${i}`);
    const s = applyAll(names.map((n, i) => ev.processing(at(i), n, 10)));
    const kept = Object.keys(s.presets);
    expect(kept).toHaveLength(5);
    for (const k of kept) expect(k.length).toBeLessThanOrEqual(NAME_KEPT_MAX);
  });

  it("milestones keep only what the message shows, each bounded", () => {
    const huge = "x".repeat(60_000);
    const s = applyAll([
      delivery("video.published", at(1), { owner_id: OWNER, video_id: VIDEO, blob: huge }),
      ev.error(at(2), "720p", { details: huge, nested: { deeper: [huge] } }),
      ev.error(at(3), "480p", { reason: "codec" }),
      delivery("video.moderated", at(4), { video_id: VIDEO, blob: huge }),
    ]);
    const data = (key: string) => s.milestones.find((m) => m.key.startsWith(key))?.data;
    expect(data("published")).toEqual({ owner_id: OWNER, video_id: VIDEO });
    expect(data("error:480p")).toEqual({
      owner_id: OWNER,
      video_id: VIDEO,
      preset_name: "480p",
      reason: "codec",
    });
    const big = data("error:720p") ?? {};
    expect(Object.keys(big).sort()).toEqual(["_truncated", "owner_id", "preset_name", "video_id"]);
    expect(String(big._truncated).length).toBeLessThanOrEqual(DETAILS_KEPT_MAX);
    for (const m of s.milestones) expect(JSON.stringify(m).length).toBeLessThan(MILESTONE_DATA_MAX + 400);
    expect(JSON.stringify(s).length).toBeLessThan(8_000);
  });

  it("refuses data nested too deep or of the wrong type, deterministically", () => {
    const poisoned = {
      ...ev.error(at(1), "720p"),
      data: { video_id: VIDEO, preset_name: "720p", x: deep(3600) },
    };
    // The dedupe key (and any hash) of such data works: no stack overflow.
    expect(dedupeKeyOf(poisoned as Delivery)).toMatch(/^[0-9a-f]{64}$/);
    const s = applyAll([ev.created(at(0))]);
    expect(() => applyDelivery(s, poisoned as Delivery)).toThrow(RefusedDelivery);
    expect(() => applyDelivery(s, poisoned as Delivery)).toThrow(/nests deeper/);
    const bad = (d: unknown) => () => applyDelivery(s, d as Delivery);
    expect(bad({ ...ev.processing(at(2), "720p", 5), data: { preset_name: 7, progress: 5 } })).toThrow(
      RefusedDelivery,
    );
    expect(bad({ ...ev.processing(at(2), "720p", 5), data: { preset_name: "720p" } })).toThrow(
      RefusedDelivery,
    );
    expect(bad({ ...ev.created(at(2)), timestamp: "soon" })).toThrow(RefusedDelivery);
    expect(bad({ ...ev.created(at(2)), data: null })).toThrow(RefusedDelivery);
    // Whatever the route's parser accepts is applied: the longest type it takes, 200 UTF-16 code
    // units of emoji (25 families of 8; one unit more is refused, test/platform/delivery-check).
    const longType = delivery("👩‍👩‍👧".repeat(25), at(3), { video_id: VIDEO });
    expect(longType.type).toHaveLength(200);
    expect(applyDelivery(s, longType).milestones).toHaveLength(1);
    // Nested within the limit is kept (bounded like any unknown event's data).
    expect(() =>
      applyDelivery(s, delivery("video.moderated", at(3), deep(DATA_DEPTH_MAX - 1))),
    ).not.toThrow();
  });

  it("copies only what a delivery changes: the rest is shared with the previous state", () => {
    const s = applyAll([ev.created(at(0)), ev.processing(at(1), "240p", 10), ev.published(at(2))]);
    const next = applyDelivery(s, ev.processing(at(3), "240p", 20));
    expect(next).not.toBe(s);
    expect(next.milestones).toBe(s.milestones);
    expect(next.presets).not.toBe(s.presets);
    const unknown = applyDelivery(next, delivery("video.moderated", at(4), { video_id: VIDEO }));
    expect(unknown.presets).toBe(next.presets);
  });

  it("a stored state with foreign data of any size or depth is bounded on read", () => {
    const s = applyAll([ev.created(at(0)), ev.error(at(1), "720p")]);
    const old = JSON.parse(JSON.stringify(s)) as VideoState;
    const m = old.milestones[0] as Milestone;
    m.data = { ...m.data, x: deep(3600), blob: "y".repeat(64 * 1024) };
    const read = validateState(old);
    if (!read) throw new Error("refused");
    expect(JSON.stringify(read.milestones[0]?.data).length).toBeLessThanOrEqual(MILESTONE_DATA_MAX + 50);
    // Later deliveries of the video go on (the old version threw here for ever).
    const next = applyDelivery(read, ev.published(at(5)));
    expect(next.stage).toBe("published");
    expect(validateState(JSON.parse(JSON.stringify(next)))).toEqual(next);
  });
});
