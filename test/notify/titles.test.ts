/**
 * Videos named by their title (issue 19), over the real path: the sandbox delivers to the bot's
 * route, the worker reads `GET /v2/videos/{id}?fields=title` from the sandbox (counted there) and
 * posts to the Slack stand-in; slash commands are signed requests. On the three stores: the title
 * is read once per video however many events, channels, restarts or replicas; the first post
 * never waits more than 2 s for it; a failing read keeps the id; a video the platform does not
 * have (404) is marked so and never pings; a key without `video.read` loses titles and mentions
 * (nothing confirms a video); an answer without the owning profile is answered as a 404.
 * "Nothing more is written" is judged once the outbox is empty and the worker idle
 * (test/support/settle.ts); a token's expiry is waited for from when it was granted, not slept.
 */
import { afterAll, describe, expect, it } from "vitest";
import { lifecycleEvents } from "../../fakes/platform/deliver.js";
import { SEED } from "../../fakes/platform/server.js";
import { eventBody, sendSigned } from "../../fakes/slack/index.js";

/** The `/webhook test` sample video's title (src/notify/sample.ts). */
const SAMPLE_TITLE = "Sample video from /webhook test";

import {
  type Bot,
  eventually,
  type Harness,
  SIGNING_SECRET,
  startBot,
  startHarness,
  waitFor,
} from "../support/harness.js";
import { idlePolls, settled } from "../support/settle.js";
import { scratchStores } from "../support/stores.js";

const PROFILE = SEED.profiles.newsroom;
const NEWS = "C0NEWS";
const GENERAL = "C0GENERAL";
const WORKER = { coalesceMs: 100, postIntervalMs: 10, pollMs: 10 };

/** Lifetime of the sandbox's tokens in the test that narrows the key (tokenLifetimeSeconds). */
const TOKEN_LIFETIME_MS = 2_000;

const { storeFor, cleanup } = scratchStores("titles");
afterAll(cleanup);

const json = (v: unknown) => JSON.stringify(v);
type Block = Record<string, unknown>;
const blocksOf = (m: { blocks?: unknown[] } | undefined): Block[] => (m?.blocks ?? []) as Block[];

/** The header's text (the title), if the message has one. */
function headerOf(m: { blocks?: unknown[] } | undefined): string | undefined {
  const h = blocksOf(m).find((b) => b.type === "header");
  return (h?.text as { text?: string } | undefined)?.text;
}

/** Every mrkdwn text of the blocks (what Slack interprets). */
function mrkdwnTexts(m: { blocks?: unknown[] } | undefined): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === "object" && v !== null) {
      const o = v as Record<string, unknown>;
      if (o.type === "mrkdwn" && typeof o.text === "string") out.push(o.text);
      for (const x of Object.values(o)) walk(x);
    }
  };
  walk(m?.blocks);
  return out;
}

function videoMessages(h: Harness, channel: string, videoId: string) {
  const all = h.slack.messages(channel);
  const parents = all.filter(
    (m) => !m.thread_ts && json(m).includes(videoId) && !/^Test lifecycle/.test(m.text),
  );
  const ts = parents[0]?.ts;
  return { parent: parents[0], parents, thread: ts ? all.filter((m) => m.thread_ts === ts) : [] };
}

const videoReads = (h: Harness, videoId: string) =>
  h.sandbox.requests.filter((r) => r.method === "GET" && r.path === `/v2/videos/${videoId}`).length;

async function subscribe(h: Harness, channel: string, rest = "") {
  const res = await h.slash("/webhook", `subscribe ${PROFILE} ${rest}`.trim(), { channel });
  expect((await h.answer(res.responseUrl)).response_type).toBe("in_channel");
}

function complete(h: Harness, channel: string, videoId: string, title?: string) {
  const v = videoMessages(h, channel, videoId);
  return (
    v.parents.length === 1 &&
    /complete/i.test(v.parent?.text ?? "") &&
    v.thread.some((m) => /complete/i.test(m.text)) &&
    (title === undefined || headerOf(v.parent) === title)
  );
}

describe.each(["memory", "sqlite", "redis"] as const)("video titles (%s store)", (kind) => {
  it("titled messages in two channels; one read for 36 events, both channels and a restart", async () => {
    const s = storeFor(kind);
    const h = await startHarness({ ...s, worker: WORKER });
    let second: Bot | undefined;
    try {
      await h.configureProfile({ channel: NEWS });
      // A second channel gets every event too: each video is copied to two channels' keys.
      await subscribe(h, GENERAL);
      const videoId = `x7ttl${kind}`;
      const results = await h.sandbox.deliverLifecycle(PROFILE, {
        videoId,
        presets: ["240p", "480p", "720p"],
        progressSteps: 10,
        deliverTo: h.url,
        force: true,
      });
      expect(results).toHaveLength(36);
      expect(results.every((r) => r.status === 200)).toBe(true);
      const title = h.sandbox.state.videos.get(videoId)?.title ?? "";
      expect(title.length).toBeGreaterThan(5);
      await waitFor(
        () => complete(h, NEWS, videoId, title) && complete(h, GENERAL, videoId, title),
        20_000,
        "the titled video in both channels",
      );
      for (const channel of [NEWS, GENERAL]) {
        const v = videoMessages(h, channel, videoId);
        // Posted with the title (the sandbox answers at once), the id kept beside it.
        const post = h.slack.calls.find(
          (c) => c.method === "chat.postMessage" && c.args.channel === channel && !c.args.thread_ts,
        );
        expect(json(post?.args.blocks)).toContain(title);
        // The profile by its display name, its id beside it.
        expect(json(post?.args.blocks)).toContain("profile Northwind News (`x2vq8nw`)");
        expect(v.parent?.text.startsWith(title)).toBe(true);
        expect(json(v.parent)).toContain(videoId);
        // The thread's milestones name it too.
        expect(v.thread.length).toBeGreaterThanOrEqual(2);
        for (const m of v.thread) {
          expect(m.text.startsWith(`${title}:`)).toBe(true);
          expect(json(m.blocks)).toContain(title);
        }
      }
      expect(videoReads(h, videoId)).toBe(1);

      // The platform deletes the video: a read now would answer 404. The message keeps its title.
      h.sandbox.deleteVideo(videoId);
      let target = h.url;
      if (kind !== "memory") {
        // A restart on the same store: the state has the title; nothing is read again.
        await h.built.stop();
        second = await startBot(h.config, h.logger, { ...s, worker: WORKER });
        target = second.url;
      }
      const deleted = await h.sandbox.deliver(
        PROFILE,
        { type: "video.deleted", data: { owner_id: PROFILE, video_id: videoId } },
        { deliverTo: target, force: true, unknownVideo: true },
      );
      expect(deleted.status).toBe(200);
      await waitFor(
        () =>
          [NEWS, GENERAL].every((c) => {
            const v = videoMessages(h, c, videoId);
            return /deleted/i.test(v.parent?.text ?? "") && v.thread.some((m) => /deleted/i.test(m.text));
          }),
        15_000,
        "the deletion in both channels",
      );
      for (const channel of [NEWS, GENERAL]) {
        const v = videoMessages(h, channel, videoId);
        expect(headerOf(v.parent)).toBe(title);
        expect(json(v.parent)).not.toContain("Not confirmed");
      }
      expect(videoReads(h, videoId)).toBe(1);
    } finally {
      await second?.close();
      await h.close();
    }
  }, 90_000);
});

describe("two replicas on one Redis", () => {
  it("read a video's title once between them, while its two channels' copies run on both", async () => {
    const s = storeFor("redis");
    const h = await startHarness({ ...s, worker: { ...WORKER, owner: "replica-a" } });
    const b = await startBot(h.config, h.logger, { ...s, worker: { ...WORKER, owner: "replica-b" } });
    try {
      await h.configureProfile({ channel: NEWS });
      await subscribe(h, GENERAL);
      // A slow read, so that both replicas look for the title while it is in flight.
      h.sandbox.addFault({ path: "/v2/videos/", latencyMs: 1_000 });
      const ids = ["x7rpa1", "x7rpa2", "x7rpa3"];
      await Promise.all(
        ids.map((videoId, i) =>
          h.sandbox.deliverLifecycle(PROFILE, {
            videoId,
            presets: ["240p", "720p"],
            progressSteps: 4,
            deliverTo: i % 2 === 0 ? h.url : b.url,
            force: true,
            concurrency: 2,
          }),
        ),
      );
      const titles = ids.map((id) => h.sandbox.state.videos.get(id)?.title ?? "?");
      await waitFor(
        () => ids.every((id, i) => complete(h, NEWS, id, titles[i]) && complete(h, GENERAL, id, titles[i])),
        30_000,
        "every video titled in both channels",
      );
      for (const id of ids) expect(videoReads(h, id)).toBe(1);
    } finally {
      await b.close();
      await h.close();
    }
  }, 60_000);
});

describe("a slow or refusing platform never holds a message back", () => {
  it("a read answering in 5 s: the first post within 2 s with the id, the title in place after", async () => {
    const h = await startHarness({ worker: WORKER });
    try {
      await h.configureProfile({ channel: NEWS });
      h.sandbox.addFault({ path: "/v2/videos/", latencyMs: 5_000, times: 1 });
      const videoId = "x7slow5";
      const started = Date.now();
      const results = await h.sandbox.deliverLifecycle(PROFILE, { videoId, deliverTo: h.url, force: true });
      expect(results.every((r) => r.status === 200)).toBe(true);
      const first = await waitFor(
        () =>
          h.slack.calls.find(
            (c) => c.method === "chat.postMessage" && c.args.channel === NEWS && !c.args.thread_ts && c.ok,
          ),
        10_000,
        "the first post",
      );
      // 2 s of waiting for the title at most, plus room for a loaded machine: well before the 5 s read.
      expect(first.at - started).toBeLessThan(4_000);
      expect(json(first.args.blocks)).not.toContain('"header"');
      expect(json(first.args.blocks)).toContain(videoId);
      const title = h.sandbox.state.videos.get(videoId)?.title ?? "";
      await waitFor(() => complete(h, NEWS, videoId, title), 15_000, "the title in place");
      const v = videoMessages(h, NEWS, videoId);
      expect(v.parents).toHaveLength(1);
      expect(videoReads(h, videoId)).toBe(1);
      // Nothing more was coming (complete before the title): one chat.update brought it, the last one.
      await settled(h.outbox);
      const updates = h.slack.calls.filter((c) => c.method === "chat.update" && c.args.channel === NEWS);
      expect(updates.filter((c) => json(c.args.blocks).includes('"header"'))).toHaveLength(1);
      expect(json(updates.at(-1)?.args.blocks)).toContain('"header"');
    } finally {
      await h.close();
    }
  }, 40_000);

  it("a title that comes while the lifecycle goes on rides on its next update: no write of its own", async () => {
    const h = await startHarness({ worker: WORKER });
    try {
      await h.configureProfile({ channel: NEWS });
      h.sandbox.addFault({ path: "/v2/videos/", latencyMs: 3_000, times: 1 });
      const videoId = "x7ride3";
      const events = lifecycleEvents(PROFILE, { videoId, progressSteps: 4 }, Date.now());
      const send = async (list: typeof events) => {
        for (const e of list) {
          const r = await h.sandbox.deliver(PROFILE, e, { deliverTo: h.url, force: true });
          expect(r.status).toBe(200);
        }
      };
      await send(events.slice(0, 5)); // created and the first progress
      const writes = () =>
        h.slack.calls.filter(
          (c) => c.args.channel === NEWS && (c.method === "chat.postMessage" || c.method === "chat.update"),
        );
      await waitFor(() => writes().length === 1, 10_000, "the first post, with the id");
      // The title comes at about 3 s; the video is still encoding: no update for it alone.
      await waitFor(
        () => h.sandbox.requests.find((r) => r.path === `/v2/videos/${videoId}`)?.status === 200,
        10_000,
        "the slow title read",
      );
      // The worker had its chance with the title: several polls since that found nothing due.
      await idlePolls(h.outbox, { polls: 10 });
      expect(writes()).toHaveLength(1);
      expect(headerOf(videoMessages(h, NEWS, videoId).parent)).toBeUndefined();
      // The next events: their update carries the title, at once.
      const resumed = Date.now();
      await send(events.slice(5));
      const title = h.sandbox.state.videos.get(videoId)?.title ?? "";
      await waitFor(() => complete(h, NEWS, videoId, title), 15_000, "the titled video");
      const next = writes()[1];
      expect(next?.method).toBe("chat.update");
      expect(json(next?.args.blocks)).toContain(title);
      expect((next?.at ?? Number.POSITIVE_INFINITY) - resumed).toBeLessThan(3_000);
      expect(videoReads(h, videoId)).toBe(1);
    } finally {
      await h.close();
    }
  }, 40_000);

  it("422, 404, 503 and 403 keep the id and the lifecycle completes; a 404 is marked not confirmed", async () => {
    const h = await startHarness({ worker: WORKER });
    try {
      await h.configureProfile({ channel: NEWS });
      const run = async (videoId: string, unknownVideo = false) => {
        const r = await h.sandbox.deliverLifecycle(PROFILE, {
          videoId,
          deliverTo: h.url,
          force: true,
          unknownVideo,
        });
        expect(r.every((x) => x.status === 200)).toBe(true);
        await waitFor(() => complete(h, NEWS, videoId), 15_000, `video ${videoId} complete`);
        return videoMessages(h, NEWS, videoId);
      };
      h.sandbox.addFault({ path: "/v2/videos/x7st422", status: 422 });
      const refused = await run("x7st422");
      expect(headerOf(refused.parent)).toBeUndefined();
      expect(refused.parent?.text.startsWith("Video x7st422")).toBe(true);
      expect(json(refused.parent)).not.toContain("Not confirmed");

      const unknown = await run("x7st404", true);
      expect(headerOf(unknown.parent)).toBeUndefined();
      expect(json(unknown.parent)).toContain("x7st404");
      expect(json(unknown.parent)).toContain("Not confirmed by the platform");
      expect(h.sandbox.requests.find((r) => r.path === "/v2/videos/x7st404")?.status).toBe(404);

      // A failing platform: one attempt (a title read is charged to the workspace's budget and is
      // never retried), then the id stays.
      h.sandbox.addFault({ path: "/v2/videos/x7st503", status: 503 });
      const failing = await run("x7st503");
      expect(headerOf(failing.parent)).toBeUndefined();
      expect(json(failing.parent)).not.toContain("Not confirmed");
      expect(videoReads(h, "x7st503")).toBe(1);

      // Last: a 403 pauses title reads for a while (src/platform/names.ts).
      h.sandbox.addFault({ path: "/v2/videos/x7st403", status: 403 });
      const forbidden = await run("x7st403");
      expect(headerOf(forbidden.parent)).toBeUndefined();
      expect(json(forbidden.parent)).toContain("x7st403");
      expect(json(forbidden.parent)).not.toContain("Not confirmed");
      for (const id of ["x7st422", "x7st404", "x7st403"]) expect(videoReads(h, id)).toBe(1);
    } finally {
      await h.close();
    }
  }, 60_000);
});

describe("mentions only for videos the platform confirms", () => {
  it("a made-up video (404) never pings; a real one does", async () => {
    const h = await startHarness({ worker: WORKER });
    try {
      await h.configureProfile({ channel: NEWS });
      await subscribe(h, GENERAL, "format.error mention=@here");
      const errorIn = (videoId: string) =>
        videoMessages(h, GENERAL, videoId).thread.find((m) => /encoding of/i.test(m.text));
      for (const [videoId, unknownVideo] of [
        ["x7fake404", true],
        ["x7real200", false],
      ] as const) {
        const r = await h.sandbox.deliverLifecycle(PROFILE, {
          videoId,
          presets: ["240p", "720p"],
          progressSteps: 2,
          formatError: "720p",
          deliverTo: h.url,
          force: true,
          unknownVideo,
        });
        expect(r.every((x) => x.status === 200)).toBe(true);
        await waitFor(() => errorIn(videoId), 15_000, `the format error of ${videoId}`);
      }
      const fake = errorIn("x7fake404");
      expect(json(fake)).not.toContain("<!here>");
      expect(json(fake)).toContain("the platform does not confirm this video");
      const real = errorIn("x7real200");
      expect(real?.text).toMatch(/^<!here> /);
      expect(json(real?.blocks)).toContain("<!here>");
    } finally {
      await h.close();
    }
  }, 40_000);
});

describe("a delivery naming a video the answer does not show is the profile's", () => {
  it.each([
    ["another profile's video", "x7other1"],
    ["a video whose answer names no profile", "x7noown1"],
  ])(
    "%s: neither its title nor a mention; answered as a video the platform does not have",
    async (_what, videoId) => {
      const h = await startHarness({ worker: WORKER });
      try {
        await h.configureProfile({ channel: NEWS });
        await subscribe(h, GENERAL, "format.error mention=@here");
        // The one key reads every profile's videos: this one belongs to another profile.
        h.sandbox.putVideo({
          video_id: videoId,
          profile_id: SEED.profiles.studio,
          title: "Unreleased: the studio's secret cut",
          visibility: "public",
        });
        // No owner in the answer: the video's profile is unknown to the platform's answer.
        const stored = h.sandbox.state.videos.get(videoId);
        if (stored && videoId === "x7noown1") stored.profile_id = "x0noprofile";
        const r = await h.sandbox.deliverLifecycle(PROFILE, {
          videoId: videoId,
          presets: ["240p", "720p"],
          progressSteps: 2,
          formatError: "720p",
          deliverTo: h.url,
          force: true,
        });
        expect(r.every((x) => x.status === 200)).toBe(true);
        await waitFor(() => complete(h, NEWS, videoId), 15_000, "the lifecycle in #news");
        const errorIn = () =>
          videoMessages(h, GENERAL, videoId).thread.find((m) => /encoding of/i.test(m.text));
        await waitFor(errorIn, 15_000, "the format error");
        expect(videoReads(h, videoId)).toBe(1);
        const everything = json(h.slack.calls);
        expect(everything).not.toContain("secret cut");
        expect(json(errorIn())).not.toContain("<!here>");
        expect(json(videoMessages(h, NEWS, videoId).parent)).toContain("Not confirmed by the platform");
      } finally {
        await h.close();
      }
    },
    40_000,
  );
});

describe("a key without video.read", () => {
  it("loses titles and mentions: no video read, every message posted, no ping (nothing confirms the video)", async () => {
    // Short-lived tokens: the next token after the key loses `video.read` comes within seconds.
    const h = await startHarness({
      worker: WORKER,
      sandbox: { tokenLifetimeSeconds: TOKEN_LIFETIME_MS / 1000 },
    });
    try {
      await h.configureProfile({ channel: NEWS });
      await subscribe(h, GENERAL, "format.error mention=@here");
      const send = async (videoId: string, pinged: boolean) => {
        const r = await h.sandbox.deliverLifecycle(PROFILE, {
          videoId,
          presets: ["240p", "720p"],
          progressSteps: 3,
          formatError: "720p",
          deliverTo: h.url,
          force: true,
        });
        expect(r.every((x) => x.status === 200)).toBe(true);
        await waitFor(() => complete(h, NEWS, videoId), 15_000, `video ${videoId} complete`);
        const error = await waitFor(
          () => videoMessages(h, GENERAL, videoId).thread.find((m) => /encoding of/i.test(m.text)),
          15_000,
          `the format error of ${videoId}`,
        );
        expect(/^<!here> /.test(error.text)).toBe(pinged);
        if (!pinged) expect(json(error)).toContain("No mention");
        return videoMessages(h, NEWS, videoId);
      };
      // With the scope: titled.
      const titled = await send("x7scoped", true);
      expect(headerOf(titled.parent)).toBe(h.sandbox.state.videos.get("x7scoped")?.title);

      // The key loses `video.read`; the next token is granted without it.
      h.sandbox.setKeyScopes({ scopes: ["live.read", "profile.manage"], onMissing: "narrow" });
      // Until every token granted so far has expired (a lifetime after the last token request):
      // the bot needs the next one.
      const granted = h.sandbox.requests.filter((x) => x.path === "/v2/token").map((x) => x.at);
      if (granted.length === 0) throw new Error("no token was requested");
      const expiry = Math.max(...granted) + TOKEN_LIFETIME_MS;
      await waitFor(() => Date.now() >= expiry, 10_000, "the tokens granted so far to expire");
      const reads = h.sandbox.requests.filter((x) => x.path.startsWith("/v2/videos/")).length;
      const v = await send("x7noscope", false);
      expect(headerOf(v.parent)).toBeUndefined();
      expect(v.parent?.text.startsWith("Video x7noscope")).toBe(true);
      expect(json(v.parent)).not.toContain("Not confirmed");
      expect(h.sandbox.requests.filter((x) => x.path.startsWith("/v2/videos/"))).toHaveLength(reads);
    } finally {
      await h.close();
    }
  }, 40_000);
});

describe("titles are user content", () => {
  it("a title full of Slack syntax is never interpreted; the sample, Home and dead-letter notice are titled", async () => {
    const h = await startHarness({ worker: WORKER });
    try {
      await h.configureProfile({ channel: NEWS });
      const videoId = SEED.videos.tricky;
      const title = h.sandbox.state.videos.get(videoId)?.title ?? "";
      expect(title).toContain("<!channel>");
      await h.sandbox.deliverLifecycle(PROFILE, { videoId, deliverTo: h.url, force: true });
      await waitFor(() => complete(h, NEWS, videoId, title), 15_000, "the tricky video");
      const v = videoMessages(h, NEWS, videoId);
      for (const m of [v.parent, ...v.thread]) {
        // Plain text blocks carry it literally; nothing Slack interprets holds its syntax.
        for (const t of mrkdwnTexts(m)) {
          expect(t).not.toContain("<!channel>");
          expect(t).not.toContain("<https://evil.example");
        }
        expect(m?.text).not.toContain("<!channel>");
        expect(m?.text).not.toContain("<https://evil.example");
        expect(m?.text).toContain("&lt;!channel&gt;");
      }

      // `/webhook test`: the sample video has a title of its own, and is not read.
      const res = await h.slash("/webhook", "test", { channel: NEWS });
      const answer = json(await h.answer(res.responseUrl));
      const sample = /`(xtest[0-9a-f]+)`/.exec(answer)?.[1] ?? "";
      expect(sample).not.toBe("");
      await waitFor(() => complete(h, NEWS, sample, SAMPLE_TITLE), 15_000, "the titled sample");
      expect(videoReads(h, sample)).toBe(0);

      // The App Home names the last video by its title (recorded once the worker's pass ends).
      let published = h.slack.callsTo("views.publish").length;
      const home = await eventually(
        async () => {
          published = h.slack.callsTo("views.publish").length;
          const opened = await sendSigned(
            h.eventsUrl,
            eventBody({
              teamId: h.slack.teamId,
              event: { type: "app_home_opened", user: "U0ADMIN", channel: "D0HOME", tab: "home" },
            }),
            SIGNING_SECRET,
          );
          expect(opened.status).toBe(200);
          await waitFor(() => h.slack.callsTo("views.publish").length > published, 5_000, "a home view");
          const view = json(h.slack.homeView("U0ADMIN") ?? null);
          return view.includes(SAMPLE_TITLE) ? view : undefined;
        },
        10_000,
        "the sample's title on the home view",
      );
      expect(home).toContain("Last video");

      // A channel the bot cannot post in: the managers' notice names the video by its title.
      await h.configureProfile({ channel: "C0PRIVATE" });
      const lost = "x8nw5fq";
      const lostTitle = h.sandbox.state.videos.get(lost)?.title ?? "";
      await h.sandbox.deliverLifecycle(PROFILE, { videoId: lost, deliverTo: h.url, force: true });
      const dm = await waitFor(
        () => h.slack.calls.find((c) => c.method === "chat.postMessage" && c.args.channel === "U0ADMIN"),
        15_000,
        "the notice to the manager",
      );
      expect(String(dm.args.text)).toContain(lostTitle);
      expect(String(dm.args.text)).toContain(lost);
    } finally {
      await h.close();
    }
  }, 60_000);
});
