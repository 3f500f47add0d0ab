/**
 * `/live unwatch <id or URL> [dm]` (managers; `dm`: the asker's own watch, anyone who may read
 * the livestream) and `/live watching` (anyone: the workspace's channel watches and the asker's
 * own DM watches, never another person's). No platform read.
 */
import {
  watchDmStoppedMessage,
  watchingMessage,
  watchStoppedMessage,
  watchUnavailableMessage,
} from "../../../../messages/index.js";
import { withProfileNames } from "../../../../operations/profiles.js";
import { ephemeral } from "../../../context.js";
import type { OfKind, ResourceCommand } from "../../../request.js";
import type { LiveCommand } from "../grammar.js";
import { watchKey } from "./watch.js";

export const unwatch: ResourceCommand<OfKind<LiveCommand, "unwatch">> = {
  what: (cmd) => `Could not unwatch ${cmd.livestreamId}`,
  // A watch of this workspace can be stopped even when the livestream is gone: no read.
  access: {
    action: (cmd) => (cmd.dm ? "live.unwatch.dm" : "live.unwatch"),
    resource: (cmd) => ({ kind: "livestream", livestreamId: cmd.livestreamId }),
  },
  run: async ({ deps, subject, respond }, cmd) => {
    const key = watchKey(subject, cmd);
    if (!deps.watch) await respond(ephemeral(watchUnavailableMessage()));
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

export const watching: ResourceCommand<OfKind<LiveCommand, "watching">> = {
  what: () => "Could not list the watched livestreams",
  access: { action: "live.watching", resource: () => ({ kind: "workspace" }) },
  run: async (req) => {
    const { deps, subject, respond } = req;
    if (!deps.watch) await respond(ephemeral(watchUnavailableMessage()));
    else {
      const rows = await deps.watch.list(subject.teamId, subject.enterpriseId, subject.userId);
      await respond(ephemeral(watchingMessage(await withProfileNames(req, rows))));
    }
  },
};
