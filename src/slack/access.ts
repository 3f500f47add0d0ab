/**
 * Access in the request wrapper (request.ts): the Authorizer's calls bound to who is asking
 * (`bindAccess`, the one place that calls it), what a handler declares (`access`: a resource, a
 * livestream, or a flow that authorizes itself), and how the wrapper carries it out: the grant, or
 * the refusal answered. How a handler declares its access: README.md ("request.ts").
 */
import type {
  Action,
  LivestreamAction,
  LivestreamRead,
  ReadSharing,
  Resource,
  VideoAction,
} from "../access/index.js";
import type { BotDeps } from "../deps.js";
import { refusalMessage } from "../messages/index.js";
import type { Payer } from "../operations/profiles.js";
import type { Livestream } from "../platform/index.js";
import { type Asker, ephemeral, type Reply } from "./context.js";
import type { Answerable } from "./shape.js";

/** The Authorizer's calls, bound to who is asking: the one place that calls it. */
export function bindAccess(deps: BotDeps, subject: Asker) {
  const access = deps.access;
  return {
    authorize: (action: Action, resource: Resource) => access.authorize(subject, action, resource),
    readLivestream: (
      action: LivestreamAction,
      id: string,
      fields: readonly string[],
      sharing?: ReadSharing,
    ) => access.readLivestream(subject, action, id, fields, sharing),
    readVideo: (action: VideoAction, id: string, fields: readonly string[], sharing?: ReadSharing) =>
      access.readVideo(subject, action, id, fields, sharing),
    profileBound: (profileId: string | undefined) => access.profileBound(subject, profileId),
    chargeRead: (payer: Payer) => access.chargeRead(payer),
  };
}

type Of<In, A> = A | ((input: In) => A);

/** Authorized by the wrapper before the handler runs. */
export interface ResourceAccess<In> {
  action: Of<In, Action>;
  resource: (input: In) => Resource;
}

/**
 * Started before a livestream is read (`/live status`'s slow-platform notice): told once the read
 * settled, `ok` false when it failed or was refused (then before the refusal is answered).
 */
export interface WhileReading {
  settled(ok: boolean): Promise<void>;
}

/** A livestream read by the wrapper (authorized, charged, its owner's binding checked). */
export interface LivestreamAccess<In, W extends WhileReading = WhileReading> {
  action: Of<In, LivestreamAction>;
  livestream: (input: In) => string;
  fields: readonly string[];
  whileReading?: (req: Answerable, input: In) => W;
}

/** Authorized mid-flow through `req.authorize` / `req.readLivestream` (bound by `bindAccess`). */
export interface FlowAccess<In> {
  action: Of<In, Action>;
  inFlow: true;
}

export type Access<In> = ResourceAccess<In> | LivestreamAccess<In> | FlowAccess<In>;

/** What the handler is handed once the wrapper authorized it. */
export interface Allowed {
  manager: boolean;
}

export interface LivestreamAllowed<W extends WhileReading = WhileReading> extends Allowed {
  livestream: Livestream;
  /** What `whileReading` started, if the handler declared one. */
  reading: W | undefined;
}

/** The action `access` declares for `input`. */
export function declaredAction<In>(access: Access<In>, input: In): Action {
  return typeof access.action === "function" ? access.action(input) : access.action;
}

/**
 * Authorizes what `access` declares for `input`: the grant, or null once a refusal was answered
 * through `to` (ephemeral, its reason in words). Nothing to do for a flow that authorizes itself.
 */
export async function grantOf<In>(
  req: Answerable,
  access: Access<In>,
  input: In,
  to: Reply,
): Promise<Allowed | LivestreamAllowed | null | undefined> {
  if ("inFlow" in access) return undefined;
  const action = declaredAction(access, input);
  if ("resource" in access) {
    const d = await req.authorize(action, access.resource(input));
    if (d.allowed) return { manager: d.manager };
    await to(ephemeral(refusalMessage(d)));
    return null;
  }
  const reading = access.whileReading?.(req, input);
  let r: LivestreamRead;
  try {
    r = await req.readLivestream(action as LivestreamAction, access.livestream(input), access.fields);
  } catch (err) {
    await reading?.settled(false);
    throw err;
  }
  await reading?.settled(r.allowed);
  if (r.allowed) return { manager: r.manager, livestream: r.livestream, reading };
  await to(ephemeral(refusalMessage(r)));
  return null;
}

/**
 * Mid-flow, for an answerable request: `action` on `resource` authorized, or null once the refusal
 * was answered through `to` (ephemeral, as the wrapper answers a declared action's).
 */
export async function authorizeOrAnswer(
  req: Answerable,
  action: Action,
  resource: Resource,
  to: Reply = req.respond,
): Promise<Allowed | null> {
  return (await grantOf(req, { action, resource: () => resource }, undefined, to)) ?? null;
}
