/**
 * The App Home's set-up and managers modals (issue 5: every change a command makes can be made
 * from buttons). Both open at once with a loading view (a trigger_id lives 3 s), check the role
 * inside, and do the work after the submission's ack, showing the outcome in the modal.
 * More: ../../README.md ("listeners/views/setup-flow.ts").
 */
import type { Subject } from "../../../access/index.js";
import type { Logger } from "../../../log.js";
import {
  channelProblemText,
  claimedElsewhereText,
  decodeSetupMeta,
  describePlatformError,
  encodeSetupMeta,
  FORM_EXPIRED,
  FORM_LOADING,
  formMessage,
  MANAGERS_NOT_READ,
  MANAGERS_NOT_SAVED,
  managersModal,
  managersModalSaved,
  type ParsedSetup,
  profileMenuProblemText,
  refusalText,
  type SetupValues,
  SOMETHING_WENT_WRONG,
  STORE_NOT_ANSWERING,
  setupModal,
  setupModalDone,
  setupPlaceholderText,
  webhookSetMessage,
} from "../../../messages/index.js";
import {
  boundProfiles,
  findProfile,
  isKnownProfileId,
  mayAsk,
  profileLabel,
} from "../../../operations/profiles.js";
import { setWebhook } from "../../../operations/webhook.js";
import { isPlatformError, ManagedProfilesError } from "../../../platform/index.js";
import { classifySlackError } from "../../../posting/index.js";
import { ProfileClaimedError, StoreUnavailableError } from "../../../store/index.js";
import type { Request } from "../../shape.js";
import { publishHome } from "../events/home.js";
import { openThenFill } from "./open-modal.js";

/** How long the form waits for the list of profiles before it offers a text field instead. */
const MENU_WAIT_MS = 4000;

function explain(err: unknown): string {
  if (isPlatformError(err)) return describePlatformError(err);
  if (err instanceof ProfileClaimedError) return claimedElsewhereText(err.profileId);
  if (err instanceof StoreUnavailableError) return STORE_NOT_ANSWERING;
  return SOMETHING_WENT_WRONG;
}

async function refreshHome(req: Request) {
  await publishHome(req).catch((err: unknown) => req.log.warn({ err }, "could not refresh the App Home"));
}

/**
 * The set-up form with the menu of the workspace's profiles; a text field (and why) when the
 * platform cannot be asked; in place of the form, why there is nothing to choose from.
 */
async function setupForm(
  req: Request,
  opts: { meta: string; values: SetupValues; notice?: string | undefined },
): Promise<ReturnType<typeof setupModal>> {
  try {
    const profiles = await boundProfiles(req, AbortSignal.timeout(MENU_WAIT_MS));
    if (profiles.length === 0 && !opts.values.profileId)
      return formMessage({ kind: "setup", meta: opts.meta, text: profileMenuProblemText("none_bound") });
    return setupModal({ ...opts, profiles });
  } catch (err) {
    if (!(err instanceof ManagedProfilesError)) throw err;
    if (err.problem === "no_profile")
      return formMessage({ kind: "setup", meta: opts.meta, text: profileMenuProblemText("no_profile") });
    const e = err.platformError;
    const why = `${profileMenuProblemText("unavailable", "set")}${e ? ` (${describePlatformError(e)})` : ""}`;
    return setupModal({ ...opts, notice: opts.notice ? `${opts.notice}\n${why}` : why });
  }
}

export interface OpenModal {
  triggerId: string;
  /** Set-up only: the configured profile to change (prefilled), or undefined for a new one. */
  profileId?: string | undefined;
}

/** Opens the set-up form; authorized inside (as "webhook.setup"), a refusal shown in it. */
export async function openSetup(req: Request, opts: OpenModal): Promise<void> {
  const { deps, subject, log } = req;
  const { client } = subject;
  const meta = encodeSetupMeta({ teamId: subject.teamId, kind: "setup" });
  const message = (text: string) => formMessage({ kind: "setup", meta, text });
  await openThenFill(
    client,
    {
      triggerId: opts.triggerId,
      loading: formMessage({ kind: "setup", meta, text: FORM_LOADING, close: "Cancel" }),
      fill: async () => {
        const d = await req.authorize("webhook.setup", { kind: "workspace" });
        if (!d.allowed) return message(refusalText(d));
        const saved = opts.profileId
          ? await deps.settings.getProfile(subject.teamId, opts.profileId)
          : undefined;
        const values = saved
          ? {
              profileId: saved.profileId,
              channelId: saved.channelId,
              events: saved.events,
              url: saved.foreignUrl,
            }
          : { profileId: opts.profileId };
        return setupForm(req, { meta, values });
      },
      failed: (err) => message(`⚠️ ${explain(err)}`),
    },
    log,
  );
}

export interface SetupSubmission {
  viewId: string;
  privateMetadata: string;
  parsed: ParsedSetup["values"];
}

/** After the ack ("saving…"): checks, posts in the channel, sets the webhook, shows the outcome. */
export async function saveSetup(req: Request, s: SetupSubmission) {
  const { subject, log } = req;
  const { client, teamId } = subject;
  const meta = decodeSetupMeta(s.privateMetadata);
  const metaText = s.privateMetadata;
  const show: ShowProblem = async (values, text) =>
    client.views.update({
      view_id: s.viewId,
      view:
        values === null
          ? formMessage({ kind: "setup", meta: metaText, text })
          : await setupForm(req, { meta: metaText, values, notice: `⚠️ ${text}` }),
    });
  if (meta?.kind !== "setup" || meta.teamId !== teamId) {
    await show(null, FORM_EXPIRED);
    return;
  }
  let p = s.parsed;
  let placeholder: Placeholder | undefined;
  try {
    // A name typed in the text field: looked up once the role was checked.
    if (!(await isKnownProfileId(req, p.profileId))) {
      const found = await lookUpProfile(req, p, show);
      if (found === null) return;
      p = found;
    }
    if (!(await maySet(req, p, show))) return;
    const profileName = await profileLabel(req, p.profileId);
    if (p.url === null && p.channelId) {
      const posted = await postPlaceholder(subject, p, p.channelId, profileName, show, log);
      if (posted === "refused") return;
      placeholder = posted;
    }
    await applySetup(req, s, p, profileName, placeholder);
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

type SetupInput = SetupSubmission["parsed"];

/** Shows a problem in the set-up modal: the form again with `text` as its notice, or (null) `text` alone. */
type ShowProblem = (values: SetupValues | null, text: string) => Promise<unknown>;

/** The message posted in the channel while the webhook is set, updated with the outcome. */
interface Placeholder {
  channel: string;
  ts: string;
}

/**
 * The profile named in the text field, found once the role allows asking; null when refused (the
 * refusal shown).
 */
async function lookUpProfile(req: Request, p: SetupInput, show: ShowProblem): Promise<SetupInput | null> {
  const may = await mayAsk(req, "webhook.set");
  if (!may.allowed) {
    await show(may.reason === "not_manager" ? null : p, refusalText(may));
    return null;
  }
  return { ...p, profileId: await findProfile(req, p.profileId) };
}

/**
 * Not a manager, a profile not bound to this workspace or another workspace's profile: refused
 * (shown, false) before anything is posted or sent.
 */
async function maySet(req: Request, p: SetupInput, show: ShowProblem): Promise<boolean> {
  const d = await req.authorize("webhook.set", { kind: "profile", profileId: p.profileId });
  if (!d.allowed) {
    await show(d.reason === "not_manager" ? null : p, refusalText(d));
    return false;
  }
  return true;
}

/**
 * Posts the set-up message in the channel (which also checks the bot can post there); "refused"
 * (shown, nothing changed) when Slack refuses it.
 */
async function postPlaceholder(
  subject: Subject,
  p: SetupInput,
  channelId: string,
  profileName: string | undefined,
  show: ShowProblem,
  log: Logger,
): Promise<Placeholder | undefined | "refused"> {
  try {
    const posted = await subject.client.chat.postMessage({
      channel: channelId,
      text: setupPlaceholderText(subject.userId, p.profileId, profileName),
    });
    return posted.channel && posted.ts ? { channel: posted.channel, ts: posted.ts } : undefined;
  } catch (err) {
    const f = classifySlackError(err);
    log.info({ code: "code" in f ? f.code : f.kind }, "set-up refused: the bot cannot post in the channel");
    await show(
      p,
      `${channelProblemText("code" in f ? f.code : "ratelimited", channelId)} Nothing was changed.`,
    );
    return "refused";
  }
}

/** Sets the webhook, confirms in the channel's set-up message and the modal, refreshes the App Home. */
async function applySetup(
  req: Request,
  s: SetupSubmission,
  p: SetupInput,
  profileName: string | undefined,
  placeholder: Placeholder | undefined,
): Promise<void> {
  const { deps, subject, log } = req;
  const { client, teamId, userId } = subject;
  const view = await setWebhook(deps, {
    teamId: teamId,
    profileId: p.profileId,
    channelId: p.channelId ?? "",
    userId: userId,
    url: p.url,
    events: p.events,
  });
  if (placeholder) {
    const m = webhookSetMessage({ ...view, profileName, byUser: userId, now: deps.now() });
    await client.chat
      .update({ channel: placeholder.channel, ts: placeholder.ts, text: m.text, blocks: m.blocks })
      .catch((err: unknown) => log.warn({ err }, "could not post the confirmation in the channel"));
  }
  await client.views.update({
    view_id: s.viewId,
    view: setupModalDone({
      meta: s.privateMetadata,
      profileId: p.profileId,
      profileName,
      channelId: view.settings?.channelId ?? p.channelId,
      url: p.url,
      events: view.webhook.events ?? p.events,
    }),
  });
  await refreshHome(req);
}

/** Opens the managers form; authorized inside (as "managers.change"), a refusal shown in it. */
export async function openManagers(req: Request, opts: OpenModal): Promise<void> {
  const { deps, subject, log } = req;
  const { client } = subject;
  const meta = encodeSetupMeta({ teamId: subject.teamId, kind: "managers" });
  const message = (text: string) => formMessage({ kind: "managers", meta, text });
  await openThenFill(
    client,
    {
      triggerId: opts.triggerId,
      loading: formMessage({ kind: "managers", meta, text: FORM_LOADING, close: "Cancel" }),
      fill: async () => {
        const d = await req.authorize("managers.change", { kind: "workspace" });
        if (!d.allowed) return message(refusalText(d));
        const added = (await deps.settings.listManagers(subject.teamId)).map((m) => m.userId);
        return managersModal({ meta, configured: deps.config.access.managerUserIds, added });
      },
      failed: () => message(MANAGERS_NOT_READ),
    },
    log,
  );
}

/** After the ack: applies the difference between the stored and the chosen managers. */
export async function saveManagers(
  req: Request,
  s: { viewId: string; privateMetadata: string; chosen: string[] },
): Promise<void> {
  const { deps, subject, log } = req;
  const { client, teamId, userId } = subject;
  const meta = decodeSetupMeta(s.privateMetadata);
  const text = (t: string) => formMessage({ kind: "managers", meta: s.privateMetadata, text: t });
  if (meta?.kind !== "managers" || meta.teamId !== teamId) {
    await client.views.update({ view_id: s.viewId, view: text(FORM_EXPIRED) });
    return;
  }
  try {
    const d = await req.authorize("managers.change", { kind: "workspace" });
    if (!d.allowed) {
      await client.views.update({ view_id: s.viewId, view: text(refusalText(d)) });
      return;
    }
    const before = new Set((await deps.settings.listManagers(teamId)).map((m) => m.userId));
    const chosen = new Set(s.chosen);
    const added = [...chosen].filter((u) => !before.has(u));
    const removed = [...before].filter((u) => !chosen.has(u));
    for (const u of added) await deps.settings.addManager(teamId, u, userId, deps.now());
    for (const u of removed) await deps.settings.removeManager(teamId, u);
    const now = (await deps.settings.listManagers(teamId)).map((m) => m.userId);
    log.info({ added: added.length, removed: removed.length }, "managers changed from the App Home");
    await client.views.update({
      view_id: s.viewId,
      view: managersModalSaved({ meta: s.privateMetadata, added, removed, now }),
    });
    await refreshHome(req);
  } catch (err) {
    log.warn({ err }, "could not save the managers");
    await client.views
      .update({
        view_id: s.viewId,
        view: text(MANAGERS_NOT_SAVED),
      })
      .catch((e: unknown) => log.warn({ err: e }, "could not show the error"));
  }
}
