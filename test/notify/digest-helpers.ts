/** Reading digests and video messages back from the Slack stand-in (digest and pause tests). */
import type { ChannelMessage } from "../../fakes/slack/index.js";
import type { Harness } from "../support/harness.js";

const json = (v: unknown) => JSON.stringify(v);

const isDigest = (m: ChannelMessage) => m.metadata?.event_type === "video_digest";

/** The digests and catch-ups posted in the channel (messages, not their thread replies), oldest first. */
export function digestsIn(h: Pick<Harness, "slack">, channel: string): ChannelMessage[] {
  return h.slack.messages(channel).filter((m) => !m.thread_ts && isDigest(m));
}

/** Messages about the video that are not digests (nor in a digest's thread): per-video messages. */
export function videoPosts(h: Pick<Harness, "slack">, channel: string, videoId: string): ChannelMessage[] {
  const all = h.slack.messages(channel);
  const digestTs = new Set(all.filter(isDigest).map((m) => m.ts));
  return all.filter(
    (m) => !isDigest(m) && !(m.thread_ts && digestTs.has(m.thread_ts)) && json(m).includes(videoId),
  );
}

/** The mrkdwn texts of a message's sections. */
function sectionTexts(m: ChannelMessage): string[] {
  const out: string[] = [];
  for (const b of m.blocks ?? []) {
    if (typeof b !== "object" || b === null) continue;
    const text = (b as { type?: string; text?: { text?: unknown } }).text?.text;
    if ((b as { type?: string }).type === "section" && typeof text === "string") out.push(text);
  }
  return out;
}

/**
 * The lines of each list (`✅ Published`, `⚠️ Format errors` …) over the messages given (digests
 * and their thread replies), by the list's title.
 */
export function digestLists(messages: readonly ChannelMessage[]): Record<string, string[]> {
  const lists: Record<string, string[]> = {};
  for (const m of messages) {
    let current: string | undefined;
    for (const text of sectionTexts(m)) {
      for (const line of text.split("\n")) {
        const head = /^\*(.+?)(?: \(\d+\)|, \d+–\d+ of \d+)\*$/.exec(line);
        if (head?.[1]) {
          current = head[1];
          lists[current] ??= [];
        } else if (current && line.startsWith("• ")) lists[current]?.push(line);
      }
    }
  }
  return lists;
}

/** The end of the period a digest covers (its metadata), in seconds. */
export function periodEndOf(m: ChannelMessage): number | undefined {
  const payload = m.metadata?.event_payload;
  const end =
    typeof payload === "object" && payload !== null
      ? (payload as { period_end?: unknown }).period_end
      : undefined;
  return typeof end === "number" ? end : undefined;
}

/** Whether the channel's digests list each video as published and as complete. */
export function listedComplete(h: Pick<Harness, "slack">, channel: string, ids: readonly string[]): boolean {
  const lists = digestLists(digestsIn(h, channel));
  const has = (title: string, id: string) => (lists[title] ?? []).some((l) => l.includes(id));
  return ids.every((id) => has("✅ Published", id) && has("🏁 Complete", id));
}
