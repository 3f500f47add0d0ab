/**
 * Who is asking (`subjectOf`, the `subject` of the one request shape of src/slack/request.ts) and
 * how a request is answered: the answer builders and the one failure answer (`answerErrors`).
 */
import type { Context, RespondArguments } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { ReadRefusedError, type Subject } from "../access/index.js";
import type { Logger } from "../log.js";
import {
  errorMessage,
  type Message,
  profileClaimedMessage,
  refusalMessage,
  storeUnavailableMessage,
} from "../messages/index.js";
import type { Metrics } from "../metrics.js";
import { isPlatformError } from "../platform/index.js";
import { ProfileClaimedError, StoreCorruptError, StoreUnavailableError } from "../store/index.js";

/** What a listener reads of Bolt's `context` (set by Bolt's authorization of the request). */
export type AuthContext = Pick<Context, "teamId" | "enterpriseId" | "userId">;

/** Who is asking, and where: the subject of every decision, plus the request's channel. */
export interface Asker extends Subject {
  /** The conversation the request came from (a command's, a button's message's, an event's); none for a modal. */
  channelId: string | undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** The channel of a request body: a command's `channel_id`, an action's `channel.id`, an event's `channel`. */
function channelOf(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const event = body.event;
  if (isRecord(event)) return typeof event.channel === "string" ? event.channel : undefined;
  if (typeof body.channel_id === "string") return body.channel_id;
  return isRecord(body.channel) && typeof body.channel.id === "string" ? body.channel.id : undefined;
}

/**
 * The one place that says who is asking. The workspace, organization and user come from Bolt's
 * authorization context: Bolt fills it from the installation it found for the request
 * (multi-workspace mode), else from `authorizations[0]` (events), `view.app_installed_team_id`
 * (modal submissions), `team.id` (buttons) or `team_id` (commands); never from a `team_id` or
 * `user.team_id` the payload also carries, which in a shared channel names the person's own
 * workspace rather than the one Slack authorized the request for.
 */
export function subjectOf(client: WebClient, context: AuthContext, body: unknown): Asker {
  return {
    teamId: context.teamId ?? "",
    enterpriseId: context.enterpriseId,
    userId: context.userId ?? "",
    channelId: channelOf(body),
    client,
  };
}

export function ephemeral(m: Message): RespondArguments {
  return { response_type: "ephemeral", replace_original: false, text: m.text, blocks: m.blocks };
}

export function inChannel(m: Message): RespondArguments {
  return { response_type: "in_channel", replace_original: false, text: m.text, blocks: m.blocks };
}

export function replace(m: Message): RespondArguments {
  return { replace_original: true, text: m.text, blocks: m.blocks };
}

/** Sends through response_url; a failure to answer is logged, never thrown into Bolt. */
/** Where an answer goes: Bolt's respond (response_url), or a stand-in such as a DM. */
export type Reply = (args: RespondArguments) => Promise<unknown>;

export async function safeRespond(respond: Reply, log: Logger, args: RespondArguments): Promise<void> {
  try {
    await respond(args);
  } catch (err) {
    log.warn({ err }, "could not answer through response_url");
  }
}

/**
 * Runs the work of a command or action after its ack, and turns every failure into a plain,
 * ephemeral answer: platform errors in words with their correlation id, an unreachable or damaged
 * store, anything else as a generic failure (logged with its details, shown without them).
 */
export async function answerErrors(
  respond: Reply,
  log: Logger,
  context: string,
  work: () => Promise<void>,
  metrics?: Metrics,
): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (err instanceof ReadRefusedError) {
      // A read over its cause's budget: a refusal like the wrapper's (not a failure), nothing sent.
      log.debug({ context, reason: "read_budget" }, "refused: read budget used up");
      await safeRespond(respond, log, ephemeral(refusalMessage(err.refusal)));
      return;
    }
    let message: Message;
    let kind: string;
    if (isPlatformError(err)) {
      log.warn({ err, context }, "platform call failed");
      message = errorMessage(err, context);
      kind = `platform_${err.kind}_${err.status}`;
    } else if (err instanceof ProfileClaimedError) {
      log.warn({ profile: err.profileId, context }, "profile is managed from another workspace");
      message = profileClaimedMessage(err.profileId);
      kind = "profile_claimed";
    } else if (err instanceof StoreUnavailableError) {
      log.error({ err, context }, "settings store unavailable");
      message = storeUnavailableMessage();
      kind = "store_unavailable";
    } else if (err instanceof StoreCorruptError) {
      log.error({ err, key: err.key, context }, "settings value is damaged");
      message = errorMessage(null, context);
      kind = "store_corrupt";
    } else {
      log.error({ err, context }, "unexpected failure");
      message = errorMessage(null, context);
      kind = "unexpected";
    }
    metrics?.commandFailures.inc({ kind });
    await safeRespond(respond, log, ephemeral(message));
  }
}
