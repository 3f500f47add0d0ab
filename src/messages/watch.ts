/**
 * Block Kit for the live-watch commands and the App Home (pure): the answers of `/live watch`,
 * `/live unwatch` and `/live watching`, and the App Home's watch section (state, Unwatch buttons
 * for managers, a health line when polls fail). Foreign text (titles) is escaped and bounded.
 */
import { ACTIONS } from "./ids.js";
import {
  actions,
  button,
  channel,
  chunkLines,
  code,
  confirmDialog,
  context,
  mention,
  message,
  section,
} from "./kit.js";
import { escapeTruncate, slackDate, utcText } from "./limits.js";
import { profileRef } from "./profiles.js";
import type { KnownBlock, Message } from "./types.js";

/** One watch as the commands and the App Home show it (a subset of WatchView). */
export interface WatchRow {
  livestreamId: string;
  channelId: string;
  by: string;
  state: "live" | "reconnecting" | "off_air" | "not_polled_yet";
  title: string | null;
  /** On air since (live, reconnecting), or ended at (off air), epoch ms. */
  since: number | null;
  lastPoll: { ok: boolean; error: string | null; failures: number } | null;
  /** The livestream's profile and its display name, when known. */
  profileId?: string | null;
  profileName?: string | undefined;
}

export interface WatchHealthLine {
  failing: ReadonlyArray<{ livestreamId: string; failures: number; error: string }>;
}

const date = (ms: number) => slackDate(new Date(ms), utcText(new Date(ms)));

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function label(r: Pick<WatchRow, "livestreamId" | "title">): string {
  const t = r.title?.trim();
  return t ? `*${escapeTruncate(t, 150)}* (${code(r.livestreamId, 64)})` : code(r.livestreamId, 64);
}

/** The state of one watched livestream, in words. */
export function stateText(r: WatchRow): string {
  const failing = r.lastPoll !== null && !r.lastPoll.ok;
  const base =
    r.state === "live"
      ? `:red_circle: on air${r.since !== null ? ` since ${date(r.since)}` : ""}`
      : r.state === "reconnecting"
        ? ":large_yellow_circle: signal lost, waiting for it to come back"
        : r.state === "off_air"
          ? `:white_circle: off air${r.since !== null ? ` (last broadcast ended ${date(r.since)})` : ""}`
          : ":hourglass: not read yet";
  return failing ? `${base} · :warning: last read failed` : base;
}

/** `/live watch` accepted: what will happen, said in the channel. */
export function watchStartedMessage(o: {
  livestreamId: string;
  title: string;
  channelId: string;
  by: string;
  added: boolean;
  intervalMs: number;
  graceMs: number;
}): Message {
  const what = label({ livestreamId: o.livestreamId, title: o.title });
  if (!o.added) {
    return message(`This channel already watches ${o.title || o.livestreamId}.`, [
      section(`${channel(o.channelId)} already watches ${what}: nothing changed.`),
    ]);
  }
  return message(`This channel now watches ${o.title || o.livestreamId}.`, [
    section(
      `:eyes: ${mention(o.by)} set ${channel(o.channelId)} to watch ${what}. When it goes on air, one message is posted here and kept up to date while it is on air; it says when it ended after ${seconds(o.graceMs)} off air.`,
    ),
    context([
      `Checked every ${seconds(o.intervalMs)} · stop with \`/live unwatch ${escapeTruncate(o.livestreamId, 64)}\``,
    ]),
  ]);
}

/** `/live unwatch` answered (ephemeral). */
export function watchStoppedMessage(o: {
  livestreamId: string;
  channelId: string;
  removed: boolean;
}): Message {
  const id = code(o.livestreamId, 64);
  return o.removed
    ? message(`This channel no longer watches ${o.livestreamId}.`, [
        section(`:no_bell: ${channel(o.channelId)} no longer watches ${id}.`),
      ])
    : message(`This channel does not watch ${o.livestreamId}.`, [
        section(
          `${channel(o.channelId)} does not watch ${id}: nothing changed. \`/live watching\` lists what this workspace watches.`,
        ),
      ]);
}

/**
 * `/live watch` refused by a cap: the workspace's own (`workspace`) or the one in all (`all`,
 * LIVE_WATCH_MAX, shared by every workspace of this bot).
 */
export function watchLimitMessage(limit: number, scope: "workspace" | "all" = "workspace"): Message {
  if (scope === "all") {
    return message(`This bot already watches ${limit} livestreams in all.`, [
      section(
        `:no_entry: This bot already watches ${limit} livestreams in all (every workspace together), the most it may (\`LIVE_WATCH_MAX\`). Stop a watch with \`/live unwatch\`, or ask whoever runs the bot to raise \`LIVE_WATCH_MAX\`.`,
      ),
    ]);
  }
  return message(`This workspace already watches ${limit} livestream channels.`, [
    section(
      `:no_entry: This workspace already has ${limit} watches, the most one workspace can have. Stop one with \`/live unwatch\` first (\`/live watching\` lists them).`,
    ),
  ]);
}

export function watchUnavailableMessage(): Message {
  return message("Live watch is not available.", [
    section("Live watch is not available on this bot (it runs without a store)."),
  ]);
}

function rowLine(r: WatchRow): string {
  const of = r.profileId ? ` of ${profileRef(r.profileId, r.profileName)}` : "";
  return `• ${label(r)}${of} in ${channel(r.channelId)}: ${stateText(r)}`;
}

/** `/live watching` (ephemeral). */
export function watchingMessage(rows: readonly WatchRow[]): Message {
  if (rows.length === 0) {
    return message("This workspace watches no livestream.", [
      section(
        "This workspace watches no livestream. A manager starts with `/live watch <id or URL>` in the channel that should be told.",
      ),
    ]);
  }
  const lines = rows.map(rowLine);
  return message(`This workspace watches ${rows.length} livestream channel(s).`, [
    section(`*Watched livestreams (${rows.length})*`),
    ...chunkLines(lines)
      .slice(0, 40)
      .map((c) => section(c)),
  ]);
}

/** Value of an Unwatch button: `<channel>:<livestream>` (ids carry no colon). */
export function unwatchValue(channelId: string, livestreamId: string): string {
  return `${channelId}:${livestreamId}`;
}

export function parseUnwatchValue(v: string | undefined): { channelId: string; livestreamId: string } | null {
  const m = /^([A-Z0-9]{1,40}):([A-Za-z0-9][A-Za-z0-9_-]{0,63})$/.exec(v ?? "");
  return m?.[1] && m[2] ? { channelId: m[1], livestreamId: m[2] } : null;
}

/** The App Home's watch section: at most `room` blocks. */
export function homeWatchBlocks(
  rows: readonly WatchRow[],
  o: { isManager: boolean; health: WatchHealthLine | undefined; room: number },
): KnownBlock[] {
  const out: KnownBlock[] = [];
  if (rows.length === 0 && (o.health?.failing.length ?? 0) === 0) return out;
  out.push(section(`*Live watch (${rows.length})*`));
  const failing = o.health?.failing ?? [];
  if (failing.length > 0) {
    const ids = failing.slice(0, 10).map((f) => code(f.livestreamId, 64));
    out.push(
      context([
        `:warning: Reading ${failing.length} watched livestream(s) failed last time (${ids.join(", ")}${failing.length > ids.length ? ", …" : ""}): ${escapeTruncate(failing[0]?.error ?? "", 200)}. The bot keeps trying, less often.`,
      ]),
    );
  }
  const per = o.isManager ? 2 : 1;
  const room = Math.max(0, o.room - out.length - 1);
  const shown = rows.length * per <= room ? rows.length : Math.floor(room / per);
  for (const r of rows.slice(0, shown)) {
    out.push(section(rowLine(r)));
    if (o.isManager) {
      out.push(
        actions([
          button({
            text: "🔕 Unwatch",
            actionId: ACTIONS.watchUnwatch,
            value: unwatchValue(r.channelId, r.livestreamId),
            confirm: confirmDialog({
              title: "Stop watching?",
              text: `The channel will no longer be told when ${r.livestreamId.slice(0, 64)} goes on air.`,
              confirm: "Unwatch",
              deny: "Cancel",
            }),
          }),
        ]),
      );
    }
  }
  if (shown < rows.length)
    out.push(context([`…and ${rows.length - shown} more: \`/live watching\` lists all.`]));
  return out;
}
