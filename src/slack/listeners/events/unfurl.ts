/**
 * Link previews: a livestream or video URL on an UNFURL_DOMAINS domain (or a subdomain) pasted
 * where the bot can see it (`link_shared`) is previewed with `chat.unfurl`: a compact card, and
 * the same as a Work Object (`metadata.entities[]`, one entity per URL; its details pane is
 * details.ts).
 *
 * Livestreams and videos share the URL shape (`/video/<id>`, `dai.ly/<id>`): an id is read as a
 * livestream first ("link.unfurl", one sparse GET that also reads the owning profile) and, only
 * when that finds none, as a video ("link.video", one sparse `GET /videos/{id}` with the owning
 * profile): at most two reads, and one once the id's kind is known (src/access/link-kinds.ts).
 * Unknown, or of a profile not bound to the workspace: no preview at all (nothing tells the two
 * apart), and none past the read budgets either (logged at debug). Reads are shared
 * (src/access/shared-reads.ts): a link pasted in five channels costs one GET; the decision
 * itself is taken per request. Never ingest addresses.
 */
import type { WebClient } from "@slack/web-api";
import {
  type Entity,
  LIVESTREAM_UNFURL_FIELDS,
  livestreamEntity,
  livestreamUnfurl,
  type UnfurlCard,
  VIDEO_PREVIEW_FIELDS,
  videoEntity,
  videoUnfurl,
} from "../../../messages/index.js";
import { isPlatformError, type Livestream, type Video } from "../../../platform/index.js";
import type { Request } from "../../shape.js";
import { parseLivestreamRef } from "../commands/grammar.js";

/** At most this many livestreams of one event are previewed (Slack sends a few links at most). */
const MAX_LINKS = 5;

/** Whether `host` is one of `domains` or a subdomain of one. */
export function onUnfurlDomain(host: string, domains: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return domains.some((d) => h === d || h.endsWith(`.${d}`));
}

/** The livestream id of a pasted URL on one of `domains`, or undefined. */
export function livestreamOfLink(url: string, domains: readonly string[]): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return undefined;
  if (!onUnfurlDomain(u.hostname, domains)) return undefined;
  const ref = parseLivestreamRef(url);
  return ref.ok ? ref.value : undefined;
}

export interface LinkSharedEvent {
  channel: string;
  user: string;
  message_ts: string;
  unfurl_id?: string;
  source?: string;
  links: Array<{ domain?: string; url: string }>;
}

type Outcome = "previewed" | "nothing_to_preview" | "not_previewed";

type Found = { livestream: Livestream } | { video: Video };

/** The platform's "does not exist" (or not bound to the workspace: the same answer). */
function missing(err: unknown): boolean {
  return isPlatformError(err) && err.kind === "http" && err.status === 404;
}

/**
 * What the pasted `id` is, read for the person who pasted it: a livestream, else a video, else
 * undefined (unknown, not bound, refused, or the platform failed: no preview).
 */
async function find(req: Request, id: string): Promise<Found | undefined> {
  const { deps, log } = req;
  const known = deps.linkKinds.get(id);
  const refused = (budget: boolean) => {
    if (budget) log.debug({ link: id }, "read budget used up: no preview");
    return undefined;
  };
  if (known !== "video") {
    try {
      const r = await req.readLivestream("link.unfurl", id, LIVESTREAM_UNFURL_FIELDS);
      if (!r.allowed) return refused(r.reason === "read_budget");
      deps.linkKinds.remember(id, "livestream");
      return { livestream: r.livestream };
    } catch (err) {
      if (!missing(err)) {
        log.warn({ err, livestream: id }, "could not read a livestream for a link preview");
        return undefined;
      }
      // A livestream the platform does not have (or not bound): a known one stops here.
      if (known === "livestream") return undefined;
    }
  }
  try {
    const r = await req.readVideo("link.video", id, VIDEO_PREVIEW_FIELDS);
    if (!r.allowed) return refused(r.reason === "read_budget");
    deps.linkKinds.remember(id, "video");
    return { video: r.video };
  } catch (err) {
    if (!missing(err)) log.warn({ err, video: id }, "could not read a video for a link preview");
    return undefined;
  }
}

/**
 * Previews the event's livestream and video links; resolves with what happened (also logged at
 * debug as "link_shared handled"). Never throws.
 */
export async function previewLinks(req: Request, event: LinkSharedEvent): Promise<Outcome> {
  const { deps, subject, log } = req;
  const byId = new Map<string, string[]>();
  for (const l of event.links ?? []) {
    if (typeof l?.url !== "string") continue;
    const id = livestreamOfLink(l.url, deps.config.unfurlDomains);
    if (id === undefined) continue;
    if (!byId.has(id) && byId.size >= MAX_LINKS) continue;
    byId.set(id, [...(byId.get(id) ?? []), l.url]);
  }
  let outcome: Outcome = byId.size === 0 ? "nothing_to_preview" : "not_previewed";
  const unfurls: Record<string, { blocks: UnfurlCard["blocks"] }> = {};
  const entities: Entity[] = [];
  await Promise.all(
    [...byId].map(async ([id, urls]) => {
      const found = await find(req, id);
      if (found === undefined) return;
      const now = deps.now();
      for (const url of urls) {
        if ("livestream" in found) {
          unfurls[url] = { blocks: livestreamUnfurl(found.livestream, now).blocks };
          entities.push(livestreamEntity(found.livestream, url, now));
        } else {
          unfurls[url] = { blocks: videoUnfurl(found.video, url, now).blocks };
          entities.push(videoEntity(found.video, url));
        }
      }
    }),
  );
  if (entities.length > 0) {
    const target =
      event.unfurl_id !== undefined && event.source !== undefined
        ? { unfurl_id: event.unfurl_id, source: event.source }
        : { channel: event.channel, ts: event.message_ts };
    try {
      await (subject.client as WebClient).chat.unfurl({
        ...target,
        unfurls,
        metadata: { entities },
      } as Parameters<WebClient["chat"]["unfurl"]>[0]);
      outcome = "previewed";
    } catch (err) {
      log.warn({ err, channel: event.channel }, "chat.unfurl failed; the link shows without a preview");
    }
  }
  log.debug({ outcome, links: byId.size }, "link_shared handled");
  return outcome;
}
