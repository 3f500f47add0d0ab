/** Request signing checked against Slack's documented example and Bolt's own verifier. */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { verifySlackRequest } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendSigned, signSlackRequest, slackSignature, slashCommandBody } from "../../fakes/slack/index.js";

const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";

const verify = (
  body: string,
  headers: { "x-slack-signature": string; "x-slack-request-timestamp": string },
  secret = SECRET,
) =>
  verifySlackRequest({
    signingSecret: secret,
    body,
    headers: {
      "x-slack-signature": headers["x-slack-signature"],
      "x-slack-request-timestamp": Number(headers["x-slack-request-timestamp"]),
    },
  });

describe("signSlackRequest", () => {
  it("reproduces the example of Slack's documentation", () => {
    const body =
      "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    expect(signSlackRequest(body, SECRET, 1531420618)).toEqual({
      "x-slack-signature": "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
      "x-slack-request-timestamp": "1531420618",
    });
  });

  it("passes Bolt's verifySlackRequest, timestamped now by default", () => {
    const body = slashCommandBody({
      command: "/live",
      text: "status x9b2k4m",
      responseUrl: "http://127.0.0.1/r/1",
    });
    const headers = signSlackRequest(body, SECRET);
    expect(Math.abs(Number(headers["x-slack-request-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
    expect(() => verify(body, headers)).not.toThrow();
  });

  it("fails Bolt's verifier with another secret or another body", () => {
    const body = "payload=%7B%7D";
    const headers = signSlackRequest(body, SECRET);
    expect(() => verify(body, headers, "another-secret")).toThrow(/signature mismatch/);
    expect(() => verify(`${body}x`, headers)).toThrow(/signature mismatch/);
  });

  it("fails Bolt's verifier when the timestamp is more than five minutes old", () => {
    const body = "payload=%7B%7D";
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;
    const headers = signSlackRequest(body, SECRET, stale);
    expect(headers["x-slack-signature"]).toBe(slackSignature(body, SECRET, stale));
    expect(() => verify(body, headers)).toThrow(/stale/);
    expect(() => verify(body, signSlackRequest(body, SECRET, stale + 2 * 60))).not.toThrow();
  });
});

describe("sendSigned", () => {
  const seen: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      setTimeout(() => {
        res.writeHead(202, { "content-type": "text/plain" });
        res.end("got it");
      }, 30);
    });
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });

  it("POSTs the body signed, with a content type that follows the body, and times the round trip", async () => {
    const form = "command=%2Flive&text=help";
    const r = await sendSigned(url, form, SECRET);
    expect(r).toMatchObject({ status: 202, body: "got it" });
    expect(r.ms).toBeGreaterThanOrEqual(25);
    const got = seen.at(-1);
    expect(got?.body).toBe(form);
    expect(got?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const headers = {
      "x-slack-signature": String(got?.headers["x-slack-signature"]),
      "x-slack-request-timestamp": String(got?.headers["x-slack-request-timestamp"]),
    };
    expect(() => verify(form, headers)).not.toThrow();
    await sendSigned(url, '{"type":"url_verification"}', SECRET);
    expect(seen.at(-1)?.headers["content-type"]).toBe("application/json");
  });

  it("sends the timestamp and signature it is given", async () => {
    await sendSigned(url, "a=1", SECRET, {
      timestamp: 1000,
      signature: "v0=forged",
      contentType: "text/plain",
    });
    expect(seen.at(-1)?.headers).toMatchObject({
      "x-slack-request-timestamp": "1000",
      "x-slack-signature": "v0=forged",
      "content-type": "text/plain",
    });
  });
});
