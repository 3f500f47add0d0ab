/**
 * Link previews: a livestream URL on an UNFURL_DOMAINS domain (or a subdomain) pasted where the
 * bot can see it (`link_shared`) is previewed with `chat.unfurl` and a compact status card.
 *
 * Authorized like `/live status` (action "link.unfurl", src/access): one sparse GET that also reads
 * the owning profile; a livestream that is unknown, or whose profile is not bound to the
 * workspace, gets no preview at all (nothing tells the two apart), and neither does one past the
 * read budgets (logged at debug). The GET is shared (src/access/shared-reads.ts): a link pasted in
 * five channels costs one GET. The authorization decision itself is taken per request.
 */
import type { WebClient } from "@slack/web-api";
import { LIVESTREAM_UNFURL_FIELDS, livestreamUnfurl } from "../../../messages/index.js";
import { isPlatformError } from "../../../platform/index.js";
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

/**
 * Previews the event's livestream links; resolves with what happened (also logged at debug as
 * "link_shared handled"). Never throws.
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
  const unfurls: Record<string, { blocks: unknown[]; fallback?: string }> = {};
  await Promise.all(
    [...byId].map(async ([id, urls]) => {
      try {
        const r = await req.readLivestream("link.unfurl", id, LIVESTREAM_UNFURL_FIELDS);
        if (!r.allowed) {
          if (r.reason === "read_budget") log.debug({ livestream: id }, "read budget used up: no preview");
          return;
        }
        const card = livestreamUnfurl(r.livestream, deps.now());
        for (const url of urls) unfurls[url] = { blocks: card.blocks };
      } catch (err) {
        // Unknown or not bound: no preview, silently (an error answer would tell them apart).
        if (isPlatformError(err) && err.status === 404) return;
        log.warn({ err, livestream: id }, "could not read a livestream for a link preview");
      }
    }),
  );
  if (Object.keys(unfurls).length > 0) {
    const target =
      event.unfurl_id !== undefined && event.source !== undefined
        ? { unfurl_id: event.unfurl_id, source: event.source }
        : { channel: event.channel, ts: event.message_ts };
    try {
      await (subject.client as WebClient).chat.unfurl({
        ...target,
        unfurls,
      } as Parameters<WebClient["chat"]["unfurl"]>[0]);
      outcome = "previewed";
    } catch (err) {
      log.warn({ err, channel: event.channel }, "chat.unfurl failed; the link shows without a preview");
    }
  }
  log.debug({ outcome, links: byId.size }, "link_shared handled");
  return outcome;
}
