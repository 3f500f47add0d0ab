/**
 * Workflow Builder steps over the real path: the stand-in starts an execution (its
 * `function_execution_id` and workflow token), the signed `function_executed` event goes to a
 * bot's receiver, and the stand-in records how the step was completed.
 */
import {
  eventBody,
  functionExecutedEvent,
  type RecordedCompletion,
  type SlackStandin,
  sendSigned,
} from "../../fakes/slack/index.js";
import { SIGNING_SECRET, waitFor } from "./harness.js";

/** Sends `callbackId` with `inputs` to the bot at `eventsUrl`; its execution id. */
export async function runStep(
  slack: SlackStandin,
  eventsUrl: string,
  callbackId: string,
  inputs: Record<string, unknown>,
  teamId: string = slack.teamId,
): Promise<string> {
  const { executionId, token } = slack.startExecution();
  const event = functionExecutedEvent({ callbackId, inputs, executionId, token });
  const res = await sendSigned(eventsUrl, eventBody({ event, teamId }), SIGNING_SECRET);
  if (res.status !== 200) throw new Error(`function_executed answered ${res.status}`);
  return executionId;
}

/** Every completion of the execution (one, when it was completed exactly once). */
export const completionsOf = (slack: SlackStandin, executionId: string): RecordedCompletion[] =>
  slack.completions().filter((c) => c.executionId === executionId);

/** The execution's completion, once the stand-in has it. */
export function completion(slack: SlackStandin, executionId: string, ms = 8000): Promise<RecordedCompletion> {
  return waitFor(() => completionsOf(slack, executionId)[0], ms, `the completion of ${executionId}`);
}
