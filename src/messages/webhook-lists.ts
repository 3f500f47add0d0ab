/** Messages of `/webhook managers` and `/webhook events`: who may change webhooks, which events come. */
import {
  isWebhookEvent,
  WEBHOOK_EVENT_DESCRIPTIONS,
  WEBHOOK_EVENTS,
  type WebhookConfig,
  webhookState,
} from "../domain/index.js";
import { slackDate, utcText } from "./dates.js";
import { escapeTruncate } from "./escape.js";
import { code, context, mention, message, section, toDate, when } from "./kit.js";
import { profilePlain, profileRef } from "./profiles.js";
import type { Message } from "./types.js";

export interface ManagerEntry {
  userId: string;
  addedBy: string;
  addedAt: string;
}

/** `/webhook managers`: who may change webhooks in this workspace. */
export function managersMessage(opts: {
  configured: readonly string[];
  added: readonly ManagerEntry[];
  now?: Date;
}): Message {
  const lines = ["*Managers of this workspace* (they can change webhooks and see ingest addresses)"];
  lines.push("• Workspace admins and owners (always)");
  const configured = opts.configured.slice(0, 50).map(mention);
  lines.push(
    `• From the bot's MANAGER_USER_IDS setting: ${configured.length ? configured.join(", ") : "nobody"}`,
  );
  if (opts.added.length === 0) {
    lines.push("• Added here by a manager: nobody");
  } else {
    lines.push("• Added here by a manager:");
    for (const m of opts.added.slice(0, 50)) {
      const at = toDate(m.addedAt);
      const time = at ? ` ${opts.now ? when(at, opts.now) : slackDate(at, utcText(at))}` : "";
      lines.push(`    ◦ ${mention(m.userId)} (added by ${mention(m.addedBy)}${time})`);
    }
    if (opts.added.length > 50) lines.push(`    ◦ and ${opts.added.length - 50} more`);
  }
  return message("Managers of this workspace", [
    section(lines.join("\n")),
    context(["Add or remove one: `/webhook managers add @user` · `/webhook managers remove @user`"]),
  ]);
}

/**
 * `/webhook events` and the Edit events button: which events the platform delivers, each with
 * its description, and how to change only the events.
 */
export function webhookEventsMessage(opts: {
  profileId: string;
  profileName?: string | undefined;
  webhook: WebhookConfig;
  updatedBy?: string;
}): Message {
  const current = new Set(opts.webhook.events ?? []);
  const id = profileRef(opts.profileId, opts.profileName);
  const name = profilePlain(opts.profileId, opts.profileName);
  const lines = WEBHOOK_EVENTS.map(
    (e) =>
      `${current.has(e) ? "✅" : "▫️"} ${code(e, 60)} — ${escapeTruncate(WEBHOOK_EVENT_DESCRIPTIONS[e], 200)}`,
  );
  const unknown = [...current].filter((e) => !isWebhookEvent(e));
  if (unknown.length > 0)
    lines.push(
      `❔ Also subscribed (not known to this bot): ${unknown
        .slice(0, 10)
        .map((e) => code(e, 60))
        .join(", ")}`,
    );
  const first = opts.updatedBy
    ? `✅ ${mention(opts.updatedBy)} changed the events of profile ${id}; the callback URL is unchanged.`
    : webhookState(opts.webhook) === "configured"
      ? `*Events delivered for profile ${id}* (${current.size} of ${WEBHOOK_EVENTS.length})`
      : `Profile ${id} has no complete webhook yet: set one with \`/webhook set ${escapeTruncate(opts.profileId, 100)}\`.`;
  const keep = [...current].filter(isWebhookEvent).map((e) => e.replace(/^video\./, ""));
  const example = `/webhook events ${escapeTruncate(opts.profileId, 100)} ${keep.length > 0 ? keep.join(" ") : "published complete"}`;
  return message(
    opts.updatedBy ? `Events of profile ${name} changed` : `Events delivered for profile ${name}`,
    [
      section(first),
      section(lines.join("\n")),
      context([
        `To change only the events, name the ones to keep, for example \`${escapeTruncate(example, 400)}\`. \`all\` subscribes to every event.`,
      ]),
    ],
  );
}
