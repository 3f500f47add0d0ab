/**
 * `wait_until_live` and `wait_until_off_air`: completed at once when the livestream is in that
 * state already; otherwise kept as a waiting step of the live watch (src/watch/steps.ts), which
 * completes it (or fails it at its timeout, or when the workspace loses access) from its polls.
 */
import { stepLimitText, stepNoWaitText } from "../../../messages/index.js";
import { WatchLimitError } from "../../../watch/live-docs.js";
import { stepOutputs, type WaitKind, waitOver } from "../../../watch/steps.js";
import type { StepHandler } from "../../request.js";
import { readStepInputs, type StepInput } from "./inputs.js";
import { stepAccess } from "./status.js";

/** `timeout_minutes` when not given. */
const DEFAULT_TIMEOUT: Record<WaitKind, number> = { wait_until_live: 60, wait_until_off_air: 240 };

export function waitStep(kind: WaitKind): StepHandler<StepInput> {
  return {
    read: (inputs) => readStepInputs(inputs, DEFAULT_TIMEOUT[kind]),
    what: (input) => `Could not read livestream ${input.livestreamId}`,
    access: stepAccess,
    run: async (req, input, { livestream }) => {
      const outputs = stepOutputs(input.livestreamId, livestream);
      if (waitOver(kind, outputs.on_air, null)) {
        await req.complete(kind === "wait_until_off_air" ? { ...outputs, on_air_minutes: 0 } : outputs);
        return;
      }
      const watch = req.deps.watch;
      if (!watch) {
        await req.respond({ text: stepNoWaitText() });
        return;
      }
      try {
        await watch.wait({
          kind,
          executionId: req.executionId,
          teamId: req.subject.teamId,
          enterpriseId: req.subject.enterpriseId,
          livestreamId: input.livestreamId,
          profileId: livestream.profile?.profile_id,
          timeoutMinutes: input.timeoutMinutes,
        });
        req.log.info({ livestream: input.livestreamId, kind }, "workflow step waiting");
      } catch (err) {
        if (!(err instanceof WatchLimitError)) throw err;
        await req.respond({ text: stepLimitText(err.limit, err.scope) });
      }
    },
  };
}
