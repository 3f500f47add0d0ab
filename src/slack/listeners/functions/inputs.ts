/**
 * A step's inputs (manifest.yml, `input_parameters`): the livestream read with the `/live`
 * grammar's id/URL parser, the timeout checked against its range. Pure: inputs in, the value or
 * what to give instead out.
 */
import { stepLivestreamInputText, stepTimeoutInputText } from "../../../messages/index.js";
import { type Parsed, parseLivestreamRef } from "../commands/grammar.js";

export interface StepInput {
  livestreamId: string;
  /** A waiting step's timeout (the status step has none). */
  timeoutMinutes: number;
}

/** `timeout_minutes`: more than 0 and at most 24 hours, fractions allowed. */
export const MAX_TIMEOUT_MINUTES = 1440;

function timeoutOf(raw: unknown, fallback: number): Parsed<number> {
  if (raw === undefined || raw === null || raw === "") return { ok: true, value: fallback };
  const n = typeof raw === "number" ? raw : typeof raw === "string" ? Number(raw.trim()) : Number.NaN;
  if (Number.isFinite(n) && n > 0 && n <= MAX_TIMEOUT_MINUTES) return { ok: true, value: n };
  return { ok: false, problem: stepTimeoutInputText(String(raw)) };
}

/** The inputs of a step; `defaultTimeout` for a waiting one (its `timeout_minutes` when not given). */
export function readStepInputs(inputs: Record<string, unknown>, defaultTimeout = 0): Parsed<StepInput> {
  const raw = inputs.livestream;
  if (typeof raw !== "string" || raw.trim() === "")
    return { ok: false, problem: stepLivestreamInputText(null) };
  const ref = parseLivestreamRef(raw);
  if (!ref.ok) return { ok: false, problem: stepLivestreamInputText(ref.problem) };
  const timeout = defaultTimeout > 0 ? timeoutOf(inputs.timeout_minutes, defaultTimeout) : undefined;
  if (timeout !== undefined && !timeout.ok) return timeout;
  return { ok: true, value: { livestreamId: ref.value, timeoutMinutes: timeout?.value ?? 0 } };
}
