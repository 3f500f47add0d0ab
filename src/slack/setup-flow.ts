/**
 * The App Home's set-up and managers modals (issue 5: every change a command makes can be made
 * from buttons). Both open at once with a loading view (a trigger_id lives 3 s), check the role
 * inside, and do the work after the submission's ack, showing the outcome in the modal.
 *
 * Set-up = `/webhook set`: before anything changes, the bot posts "setting up…" in the chosen
 * channel, so a channel it cannot post in is refused with nothing changed; on success that
 * message becomes the same confirmation `/webhook set` posts; on a platform error it is deleted
 * and the form comes back with the error in plain words (with the correlation id).
 */
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import { classifySlackError } from "../notify/slack-errors.js";
import { isPlatformError } from "../platform/index.js";
import { ProfileClaimedError } from "../store/claims.js";
import { StoreUnavailableError } from "../store/index.js";
import {
  decodeSetupMeta,
  describePlatformError,
  encodeSetupMeta,
  formMessage,
  managersModal,
  managersModalSaved,
  type ParsedSetup,
  profileText,
  setupModal,
  setupModalDone,
  webhookSetMessage,
} from "./blocks/index.js";
import type { BotDeps } from "./context.js";
import { publishHome } from "./home.js";
import { openThenFill } from "./open-modal.js";
import { setWebhook } from "./webhook-ops.js";

const NOT_MANAGER =
  "🔒 Only managers (workspace admins and owners, the users in MANAGER_USER_IDS and the users added as managers) can do this. Ask one of them. Nothing was changed.";
const EXPIRED = "This form is no longer valid; open it again from the Home tab.";

function explain(err: unknown): string {
  if (isPlatformError(err)) return describePlatformError(err);
  if (err instanceof ProfileClaimedError) {
    return `Profile \`${profileText(err.profileId)}\` is managed from another Slack workspace through this bot: only that workspace can change it. Nothing was changed.`;
  }
  if (err instanceof StoreUnavailableError) {
    return "The bot's settings store does not answer; try again in a moment. Nothing was changed.";
  }
  return "Something went wrong; try again in a moment.";
}

/** Why the bot cannot post in a channel, in words for the person choosing it. */
function channelProblem(code: string, channelId: string): string {
  const ch = `<#${channelId}>`;
  switch (code) {
    case "not_in_channel":
      return `The bot is not in ${ch}, so it could not post there. Invite it first (\`/invite @\` followed by the bot's name in that channel), or choose a public channel.`;
    case "is_archived":
      return `${ch} is archived: choose another channel.`;
    case "channel_not_found":
      return "The bot cannot see that channel (private, or in another workspace). Invite it first, or choose another channel.";
    default:
      return `Slack refused the bot's message in ${ch} (\`${code.slice(0, 60)}\`). Choose another channel or try again.`;
  }
}

async function refreshHome(deps: BotDeps, client: WebClient, teamId: string, userId: string, log: Logger) {
  await publishHome(deps, client, teamId, userId).catch((err: unknown) =>
    log.warn({ err }, "could not refresh the App Home"),
  );
}

export interface OpenModal {
  triggerId: string;
  teamId: string;
  userId: string;
  /** Set-up only: the configured profile to change (prefilled), or undefined for a new one. */
  profileId?: string | undefined;
}

export async function openSetup(deps: BotDeps, client: WebClient, o: OpenModal, log: Logger): Promise<void> {
  const meta = encodeSetupMeta({ teamId: o.teamId, kind: "setup" });
  const message = (text: string) => formMessage({ kind: "setup", meta, text });
  await openThenFill(
    client,
    {
      triggerId: o.triggerId,
      loading: formMessage({ kind: "setup", meta, text: "⏳ Loading…", close: "Cancel" }),
      fill: async () => {
        if (!(await deps.managers.decide(client, o.teamId, o.userId)).manager) return message(NOT_MANAGER);
        const saved = o.profileId ? await deps.settings.getProfile(o.teamId, o.profileId) : undefined;
        const values = saved
          ? {
              profileId: saved.profileId,
              channelId: saved.channelId,
              events: saved.events,
              url: saved.foreignUrl,
            }
          : { profileId: o.profileId };
        return setupModal({ meta, values });
      },
      failed: (err) => message(`⚠️ ${explain(err)}`),
    },
    log,
  );
}

export interface SetupSubmission {
  viewId: string;
  teamId: string;
  userId: string;
  privateMetadata: string;
  parsed: ParsedSetup["values"];
}

/** After the ack ("saving…"): checks, posts in the channel, sets the webhook, shows the outcome. */
export async function saveSetup(deps: BotDeps, client: WebClient, s: SetupSubmission, log: Logger) {
  const meta = decodeSetupMeta(s.privateMetadata);
  const metaText = s.privateMetadata;
  const show = (view: Parameters<typeof setupModal>[0]["values"] | null, text: string) =>
    client.views.update({
      view_id: s.viewId,
      view:
        view === null
          ? formMessage({ kind: "setup", meta: metaText, text })
          : setupModal({ meta: metaText, values: view, notice: `⚠️ ${text}` }),
    });
  if (meta?.kind !== "setup" || meta.teamId !== s.teamId) {
    await show(null, EXPIRED);
    return;
  }
  const p = s.parsed;
  let placeholder: { channel: string; ts: string } | undefined;
  try {
    if (!(await deps.managers.decide(client, s.teamId, s.userId)).manager) {
      await show(null, NOT_MANAGER);
      return;
    }
    // Another workspace's profile: refused before anything is posted or sent.
    await deps.settings.claims.check(p.profileId, s.teamId);
    if (p.url === null && p.channelId) {
      try {
        const posted = await client.chat.postMessage({
          channel: p.channelId,
          text: `⏳ <@${s.userId}> is setting up the notifications of profile ${profileText(p.profileId)} here…`,
        });
        if (posted.channel && posted.ts) placeholder = { channel: posted.channel, ts: posted.ts };
      } catch (err) {
        const f = classifySlackError(err);
        log.info(
          { code: "code" in f ? f.code : f.kind },
          "set-up refused: the bot cannot post in the channel",
        );
        await show(
          p,
          `${channelProblem("code" in f ? f.code : "ratelimited", p.channelId)} Nothing was changed.`,
        );
        return;
      }
    }
    const view = await setWebhook(deps, {
      teamId: s.teamId,
      profileId: p.profileId,
      channelId: p.channelId ?? "",
      userId: s.userId,
      url: p.url,
      events: p.events,
    });
    if (placeholder) {
      const m = webhookSetMessage({ ...view, byUser: s.userId, now: deps.now() });
      await client.chat
        .update({ channel: placeholder.channel, ts: placeholder.ts, text: m.text, blocks: m.blocks })
        .catch((err: unknown) => log.warn({ err }, "could not post the confirmation in the channel"));
    }
    await client.views.update({
      view_id: s.viewId,
      view: setupModalDone({
        meta: metaText,
        profileId: p.profileId,
        channelId: view.settings?.channelId ?? p.channelId,
        url: p.url,
        events: view.webhook.events ?? p.events,
      }),
    });
    await refreshHome(deps, client, s.teamId, s.userId, log);
  } catch (err) {
    log.warn({ err }, "set-up failed");
    if (placeholder) {
      const { channel, ts } = placeholder;
      await client.chat
        .delete({ channel, ts })
        .catch((e: unknown) => log.warn({ err: e }, "could not delete the set-up message"));
    }
    await show(p, explain(err)).catch((e: unknown) => log.warn({ err: e }, "could not show the error"));
  }
}

export async function openManagers(
  deps: BotDeps,
  client: WebClient,
  o: OpenModal,
  log: Logger,
): Promise<void> {
  const meta = encodeSetupMeta({ teamId: o.teamId, kind: "managers" });
  const message = (text: string) => formMessage({ kind: "managers", meta, text });
  await openThenFill(
    client,
    {
      triggerId: o.triggerId,
      loading: formMessage({ kind: "managers", meta, text: "⏳ Loading…", close: "Cancel" }),
      fill: async () => {
        if (!(await deps.managers.decide(client, o.teamId, o.userId)).manager) return message(NOT_MANAGER);
        const added = (await deps.settings.listManagers(o.teamId)).map((m) => m.userId);
        return managersModal({ meta, configured: deps.config.managerUserIds, added });
      },
      failed: () => message("⚠️ The bot's settings could not be read; try again in a moment."),
    },
    log,
  );
}

/** After the ack: applies the difference between the stored and the chosen managers. */
export async function saveManagers(
  deps: BotDeps,
  client: WebClient,
  s: { viewId: string; teamId: string; userId: string; privateMetadata: string; chosen: string[] },
  log: Logger,
): Promise<void> {
  const meta = decodeSetupMeta(s.privateMetadata);
  const text = (t: string) => formMessage({ kind: "managers", meta: s.privateMetadata, text: t });
  if (meta?.kind !== "managers" || meta.teamId !== s.teamId) {
    await client.views.update({ view_id: s.viewId, view: text(EXPIRED) });
    return;
  }
  try {
    if (!(await deps.managers.decide(client, s.teamId, s.userId)).manager) {
      await client.views.update({ view_id: s.viewId, view: text(NOT_MANAGER) });
      return;
    }
    const before = new Set((await deps.settings.listManagers(s.teamId)).map((m) => m.userId));
    const chosen = new Set(s.chosen);
    const added = [...chosen].filter((u) => !before.has(u));
    const removed = [...before].filter((u) => !chosen.has(u));
    for (const u of added) await deps.settings.addManager(s.teamId, u, s.userId, deps.now());
    for (const u of removed) await deps.settings.removeManager(s.teamId, u);
    const now = (await deps.settings.listManagers(s.teamId)).map((m) => m.userId);
    log.info({ added: added.length, removed: removed.length }, "managers changed from the App Home");
    await client.views.update({
      view_id: s.viewId,
      view: managersModalSaved({ meta: s.privateMetadata, added, removed, now }),
    });
    await refreshHome(deps, client, s.teamId, s.userId, log);
  } catch (err) {
    log.warn({ err }, "could not save the managers");
    await client.views
      .update({
        view_id: s.viewId,
        view: text(
          "⚠️ The managers could not be saved; nothing or only part was changed. Open the form again to see the current list.",
        ),
      })
      .catch((e: unknown) => log.warn({ err: e }, "could not show the error"));
  }
}
