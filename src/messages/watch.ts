/**
 * Block Kit for the live-watch commands and the App Home (pure): the answers of `/live watch`,
 * `/live unwatch` (a channel's, or the person's own `… dm`) and `/live watching`, and the App
 * Home's watch section (state, Unwatch buttons for managers and for the viewer's own DM watches, a
 * health line when polls fail). Foreign text (titles) is escaped and bounded.
 */
import { slackDate, utcText } from "./dates.js";
import { escapeTruncate } from "./escape.js";
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
import { profileRef } from "./profiles.js";
import { stepWhere } from "./steps.js";
import type { KnownBlock, Message } from "./types.js";

/** One watch as the commands and the App Home show it (a subset of WatchView). */
export interface WatchRow {
  livestreamId: string;
  channelId: string;
  /** A personal watch of the viewer, told by DM (channelId is then not a channel). */
  dm?: boolean;
  /** A waiting workflow step (channelId is then the step's key): listed, no Unwatch button. */
  step?: { kind: "wait_until_live" | "wait_until_off_air"; executionId: string } | undefined;
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
export function watchStartedMessage(opts: {
  livestreamId: string;
  title: string;
  channelId: string;
  by: string;
  added: boolean;
  intervalMs: number;
  graceMs: number;
}): Message {
  const what = label({ livestreamId: opts.livestreamId, title: opts.title });
  if (!opts.added) {
    return message(`This channel already watches ${opts.title || opts.livestreamId}.`, [
      section(`${channel(opts.channelId)} already watches ${what}: nothing changed.`),
    ]);
  }
  return message(`This channel now watches ${opts.title || opts.livestreamId}.`, [
    section(
      `:eyes: ${mention(opts.by)} set ${channel(opts.channelId)} to watch ${what}. When it goes on air, one message is posted here and kept up to date while it is on air; it says when it ended after ${seconds(opts.graceMs)} off air.`,
    ),
    context([
      `Checked every ${seconds(opts.intervalMs)} · stop with \`/live unwatch ${escapeTruncate(opts.livestreamId, 64)}\``,
    ]),
  ]);
}

/** `/live watch … dm` accepted (ephemeral: it concerns the asker only). */
export function watchDmStartedMessage(opts: {
  livestreamId: string;
  title: string;
  added: boolean;
  intervalMs: number;
  graceMs: number;
}): Message {
  const what = label({ livestreamId: opts.livestreamId, title: opts.title });
  if (!opts.added) {
    return message(`You already get DMs about ${opts.title || opts.livestreamId}.`, [
      section(`You already get a DM when ${what} goes on air: nothing changed.`),
    ]);
  }
  return message(`You will get a DM when ${opts.title || opts.livestreamId} goes on air.`, [
    section(
      `:bell: You will get a DM from this app when ${what} goes on air, kept up to date while it is on air; it says when it ended after ${seconds(opts.graceMs)} off air. Nobody else is told.`,
    ),
    context([
      `Checked every ${seconds(opts.intervalMs)} · stop with \`/live unwatch ${escapeTruncate(opts.livestreamId, 64)} dm\``,
    ]),
  ]);
}

/** `/live unwatch … dm` answered (ephemeral). */
export function watchDmStoppedMessage(opts: { livestreamId: string; removed: boolean }): Message {
  const id = code(opts.livestreamId, 64);
  return opts.removed
    ? message(`You no longer get DMs about ${opts.livestreamId}.`, [
        section(`:no_bell: You no longer get DMs about ${id}.`),
      ])
    : message(`You do not get DMs about ${opts.livestreamId}.`, [
        section(`You do not get DMs about ${id}: nothing changed. \`/live watching\` lists yours.`),
      ]);
}

/** `/live watch … dm` when Slack would not open a DM with the person: nothing watched. */
export function watchDmUnavailableMessage(slackError: string | undefined): Message {
  const why = slackError ? ` (Slack answered \`${escapeTruncate(slackError, 60)}\`)` : "";
  const scope =
    slackError === "missing_scope"
      ? " This app's installation lacks the `im:write` permission: a workspace admin must reinstall the app (Slack then asks for it)."
      : " Try again later.";
  return message("The app could not open a direct message with you; nothing is watched.", [
    section(`:warning: The app could not open a direct message with you${why}; nothing is watched.${scope}`),
  ]);
}

/** `/live unwatch` answered (ephemeral). */
export function watchStoppedMessage(opts: {
  livestreamId: string;
  channelId: string;
  removed: boolean;
}): Message {
  const id = code(opts.livestreamId, 64);
  return opts.removed
    ? message(`This channel no longer watches ${opts.livestreamId}.`, [
        section(`:no_bell: ${channel(opts.channelId)} no longer watches ${id}.`),
      ])
    : message(`This channel does not watch ${opts.livestreamId}.`, [
        section(
          `${channel(opts.channelId)} does not watch ${id}: nothing changed. \`/live watching\` lists what this workspace watches.`,
        ),
      ]);
}

/**
 * `/live watch` refused by a cap: the person's DM watches (`user`), the workspace's own
 * (`workspace`) or the one in all (`all`, LIVE_WATCH_MAX, shared by every workspace of this bot).
 */
export function watchLimitMessage(limit: number, scope: "user" | "workspace" | "all" = "workspace"): Message {
  if (scope === "user") {
    return message(`You already get DMs about ${limit} livestreams.`, [
      section(
        `:no_entry: You already get DMs about ${limit} livestreams, the most one person can. Stop one with \`/live unwatch <id> dm\` first (\`/live watching\` lists yours).`,
      ),
    ]);
  }
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
  const where = r.step
    ? stepWhere(r.step.kind, r.step.executionId)
    : r.dm
      ? "by DM to you"
      : `in ${channel(r.channelId)}`;
  return `• ${label(r)}${of} ${where}: ${stateText(r)}`;
}

/** `/live watching` (ephemeral). */
export function watchingMessage(rows: readonly WatchRow[]): Message {
  if (rows.length === 0) {
    return message("This workspace watches no livestream.", [
      section(
        "This workspace watches no livestream. A manager starts with `/live watch <id or URL>` in the channel that should be told; anyone can get a DM with `/live watch <id or URL> dm`.",
      ),
    ]);
  }
  const lines = rows.map(rowLine);
  const mine = rows.filter((r) => r.dm).length;
  const steps = rows.filter((r) => r.step).length;
  return message(`This workspace watches ${rows.length} livestream channel(s).`, [
    section(
      `*Watched livestreams (${rows.length})*${mine > 0 ? ` · ${mine} by DM to you (only you see those)` : ""}${steps > 0 ? ` · ${steps} for waiting workflow steps` : ""}`,
    ),
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
  opts: { isManager: boolean; health: WatchHealthLine | undefined; room: number },
): KnownBlock[] {
  const out: KnownBlock[] = [];
  if (rows.length === 0 && (opts.health?.failing.length ?? 0) === 0) return out;
  out.push(section(`*Live watch (${rows.length})*`));
  const failing = opts.health?.failing ?? [];
  if (failing.length > 0) {
    const ids = failing.slice(0, 10).map((f) => code(f.livestreamId, 64));
    out.push(
      context([
        `:warning: Reading ${failing.length} watched livestream(s) failed last time (${ids.join(", ")}${failing.length > ids.length ? ", …" : ""}): ${escapeTruncate(failing[0]?.error ?? "", 200)}. The bot keeps trying, less often.`,
      ]),
    );
  }
  // A row is its line, plus its Unwatch button for a manager (a channel's) or the viewer (a DM's).
  const withButton = (r: WatchRow) => r.dm === true || (opts.isManager && r.step === undefined);
  const room = Math.max(0, opts.room - out.length - 1);
  let shown = 0;
  for (let used = 0; shown < rows.length; shown++) {
    const r = rows[shown] as WatchRow;
    used += withButton(r) ? 2 : 1;
    if (used > room) break;
  }
  for (const r of rows.slice(0, shown)) {
    out.push(section(rowLine(r)));
    if (r.dm) {
      out.push(
        actions([
          button({
            text: "🔕 Unwatch",
            actionId: ACTIONS.watchUnwatchDm,
            value: r.livestreamId,
            confirm: confirmDialog({
              title: "Stop the DMs?",
              text: `You will no longer get a DM when ${r.livestreamId.slice(0, 64)} goes on air.`,
              confirm: "Unwatch",
              deny: "Cancel",
            }),
          }),
        ]),
      );
    } else if (withButton(r)) {
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
