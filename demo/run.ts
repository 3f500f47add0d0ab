/**
 * `npm run demo`: the bot, the platform sandbox and a Slack stand-in on 127.0.0.1, then a short
 * realistic scenario, printed as what the people in the Slack channel see, message by message,
 * with updates shown as edits. Ends with an HTML rendering of the channel. Offline, < 1 minute.
 *
 * `runDemo()` is the whole demo (the test runs it in-process); the CLI below only runs it when
 * this file is the program.
 */
import { realpathSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { lifecycleEvents, type WebhookEvent } from "../fakes/platform/deliver.js";
import { SEED } from "../fakes/platform/server.js";
import { SEED_CHANNELS } from "../fakes/slack/index.js";
import { channelHtml } from "./html.js";
import { maskDeep, maskSecrets, type Names } from "./mrkdwn.js";
import { DEMO_PUBLIC_URL, type Stack, startStack } from "./stack.js";
import { makeStyle, plain } from "./style.js";
import { messageLines } from "./text.js";
import { Transcript } from "./transcript.js";

export interface DemoOptions {
  /** Receives every line of the transcript as it is printed. */
  out: (line: string) => void;
  /** Where to write the HTML page of the channel (folders are created). */
  htmlPath: string;
  /** ANSI colours in what `out` receives (the CLI turns them on for a terminal). */
  color?: boolean;
}

export interface DemoResult {
  /** The transcript, without colour codes. */
  lines: string[];
  /** The HTML page, absolute. */
  htmlPath: string;
}

/** The people and the channel of the scenario, added to the stand-in's workspace. */
const ALEX = { id: "U0ALEX", name: "alex", real_name: "Alex Moreau", role: "workspace admin" } as const;
const SAM = { id: "U0SAM", name: "sam", real_name: "Sam Okafor", role: "member" } as const;
/** Sam's DM with the app (the stand-in's conversations.open: D… for U…). */
const SAM_DM = "D0SAM";
const CHANNEL = { id: "C0VIDEONEWS", name: "video-news" } as const;
/** A second channel that subscribes to format errors only. */
const ALERTS = { id: "C0VIDEOALERTS", name: "video-alerts" } as const;
/** A third channel that gets a digest instead of a message per video. */
const DIGEST = { id: "C0VIDEODIGEST", name: "video-digest" } as const;

const CHANNEL_NAMES: Record<string, string> = {
  [CHANNEL.id]: CHANNEL.name,
  [ALERTS.id]: ALERTS.name,
  [DIGEST.id]: DIGEST.name,
  [SEED_CHANNELS.general]: "general",
  [SEED_CHANNELS.news]: "news",
};

const PROFILE = SEED.profiles.newsroom;
const LIVESTREAM = SEED.livestreams.onAirAdBreak;
/** Off air at the start: the live-watch scene puts it on air. */
const SHOW = SEED.livestreams.offAir;
/** The demo's live-watch timing (the bot's defaults are 30 s and 60 s). */
const LIVE = { intervalMs: 1000, graceMs: 1500 };
const VIDEO_OK = "x8nw5fq";
const VIDEO_ERR = "x8nw6kd";
/** Pace of the deliveries: enough for the worker's 300 ms coalescing to show a few progress edits. */
const DELIVERY_SPACING_MS = 25;
const PROGRESS_STEPS = 10;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() - started > timeoutMs)
      throw new Error(`demo: timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(15);
  }
}

/** Waits until the outbox is empty and Slack has received nothing new for `quietMs`. */
async function settle(stack: Stack, quietMs = 600): Promise<void> {
  let count = stack.slack.calls.length;
  let since = Date.now();
  await until(async () => {
    if (stack.slack.calls.length !== count) {
      count = stack.slack.calls.length;
      since = Date.now();
      return false;
    }
    if ((await stack.outbox.stats()).depth > 0) {
      since = Date.now();
      return false;
    }
    return Date.now() - since >= quietMs;
  }, "the bot to finish posting");
}

export async function runDemo(opts: DemoOptions): Promise<DemoResult> {
  const s = makeStyle(opts.color ?? false);
  const lines: string[] = [];
  const say = (line = "") => {
    const masked = maskSecrets(line);
    lines.push(plain(masked));
    opts.out(masked);
  };
  const htmlPath = resolve(opts.htmlPath);
  const started = Date.now();
  const step = (n: number, title: string) => {
    say("");
    say(s.bold(`━━ ${n} · ${title} ${"━".repeat(Math.max(4, 76 - title.length))}`));
  };
  const narrate = (text: string) => say(s.dim(`   ${text}`));

  const stack = await startStack({
    worker: { coalesceMs: 300, postIntervalMs: 100, pollMs: 20 },
    live: LIVE,
  });
  const names: Names = {
    user: (id) => stack.slack.users.get(id)?.name ?? id,
    channel: (id) => CHANNEL_NAMES[id] ?? id.toLowerCase(),
  };
  const transcript = new Transcript(stack.slack, names, say, s);
  try {
    for (const u of [ALEX, SAM]) {
      stack.slack.addUser({
        id: u.id,
        team_id: stack.slack.teamId,
        name: u.name,
        real_name: u.real_name,
        is_admin: u === ALEX,
        tz: "Europe/Paris",
      });
    }
    for (const c of [CHANNEL, ALERTS, DIGEST]) {
      stack.slack.channels.member.add(c.id);
      stack.slack.channels.public.add(c.id);
    }

    say(s.bold("platform-slack-bot demo") + s.dim(" — everything runs on this machine; nothing leaves it."));
    say(`   platform sandbox  ${stack.sandbox.url}  ${s.dim("(token service, API v2, webhook deliveries)")}`);
    say(`   Slack stand-in    ${stack.slack.url}  ${s.dim("(Web API and response_urls, recorded)")}`);
    say(`   the bot           ${stack.url}  ${s.dim("(embedded sqlite store in a temporary folder)")}`);
    say(
      `   in Slack: ${s.bold(`#${CHANNEL.name}`)}, @${ALEX.name} (${ALEX.role}), @${SAM.name} (${SAM.role})`,
    );
    say(
      s.dim(
        "   Below: what the people in the channel see. ✉ new message · ✎ edit of it · ↳ reply in its thread",
      ),
    );
    transcript.start();

    const slash = async (
      user: { id: string; name: string },
      command: string,
      text: string,
      where: { id: string; name: string } = CHANNEL,
    ) => {
      say("");
      say(`${s.bold(`@${user.name}`)} in #${where.name} types  ${s.cyan(`${command} ${text}`.trim())}`);
      const res = await stack.slash(command, text, { user: user.id, channel: where.id });
      transcript.track(res.responseUrl, where.id, user.id);
      if (res.status !== 200) throw new Error(`demo: ${command} was answered ${res.status}`);
      narrate(`(acknowledged in ${Math.max(1, Math.round(res.ms))} ms; the answer follows)`);
      await until(
        () => stack.slack.responses(res.responseUrl).length > 0,
        `the answer to ${command} ${text}`,
      );
      await sleep(20);
      transcript.pump();
    };

    // 1. Anyone can check a livestream: the card is posted in the channel.
    step(1, "Is the morning show on air?");
    await slash(SAM, "/live", `status ${LIVESTREAM}`);

    // 2. Ingest addresses carry the stream key: managers only, and only to them.
    step(2, "Ingest addresses: managers only, only to them");
    await slash(SAM, "/live", `ingest ${LIVESTREAM}`);
    await slash(ALEX, "/live", `ingest ${LIVESTREAM}`);
    narrate("(stream keys are masked in this demo's output: it prints to your terminal)");

    // 3. A manager points the profile's webhook at the bot, for this channel.
    step(3, "Video notifications for #video-news");
    await slash(
      ALEX,
      "/webhook",
      `set ${PROFILE} published complete format.error format.processing format.ready created`,
    );
    const webhook = stack.sandbox.state.profiles.get(PROFILE)?.webhook;
    const callback = webhook?.callback_url ?? "";
    if (!callback.startsWith(`${DEMO_PUBLIC_URL}/hooks/platform/`)) {
      throw new Error("demo: the platform's webhook does not point at the bot");
    }
    narrate(
      `On the platform, profile ${PROFILE} now calls ${DEMO_PUBLIC_URL}/hooks/platform/<secret token> with ${
        webhook?.events?.length ?? 0
      } events;`,
    );
    narrate(`the sandbox re-routes those deliveries to the bot at ${stack.url}.`);

    const deliver = async (event: WebhookEvent) =>
      stack.sandbox.deliver(PROFILE, event, { deliverTo: stack.url, localAddress: "127.0.0.1" });

    /** Delivers a lifecycle, narrating milestones and summing up progress between them. */
    const playLifecycle = async (events: WebhookEvent[]) => {
      let progress: string[] = [];
      const flushProgress = () => {
        if (progress.length === 0) return;
        const presets = [...new Set(progress)].sort().join(", ");
        narrate(`⇢ platform → bot  ${progress.length}× video.format.processing (${presets})  → 200`);
        progress = [];
      };
      transcript.beforeEvent = flushProgress;
      for (const event of events) {
        const r = await deliver(event);
        if (r.status !== 200)
          throw new Error(`demo: delivery of ${event.type} answered ${r.status} ${r.body}`);
        if (event.type === "video.format.processing") {
          progress.push(String(event.data.preset_name));
        } else {
          flushProgress();
          const preset = typeof event.data.preset_name === "string" ? ` ${event.data.preset_name}` : "";
          narrate(`⇢ platform → bot  ${event.type}${preset}  → ${r.status}`);
        }
        transcript.pump();
        await sleep(DELIVERY_SPACING_MS);
      }
      flushProgress();
      transcript.beforeEvent = undefined;
    };

    const threadOf = (videoId: string) => {
      const all = stack.slack.messages(CHANNEL.id);
      const parent = all.find((m) => m.thread_ts === undefined && JSON.stringify(m).includes(videoId));
      const replies = parent === undefined ? [] : all.filter((m) => m.thread_ts === parent.ts);
      return { parent, replies: replies.map((m) => m.text).join("\n") };
    };

    // A second channel gets only the 720p format errors, with a ping.
    narrate("");
    narrate(`#${ALERTS.name} wants only the format errors of 720p, with a ping:`);
    await slash(ALEX, "/webhook", `subscribe ${PROFILE} format.error preset=720p mention=@here`, ALERTS);
    narrate(
      `The platform's webhook still carries ${stack.sandbox.state.profiles.get(PROFILE)?.webhook.events?.length ?? 0} events: the union of both channels' filters.`,
    );

    // A third channel gets a digest instead of a message per video.
    narrate("");
    narrate(`#${DIGEST.name} wants a daily digest instead of a message per video:`);
    await slash(ALEX, "/webhook", `subscribe ${PROFILE} digest=daily at=09:00`, DIGEST);
    narrate(
      `(this demo's DIGEST_PERIOD is ${stack.config.digests.periodMs / 1000} s, so a "daily" digest comes every ${stack.config.digests.periodMs / 1000} s; the default is 24 h, at 09:00 in @${ALEX.name}'s time zone)`,
    );

    // 4. A video's life, then a second video whose 720p encoding fails.
    step(4, "A new video: created, encoded in three formats, published");
    const first = lifecycleEvents(PROFILE, { videoId: VIDEO_OK, progressSteps: PROGRESS_STEPS }, Date.now());
    narrate(
      `The platform sends ${first.length} events for video ${VIDEO_OK}, ${DELIVERY_SPACING_MS} ms apart.`,
    );
    narrate("The bot keeps ONE message per video up to date (progress: at most one edit per 300 ms),");
    narrate("names the video by its title (read once from the platform) and replies in its thread at");
    narrate("each milestone.");
    await playLifecycle(first);
    await until(() => {
      const v = threadOf(VIDEO_OK);
      return /complete/i.test(v.parent?.text ?? "") && /complete/i.test(v.replies);
    }, `video ${VIDEO_OK} to be complete in Slack`);
    await settle(stack);
    transcript.pump();
    const reads = stack.sandbox.requests.filter((r) => r.path === `/v2/videos/${VIDEO_OK}`).length;
    narrate(
      `The title took ${reads} platform read (GET /v2/videos/${VIDEO_OK}?fields=title) for the ${first.length} events.`,
    );

    step(5, "Another video: its 720p encoding fails");
    const second = lifecycleEvents(
      PROFILE,
      { videoId: VIDEO_ERR, progressSteps: PROGRESS_STEPS, formatError: "720p" },
      Date.now(),
    );
    narrate(
      `${second.length} events for video ${VIDEO_ERR}: 720p stops halfway with video.format.error; 240p and 480p finish.`,
    );
    await playLifecycle(second);
    await until(() => {
      const v = threadOf(VIDEO_ERR);
      return /720p/.test(v.replies) && /complete/i.test(v.replies);
    }, `video ${VIDEO_ERR}'s format error and completion in Slack`);
    await until(
      () => stack.slack.messages(ALERTS.id).some((m) => m.thread_ts !== undefined && /720p/.test(m.text)),
      `the format error in #${ALERTS.name}`,
    );
    await settle(stack);
    transcript.pump();
    const alerts = stack.slack.messages(ALERTS.id).filter((m) => !m.ephemeralTo && !/subscri/i.test(m.text));
    const sawOk = alerts.some((m) => JSON.stringify(m).includes(VIDEO_OK));
    narrate(
      `#${ALERTS.name} got ${alerts.length} messages, all about ${VIDEO_ERR} (its 720p error, with the ping); ${
        sawOk ? `and ${VIDEO_OK} too: that is a bug` : `nothing of ${VIDEO_OK}, which had no error`
      }.`,
    );

    // The digest channel got no message per video: its digest lists both.
    const digests = () =>
      stack.slack.messages(DIGEST.id).filter((m) => m.metadata?.event_type === "video_digest");
    await until(
      () => [VIDEO_OK, VIDEO_ERR].every((v) => digests().some((m) => JSON.stringify(m).includes(v))),
      `the digest in #${DIGEST.name}`,
      30_000,
    );
    transcript.pump();
    narrate(
      `#${DIGEST.name} got no message per video: ${digests().length === 1 ? "one digest" : `${digests().length} digests (one per period)`} listing both videos, titled and linked, and the 720p error.`,
    );

    // 5. The platform may deliver an event twice: it is shown once.
    step(6, "The platform delivers an event twice");
    const again = first.find((e) => e.type === "video.published");
    if (again === undefined) throw new Error("demo: no video.published event to repeat");
    const before = { events: transcript.events, calls: stack.slack.calls.length };
    narrate(`⇢ platform → bot  ${again.type} of ${VIDEO_OK} again, same timestamp (${again.timestamp})`);
    const dup = await deliver(again);
    let dupStatus = "?";
    try {
      dupStatus = String((JSON.parse(dup.body) as { status?: unknown }).status);
    } catch {
      dupStatus = dup.body;
    }
    await settle(stack);
    transcript.pump();
    const nothingNew = transcript.events === before.events && stack.slack.calls.length === before.calls;
    say("");
    say(
      `${s.bold("duplicate delivery")} → answered ${dup.status} {status: ${dupStatus}}, ${
        nothingNew ? "nothing new in the channel" : s.red("but something changed in the channel!")
      }`,
    );
    if (dup.status !== 200 || dupStatus !== "duplicate" || !nothingNew) {
      throw new Error("demo: the duplicate delivery was not recognised");
    }

    // 7. Live watch: the channel is told when a show goes on air, sees its ad break, and its end.
    step(7, "Live watch: the evening show goes on air");
    await slash(ALEX, "/live", `watch ${SHOW}`);
    await slash(SAM, "/live", `watch ${SHOW} dm`);
    narrate("Sam alone will get a DM from the app; the show is still read once per interval for both.");
    // A go-live announcement workflow (Workflow Builder) waits for the same show: one more watcher.
    const wf = await stack.runStep("wait_until_live", { livestream: SHOW, timeout_minutes: 10 });
    if (wf.status !== 200) throw new Error(`demo: function_executed was answered ${wf.status}`);
    await until(
      async () => ((await stack.built.watch?.registry.watchers(SHOW)) ?? []).length === 3,
      "the waiting workflow step",
    );
    narrate(
      `A Workflow Builder workflow "Announce the evening show" reached its step "Wait until a livestream is live" (${wf.executionId}): it waits on the same read.`,
    );
    narrate(
      `(this demo reads watched livestreams every ${LIVE.intervalMs / 1000} s and calls a show ended after ${LIVE.graceMs / 1000} s off air; the bot's defaults are 30 s and 60 s)`,
    );
    await until(
      () => stack.sandbox.requests.filter((r) => r.path === `/v2/livestreams/${SHOW}`).length >= 2,
      "the first read of the watched show",
    );
    const watchPost = () =>
      stack.slack
        .messages(CHANNEL.id)
        .find((m) => m.thread_ts === undefined && (m.text ?? "").includes(" is live since "));
    const liveControl = (step: Parameters<Stack["sandbox"]["live"]>[1], what: string) => {
      stack.sandbox.live(SHOW, step);
      narrate(`⇢ on the platform: ${what}`);
    };
    liveControl({ action: "on_air" }, `livestream ${SHOW} goes on air`);
    const live = await until(watchPost, "the is-live message");
    const dmPost = () => stack.slack.messages(SAM_DM).find((m) => (m.text ?? "").includes(" is live since "));
    const dm = await until(dmPost, "the is-live DM to Sam");
    const done = await until(
      () => stack.slack.completions().find((c) => c.executionId === wf.executionId),
      "the workflow step's completion",
    );
    if (done.outcome !== "success") throw new Error(`demo: the workflow step failed: ${done.error}`);
    say("");
    say(
      `${s.bold("workflow step")} wait_until_live → completed (functions.completeSuccess): on_air ${String(done.outputs?.on_air)}, title "${String(done.outputs?.title)}", on air since ${String(done.outputs?.on_air_since)}; the workflow goes on to its next step (its announcement).`,
    );
    transcript.pump();
    await sleep(LIVE.intervalMs);
    liveControl({ action: "ad_break", durationMs: 2500 }, "an ad break starts (2.5 s)");
    await until(
      () =>
        JSON.stringify(stack.slack.messages(CHANNEL.id).find((m) => m.ts === live.ts)).includes(
          "Ad break running",
        ),
      "the ad break in the live message",
    );
    transcript.pump();
    await slash(SAM, "/live", "watching");
    liveControl({ action: "off_air" }, "the show goes off air");
    await until(
      () => (stack.slack.messages(CHANNEL.id).find((m) => m.ts === live.ts)?.text ?? "").includes(" ended; "),
      "the ended message",
    );
    await until(
      () => (stack.slack.messages(SAM_DM).find((m) => m.ts === dm.ts)?.text ?? "").includes(" ended; "),
      "the ended DM",
    );
    await settle(stack, 300);
    transcript.pump();

    // 8. A livestream link pasted in the channel is previewed.
    step(8, "A livestream link pasted in #video-news");
    const pasted = `https://www.dailymotion.com/video/${LIVESTREAM}`;
    say("");
    say(`${s.bold(`@${SAM.name}`)} in #${CHANNEL.name} pastes  ${s.cyan(pasted)}`);
    const unfurlsBefore = stack.slack.unfurls().length;
    const shared = await stack.shareLink(pasted, { user: SAM.id, channel: CHANNEL.id });
    if (shared.status !== 200) throw new Error(`demo: link_shared was answered ${shared.status}`);
    await until(() => stack.slack.unfurls().length > unfurlsBefore, "the link preview");
    const preview = stack.slack.unfurls()[unfurlsBefore]?.unfurls[pasted] as
      | { blocks?: unknown[]; text?: string }
      | undefined;
    say(
      `${s.bold(`#${CHANNEL.name}`)}  ${s.green("⤷ link preview")} ${s.dim("(chat.unfurl, under Sam's message)")}`,
    );
    for (const line of messageLines({ blocks: preview?.blocks, text: preview?.text ?? "" }, names))
      say(`   │ ${maskSecrets(line)}`);
    narrate("One platform read, the same rules as /live status, never ingest addresses.");
    // The same preview is a Work Object: a card whose details pane is read when it is opened.
    type DemoEntity = {
      external_ref: { id: string };
      entity_payload: {
        attributes: { title: { text: string } };
        custom_fields: Array<{ label: string; type: string; value: string | number }>;
      };
    };
    const fieldLine = (f: DemoEntity["entity_payload"]["custom_fields"][number]) =>
      `${f.label}: ${f.type === "slack#/types/timestamp" ? new Date(Number(f.value) * 1000).toISOString() : f.value}`;
    const [entity] = (stack.slack.unfurls()[unfurlsBefore]?.metadata?.entities ?? []) as DemoEntity[];
    if (entity === undefined) throw new Error("demo: the preview carries no Work Object");
    say(`   ${s.dim("Work Object:")} ${entity.entity_payload.attributes.title.text}`);
    for (const f of entity.entity_payload.custom_fields) say(`   │ ${maskSecrets(fieldLine(f))}`);
    say("");
    say(`${s.bold(`@${ALEX.name}`)} opens the card`);
    const opened = await stack.openDetails(pasted, entity.external_ref, {
      user: ALEX.id,
      channel: CHANNEL.id,
    });
    if (opened.status !== 200)
      throw new Error(`demo: entity_details_requested was answered ${opened.status}`);
    const details = await until(
      () => stack.slack.entityDetails().find((d) => d.trigger_id === opened.triggerId),
      "the details pane",
    );
    const pane = details.metadata as DemoEntity | undefined;
    if (pane === undefined)
      throw new Error(`demo: the details pane answered ${JSON.stringify(details.error)}`);
    say(
      `${s.bold(`#${CHANNEL.name}`)}  ${s.green("⤷ details pane")} ${s.dim("(entity.presentDetails, read now, for Alex alone)")}`,
    );
    say(`   │ ${pane.entity_payload.attributes.title.text}`);
    for (const f of pane.entity_payload.custom_fields) say(`   │ ${maskSecrets(fieldLine(f))}`);
    narrate("The pane reads the livestream again when it is opened, charged to whoever opened it.");

    // 9. Anyone can read the configuration back from the platform.
    step(9, "What is configured?");
    await slash(ALEX, "/webhook", "show");

    await settle(stack, 300);
    transcript.stop();

    // The channel as it ends up, as a page.
    const messages = maskDeep(stack.slack.messages(CHANNEL.id));
    const replies = messages.filter((m) => m.thread_ts !== undefined && m.thread_ts !== m.ts).length;
    const ephemeral = messages.filter((m) => m.ephemeralTo !== undefined).length;
    const page = channelHtml({
      channel: CHANNEL.name,
      messages,
      names,
      also: [
        {
          title: `DM @${SAM.name}`,
          subtitle: `What only ${SAM.real_name} got from the app, after /live watch ${SHOW} dm: one message for the broadcast, kept up to date and ended in place.`,
          messages: maskDeep(stack.slack.messages(SAM_DM)),
        },
      ],
      author: "platformbot",
      subtitle: `The channel at the end of npm run demo (${new Date().toISOString().slice(0, 19)}Z): ${
        messages.length - replies - ephemeral
      } messages with ${replies} thread replies, and ${ephemeral} ephemeral answers (marked with the one person who saw each).`,
    });
    await mkdir(dirname(htmlPath), { recursive: true });
    await writeFile(htmlPath, page, "utf8");

    const t = transcript.stats;
    say("");
    say(s.bold(`━━ Done ${"━".repeat(80)}`));
    say(
      `   In every channel and DM: ${t.messages} messages, ${t.replies} thread replies, ${t.edits} edits, ${t.ephemeral} ephemeral answers.`,
    );
  } catch (err) {
    transcript.stop();
    const tail = stack.logs.slice(-15).map((l) => `   ${maskSecrets(l.trim())}`);
    if (tail.length > 0) {
      say("");
      say(s.red("The bot's last log lines:"));
      for (const l of tail) say(l);
    }
    throw err;
  } finally {
    await stack.close();
  }
  say(`   The channel as a page (open it in a browser): ${s.bold(htmlPath)}`);
  say(
    s.dim(
      `   Finished in ${((Date.now() - started) / 1000).toFixed(1)} s. Everything was stopped and cleaned up.`,
    ),
  );
  return { lines, htmlPath };
}

/** True when this file is the program (`tsx demo/run.ts`), not imported (the test). */
function isMain(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  runDemo({
    out: (line) => console.log(line),
    htmlPath: resolve("demo-output", "channel.html"),
    color: process.stdout.isTTY === true,
  }).then(
    () => {
      process.exitCode = 0;
    },
    (err: unknown) => {
      console.error(`\nThe demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      process.exitCode = 1;
    },
  );
}
