/**
 * The `/webhook` subcommands that act on one profile (set, show, events, remove, test, subscribe,
 * unsubscribe, subscriptions): which profile is meant (named by id or name, the workspace's only
 * one, or a menu to choose from: src/slack/profiles.ts), then the command for it, authorized
 * (src/access) before anything reaches the platform. A choice from the menu runs `runFor` too.
 */
import type { Action, Decision, ProfileAction, Resource, Subject } from "../../../access/index.js";
import type { Logger } from "../../../log.js";
import {
  describePlatformError,
  lastSubscriptionMessage,
  type Message,
  notOursMessage,
  notPausedMessage,
  notSubscribedMessage,
  pausedMessage,
  profileMenuProblemMessage,
  profilePickerMessage,
  refusalMessage,
  removeConfirmMessage,
  resumedMessage,
  subscribedMessage,
  subscriptionsMessage,
  testResultMessage,
  unsubscribedMessage,
  webhookConfigMessage,
  webhookEventsMessage,
  webhookSetMessage,
} from "../../../messages/index.js";
import { isPlatformError, ManagedProfilesError, WEBHOOK_EVENTS } from "../../../platform/index.js";
import { type BotDeps, ephemeral, inChannel, type Reply } from "../../context.js";
import { openEventsEditor } from "../../events-editor.js";
import type { ProfileCommand } from "../../grammar.js";
import { modeClock } from "../../modes.js";
import {
  boundProfiles,
  findProfile,
  isKnownProfileId,
  mayAsk,
  pickCarry,
  profileLabel,
} from "../../profiles.js";
import {
  pause,
  resume,
  subscribe,
  subscriptionsForEvents,
  type UnsubscribeOutcome,
  unsubscribe,
  userTimeZone,
} from "../../subscription-ops.js";
import { readWebhook, sendTestLifecycle, setWebhook } from "../../webhook-ops.js";

export interface Ctx {
  deps: BotDeps;
  subject: Subject;
  respond: Reply;
  log: Logger;
  teamId: string;
  userId: string;
  channelId: string;
  triggerId: string | undefined;
}

/** The action each profile command is authorized as. */
const ACTION_OF: Record<ProfileCommand["kind"], ProfileAction> = {
  set: "webhook.set",
  show: "webhook.show",
  events: "webhook.events",
  remove: "webhook.remove",
  test: "webhook.test",
  subscribe: "webhook.subscribe",
  unsubscribe: "webhook.unsubscribe",
  subscriptions: "webhook.subscriptions",
  pause: "webhook.pause",
  resume: "webhook.pause",
};

/** A digest's time of day when `at=` is not given. */
export const DEFAULT_DIGEST_AT = "09:00";

/** The editor's trigger lives 3 s: a name is looked up for at most this long before it opens. */
const EDITOR_LOOKUP_MS = 1500;

/** Asks the authorizer; a refusal is answered ephemerally (why), and null is returned. */
export async function allowed(
  ctx: Ctx,
  action: Action,
  resource: Resource,
): Promise<Extract<Decision, { allowed: true }> | null> {
  const d = await ctx.deps.access.authorize(ctx.subject, action, resource);
  if (d.allowed) return d;
  await ctx.respond(ephemeral(refusalMessage(d)));
  return null;
}

/**
 * The profile a command means: the one named (by id, or by name among the bound profiles), else
 * the workspace's only one. Null when answered already: refused before asking the platform, or no
 * profile given and none or several set up (the menu, or why there is none).
 */
export async function chooseProfile(ctx: Ctx, cmd: ProfileCommand): Promise<string | null> {
  const { deps, subject } = ctx;
  const action = ACTION_OF[cmd.kind];
  const refused = async () => {
    const d = await mayAsk(deps, subject, action);
    if (!d.allowed) await ctx.respond(ephemeral(refusalMessage(d)));
    return !d.allowed;
  };
  if (cmd.profile !== null) {
    if (await isKnownProfileId(deps, subject, cmd.profile)) return cmd.profile;
    if (cmd.kind === "events" && cmd.events === null && ctx.triggerId !== undefined) {
      // The editor: a refusal shows in it (it authorizes inside), and the lookup is brief.
      if (!(await mayAsk(deps, subject, action)).allowed) return cmd.profile;
      return findProfile(deps, subject, cmd.profile, AbortSignal.timeout(EDITOR_LOOKUP_MS));
    }
    if (await refused()) return null;
    return findProfile(deps, subject, cmd.profile);
  }
  const only = await deps.settings.defaultProfileId(ctx.teamId);
  if (only !== undefined) return only;
  if (await refused()) return null;
  const carry = pickCarry(cmd);
  let profiles: Awaited<ReturnType<typeof boundProfiles>>;
  try {
    profiles = await boundProfiles(deps, subject);
  } catch (err) {
    if (!(err instanceof ManagedProfilesError)) throw err;
    const e = err.platformError;
    const detail = e && isPlatformError(e) ? describePlatformError(e) : undefined;
    ctx.log.info({ problem: err.problem }, "no menu of profiles");
    await ctx.respond(ephemeral(profileMenuProblemMessage(err.problem, { carry, detail })));
    return null;
  }
  await ctx.respond(
    ephemeral(
      profiles.length === 0
        ? profileMenuProblemMessage("none_bound", { carry })
        : profilePickerMessage({ carry, profiles }),
    ),
  );
  return null;
}

/** A profile command for `id`: authorized as its action, then done. */
export async function runFor(ctx: Ctx, cmd: ProfileCommand, id: string): Promise<void> {
  const { deps, respond } = ctx;
  if (cmd.kind === "events" && cmd.events === null && ctx.triggerId) {
    // The editor opens at once (the trigger lives 3 s) and is authorized inside.
    await openEventsEditor(
      deps,
      ctx.subject,
      { triggerId: ctx.triggerId, profileId: id, channelId: ctx.channelId },
      ctx.log,
    );
    return;
  }
  const d = await allowed(ctx, ACTION_OF[cmd.kind], { kind: "profile", profileId: id });
  if (!d) return;
  switch (cmd.kind) {
    case "set": {
      const view = await setWebhook(deps, {
        teamId: ctx.teamId,
        profileId: id,
        channelId: ctx.channelId,
        userId: ctx.userId,
        url: cmd.url,
        events: cmd.events,
      });
      const profileName = await profileLabel(deps, id);
      await respond(
        inChannel(webhookSetMessage({ ...view, profileName, byUser: ctx.userId, now: deps.now() })),
      );
      return;
    }
    case "show": {
      const view = await readWebhook(deps, ctx.teamId, id);
      const profileName = await profileLabel(deps, id);
      await respond(
        ephemeral(
          webhookConfigMessage({
            ...view,
            profileName,
            isManager: d.manager,
            now: deps.now(),
            modeClock: modeClock(deps),
          }),
        ),
      );
      return;
    }
    case "events": {
      if (cmd.events === null) {
        const webhook = await deps.platform.getProfileWebhook(id);
        const profileName = await profileLabel(deps, id);
        await respond(ephemeral(webhookEventsMessage({ profileId: id, profileName, webhook })));
        return;
      }
      const webhook = await deps.platform.updateWebhookEvents(id, cmd.events);
      const events = [...(webhook.events ?? cmd.events)];
      await deps.settings.updateProfile(ctx.teamId, id, (saved) =>
        saved ? { ...saved, events, subscriptions: subscriptionsForEvents(saved, events) } : undefined,
      );
      const profileName = await profileLabel(deps, id);
      await respond(
        ephemeral(webhookEventsMessage({ profileId: id, profileName, webhook, updatedBy: ctx.userId })),
      );
      return;
    }
    case "remove":
      await respond(ephemeral(removeConfirmMessage(id, await profileLabel(deps, id))));
      return;
    case "test": {
      const outcome = await sendTestLifecycle(deps, ctx.teamId, id);
      await respond(ephemeral(testResultMessage(id, outcome, await profileLabel(deps, id))));
      return;
    }
    case "subscribe": {
      // A digest's time of day is the subscriber's, in their Slack time zone.
      const digest =
        cmd.digest === undefined || cmd.digest === "off"
          ? cmd.digest
          : {
              every: cmd.digest.every,
              at: cmd.digest.at ?? DEFAULT_DIGEST_AT,
              ...(await userTimeZone(ctx.subject.client, ctx.userId)),
            };
      const r = await subscribe(deps, {
        teamId: ctx.teamId,
        profileId: id,
        channelId: ctx.channelId,
        userId: ctx.userId,
        events: cmd.events,
        presets: cmd.presets,
        mention: cmd.mention,
        ...(digest !== undefined ? { digest } : {}),
        ...(cmd.keepFilters ? { keepFilters: true } : {}),
      });
      const profileName = await profileLabel(deps, id);
      if (r.kind === "not-ours") await respond(ephemeral(notOursMessage(id, profileName)));
      else
        await respond(
          inChannel(
            subscribedMessage({
              profileId: id,
              profileName,
              ...r,
              allEvents: WEBHOOK_EVENTS.length,
              clock: modeClock(deps),
            }),
          ),
        );
      return;
    }
    case "pause": {
      const r = await pause(deps, {
        teamId: ctx.teamId,
        profileId: id,
        channelId: ctx.channelId,
        userId: ctx.userId,
        ms: cmd.ms,
      });
      const profileName = await profileLabel(deps, id);
      if (r.kind === "paused")
        await respond(
          inChannel(
            pausedMessage({
              profileId: id,
              profileName,
              channelId: ctx.channelId,
              byUser: ctx.userId,
              until: r.until,
              extended: r.extended,
            }),
          ),
        );
      else
        await respond(
          ephemeral(
            r.kind === "not-ours"
              ? notOursMessage(id, profileName)
              : notSubscribedMessage(id, ctx.channelId, profileName),
          ),
        );
      return;
    }
    case "resume": {
      const r = await resume(deps, { teamId: ctx.teamId, profileId: id, channelId: ctx.channelId });
      const profileName = await profileLabel(deps, id);
      const o = { profileId: id, profileName, channelId: ctx.channelId };
      await respond(
        ephemeral(
          r.kind === "resumed"
            ? resumedMessage(o)
            : r.kind === "not-paused"
              ? notPausedMessage(o)
              : r.kind === "not-ours"
                ? notOursMessage(id, profileName)
                : notSubscribedMessage(id, ctx.channelId, profileName),
        ),
      );
      return;
    }
    case "unsubscribe": {
      const r = await unsubscribe(deps, ctx.teamId, id, ctx.channelId);
      const m = subscriptionOutcomeMessage(r, id, ctx.channelId, ctx.userId, await profileLabel(deps, id));
      await respond(r.kind === "unsubscribed" ? inChannel(m) : ephemeral(m));
      return;
    }
    case "subscriptions": {
      // The list is open to anyone; the Unsubscribe buttons only to managers.
      const asManager = await deps.access.authorize(ctx.subject, "webhook.unsubscribe", {
        kind: "profile",
        profileId: id,
      });
      const p = await deps.settings.getProfile(ctx.teamId, id);
      const profileName = await profileLabel(deps, id);
      if (!p) {
        await respond(ephemeral(notOursMessage(id, profileName)));
        return;
      }
      await respond(
        ephemeral(
          subscriptionsMessage({
            profileId: id,
            profileName,
            subscriptions: p.subscriptions,
            foreign: p.foreignUrl !== null,
            isManager: asManager.allowed,
            allEvents: WEBHOOK_EVENTS.length,
            clock: modeClock(deps),
          }),
        ),
      );
      return;
    }
  }
}

/** What `/webhook unsubscribe` and the Unsubscribe button answer. */
export function subscriptionOutcomeMessage(
  r: UnsubscribeOutcome,
  profileId: string,
  channelId: string,
  userId: string,
  profileName?: string,
): Message {
  switch (r.kind) {
    case "not-ours":
      return notOursMessage(profileId, profileName);
    case "not-subscribed":
      return notSubscribedMessage(profileId, channelId, profileName);
    case "last": {
      // The last channel: removing its subscription means removing the webhook; asked first.
      return lastSubscriptionMessage(profileId, channelId, profileName);
    }
    case "unsubscribed":
      return unsubscribedMessage({
        profileId,
        profileName,
        channelId,
        byUser: userId,
        platformChanged: r.platformChanged,
      });
  }
}
