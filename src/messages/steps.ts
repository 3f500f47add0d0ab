import { code } from "./kit.js";

/**
 * The words of the Workflow Builder steps: why a step failed (Slack shows it to the person who
 * runs the workflow, as plain text), and how a waiting step is listed.
 */
type WaitKind = "wait_until_live" | "wait_until_off_air";

const minutes = (n: number) => (n === 1 ? "1 minute" : `${Number(n.toFixed(2))} minutes`);

/** A livestream input that is empty or not an id or URL: what to give instead. */
export function stepLivestreamInputText(problem: string | null): string {
  const give =
    "Give the livestream's id (such as x9b2k4m) or its URL (such as https://www.dailymotion.com/video/x9b2k4m).";
  return problem === null ? `The step needs a livestream. ${give}` : `${problem} ${give}`;
}

/** A timeout out of range: what to give instead. */
export function stepTimeoutInputText(given: string): string {
  return `"${given.slice(0, 40)}" is not a usable timeout. Give a number of minutes more than 0 and at most 1440 (24 hours), such as 60; leave it empty for the default.`;
}

/** A wait that outlived its timeout. */
export function stepTimedOutText(kind: WaitKind, timeoutMinutes: number): string {
  return kind === "wait_until_live"
    ? `The livestream did not go on air within ${minutes(timeoutMinutes)}.`
    : `The broadcast did not end within ${minutes(timeoutMinutes)}.`;
}

/** A waiting step whose workspace lost access to the livestream. */
export function stepRevokedText(livestreamId: string): string {
  return `The livestream ${livestreamId} is no longer available to this workspace, so the step stopped waiting.`;
}

/** A waiting step refused by a cap on watches (LIVE_WATCH_MAX, or the workspace's). */
export function stepLimitText(limit: number, scope: "workspace" | "all" | "user"): string {
  return scope === "all"
    ? `The bot already watches ${limit} livestreams, the most it can; try again later.`
    : `This workspace already has ${limit} watches and waiting steps, the most it can; stop one first (\`/live watching\` lists them).`;
}

/** The bot runs without a store: it cannot wait. */
export function stepNoWaitText(): string {
  return "This bot cannot wait for a livestream (it runs without a store); use the livestream status step instead.";
}

/** How a waiting step is listed (`/live watching`, the App Home), in place of a channel. */
export function stepWhere(kind: WaitKind, executionId: string): string {
  const until = kind === "wait_until_live" ? "goes on air" : "goes off air";
  return `for a workflow step (${code(executionId, 40)}) waiting until it ${until}`;
}
