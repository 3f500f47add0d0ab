/**
 * `/live unwatch <id or URL> [dm]` (managers; `dm`: the asker's own watch, anyone who may read
 * the livestream) and `/live watching` (anyone: the workspace's channel watches and the asker's
 * own DM watches, never another person's). No platform read.
 */
import {
  refusalMessage,
  watchDmStoppedMessage,
  watchingMessage,
  watchStoppedMessage,
  watchUnavailableMessage,
} from "../../../../messages/index.js";
import { withProfileNames } from "../../../../operations/profiles.js";
import { ephemeral } from "../../../context.js";
import type { CommandHandler, OfKind } from "../../../request.js";
import type { LiveCommand } from "../grammar.js";
import { watchKey } from "./watch.js";

export const unwatch: CommandHandler<OfKind<LiveCommand, "unwatch">> = {
  what: (cmd) => `Could not unwatch ${cmd.livestreamId}`,
  run: async ({ deps, subject, respond }, cmd) => {
    const key = watchKey(subject, cmd);
    // A watch of this workspace can be stopped even when the livestream is gone.
    const d = await deps.access.authorize(subject, cmd.dm ? "live.unwatch.dm" : "live.unwatch", {
      kind: "livestream",
      livestreamId: cmd.livestreamId,
    });
    if (!d.allowed) await respond(ephemeral(refusalMessage(d)));
    else if (!deps.watch) await respond(ephemeral(watchUnavailableMessage()));
    else {
      const { removed } = await deps.watch.unwatch(key);
      await respond(
        ephemeral(
          cmd.dm
            ? watchDmStoppedMessage({ livestreamId: cmd.livestreamId, removed })
            : watchStoppedMessage({ livestreamId: cmd.livestreamId, channelId: key.channelId, removed }),
        ),
      );
    }
  },
};

export const watching: CommandHandler<OfKind<LiveCommand, "watching">> = {
  what: () => "Could not list the watched livestreams",
  run: async ({ deps, subject, respond }) => {
    const d = await deps.access.authorize(subject, "live.watching", { kind: "workspace" });
    if (!d.allowed) await respond(ephemeral(refusalMessage(d)));
    else if (!deps.watch) await respond(ephemeral(watchUnavailableMessage()));
    else {
      const rows = await deps.watch.list(subject.teamId, subject.enterpriseId, subject.userId);
      await respond(ephemeral(watchingMessage(await withProfileNames(deps, subject, rows))));
    }
  },
};
