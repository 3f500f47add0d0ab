/**
 * A Work Object's details pane: someone opened a previewed livestream or video link
 * (`entity_details_requested`), and the bot answers `entity.presentDetails` with what is true
 * now: one fresh read (shared only with an identical read still in flight), decided again for the
 * workspace that asks and charged to the person who opened it ("link.details",
 * "link.video.details"). Unknown and not bound to the workspace answer the same `not_found`,
 * nothing of the livestream or video; a refusal (a read budget used up, the workspace not allowed)
 * is a plain sentence in the pane; so is a platform failure. Never ingest addresses.
 */
import type { WebClient } from "@slack/web-api";
import type { LinkKind } from "../../../access/index.js";
import { isPlatformId } from "../../../domain/index.js";
import {
  describePlatformError,
  type Entity,
  LIVESTREAM_CARD_FIELDS,
  livestreamDetails,
  refusalMessage,
  VIDEO_PREVIEW_FIELDS,
  videoDetails,
} from "../../../messages/index.js";
import { isPlatformError } from "../../../platform/index.js";
import type { Request } from "../../shape.js";
import { livestreamOfLink } from "./unfurl.js";

/** What the bot reads of the event (Slack's `entity_details_requested`). */
export interface EntityDetailsEvent {
  user?: string;
  trigger_id?: string;
  entity_url?: string;
  app_unfurl_url?: string;
  link?: { url?: string; domain?: string };
  external_ref?: { id?: string; type?: string };
}

type Outcome = "presented" | "not_found" | "refused" | "failed";

/** The pane's answer: the entity, or an error Slack shows in its place. */
type Pane =
  | { metadata: Entity }
  | { error: { status: "not_found" } }
  | { error: { status: "custom"; custom_title: string; custom_message: string } };

const NOT_FOUND: Pane = { error: { status: "not_found" } };

interface Target {
  id: string;
  /** Said by the entity (`external_ref.type`), else guessed: a livestream first, then a video. */
  kind: LinkKind | undefined;
  url: string;
}

/** Which livestream or video the opened entity stands for, or undefined when it names none. */
export function targetOf(event: EntityDetailsEvent, domains: readonly string[]): Target | undefined {
  const pasted = [event.app_unfurl_url, event.link?.url, event.entity_url].find(
    (u): u is string => typeof u === "string" && u !== "",
  );
  const ref = event.external_ref;
  const fromLink = pasted === undefined ? undefined : livestreamOfLink(pasted, domains);
  const id = typeof ref?.id === "string" && isPlatformId(ref.id) ? ref.id : fromLink;
  if (id === undefined) return undefined;
  const kind = ref?.type === "livestream" || ref?.type === "video" ? ref.type : undefined;
  const url = typeof event.entity_url === "string" && event.entity_url !== "" ? event.entity_url : pasted;
  return { id, kind, url: url ?? "" };
}

function missing(err: unknown): boolean {
  return isPlatformError(err) && err.kind === "http" && err.status === 404;
}

function custom(title: string, message: string): Pane {
  return { error: { status: "custom", custom_title: title, custom_message: message } };
}

/** The pane of `t`, read fresh for the person who opened it. */
async function paneOf(req: Request, t: Target): Promise<{ pane: Pane; outcome: Outcome }> {
  const kind = t.kind ?? req.deps.linkKinds.get(t.id);
  if (kind !== "video") {
    try {
      const r = await req.readLivestream("link.details", t.id, LIVESTREAM_CARD_FIELDS, { fresh: true });
      if (!r.allowed)
        return { pane: custom("Not available now", refusalMessage(r).text), outcome: "refused" };
      return {
        pane: { metadata: livestreamDetails(r.livestream, t.url, req.deps.now()) },
        outcome: "presented",
      };
    } catch (err) {
      if (!missing(err)) throw err;
      // Said to be a livestream (or known as one): it is not there, or not this workspace's.
      if (kind === "livestream") return { pane: NOT_FOUND, outcome: "not_found" };
    }
  }
  try {
    const r = await req.readVideo("link.video.details", t.id, VIDEO_PREVIEW_FIELDS, { fresh: true });
    if (!r.allowed) return { pane: custom("Not available now", refusalMessage(r).text), outcome: "refused" };
    return { pane: { metadata: videoDetails(r.video, t.url) }, outcome: "presented" };
  } catch (err) {
    if (!missing(err)) throw err;
    return { pane: NOT_FOUND, outcome: "not_found" };
  }
}

/**
 * Answers the opened entity's pane once (`entity.presentDetails`); resolves with what happened
 * (also logged at debug as "entity_details_requested handled"). Never throws.
 */
export async function presentDetails(
  req: Request,
  event: EntityDetailsEvent,
): Promise<Outcome | "no_trigger"> {
  const { deps, log } = req;
  const trigger = event.trigger_id;
  if (typeof trigger !== "string" || trigger === "") {
    log.info("entity_details_requested without a trigger_id: nothing to answer");
    return "no_trigger";
  }
  const target = targetOf(event, deps.config.unfurlDomains);
  let answer: { pane: Pane; outcome: Outcome };
  if (target === undefined) answer = { pane: NOT_FOUND, outcome: "not_found" };
  else {
    try {
      answer = await paneOf(req, target);
    } catch (err) {
      log.warn({ err, link: target.id }, "could not read a link's details");
      const words = isPlatformError(err)
        ? describePlatformError(err)
        : "Something went wrong on the bot's side. Try again in a moment.";
      answer = { pane: custom("The platform did not answer", words), outcome: "failed" };
    }
  }
  try {
    await (req.client as WebClient).entity.presentDetails({
      trigger_id: trigger,
      ...answer.pane,
    } as Parameters<WebClient["entity"]["presentDetails"]>[0]);
  } catch (err) {
    log.warn({ err }, "entity.presentDetails failed; the pane shows Slack's own error");
  }
  log.debug({ outcome: answer.outcome, link: target?.id }, "entity_details_requested handled");
  return answer.outcome;
}
