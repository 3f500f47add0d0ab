/**
 * `livestream_status`: the livestream's state, at once. One GET with the status card's fields,
 * so it is shared with a `/live status` of the same livestream (src/access/shared-reads.ts).
 */
import { LIVESTREAM_CARD_FIELDS } from "../../../messages/index.js";
import { stepOutputs } from "../../../watch/steps.js";
import type { StepHandler } from "../../request.js";
import { readStepInputs, type StepInput } from "./inputs.js";

/** What every step declares: the livestream read for the workspace, as `/live status` reads it. */
export const stepAccess: StepHandler<StepInput>["access"] = {
  action: "workflow.step",
  livestream: (input) => input.livestreamId,
  fields: LIVESTREAM_CARD_FIELDS,
};

export const livestreamStatus: StepHandler<StepInput> = {
  read: (inputs) => readStepInputs(inputs),
  what: (input) => `Could not read livestream ${input.livestreamId}`,
  access: stepAccess,
  run: (req, input, { livestream }) => req.complete(stepOutputs(input.livestreamId, livestream)),
};
