/**
 * `npm run demo`: the scenario runs to completion in-process and tells the story a Slack user would
 * see (status card, refusal, masked ingest, webhook confirmation, one message per video kept up to
 * date, milestones in threads, a duplicate shown once), writes an escaped HTML page of the
 * channel, and the CLI exits by itself with code 0.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDemo } from "../demo/run.js";
import { SEED } from "../fakes/platform/server.js";

let dir: string;
let result: { lines: string[]; htmlPath: string };
let printed: string[];
let elapsedMs: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "demo-test-"));
  printed = [];
  const started = Date.now();
  result = await runDemo({ out: (line) => printed.push(line), htmlPath: join(dir, "out", "channel.html") });
  elapsedMs = Date.now() - started;
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The transcript's entries: a header line and the message lines (│) under it. */
function entries(lines: string[]): Array<{ head: string; body: string }> {
  const out: Array<{ head: string; body: string }> = [];
  for (const line of lines) {
    if (/^(#|DM @)\S+ {2}(✉|✎|↳|⤷)/.test(line)) out.push({ head: line, body: "" });
    else if (/^ {3}│ /.test(line) && out.length > 0) {
      const last = out[out.length - 1];
      if (last) last.body += `${line.slice(5)}\n`;
    }
  }
  return out;
}

describe("npm run demo, in-process", () => {
  it("finishes in well under a minute and prints as it goes", () => {
    expect(elapsedMs).toBeLessThan(60_000);
    expect(result.lines).toEqual(printed);
    expect(result.lines.length).toBeGreaterThan(50);
  });

  it("runs one wait_until_live workflow step to completion when the show goes on air", () => {
    const text = result.lines.join("\n");
    expect(text).toContain('reached its step "Wait until a livestream is live"');
    expect(text).toMatch(
      /workflow step wait_until_live → completed \(functions\.completeSuccess\): on_air true/,
    );
  });

  it("shows the status card of the on-air stream in the channel", () => {
    const card = entries(result.lines).find((e) => e.body.includes("Northwind Morning Live"));
    expect(card?.head).toMatch(/^#video-news {2}✉ new message \(ts \d+\.\d+\)$/);
    expect(card?.body).toContain("*On air*");
    expect(card?.body).toMatch(/Advertising\s+📺 Ad break running/);
    expect(card?.body).toContain("[🔄 Refresh]");
    expect(card?.body).not.toMatch(/<!date|<@U|<https?:/);
  });

  it("refuses ingest to a member and shows it masked to the admin, never the key", () => {
    const all = entries(result.lines);
    const refusal = all.find((e) => e.body.includes("Only managers can see ingest addresses"));
    expect(refusal?.head).toContain("(only visible to @sam)");
    const ingest = all.find((e) => e.body.includes("Ingest addresses of"));
    expect(ingest?.head).toContain("(only visible to @alex)");
    expect(ingest?.body).toContain("rtmp://publish.example.net/live/sk_live_••••");
    const text = result.lines.join("\n");
    expect(text).not.toContain(SEED.streamKey);
    expect(text).not.toMatch(/sk_live_[A-Za-z0-9]/);
    expect(readFileSync(result.htmlPath, "utf8")).not.toContain(SEED.streamKey);
  });

  it("confirms the webhook in the channel, and /webhook show reads it back", () => {
    const all = entries(result.lines);
    const set = all.find((e) => e.body.includes("Webhook set for profile"));
    expect(set?.head).toMatch(/✉ new message/);
    expect(set?.head).not.toContain("only visible");
    expect(set?.body).toContain("@alex");
    expect(set?.body).toContain("#video-news");
    // The profile by its display name (and its id).
    const show = all.filter((e) =>
      e.body.includes(`Webhook of profile Northwind News (\`${SEED.profiles.newsroom}\`)`),
    );
    expect(show.length).toBeGreaterThanOrEqual(2);
    expect(show.at(-1)?.head).toContain("(only visible to @alex)");
    expect(result.lines.join("\n")).not.toMatch(/hooks\/platform\/[A-Za-z0-9_-]{20,}/);
  });

  it("posts one parent message per video, edits it, and puts the milestones in its thread", () => {
    const all = entries(result.lines);
    for (const video of ["x8nw5fq", "x8nw6kd"]) {
      const parents = all.filter(
        (e) => e.head.startsWith("#video-news") && e.head.includes("✉ new message") && e.body.includes(video),
      );
      expect(parents, video).toHaveLength(1);
      const ts = /\(ts (\d+\.\d+)\)/.exec(parents[0]?.head ?? "")?.[1] ?? "";
      const edits = all.filter((e) => e.head.includes("✎ edited") && e.head.includes(ts));
      expect(edits.length, video).toBeGreaterThanOrEqual(1);
      expect(edits[0]?.head).toContain("(1st edit)");
      expect(edits.at(-1)?.body).toContain("*Complete*");
      const replies = all.filter((e) => e.head.includes("↳ thread reply") && e.head.includes(ts));
      const thread = replies.map((r) => r.body).join("");
      expect(thread, video).toMatch(/Published/);
      expect(thread, video).toMatch(/Complete/);
    }
    const errorReplies = all.filter((e) => e.head.includes("↳ thread reply") && /720p/.test(e.body));
    expect(errorReplies.map((e) => e.body).join("")).toMatch(/failed/);
  });

  it("names each video by its title, read once from the platform, in the channel and its page", () => {
    const all = entries(result.lines);
    const html = readFileSync(result.htmlPath, "utf8");
    for (const [video, title] of [
      ["x8nw5fq", "Harbour Bridge Reopens After Two-Year Renovation"],
      ["x8nw6kd", "Election Night Special: How the Count Works"],
    ] as const) {
      const parent = all.find(
        (e) => e.head.startsWith("#video-news") && e.head.includes("✉ new message") && e.body.includes(video),
      );
      expect(parent?.body.split("\n")[0], video).toBe(title);
      expect(html).toContain(title);
    }
    expect(result.lines).toContain(
      "   The title took 1 platform read (GET /v2/videos/x8nw5fq?fields=title) for the 36 events.",
    );
  });

  it("shows a duplicate delivery once", () => {
    expect(result.lines).toContain(
      "duplicate delivery → answered 200 {status: duplicate}, nothing new in the channel",
    );
  });

  it("sends #video-alerts only the 720p format error, with its ping, and nothing of the clean video", () => {
    const all = entries(result.lines);
    const alerts = all.filter((e) => e.head.startsWith("#video-alerts") && !e.head.includes("only visible"));
    const posts = alerts.filter((e) => !e.body.includes("also receives"));
    expect(posts.length).toBeGreaterThanOrEqual(2);
    expect(posts.every((e) => e.body.includes("x8nw6kd"))).toBe(true);
    expect(posts.some((e) => e.body.includes("x8nw5fq"))).toBe(false);
    const reply = posts.find((e) => e.head.includes("↳ thread reply"));
    expect(reply?.body).toMatch(/@here .*720p/);
  });

  it("gives #video-digest one digest of both videos instead of a message per video", () => {
    const all = entries(result.lines);
    const inDigest = all.filter((e) => e.head.startsWith("#video-digest "));
    const digests = inDigest.filter((e) => e.body.includes("📰 Daily digest of Northwind News"));
    expect(digests.length).toBeGreaterThan(0);
    const text = digests.map((d) => d.body).join("\n");
    expect(text).toContain("✅ Published");
    expect(text).toContain("x8nw5fq");
    expect(text).toMatch(/⚠️ Format errors \(1\)\*\n• .*x8nw6kd`:\s+`720p`/);
    // Nothing else of the videos there: the subscription's confirmation and the digests only.
    expect(inDigest.filter((e) => !digests.includes(e) && /x8nw5fq|x8nw6kd/.test(e.body))).toEqual([]);
  });

  it("previews a pasted livestream link with a compact card, never the stream key", () => {
    const all = entries(result.lines);
    const preview = all.find((e) => e.head.includes("⤷ link preview"));
    expect(preview?.body).toContain("Northwind Morning Live");
    expect(preview?.body).toMatch(/On air/);
    expect(preview?.body).not.toMatch(/rtmp:|srt:|sk_live/);
    // The same preview as a Work Object, and its details pane opened by Alex, read then.
    const text = result.lines.join("\n");
    expect(text).toMatch(/Work Object: Northwind Morning Live/);
    const pane = all.find((e) => e.head.includes("⤷ details pane"));
    expect(pane?.body).toMatch(/On air: /);
    expect(pane?.body).toMatch(/Ads left: /);
    expect(pane?.body).toMatch(/Geo-restriction: /);
    expect(pane?.body).not.toMatch(/rtmp:|srt:|sk_live/);
  });

  it("shows a watched show going on air, its ad break and its end in one message, in the page too", () => {
    const all = entries(result.lines);
    const confirm = all.find((e) => e.body.includes("set #video-news to watch"));
    expect(confirm?.head).toMatch(/✉ new message/);
    const live = all.find(
      (e) => e.head.includes("✉ new message") && e.body.includes("🔴 Live: Studio Session"),
    );
    expect(live).toBeDefined();
    const ts = /\(ts (\d+\.\d+)\)/.exec(live?.head ?? "")?.[1] ?? "none";
    const edits = all.filter((e) => e.head.includes(`edited`) && e.head.includes(ts));
    expect(edits.some((e) => e.body.includes("Ad break running"))).toBe(true);
    expect(edits.at(-1)?.body).toContain("Ended: Studio Session");
    expect(all.find((e) => e.head.includes(`in the thread of ${ts}`))?.body).toContain("1 ad break");
    // Sam's list: the channel's watch, and Sam's own DM watch.
    const watching = all.find(
      (e) => e.body.includes("Watched livestreams (2)") && e.body.includes("1 by DM to you"),
    );
    expect(watching?.head).toContain("(only visible to @sam)");
    const html = readFileSync(result.htmlPath, "utf8");
    expect(html).toContain("Ended: Studio Session");
    expect(html).toContain("1 ad break");
  });

  it("sends Sam, who asked /live watch … dm, one DM for the broadcast, ended in place, in the page too", () => {
    const all = entries(result.lines);
    const asked = all.find((e) => e.body.includes("You will get a DM from this app when"));
    expect(asked?.head).toContain("(only visible to @sam)");
    const dms = all.filter((e) => e.head.startsWith("DM @sam"));
    const posted = dms.filter((e) => e.head.includes("✉ new message"));
    expect(posted).toHaveLength(1);
    expect(posted[0]?.body).toContain("🔴 Live: Studio Session");
    expect(posted[0]?.body).toContain("/live unwatch");
    const ts = /\(ts (\d+\.\d+)\)/.exec(posted[0]?.head ?? "")?.[1] ?? "none";
    expect(dms.filter((e) => e.head.includes("↳ thread reply"))).toEqual([]);
    expect(dms.filter((e) => e.head.includes("✎ edited")).every((e) => e.head.includes(ts))).toBe(true);
    expect(dms.at(-1)?.body).toContain("Ended: Studio Session");
    // Nothing of Sam's DM in the channel.
    expect(all.filter((e) => e.head.startsWith("#") && e.body.includes("you asked for this DM"))).toEqual([]);
    const html = readFileSync(result.htmlPath, "utf8");
    const dmPart = html.slice(html.indexOf("<h1>DM @sam</h1>"));
    expect(dmPart.length).toBeLessThan(html.length);
    expect(dmPart).toContain("Ended: Studio Session");
  });

  it("writes an escaped HTML page of the channel with both videos", () => {
    expect(result.htmlPath).toBe(join(dir, "out", "channel.html"));
    expect(existsSync(result.htmlPath)).toBe(true);
    expect(result.lines.join("\n")).toContain(result.htmlPath);
    const html = readFileSync(result.htmlPath, "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain("x8nw5fq");
    expect(html).toContain("x8nw6kd");
    expect(html).toContain("Markets &amp; Headlines");
    expect(html).not.toContain("Markets & Headlines");
    expect(html).toContain("this workspace&#39;s admins");
    expect(html).toMatch(/<button type="button" class="btn" disabled>🔄 Refresh<\/button>/);
    expect(html).toContain('class="fields"');
    expect(html).toContain('<img class="accessory" src="https://s1.example-cdn.com/v/x9b2k4m/x240"');
    expect(html).toContain('class="thread"');
    expect(html).not.toMatch(/<!date|&lt;!date|<@U0/);
  });
});

describe("npm run demo, as a program", () => {
  it("runs to the end and exits by itself with code 0", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "demo-cli-"));
    try {
      // From another folder, so the page lands there: tsx by its absolute path, like `npm run demo`.
      const script = join(process.cwd(), "demo", "run.ts");
      const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
      const child = spawn(process.execPath, ["--import", tsx, script], {
        cwd,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      const code = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
        child.on("exit", (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      expect(stderr).not.toMatch(/The demo failed/);
      expect(code, stderr).toBe(0);
      expect(stdout).toContain("duplicate delivery → answered 200 {status: duplicate}");
      expect(stdout).not.toContain(String.fromCharCode(27)); // no colours when not a terminal
      expect(existsSync(join(cwd, "demo-output", "channel.html"))).toBe(true);
      expect(stdout).toContain(join(cwd, "demo-output", "channel.html"));
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  }, 70_000);
});
