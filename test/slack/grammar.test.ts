import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENTS } from "../../src/domain/index.js";
import {
  commandText,
  parseEvents,
  parseLive,
  parseLivestreamRef,
  parseWebhook,
} from "../../src/slack/listeners/commands/grammar.js";

describe("/live grammar", () => {
  it.each([
    ["", { kind: "help" }],
    ["help", { kind: "help" }],
    ["  HELP ", { kind: "help" }],
    ["status x9b2k4m", { kind: "status", livestreamId: "x9b2k4m" }],
    ["Status   x9b2k4m ", { kind: "status", livestreamId: "x9b2k4m" }],
    ["ingest x9b2k4m", { kind: "ingest", livestreamId: "x9b2k4m" }],
    ["watch x9b2k4m", { kind: "watch", livestreamId: "x9b2k4m", dm: false }],
    [
      "Watch https://www.dailymotion.com/video/x9b2k4m",
      { kind: "watch", livestreamId: "x9b2k4m", dm: false },
    ],
    [
      "unwatch <https://www.dailymotion.com/video/x9b2k4m>",
      { kind: "unwatch", livestreamId: "x9b2k4m", dm: false },
    ],
    ["watch x9b2k4m dm", { kind: "watch", livestreamId: "x9b2k4m", dm: true }],
    [
      "watch https://www.dailymotion.com/video/x9b2k4m DM",
      { kind: "watch", livestreamId: "x9b2k4m", dm: true },
    ],
    ["unwatch x9b2k4m dm", { kind: "unwatch", livestreamId: "x9b2k4m", dm: true }],
    ["watching", { kind: "watching" }],
    [" WATCHING ", { kind: "watching" }],
    ["status https://www.dailymotion.com/video/x9b2k4m", { kind: "status", livestreamId: "x9b2k4m" }],
    ["status <https://www.dailymotion.com/video/x9b2k4m>", { kind: "status", livestreamId: "x9b2k4m" }],
    [
      "status <https://geo.example.com/player.html?video=x9b2k4m|player>",
      { kind: "status", livestreamId: "x9b2k4m" },
    ],
  ])("'%s'", (text, value) => {
    expect(parseLive(text)).toEqual({ ok: true, value });
  });

  it.each([
    "stat x1",
    "status",
    "ingest",
    "status a b",
    "status ../x",
    "status ftp://x/y",
    "status https://example.com/",
    "watch",
    "unwatch",
    "watch a b",
    "watch x9b2k4m dm dm",
    "watch dm",
    "status x9b2k4m dm",
    "ingest x9b2k4m dm",
    "watching x9b2k4m",
  ])("'%s' is a usage problem", (text) => {
    const r = parseLive(text);
    expect(r.ok).toBe(false);
  });

  it("echoes at most 80 characters of a bad argument", () => {
    const r = parseLivestreamRef("!".repeat(500));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem.length).toBeLessThan(140);
  });
});

describe("/webhook grammar", () => {
  it("set with events in any separator, prefix optional, duplicates dropped", () => {
    expect(parseWebhook("set x2vq8nw created,video.published  complete created")).toEqual({
      ok: true,
      value: {
        kind: "set",
        profile: "x2vq8nw",
        url: null,
        events: ["video.created", "video.published", "video.complete"],
      },
    });
  });

  it("set with no events or `all` means every event", () => {
    for (const text of ["set x2vq8nw", "set x2vq8nw all", "set x2vq8nw created all"]) {
      const r = parseWebhook(text);
      expect(r.ok && r.value.kind === "set" && r.value.events).toEqual([...WEBHOOK_EVENTS]);
    }
  });

  it("set with url= takes an https URL, also Slack-wrapped", () => {
    const r = parseWebhook("set x2vq8nw url=<https://hooks.example.com/a?b=1> format.error");
    expect(r).toEqual({
      ok: true,
      value: {
        kind: "set",
        profile: "x2vq8nw",
        url: "https://hooks.example.com/a?b=1",
        events: ["video.format.error"],
      },
    });
  });

  it.each([
    "set x2vq8nw url=http://hooks.example.com",
    "set x2vq8nw url=https://a.example url=https://b.example",
    "set x2vq8nw exploded",
    "set ../p",
    "show a b",
    "remove a b",
    "managers add bob",
    "managers add <@U1> extra",
    "managers promote <@U0ABC>",
    "events x2vq8nw exploded",
    "nope",
  ])("'%s' is a usage problem", (text) => {
    expect(parseWebhook(text).ok).toBe(false);
  });

  it("unknown events are named with the valid list", () => {
    const r = parseEvents(["created", "exploded", "melted"]);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problem).toContain("exploded, melted");
      expect(r.problem).toContain("video.format.processing");
    }
  });

  it("show/remove/test take an optional profile id", () => {
    expect(parseWebhook("show")).toEqual({ ok: true, value: { kind: "show", profile: null } });
    expect(parseWebhook("remove x2vq8nw")).toEqual({
      ok: true,
      value: { kind: "remove", profile: "x2vq8nw" },
    });
    expect(parseWebhook("test")).toEqual({ ok: true, value: { kind: "test", profile: null } });
  });

  it("events: alone, with a profile, with events, or both", () => {
    expect(parseWebhook("events")).toEqual({
      ok: true,
      value: { kind: "events", profile: null, events: null },
    });
    expect(parseWebhook("events x2vq8nw")).toEqual({
      ok: true,
      value: { kind: "events", profile: "x2vq8nw", events: null },
    });
    expect(parseWebhook("events created deleted")).toEqual({
      ok: true,
      value: { kind: "events", profile: null, events: ["video.created", "video.deleted"] },
    });
    expect(parseWebhook("events x2vq8nw format.ready,format.error")).toEqual({
      ok: true,
      value: { kind: "events", profile: "x2vq8nw", events: ["video.format.ready", "video.format.error"] },
    });
  });

  it("managers: list, add and remove with a mention or a raw id", () => {
    expect(parseWebhook("managers")).toEqual({ ok: true, value: { kind: "managers", action: "list" } });
    expect(parseWebhook("managers add <@U0MEMBER|member>")).toEqual({
      ok: true,
      value: { kind: "managers", action: "add", userId: "U0MEMBER" },
    });
    expect(parseWebhook("managers remove W0ABC")).toEqual({
      ok: true,
      value: { kind: "managers", action: "remove", userId: "W0ABC" },
    });
  });
});

describe("/webhook: a profile by name, or none (the menu)", () => {
  it("takes a profile's name where its id goes", () => {
    expect(parseWebhook("set northwind-news created")).toEqual({
      ok: true,
      value: { kind: "set", profile: "northwind-news", url: null, events: ["video.created"] },
    });
    expect(parseWebhook("unsubscribe Northwind_News")).toEqual({
      ok: true,
      value: { kind: "unsubscribe", profile: "Northwind_News" },
    });
    expect(parseWebhook("set north.wind")).toMatchObject({ ok: false });
  });

  it("set and subscribe without a profile: the first word is an event or an option", () => {
    expect(parseWebhook("set")).toEqual({
      ok: true,
      value: { kind: "set", profile: null, url: null, events: [...WEBHOOK_EVENTS] },
    });
    expect(parseWebhook("set created,published url=https://hooks.example.com/a")).toEqual({
      ok: true,
      value: {
        kind: "set",
        profile: null,
        url: "https://hooks.example.com/a",
        events: ["video.created", "video.published"],
      },
    });
    expect(parseWebhook("subscribe preset=720p mention=@here")).toEqual({
      ok: true,
      value: {
        kind: "subscribe",
        profile: null,
        events: [...WEBHOOK_EVENTS],
        presets: ["720p"],
        mention: "here",
      },
    });
    expect(parseWebhook("subscribe format.error")).toMatchObject({
      ok: true,
      value: { profile: null, events: ["video.format.error"] },
    });
  });

  it("commandText reads back into the same command, with the profile given or left out", () => {
    for (const text of [
      "set x2vq8nw",
      "set x2vq8nw created published",
      "set x2vq8nw url=https://hooks.example.com/a?b=1 format.error",
      "show x2vq8nw",
      "events x2vq8nw",
      "events x2vq8nw all",
      "events x2vq8nw deleted format.error",
      "remove x2vq8nw",
      "test x2vq8nw",
      "subscribe x2vq8nw format.error preset=720p,1080p mention=<@U0ALEX>",
      "subscribe x2vq8nw mention=@here",
      "subscriptions x2vq8nw",
    ]) {
      const parsed = parseWebhook(text);
      if (!parsed.ok || !("profile" in parsed.value)) throw new Error(text);
      const cmd = parsed.value;
      expect(parseWebhook(commandText(cmd, "x2vq8nw")), text).toEqual(parsed);
      const [sub, ...rest] = commandText(cmd, null).split(" ");
      expect(parseWebhook([sub, "x9other", ...rest].join(" ")), text).toEqual({
        ok: true,
        value: { ...cmd, profile: "x9other" },
      });
    }
  });
});

describe("/webhook subscribe|unsubscribe|subscriptions grammar", () => {
  it("reads events, formats and a mention of @here or one person", () => {
    expect(parseWebhook("subscribe x1abc format.error preset=720p,1080p mention=@here")).toEqual({
      ok: true,
      value: {
        kind: "subscribe",
        profile: "x1abc",
        events: ["video.format.error"],
        presets: ["720p", "1080p"],
        mention: "here",
      },
    });
    const person = parseWebhook("subscribe x1abc mention=<@U0ALEX|alex>");
    expect(person).toMatchObject({
      ok: true,
      value: { mention: "U0ALEX", presets: [], events: [...WEBHOOK_EVENTS] },
    });
    expect(parseWebhook("unsubscribe x1abc")).toEqual({
      ok: true,
      value: { kind: "unsubscribe", profile: "x1abc" },
    });
    expect(parseWebhook("subscriptions")).toEqual({
      ok: true,
      value: { kind: "subscriptions", profile: null },
    });
  });

  it("refuses anything else that could be injected or is malformed", () => {
    for (const text of [
      "subscribe x1abc mention=@channel",
      "subscribe x1abc mention=<!channel>",
      "subscribe x1abc mention=<!everyone>",
      "subscribe x1abc mention=<@U0ALEX><!here>",
      "subscribe x1abc mention=<@U0ALEX|<!here>>",
      "subscribe x1abc mention=here",
      "subscribe x1abc mention=@here mention=@here",
      "subscribe x1abc preset=",
      "subscribe x1abc preset=<!here>",
      "subscribe x1abc preset=720p preset=1080p",
      "subscribe x1abc nonsense",
      "unsubscribe",
      "unsubscribe x1abc x2def",
    ]) {
      expect(parseWebhook(text).ok, text).toBe(false);
    }
  });
});

describe("/webhook subscribe digest=, pause and resume grammar", () => {
  it("reads digest=daily|weekly [at=HH:MM] and digest=off; alone they keep the channel's filter", () => {
    expect(parseWebhook("subscribe x1abc digest=daily at=07:30")).toEqual({
      ok: true,
      value: {
        kind: "subscribe",
        profile: "x1abc",
        events: [...WEBHOOK_EVENTS],
        presets: [],
        mention: null,
        digest: { every: "daily", at: "07:30" },
        keepFilters: true,
      },
    });
    expect(parseWebhook("subscribe x1abc format.error digest=WEEKLY")).toMatchObject({
      ok: true,
      value: { events: ["video.format.error"], digest: { every: "weekly", at: null } },
    });
    const withFilter = parseWebhook("subscribe x1abc format.error digest=weekly");
    expect(withFilter.ok && "keepFilters" in withFilter.value).toBe(false);
    expect(parseWebhook("subscribe digest=off")).toMatchObject({
      ok: true,
      value: { profile: null, digest: "off", keepFilters: true },
    });
  });

  it("reads pause <profile> <duration> (or the duration alone) and resume [profile]", () => {
    expect(parseWebhook("pause x1abc 2h")).toEqual({
      ok: true,
      value: { kind: "pause", profile: "x1abc", duration: "2h", ms: 7_200_000 },
    });
    expect(parseWebhook("pause 1h30m")).toEqual({
      ok: true,
      value: { kind: "pause", profile: null, duration: "1h30m", ms: 5_400_000 },
    });
    expect(parseWebhook("pause x1abc 1d")).toMatchObject({ ok: true, value: { ms: 86_400_000 } });
    expect(parseWebhook("pause x1abc 7d")).toMatchObject({ ok: true, value: { ms: 7 * 86_400_000 } });
    expect(parseWebhook("resume")).toEqual({ ok: true, value: { kind: "resume", profile: null } });
    expect(parseWebhook("resume x1abc")).toEqual({ ok: true, value: { kind: "resume", profile: "x1abc" } });
  });

  it("refuses what is not a digest, a time of day or a sane duration, with what to type", () => {
    for (const [text, says] of [
      ["subscribe x1abc digest=hourly", "`digest=` takes `daily`, `weekly` or `off`"],
      ["subscribe x1abc at=09:00", "`at=` goes with `digest=daily` or `digest=weekly`"],
      ["subscribe x1abc digest=off at=09:00", "`at=` goes with"],
      ["subscribe x1abc digest=daily at=24:00", "HH:MM (00:00 to 23:59)"],
      ["subscribe x1abc digest=daily at=9am", '"9am" is not one'],
      ["subscribe x1abc digest=daily digest=weekly", "only once"],
      ["pause x1abc", 'needs a duration after "x1abc"'],
      ["pause x1abc soon", '"soon" is not a duration'],
      ["pause x1abc 4s", "from 5s to 7d"],
      ["pause x1abc 8d", "from 5s to 7d"],
      ["pause x1abc 2h extra", "takes the profile"],
      ["pause", "takes the profile"],
      ["resume x1abc x2def", "at most one profile"],
    ] as const) {
      const parsed = parseWebhook(text);
      expect(parsed.ok, text).toBe(false);
      if (!parsed.ok) expect(parsed.problem, text).toContain(says);
    }
  });

  it("commandText reads digest, pause and resume back into the same command", () => {
    for (const text of [
      "subscribe x2vq8nw digest=daily at=07:30",
      "subscribe x2vq8nw format.error preset=720p digest=weekly",
      "subscribe x2vq8nw digest=off",
      "pause x2vq8nw 1h30m",
      "resume x2vq8nw",
    ]) {
      const parsed = parseWebhook(text);
      if (!parsed.ok || !("profile" in parsed.value)) throw new Error(text);
      const cmd = parsed.value;
      expect(parseWebhook(commandText(cmd, "x2vq8nw")), text).toEqual(parsed);
      const [sub, ...rest] = commandText(cmd, null).split(" ");
      expect(parseWebhook([sub, "x9other", ...rest].join(" ")), text).toEqual({
        ok: true,
        value: { ...cmd, profile: "x9other" },
      });
    }
  });
});
