import { describe, expect, it } from "vitest";
import { type Sandbox, SEED } from "../../fakes/platform/server.js";
import { api, call, tokenFor } from "./helpers.js";
import { sandboxForFile } from "./per-file.js";

/** Polls an asynchronous condition every 20 ms until it holds; throws after `timeoutMs`. */
async function until(probe: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const started = Date.now();
  while (!(await probe())) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let sb: Sandbox;
sandboxForFile((s) => {
  sb = s;
});

const control = (path: string, body: unknown) =>
  call("POST", `${sb.url}/_sandbox/${path}`, {
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const ID = SEED.livestreams.offAir;
const read = async () => {
  const r = await api(
    sb,
    "GET",
    `/livestreams/${ID}?fields=status,advertising,recording,start_at`,
    await tokenFor(sb),
  );
  return r.json as Record<string, Record<string, unknown>>;
};

describe("live-show controls", () => {
  it("puts a livestream on air and off air, with airing_at/start_at and the ad quota", async () => {
    const at = "2030-01-01T10:00:00Z";
    expect((await control("live", { livestream_id: ID, step: { action: "on_air", at } })).status).toBe(200);
    let ls = await read();
    expect(ls.status).toMatchObject({ onair: true, airing_at: at });
    expect(ls.start_at).toBe(at);
    expect(ls.advertising).toEqual({ end_at: null, remaining: 24 });
    await control("live", { livestream_id: ID, step: { action: "off_air" } });
    ls = await read();
    expect(ls.status).toMatchObject({ onair: false });
    expect(ls.advertising).toEqual({ end_at: null, remaining: 0 });
  });

  it("runs ad breaks (remaining decreases, end_at clears when over) and refuses one off air", async () => {
    await control("live", { livestream_id: ID, step: { action: "on_air" } });
    await control("live", { livestream_id: ID, step: { action: "ad_break", durationMs: 60_000 } });
    let ls = await read();
    expect(ls.advertising?.remaining).toBe(23);
    expect(typeof ls.advertising?.end_at).toBe("string");
    await control("live", { livestream_id: ID, step: { action: "ad_break", durationMs: 0 } });
    ls = await read();
    expect(ls.advertising).toEqual({ end_at: null, remaining: 22 });
    await control("live", { livestream_id: ID, step: { action: "off_air" } });
    const refused = await control("live", { livestream_id: ID, step: { action: "ad_break" } });
    expect(refused.status).toBe(422);
  });

  it("changes the recording status; unknown livestream 404, bad body 422", async () => {
    await control("live", { livestream_id: ID, step: { action: "recording", status: "started" } });
    expect((await read()).recording?.status).toBe("started");
    expect((await control("live", { livestream_id: "nope", step: { action: "off_air" } })).status).toBe(404);
    expect((await control("live", { livestream_id: ID, step: { action: "explode" } })).status).toBe(422);
  });

  it("plays a scripted broadcast in order, with its delays", async () => {
    const r = await control("live/script", {
      livestream_id: ID,
      steps: [
        { afterMs: 0, step: { action: "on_air" } },
        // Far apart, so that the state between two steps is seen on a loaded machine too.
        { afterMs: 1_500, step: { action: "recording", status: "started" } },
        { afterMs: 100, step: { action: "off_air" } },
      ],
    });
    expect(r.status).toBe(202);
    // The first step at once; the second not before its delay.
    await until(async () => (await read()).status?.onair === true, 5_000, "on air");
    expect((await read()).recording?.status).not.toBe("started");
    // Then the rest, in order: recording started, then off air (which stops the recording).
    await until(async () => (await read()).status?.onair === false, 10_000, "off air");
    expect((await read()).recording?.status).toBe("stopped");
  });
});
