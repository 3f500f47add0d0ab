/**
 * The App Home's Unwatch buttons, no platform read: a channel's watch (managers, "live.unwatch")
 * and the viewer's own DM watch (anyone, "live.unwatch.dm": the value names the livestream only,
 * the watch is always the presser's own). On the App Home the Home is published again.
 */
import { isPlatformId } from "../../../domain/index.js";
import {
  parseUnwatchValue,
  usageError,
  watchDmStoppedMessage,
  watchStoppedMessage,
  watchUnavailableMessage,
} from "../../../messages/index.js";
import { dmKey } from "../../../watch/registry.js";
import { ephemeral } from "../../context.js";
import type { ResourceButton } from "../../request.js";
import { publishHome } from "../events/home.js";

const NO_WATCH = "This button does not name a watch: use `/live unwatch <id or URL>` in its channel.";

export const watchUnwatch: ResourceButton = {
  what: () => "Could not stop the watch",
  access: {
    action: "live.unwatch",
    resource: (req) => ({
      kind: "livestream",
      livestreamId: parseUnwatchValue(req.action.value)?.livestreamId ?? "",
    }),
  },
  run: async (req) => {
    const { deps, subject, action, answer, respond, onHome } = req;
    const target = parseUnwatchValue(action.value);
    if (target === null) await answer(ephemeral(usageError("/live", NO_WATCH)));
    else if (!deps.watch) await answer(ephemeral(watchUnavailableMessage()));
    else {
      const { removed } = await deps.watch.unwatch({ teamId: subject.teamId, ...target });
      if (onHome) await publishHome(req);
      else await respond(ephemeral(watchStoppedMessage({ ...target, removed })));
    }
  },
};

export const watchUnwatchDm: ResourceButton = {
  what: () => "Could not stop the DMs",
  access: {
    action: "live.unwatch.dm",
    resource: (req) => ({ kind: "livestream", livestreamId: req.action.value ?? "" }),
  },
  run: async (req) => {
    const { deps, subject, action, answer, respond, onHome } = req;
    const livestreamId = action.value ?? "";
    if (!isPlatformId(livestreamId))
      await answer(
        ephemeral(
          usageError("/live", "This button does not name a livestream: use `/live unwatch <id> dm`."),
        ),
      );
    else if (!deps.watch) await answer(ephemeral(watchUnavailableMessage()));
    else {
      const key = { teamId: subject.teamId, channelId: dmKey(subject.userId), livestreamId };
      const { removed } = await deps.watch.unwatch(key);
      if (onHome) await publishHome(req);
      else await respond(ephemeral(watchDmStoppedMessage({ livestreamId, removed })));
    }
  },
};
