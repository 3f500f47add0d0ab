/**
 * `/live watch <id or URL>` (managers: this channel is told when it goes on and off air) and
 * `/live watch <id or URL> dm` (anyone who may read the livestream: the asker alone, by DM).
 */
import {
  watchDmStartedMessage,
  watchDmUnavailableMessage,
  watchLimitMessage,
  watchStartedMessage,
  watchUnavailableMessage,
} from "../../../../messages/index.js";
import { slackErrorCode } from "../../../../posting/index.js";
import { WatchLimitError } from "../../../../watch/live-docs.js";
import { dmKey } from "../../../../watch/registry.js";
import { type Asker, ephemeral, inChannel } from "../../../context.js";
import type { LivestreamCommand, OfKind } from "../../../request.js";
import type { LiveCommand } from "../grammar.js";

/** What `/live watch` reads (with the owning profile, in the same GET). */
export const WATCH_FIELDS = ["livestream_id", "title"] as const;

/** A channel's watch, or the asker's own DM watch (keyed by the asker: never anyone else's). */
export function watchKey(subject: Asker, cmd: { livestreamId: string; dm: boolean }) {
  const channelId = cmd.dm ? dmKey(subject.userId) : (subject.channelId ?? "");
  return { teamId: subject.teamId, channelId, livestreamId: cmd.livestreamId };
}

export const watch: LivestreamCommand<OfKind<LiveCommand, "watch">> = {
  what: (cmd) => `Could not watch ${cmd.livestreamId}`,
  access: {
    action: (cmd) => (cmd.dm ? "live.watch.dm" : "live.watch"),
    livestream: (cmd) => cmd.livestreamId,
    fields: WATCH_FIELDS,
  },
  run: async ({ deps, subject, respond, log }, cmd, { livestream }) => {
    const key = watchKey(subject, cmd);
    const watch = deps.watch;
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
        profileId: livestream.profile?.profile_id,
        by: subject.userId,
      });
      const opts = {
        livestreamId: cmd.livestreamId,
        title: livestream.title ?? "",
        added,
        intervalMs: deps.config.watch.intervalMs,
        graceMs: deps.config.watch.offAirGraceMs,
      };
      if (cmd.dm) await respond(ephemeral(watchDmStartedMessage(opts)));
      else {
        const m = watchStartedMessage({ ...opts, channelId: key.channelId, by: subject.userId });
        await respond(added ? inChannel(m) : ephemeral(m));
      }
    } catch (err) {
      if (!(err instanceof WatchLimitError)) throw err;
      await respond(ephemeral(watchLimitMessage(err.limit, err.scope)));
    }
  },
};
