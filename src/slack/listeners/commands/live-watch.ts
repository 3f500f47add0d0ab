/**
 * `/live watch|unwatch <id or URL>` (managers: this channel is told when it goes on and off air),
 * `/live watch|unwatch <id or URL> dm` (anyone who may read the livestream: the asker alone is told,
 * by DM) and `/live watching` (anyone: the workspace's channel watches and the asker's own DM
 * watches, never another person's). Every one is authorized (src/access) before anything else.
 */
import type { Logger } from "../../../log.js";
import {
  refusalMessage,
  watchDmStartedMessage,
  watchDmStoppedMessage,
  watchDmUnavailableMessage,
  watchingMessage,
  watchLimitMessage,
  watchStartedMessage,
  watchStoppedMessage,
  watchUnavailableMessage,
} from "../../../messages/index.js";
import { slackErrorCode } from "../../../watch/dm.js";
import { dmKey } from "../../../watch/registry.js";
import { WatchLimitError } from "../../../watch/store.js";
import { type Asker, type BotDeps, ephemeral, inChannel, type Reply } from "../../context.js";
import type { LiveCommand } from "../../grammar.js";
import { withProfileNames } from "../../profiles.js";

/** What `/live watch` reads (with the owning profile, in the same GET). */
export const WATCH_FIELDS = ["livestream_id", "title"] as const;

type WatchCommand = Extract<LiveCommand, { kind: "watch" | "unwatch" | "watching" }>;

export async function answerWatch(
  deps: BotDeps,
  subject: Asker,
  cmd: WatchCommand,
  respond: Reply,
  log: Logger,
): Promise<void> {
  const watch = deps.watch;
  if (cmd.kind === "watching") {
    const d = await deps.access.authorize(subject, "live.watching", { kind: "workspace" });
    if (!d.allowed) await respond(ephemeral(refusalMessage(d)));
    else if (!watch) await respond(ephemeral(watchUnavailableMessage()));
    else {
      const rows = await watch.list(subject.teamId, subject.enterpriseId, subject.userId);
      await respond(ephemeral(watchingMessage(await withProfileNames(deps, subject, rows))));
    }
    return;
  }
  // A channel's watch, or the asker's own DM watch (keyed by the asker: never anyone else's).
  const channelId = cmd.dm ? dmKey(subject.userId) : (subject.channelId ?? "");
  const key = { teamId: subject.teamId, channelId, livestreamId: cmd.livestreamId };
  if (cmd.kind === "unwatch") {
    // No platform read: a watch of this workspace can be stopped even when the livestream is gone.
    const d = await deps.access.authorize(subject, cmd.dm ? "live.unwatch.dm" : "live.unwatch", {
      kind: "livestream",
      livestreamId: cmd.livestreamId,
    });
    if (!d.allowed) await respond(ephemeral(refusalMessage(d)));
    else if (!watch) await respond(ephemeral(watchUnavailableMessage()));
    else {
      const { removed } = await watch.unwatch(key);
      await respond(
        ephemeral(
          cmd.dm
            ? watchDmStoppedMessage({ livestreamId: cmd.livestreamId, removed })
            : watchStoppedMessage({ livestreamId: cmd.livestreamId, channelId, removed }),
        ),
      );
    }
    return;
  }
  const r = await deps.access.readLivestream(
    subject,
    cmd.dm ? "live.watch.dm" : "live.watch",
    cmd.livestreamId,
    WATCH_FIELDS,
  );
  if (!r.allowed) {
    await respond(ephemeral(refusalMessage(r)));
    return;
  }
  if (!watch) {
    await respond(ephemeral(watchUnavailableMessage()));
    return;
  }
  if (cmd.dm) {
    // Opened now (and remembered): an installation without `im:write` is told so, and nothing is watched.
    try {
      await watch.dms.channel(subject.teamId, subject.userId, subject.client);
    } catch (err) {
      log.info({ err }, "could not open a DM with the person; nothing watched");
      await respond(ephemeral(watchDmUnavailableMessage(slackErrorCode(err))));
      return;
    }
  }
  try {
    const { added } = await watch.watch({
      ...key,
      enterpriseId: subject.enterpriseId,
      // Kept with the watch: the poller decides access again with it before every read.
      profileId: r.livestream.profile?.profile_id,
      by: subject.userId,
    });
    const o = {
      livestreamId: cmd.livestreamId,
      title: r.livestream.title ?? "",
      added,
      intervalMs: deps.config.live.watchIntervalMs,
      graceMs: deps.config.live.offAirGraceMs,
    };
    if (cmd.dm) await respond(ephemeral(watchDmStartedMessage(o)));
    else {
      const m = watchStartedMessage({ ...o, channelId, by: subject.userId });
      await respond(added ? inChannel(m) : ephemeral(m));
    }
  } catch (err) {
    if (!(err instanceof WatchLimitError)) throw err;
    await respond(ephemeral(watchLimitMessage(err.limit, err.scope)));
  }
}
