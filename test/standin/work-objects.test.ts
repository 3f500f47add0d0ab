/**
 * Slack Work Objects on the stand-in, driven by the real @slack/web-api client (objects sent
 * JSON-encoded in form fields): chat.unfurl's `metadata.entities`, entity.presentDetails (the
 * flexpane: an entity or an error) and the `entity_details_requested` event builder.
 */
import type { EntityMetadata } from "@slack/types";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { entityDetailsRequestedEvent, eventPayload, type SlackStandin } from "../../fakes/slack/index.js";
import { type Client, caught, section, standinForFile } from "./helpers.js";

let s: SlackStandin;
let client: Client;

standinForFile((started, c) => {
  s = started;
  client = c;
});

const URL_A = "https://www.dailymotion.com/video/x8abc12";
const URL_B = "https://www.dailymotion.com/video/x8def34";

/** A valid entity for `url` (app_unfurl_url set: what chat.unfurl needs). */
function entity(url: string, id = "x8abc12"): EntityMetadata {
  return {
    entity_type: "slack#/entities/item",
    url,
    app_unfurl_url: url,
    external_ref: { id, type: "livestream" },
    entity_payload: {
      attributes: { title: { text: "Morning news" }, display_type: "Livestream", product_name: "Video" },
      custom_fields: [
        { key: "status", label: "Status", type: "string", value: "On air" },
        { key: "viewers", label: "Viewers", type: "integer", value: 42 },
      ],
      display_order: ["status", "viewers"],
    },
  };
}

const preview = (text: string) => ({ blocks: [section(text)] });

/** An object without one key (`path` "a.b" drops b inside a). */
function without<T>(value: T, path: string): T {
  const copy = structuredClone(value) as Record<string, unknown>;
  const keys = path.split(".");
  let at = copy;
  for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
  delete at[keys[keys.length - 1] as string];
  return copy as T;
}

/** A raw form-encoded call (what WebClient's types would not let a test send). */
async function rawCall(method: string, fields: Record<string, string>): Promise<Record<string, unknown>> {
  const res = await request(`${s.apiUrl}${method}`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.botToken}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  expect(res.statusCode).toBe(200);
  return (await res.body.json()) as Record<string, unknown>;
}

describe("chat.unfurl with Work Object metadata", () => {
  it("records the entities with the previews", async () => {
    const metadata = { entities: [entity(URL_A), entity(URL_B, "x8def34")] };
    const r = await client.chat.unfurl({
      channel: "C0GENERAL",
      ts: "1700000000.000100",
      unfurls: { [URL_A]: preview("A"), [URL_B]: preview("B") },
      metadata,
    });
    expect(r.ok).toBe(true);
    // WebClient sent it JSON-encoded in a form field: the call log holds it decoded.
    expect(s.callsTo("chat.unfurl")[0]?.args.metadata).toEqual(metadata);
    const [recorded] = s.unfurls();
    expect(recorded).toMatchObject({ channel: "C0GENERAL", ts: "1700000000.000100" });
    expect(recorded?.metadata).toEqual(metadata);
    // A copy: changing what was returned changes nothing recorded.
    (recorded?.metadata?.entities as unknown[]).length = 0;
    expect(s.unfurls()[0]?.metadata).toEqual(metadata);
  });

  it("records no metadata key when none is given", async () => {
    await client.chat.unfurl({
      channel: "C0GENERAL",
      ts: "1700000000.000100",
      unfurls: { [URL_A]: preview("A") },
    });
    expect(s.unfurls()).toHaveLength(1);
    expect(s.unfurls()[0]).not.toHaveProperty("metadata");
  });

  it("refuses an entity without external_ref.id (invalid_metadata), records nothing", async () => {
    const bad = without(entity(URL_A), "external_ref.id");
    const err = await caught(
      client.chat.unfurl({
        channel: "C0GENERAL",
        ts: "1700000000.000100",
        unfurls: { [URL_A]: preview("A") },
        metadata: { entities: [bad] },
      }),
    );
    expect(err.error).toBe("invalid_metadata");
    expect(err.data?.errors).toEqual([expect.stringContaining("/metadata/entities/0/external_ref/id")]);
    expect(s.unfurls()).toEqual([]);
  });

  it("refuses an app_unfurl_url that is not among the unfurled URLs, records nothing", async () => {
    const err = await caught(
      client.chat.unfurl({
        channel: "C0GENERAL",
        ts: "1700000000.000100",
        unfurls: { [URL_A]: preview("A") },
        metadata: { entities: [entity(URL_A), entity(URL_B, "x8def34")] },
      }),
    );
    expect(err.error).toBe("invalid_metadata");
    expect(err.data?.errors).toEqual([expect.stringContaining("/metadata/entities/1/app_unfurl_url")]);
    expect(s.unfurls()).toEqual([]);
  });

  it("refuses each missing piece: entities, entity_type, url, app_unfurl_url, title, custom field keys", async () => {
    const cases: Array<[unknown, string]> = [
      [{ entities: [] }, "/metadata/entities"],
      [{ event_type: "x", event_payload: {} }, "/metadata/entities"],
      [{ entities: [without(entity(URL_A), "entity_type")] }, "/metadata/entities/0/entity_type"],
      [{ entities: [without(entity(URL_A), "url")] }, "/metadata/entities/0/url"],
      [{ entities: [without(entity(URL_A), "app_unfurl_url")] }, "/metadata/entities/0/app_unfurl_url"],
      [{ entities: [without(entity(URL_A), "external_ref")] }, "/metadata/entities/0/external_ref"],
      [
        { entities: [without(entity(URL_A), "entity_payload.attributes.title")] },
        "/metadata/entities/0/entity_payload/attributes/title",
      ],
      [
        { entities: [{ ...entity(URL_A), entity_payload: { attributes: { title: { text: "" } } } }] },
        "/metadata/entities/0/entity_payload/attributes/title/text",
      ],
      [
        {
          entities: [
            {
              ...entity(URL_A),
              entity_payload: {
                attributes: { title: { text: "t" } },
                custom_fields: [
                  { key: "k", label: "L", type: "string" },
                  { key: "k2", type: "string" },
                ],
              },
            },
          ],
        },
        "/metadata/entities/0/entity_payload/custom_fields/1/label",
      ],
    ];
    for (const [metadata, pointer] of cases) {
      const answer = await rawCall("chat.unfurl", {
        channel: "C0GENERAL",
        ts: "1700000000.000100",
        unfurls: JSON.stringify({ [URL_A]: preview("A") }),
        metadata: JSON.stringify(metadata),
      });
      expect(answer, pointer).toMatchObject({ ok: false, error: "invalid_metadata" });
      expect(answer.errors, pointer).toEqual([expect.stringContaining(`[json-pointer:${pointer}]`)]);
    }
    const notJson = await rawCall("chat.unfurl", {
      channel: "C0GENERAL",
      ts: "1700000000.000100",
      unfurls: JSON.stringify({ [URL_A]: preview("A") }),
      metadata: "{not json",
    });
    expect(notJson).toMatchObject({ ok: false, error: "invalid_metadata" });
    expect(s.unfurls()).toEqual([]);
  });
});

describe("entity.presentDetails", () => {
  const { app_unfurl_url: _, ...flexpane } = entity(URL_A);

  it("records the entity shown for a trigger id, in order", async () => {
    const event = entityDetailsRequestedEvent({ url: URL_A, externalRef: { id: "x8abc12" } });
    const trigger = String(event.trigger_id);
    expect((await client.entity.presentDetails({ trigger_id: trigger, metadata: flexpane })).ok).toBe(true);
    await client.entity.presentDetails({
      trigger_id: "123.456.abc",
      metadata: flexpane,
      user_auth_required: true,
    });
    expect(s.callsTo("entity.presentDetails")[0]?.args.metadata).toEqual(flexpane);
    const recorded = s.entityDetails();
    expect(recorded).toEqual([
      { trigger_id: trigger, metadata: flexpane, at: expect.any(Number) },
      { trigger_id: "123.456.abc", metadata: flexpane, user_auth_required: true, at: expect.any(Number) },
    ]);
    // A copy, and cleared on reset.
    recorded.length = 0;
    expect(s.entityDetails()).toHaveLength(2);
    s.reset();
    expect(s.entityDetails()).toEqual([]);
  });

  it("records an error answer (not_found), decoded from its form field", async () => {
    const r = await client.entity.presentDetails({
      trigger_id: "123.456.abc",
      error: { status: "not_found" },
    });
    expect(r.ok).toBe(true);
    expect(s.callsTo("entity.presentDetails")[0]?.args.error).toEqual({ status: "not_found" });
    expect(s.entityDetails()).toEqual([
      { trigger_id: "123.456.abc", error: { status: "not_found" }, at: expect.any(Number) },
    ]);
    const custom = { status: "custom", custom_title: "Gone", custom_message: "This livestream was deleted." };
    await client.entity.presentDetails({ trigger_id: "123.456.def", error: custom });
    expect(s.entityDetails()[1]).toMatchObject({ trigger_id: "123.456.def", error: custom });
  });

  it("refuses both, neither, a custom error without custom_message, and no trigger id; records nothing", async () => {
    const both = await caught(
      client.entity.presentDetails({
        trigger_id: "1.2.a",
        metadata: flexpane,
        error: { status: "not_found" },
      }),
    );
    expect(both).toMatchObject({ error: "invalid_arguments" });
    const neither = await caught(client.entity.presentDetails({ trigger_id: "1.2.a" }));
    expect(neither).toMatchObject({ error: "invalid_arguments" });
    const custom = await caught(
      client.entity.presentDetails({ trigger_id: "1.2.a", error: { status: "custom", custom_title: "T" } }),
    );
    expect(custom).toMatchObject({ error: "invalid_arguments" });
    expect(custom.data?.errors).toEqual([expect.stringContaining("custom_message")]);
    const noStatus = await caught(
      client.entity.presentDetails({ trigger_id: "1.2.a", error: { status: "" } }),
    );
    expect(noStatus).toMatchObject({ error: "invalid_arguments" });
    const noTrigger = await caught(client.entity.presentDetails({ trigger_id: "", metadata: flexpane }));
    expect(noTrigger).toMatchObject({ error: "invalid_arguments" });
    expect(noTrigger.data?.errors).toEqual(["trigger_id is required"]);
    expect(s.entityDetails()).toEqual([]);
  });

  it("refuses invalid metadata (invalid_metadata) but needs no app_unfurl_url", async () => {
    const err = await caught(
      client.entity.presentDetails({
        trigger_id: "1.2.a",
        metadata: without(flexpane, "entity_payload.attributes.title.text"),
      }),
    );
    expect(err.error).toBe("invalid_metadata");
    expect(err.data?.errors).toEqual([
      expect.stringContaining("/metadata/entity_payload/attributes/title/text"),
    ]);
    expect(s.entityDetails()).toEqual([]);
    expect(flexpane).not.toHaveProperty("app_unfurl_url");
    await client.entity.presentDetails({ trigger_id: "1.2.a", metadata: flexpane });
    expect(s.entityDetails()).toHaveLength(1);
  });

  it("needs the bot token, and takes the stand-in's faults like any method", async () => {
    const authed = await rawCall("entity.presentDetails", {
      trigger_id: "1.2.a",
      metadata: JSON.stringify(flexpane),
    });
    expect(authed).toMatchObject({ ok: true });
    const res = await request(`${s.apiUrl}entity.presentDetails`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        trigger_id: "1.2.a",
        error: JSON.stringify({ status: "not_found" }),
      }).toString(),
    });
    expect(await res.body.json()).toMatchObject({ ok: false, error: "not_authed" });
    s.addFault({ method: "entity.presentDetails", error: "internal_error" });
    const faulted = await caught(client.entity.presentDetails({ trigger_id: "1.2.b", metadata: flexpane }));
    expect(faulted.error).toBe("internal_error");
    expect(s.entityDetails()).toHaveLength(1);
  });
});

describe("entityDetailsRequestedEvent", () => {
  it("builds the event with the defaults, the link's domain and a fresh trigger id", () => {
    const a = entityDetailsRequestedEvent({ url: URL_A });
    expect(a).toEqual({
      type: "entity_details_requested",
      user: "U0MEMBER",
      trigger_id: expect.stringMatching(/^\d+\.\d+\.[0-9a-f]{32}$/),
      link: { url: URL_A, domain: "www.dailymotion.com" },
      entity_url: URL_A,
      app_unfurl_url: URL_A,
      user_locale: "en-US",
      event_ts: expect.stringMatching(/^\d{10}\.\d{6}$/),
      channel: "C0GENERAL",
      message_ts: expect.stringMatching(/^\d{10}\.\d{6}$/),
    });
    expect(a).not.toHaveProperty("external_ref");
    expect(entityDetailsRequestedEvent({ url: URL_A }).trigger_id).not.toBe(a.trigger_id);
  });

  it("takes the external ref, user, channel, message, trigger id and entity url given", () => {
    const e = entityDetailsRequestedEvent({
      url: "https://dai.ly/x8abc12",
      externalRef: { id: "x8abc12", type: "livestream" },
      userId: "U0ADMIN",
      channelId: "C0NEWS",
      messageTs: "1700000000.000200",
      triggerId: "1.2.fixed",
      entityUrl: URL_A,
    });
    expect(e).toMatchObject({
      user: "U0ADMIN",
      channel: "C0NEWS",
      message_ts: "1700000000.000200",
      trigger_id: "1.2.fixed",
      link: { url: "https://dai.ly/x8abc12", domain: "dai.ly" },
      entity_url: URL_A,
      app_unfurl_url: "https://dai.ly/x8abc12",
      external_ref: { id: "x8abc12", type: "livestream" },
    });
    // Wrapped in an event_callback like any other event.
    expect(eventPayload({ event: e })).toMatchObject({ type: "event_callback", event: { ...e } });
  });
});
