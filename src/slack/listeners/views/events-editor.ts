/**
 * The events editor: a modal with one checkbox per event. Opened at once with a loading view (a
 * trigger_id lives 3 s, the platform may be slower), then filled with the webhook read back.
 * Saving changes only `events` (partial update of a complete webhook), refuses to overwrite a
 * webhook that changed since the modal opened (it shows the current state instead), and reports
 * platform errors inside the modal.
 */
import type { ViewsUpdateArguments } from "@slack/web-api";
import { request } from "undici";
import {
  decodeMeta,
  describePlatformError,
  EDITOR_EXPIRED,
  EVENTS_CHANGED_ELSEWHERE,
  type EventsModalMeta,
  encodeMeta,
  eventsClaimedElsewhereText,
  eventsModal,
  eventsModalError,
  eventsModalLoading,
  eventsModalSaved,
  eventsSavedText,
  refusalText,
  SOMETHING_WENT_WRONG,
  webhookConfigMessage,
} from "../../../messages/index.js";
import { profileLabel } from "../../../operations/profiles.js";
import { subscriptionsForEvents } from "../../../operations/subscriptions.js";
import { readWebhook } from "../../../operations/webhook.js";
import { isPlatformError } from "../../../platform/index.js";
import { ProfileClaimedError } from "../../../store/index.js";
import type { Request } from "../../shape.js";
import { openThenFill } from "./open-modal.js";

export interface OpenEditor {
  triggerId: string;
  profileId: string;
  channelId?: string;
  /** The message the button was on, to update after saving. */
  responseUrl?: string;
}

function sameSet(a: readonly string[] | null, b: readonly string[] | null): boolean {
  const sa = new Set(a ?? []);
  const sb = new Set(b ?? []);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

function explain(err: unknown): string {
  if (err instanceof ProfileClaimedError) return eventsClaimedElsewhereText(err.profileId);
  return isPlatformError(err) ? describePlatformError(err) : SOMETHING_WENT_WRONG;
}

/** Opens the editor; authorized inside (as "webhook.events" on the profile), a refusal shown in it. */
export async function openEventsEditor(req: Request, opts: OpenEditor): Promise<void> {
  const { deps, subject, log } = req;
  const { client } = subject;
  const meta = (original: string[] | null) =>
    encodeMeta({
      teamId: subject.teamId,
      profileId: opts.profileId,
      channelId: opts.channelId,
      responseUrl: opts.responseUrl,
      original,
    });
  const error = (message: string) =>
    eventsModalError({ meta: meta(null), profileId: opts.profileId, message });
  await openThenFill(
    client,
    {
      triggerId: opts.triggerId,
      loading: eventsModalLoading(meta(null), opts.profileId),
      fill: async () => {
        const d = await req.authorize("webhook.events", { kind: "profile", profileId: opts.profileId });
        if (!d.allowed) return error(refusalText(d));
        const webhook = await deps.platform.getProfileWebhook({ user: subject }, opts.profileId);
        if (webhook.callback_url === null || webhook.events === null || webhook.events.length === 0) {
          return error(
            `Profile \`${opts.profileId}\` has no complete webhook, so its events cannot be changed alone. Run \`/webhook set ${opts.profileId}\` first.`,
          );
        }
        return eventsModal({
          meta: meta(webhook.events),
          profileId: opts.profileId,
          profileName: await profileLabel(req, opts.profileId),
          current: webhook.events,
        });
      },
      failed: (err) => error(explain(err)),
    },
    log,
  );
}

export interface Submission {
  viewId: string;
  privateMetadata: string;
  selected: string[];
}

/** After the ack: checks, writes and shows the outcome in the modal (and on the message). */
export async function saveEvents(req: Request, s: Submission): Promise<void> {
  const { deps, subject, log } = req;
  const { client } = subject;
  const meta = decodeMeta(s.privateMetadata);
  if (!meta || meta.teamId !== subject.teamId) {
    await client.views.update({
      view_id: s.viewId,
      view: eventsModalError({
        meta: s.privateMetadata,
        profileId: meta?.profileId ?? "?",
        message: EDITOR_EXPIRED,
      }),
    });
    return;
  }
  const show = (args: ViewsUpdateArguments) => client.views.update(args);
  try {
    const d = await req.authorize("webhook.events", { kind: "profile", profileId: meta.profileId });
    if (!d.allowed) {
      await show({
        view_id: s.viewId,
        view: eventsModalError({
          meta: s.privateMetadata,
          profileId: meta.profileId,
          message: refusalText(d),
        }),
      });
      return;
    }
    const current = await deps.platform.getProfileWebhook({ user: subject }, meta.profileId);
    if (!sameSet(current.events, meta.original)) {
      // Changed elsewhere since the modal opened: show the current state instead of overwriting it.
      await show({
        view_id: s.viewId,
        view: eventsModal({
          meta: encodeMeta({ ...meta, original: current.events }),
          profileId: meta.profileId,
          current: current.events ?? [],
          notice: EVENTS_CHANGED_ELSEWHERE,
        }),
      });
      return;
    }
    const updated = await writeEvents(req, meta.profileId, s.selected);
    const profileName = await profileLabel(req, meta.profileId);
    await show({
      view_id: s.viewId,
      view: eventsModalSaved({ profileId: meta.profileId, profileName, events: updated.events ?? [] }),
    });
    await confirmSaved(req, meta, profileName, updated.events ?? []);
  } catch (err) {
    log.warn({ err }, "could not save the events");
    await show({
      view_id: s.viewId,
      view: eventsModalError({
        meta: s.privateMetadata,
        profileId: meta.profileId,
        message: explain(err),
        current: s.selected,
      }),
    }).catch((e: unknown) => log.warn({ err: e }, "could not show the error in the modal"));
  }
}

/** Sets the webhook's events on the platform, then the saved profile's events and subscriptions. */
async function writeEvents({ deps, subject }: Request, profileId: string, selected: string[]) {
  const updated = await deps.platform.updateWebhookEvents(profileId, selected);
  const events = [...(updated.events ?? selected)];
  await deps.settings.updateProfile(subject.teamId, profileId, (saved) =>
    saved ? { ...saved, events, subscriptions: subscriptionsForEvents(saved, events) } : undefined,
  );
  return updated;
}

/**
 * Outside the modal, best effort (failures logged): the message the button was on shows the new
 * configuration, and the channel the editor was opened from gets an ephemeral confirmation.
 */
async function confirmSaved(
  { deps, subject, log }: Request,
  meta: EventsModalMeta,
  profileName: string | undefined,
  events: string[],
): Promise<void> {
  if (meta.responseUrl) {
    const view = await readWebhook(deps, subject.teamId, meta.profileId);
    const msg = webhookConfigMessage({ ...view, profileName, isManager: true, now: deps.now() });
    await request(meta.responseUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ replace_original: true, text: msg.text, blocks: msg.blocks }),
    })
      .then((r) => r.body.dump())
      .catch((err: unknown) => log.warn({ err }, "could not update the message the button was on"));
  }
  if (meta.channelId) {
    await subject.client.chat
      .postEphemeral({
        channel: meta.channelId,
        user: subject.userId,
        text: eventsSavedText(meta.profileId, profileName, events),
      })
      .catch((err: unknown) => log.warn({ err }, "could not confirm in the channel"));
  }
}
