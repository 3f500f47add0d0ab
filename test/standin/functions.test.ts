/**
 * The stand-in's `functions.completeSuccess` / `completeError` with a real @slack/web-api client:
 * an execution completes once, its workflow token works only while it runs and only for itself,
 * a bot token completes any execution of its workspace, and every accepted completion is recorded.
 */
import { describe, expect, it } from "vitest";
import type { SlackStandin } from "../../fakes/slack/index.js";
import { type Client, caught, clientFor, standinForFile } from "./helpers.js";

let s: SlackStandin;
let bot: Client;
standinForFile((standin, client) => {
  s = standin;
  bot = client;
});

describe("functions.completeSuccess / completeError", () => {
  it("completes an execution once, with its workflow token, and records it", async () => {
    const { executionId, token } = s.startExecution();
    const wf = clientFor(s, token);
    await wf.functions.completeSuccess({
      function_execution_id: executionId,
      outputs: { on_air: true, n: 3 },
    });
    expect(s.completions()).toEqual([
      expect.objectContaining({
        executionId,
        outcome: "success",
        outputs: { on_air: true, n: 3 },
        by: "workflow",
      }),
    ]);
    // Completed: the workflow token no longer works, and a bot token cannot complete it again.
    expect((await caught(wf.auth.test())).error).toBe("invalid_auth");
    const again = await caught(
      bot.functions.completeError({ function_execution_id: executionId, error: "x" }),
    );
    expect(again.error).toBe("execution_not_in_running_state");
    expect(s.completions()).toHaveLength(1);
  });

  it("takes a bot token (a wait that outlived the workflow token), refuses another execution's token", async () => {
    const a = s.startExecution();
    const b = s.startExecution();
    const other = await caught(
      clientFor(s, b.token).functions.completeError({ function_execution_id: a.executionId, error: "no" }),
    );
    expect(other.error).toBe("access_denied");
    s.expireWorkflowToken(a.executionId);
    const expired = await caught(
      clientFor(s, a.token).functions.completeError({ function_execution_id: a.executionId, error: "late" }),
    );
    expect(expired.error).toBe("invalid_auth");
    await bot.functions.completeError({
      function_execution_id: a.executionId,
      error: "The livestream did not go on air.",
    });
    expect(s.completions()).toEqual([
      expect.objectContaining({ executionId: a.executionId, outcome: "error", by: "bot" }),
    ]);
    const unknown = await caught(
      bot.functions.completeSuccess({ function_execution_id: "Fx0NOPE", outputs: {} }),
    );
    expect(unknown.error).toBe("function_execution_not_found");
  });
});
