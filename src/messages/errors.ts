/**
 * The one place that words failures for Slack: what happened and what to do, in plain words, with
 * the platform's correlation id when there is one (never on "does not exist": see
 * describePlatformError). Nothing internal (stack, cause, token) shows.
 *
 * `describePlatformError` returns mrkdwn: values coming from the platform are escaped and bounded.
 */
import { WEBHOOK_EVENTS } from "../domain/index.js";
import { escapeTruncate } from "./escape.js";
import { code, context, message, section } from "./kit.js";
import type { Message } from "./types.js";

/**
 * What the words of a platform failure read of it: src/platform's PlatformError has this shape
 * (its error envelope, spec section 7, and the request it answered).
 */
export interface PlatformFailure {
  /** http, token, timeout, network, invalid_response, invalid_request or not_confirmed. */
  kind: string;
  /** HTTP status, or 0 when no response came. */
  status: number;
  code: string;
  message: string;
  correlationId: string | null;
  details: Record<string, unknown> | null;
  retryAfterSeconds: number | undefined;
  /** Which timeout fired. */
  phase: string | undefined;
  method: string | undefined;
  path: string | undefined;
  /** 422: the offending field. */
  field: string | undefined;
  invalidValues: readonly string[];
  allowedValues: readonly string[];
  requiredPermissions: readonly string[];
  missingPermissions: readonly string[];
}

const MAX_VALUES = 30;

function list(values: readonly string[]): string {
  const shown = values.slice(0, MAX_VALUES).map((v) => code(v, 80));
  const more = values.length - shown.length;
  return `${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : undefined;
}

/** The object a 404 is about: from the envelope's details, else from the request path. */
function notFoundObject(err: PlatformFailure): { type: string; id: string | undefined } {
  const d = err.details ?? {};
  const type = str(d.object_type);
  const id = str(d.object_id);
  const m = /^\/(livestreams|profiles)\/([^/?#]+)/.exec(err.path ?? "");
  const fromPath = m?.[1] === "livestreams" ? "livestream" : m?.[1] === "profiles" ? "profile" : undefined;
  let pathId: string | undefined;
  if (m?.[2]) {
    try {
      pathId = decodeURIComponent(m[2]);
    } catch {
      pathId = m[2];
    }
  }
  return { type: type ?? fromPath ?? "object", id: id ?? pathId };
}

/** Which scope / role the failed operation needs (spec 4.1, 4.2, 5.6). */
function permissionHint(err: PlatformFailure): string {
  const path = err.path ?? "";
  if (path.startsWith("/profiles")) {
    return err.method === "GET"
      ? "Reading a profile's webhook needs the bot's API key to cover this profile, with the `profile.manage` scope."
      : "Changing a profile's webhook needs the `profile.manage` scope and the Owner role on the profile: an Owner or Admin of the organization can enable it on the bot's private API key (and make sure the key covers this channel).";
  }
  if (path.startsWith("/livestreams")) {
    return "Reading a livestream needs the `live.read` scope on the bot's private API key, and the key must cover the livestream's channel.";
  }
  return "An Owner or Admin of the organization can grant them on the bot's private API key (then check PLATFORM_SCOPES).";
}

function allowedFor(err: PlatformFailure): readonly string[] {
  // The platform's own list omits events (spec 6.1): for events, the bot's full list is the truth.
  return err.field === "webhook.events" ? [...WEBHOOK_EVENTS] : err.allowedValues;
}

function describeValidation(err: PlatformFailure): string {
  const field = err.field;
  const d = err.details ?? {};
  const fieldText = field ? code(field, 80) : "A value";
  switch (err.code) {
    case "INVALID_ENUM_VALUE": {
      const invalid = err.invalidValues;
      const allowed = allowedFor(err);
      const what = invalid.length
        ? `${list(invalid)} ${invalid.length > 1 ? "are not valid values" : "is not a valid value"} of ${fieldText}.`
        : `${fieldText} has a value that is not recognized.`;
      return `${what}${allowed.length ? ` Allowed: ${list(allowed)}.` : ""}`;
    }
    case "INVALID_FORMAT": {
      if (field === "webhook.callback_url") {
        const provided = str(d.provided);
        return `The callback URL must be an absolute \`https://\` URL; the platform refuses HTTP${provided ? ` (got ${code(provided, 300)})` : ""}.`;
      }
      if (field === "fields" || d.param === "fields") {
        const invalid = err.invalidValues;
        return `Unknown livestream field${invalid.length > 1 ? "s" : ""}: ${invalid.length ? list(invalid) : "(not given)"}.`;
      }
      if (field === "id" || field === "profile_id") {
        const provided = str(d.provided);
        const kind = field === "id" ? "livestream" : "profile";
        return `${provided ? code(provided, 100) : "That"} is not a valid ${kind} id: use letters, digits, - and _ only.`;
      }
      const requirement = str(d.requirement);
      return `${fieldText} is not in the expected format${requirement ? ` (${escapeTruncate(requirement, 200)})` : ""}.`;
    }
    case "MISSING_REQUIRED_VALUE":
      if (err.kind === "invalid_request") return escapeTruncate(err.message, 500);
      return `${fieldText} is required but was not given.`;
    case "MISSING_PARENT_ID":
      return `The request names no parent object${field ? ` (${code(field, 80)})` : ""}.`;
    default:
      return `The platform refused a value${field ? ` of ${code(field, 80)}` : ""}: ${escapeTruncate(err.message, 500)}`;
  }
}

function describeHttp(err: PlatformFailure): string {
  const s = err.status;
  if (s === 404 || err.code === "RESOURCE_NOT_FOUND") {
    const o = notFoundObject(err);
    return `The platform has no ${escapeTruncate(o.type, 40)}${o.id ? ` ${code(o.id, 100)}` : ""}, or the bot's API key cannot see it. Check the id.`;
  }
  if (s === 401) {
    return `The platform did not accept the bot's access token (${code(err.code, 60)}). Try again; if it keeps happening, ask an admin to check PLATFORM_CLIENT_ID/PLATFORM_CLIENT_SECRET and the API key.`;
  }
  if (s === 403) {
    if (err.code === "UPSTREAM_ACCESS_DENIED") {
      return "A service behind the platform denied access for this request. Try again later; if it keeps happening, contact the platform's support.";
    }
    const missing = err.missingPermissions;
    const required = err.requiredPermissions;
    const what = missing.length
      ? `The bot's API key lacks ${missing.length > 1 ? "these permissions" : "this permission"}: ${list(missing)}.`
      : required.length
        ? `The bot's API key does not have what this needs: ${list(required)}.`
        : "The bot's API key is not allowed to do this.";
    return `${what} ${permissionHint(err)}`;
  }
  if (s === 422) return describeValidation(err);
  if (s === 429) {
    const wait = err.retryAfterSeconds;
    return `The platform is limiting requests right now: try again in ${wait !== undefined ? `${Math.max(1, Math.ceil(wait))} s` : "a minute"}.`;
  }
  if (s >= 500) return `The platform had a problem on its side (${s}). Try again in a moment.`;
  return `The platform refused the request (${s} ${code(err.code, 60)}): ${escapeTruncate(err.message, 500)}`;
}

function describeToken(err: PlatformFailure): string {
  switch (err.code) {
    case "invalid_client":
    case "unauthorized_client":
    case "invalid_grant":
      return "The platform's token service refused the bot's credentials: ask an admin to check PLATFORM_CLIENT_ID/PLATFORM_CLIENT_SECRET (the private API key may have been deleted or its secret changed).";
    case "invalid_scope":
      return "The platform's token service refused the scopes the bot asks for: ask an admin to check PLATFORM_SCOPES and the permissions of the private API key.";
    case "INVALID_TOKEN_RESPONSE":
      return "The platform's token service gave an answer the bot cannot use. Try again in a few minutes.";
    default:
      if (err.status === 0 || err.status >= 500 || err.code === "TOKEN_SERVICE_UNREACHABLE") {
        return "The platform's token service is unavailable right now, so the bot cannot sign in. Try again in a few minutes.";
      }
      return `The platform's token service refused to issue an access token (${err.status}). Ask an admin to check PLATFORM_CLIENT_ID/PLATFORM_CLIENT_SECRET and PLATFORM_SCOPES.`;
  }
}

function describeTimeout(err: PlatformFailure): string {
  if (err.code === "ABORTED")
    return "The request to the platform was cancelled before it finished. Try again.";
  const who = err.code === "TOKEN_TIMEOUT" ? "The platform's token service" : "The platform";
  const ms = /within (\d+) ms/.exec(err.message)?.[1];
  const limit = ms ? `within ${Number(ms) >= 1000 ? `${Number(ms) / 1000} s` : `${ms} ms`}` : "in time";
  const what =
    err.phase === "connect"
      ? `did not accept the connection ${limit}`
      : err.phase === "body"
        ? `did not finish its answer ${limit}`
        : `did not answer ${limit}`;
  return `${who} ${what}. It may be busy: try again in a moment.`;
}

/** Plain words for every failure class of the platform client, ending with the correlation id. */
export function describePlatformError(err: PlatformFailure): string {
  let text: string;
  switch (err.kind) {
    case "http":
      text = describeHttp(err);
      break;
    case "token":
      text = describeToken(err);
      break;
    case "timeout":
      text = describeTimeout(err);
      break;
    case "network":
      text = `The bot could not reach the platform (${code(err.code, 60)}). Try again in a moment; if it keeps happening, the platform may be down or unreachable from the bot's server.`;
      break;
    case "invalid_response":
      text =
        err.code === "RESPONSE_TOO_LARGE"
          ? "The platform's answer was too large for the bot to read. Try again; if it keeps happening, report it."
          : "The platform's answer could not be understood (it does not match API v2). Try again; if it keeps happening, report it.";
      break;
    case "invalid_request":
      text = describeValidation(err);
      break;
    case "not_confirmed":
      // The write got no clean answer (timeout, lost connection): it may or may not have landed.
      text =
        err.details?.write_error !== undefined
          ? "The change got no answer from the platform (timeout or lost connection), and reading the webhook back did not confirm it: it may or may not have been applied. Check in a minute with `/webhook show`, and set it again if needed."
          : err.details?.read_error !== undefined
            ? "The platform accepted the change, but reading the webhook back failed, so it is not confirmed yet. Check again in a minute with `/webhook show`."
            : "The platform accepted the change, but reading the webhook back does not show it yet. Check again in a minute with `/webhook show`.";
      break;
    default:
      text = `The platform request failed: ${escapeTruncate(err.message, 500)}`;
  }
  // "Does not exist" carries no correlation id: a missing id needs no support ticket, and the
  // answer must not tell an object of another workspace (the bot's own not-found) from a missing one.
  if (isNotFound(err) || !err.correlationId) return text;
  return `${text} (correlation id: ${escapeTruncate(err.correlationId, 100)})`;
}

/** Whether the error stands for "does not exist" (answered without a correlation id). */
function isNotFound(err: PlatformFailure): boolean {
  return err.kind === "http" && (err.status === 404 || err.code === "RESOURCE_NOT_FOUND");
}

/**
 * A short ephemeral failure message: ⚠️, the context ("Could not read livestream x8abc") and the
 * description. Any failure other than the platform's (`null`) gets a generic sentence, without
 * internals: the caller tells them apart (src/slack/context.ts).
 */
export function errorMessage(err: PlatformFailure | null, context: string): Message {
  const ctx = escapeTruncate(context.trim() || "That did not work", 300);
  const description =
    err !== null
      ? describePlatformError(err)
      : "Something went wrong on the bot's side. Try again; if it keeps happening, tell an admin (the details are in the bot's logs).";
  // The fallback text (notifications, screen readers) says it all too, in plain text.
  const plain = description.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  return message(`⚠️ ${context.trim() || "That did not work"}: ${plain}`, [
    section(`⚠️ *${ctx}*\n${description}`),
  ]);
}

/** The settings store cannot be read or written. */
export function storeUnavailableMessage(): Message {
  return message("Settings are unavailable right now. Try again in a minute.", [
    section(
      "⚠️ *Settings are unavailable right now*: the bot cannot reach the place where it keeps this workspace's settings. Nothing was changed. Try again in a minute; if it keeps happening, tell an admin.",
    ),
  ]);
}

/** A refused user: why, and who can do it. */
export function notManagerMessage(action: string): Message {
  const what = escapeTruncate(action.trim() || "do this", 200);
  return message(`Only managers can ${action.trim() || "do this"}.`, [
    section(
      `🔒 Only managers can ${what}. Managers are this workspace's admins and owners, the users listed in the bot's MANAGER_USER_IDS setting, and the users a manager adds with \`/webhook managers add @user\`. Ask one of them.`,
    ),
    context(["Nothing was sent to the platform. See who the managers are: `/webhook managers`"]),
  ]);
}

/** Another workspace manages this profile through the bot: nothing was changed. */
export function profileClaimedMessage(profileId: string): Message {
  const id = code(profileId, 100);
  return message(`Profile ${profileId} is managed from another Slack workspace; nothing was changed.`, [
    section(
      `🔒 *Profile ${id} is managed from another Slack workspace.* Its webhook was set up through this bot by a workspace that is not this one, so it can only be changed or removed from there. Nothing was sent to the platform.`,
    ),
    context([
      "If that workspace no longer uses it, a manager there can run `/webhook remove`; uninstalling the app there, or the bot's operator no longer binding the profile to it (PROFILE_BINDINGS), frees it too.",
    ]),
  ]);
}

/** The profile is not one this workspace may use (PROFILE_BINDINGS): nothing was sent. */
export function profileNotBoundMessage(profileId: string): Message {
  const id = code(profileId, 100);
  return message(
    `Profile ${profileId} is not bound to this Slack workspace; nothing was sent to the platform.`,
    [
      section(
        `🔒 *Profile ${id} is not bound to this Slack workspace.* The bot's operator decides which profiles each workspace may read and change (the PROFILE_BINDINGS setting). Nothing was sent to the platform.`,
      ),
      context(["Check the profile id, or ask the bot's operator to bind this profile to this workspace."]),
    ],
  );
}

/** The workspace is not (or no longer) in ALLOWED_WORKSPACES. */
export function workspaceNotAllowedMessage(teamId: string): Message {
  return message("This Slack workspace is not allowed to use this bot; nothing was sent to the platform.", [
    section(
      `🔒 *This Slack workspace (${code(teamId, 40)}) is not allowed to use this bot.* Its operator's ALLOWED_WORKSPACES setting does not list it. Nothing was sent to the platform.`,
    ),
  ]);
}

/** A read budget is used up (src/access/budget.ts): which one, and when to try again. */
export function readBudgetMessage(opts: {
  budget: "user" | "workspace";
  perMinute: number;
  retryAfterSeconds: number;
}): Message {
  const whose = opts.budget === "user" ? "Your" : "This workspace's";
  const who =
    opts.budget === "user"
      ? `one person may cause ${opts.perMinute} a minute`
      : `the people of one workspace may cause ${opts.perMinute} a minute together`;
  const again = `Try again in ${opts.retryAfterSeconds} s.`;
  return message(`${whose} platform read budget is used up for now. ${again}`, [
    section(
      `⏳ *${whose} platform read budget is used up for now.* The platform's read quota is shared by every workspace: ${who}. Nothing was sent to the platform. ${again}`,
    ),
  ]);
}

/**
 * A refusal of src/access (src/access/decision.ts's Refused has this shape): its stable reason
 * code and the data its words need.
 */
export type Refusal =
  | { reason: "workspace_not_allowed"; teamId: string }
  | { reason: "not_manager"; verb: string }
  | { reason: "profile_not_bound" | "profile_claimed"; profileId: string }
  | { reason: "read_budget"; budget: "user" | "workspace"; perMinute: number; retryAfterSeconds: number };

/** A refusal as an ephemeral answer. */
export function refusalMessage(r: Refusal): Message {
  switch (r.reason) {
    case "workspace_not_allowed":
      return workspaceNotAllowedMessage(r.teamId);
    case "not_manager":
      return notManagerMessage(r.verb);
    case "profile_not_bound":
      return profileNotBoundMessage(r.profileId);
    case "profile_claimed":
      return profileClaimedMessage(r.profileId);
    case "read_budget":
      return readBudgetMessage(r);
  }
}

const NOTHING_SENT = "Nothing was sent to the platform.";

/** A refusal as one paragraph of mrkdwn, for a modal or the App Home. */
export function refusalText(r: Refusal): string {
  switch (r.reason) {
    case "workspace_not_allowed":
      return `🔒 This Slack workspace is not allowed to use this bot (its operator's ALLOWED_WORKSPACES does not list it). ${NOTHING_SENT}`;
    case "not_manager":
      return `🔒 Only managers (workspace admins and owners, the users in MANAGER_USER_IDS and the users added as managers) can ${r.verb}. Ask one of them. Nothing was changed.`;
    case "profile_not_bound":
      return `🔒 Profile ${code(r.profileId, 100)} is not bound to this Slack workspace: the bot's operator decides which profiles each workspace may use (PROFILE_BINDINGS). ${NOTHING_SENT}`;
    case "profile_claimed":
      return `🔒 Profile ${code(r.profileId, 100)} is managed from another Slack workspace through this bot: only that workspace can change it. Nothing was changed.`;
    case "read_budget":
      return readBudgetMessage(r).text;
  }
}
