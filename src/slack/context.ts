/**
 * What every listener receives: the collaborators, passed in (never imported as globals), so
 * tests build the app with a sandbox platform, a memory store and a Slack stand-in.
 */
import type { Context, RespondArguments } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import type { Authorizer, ManagerPolicy, Subject } from "../access/index.js";
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import {
  errorMessage,
  type Message,
  profileClaimedMessage,
  storeUnavailableMessage,
} from "../messages/index.js";
import type { Metrics } from "../metrics.js";
import type { Digests } from "../notify/digest/index.js";
import type { Outbox } from "../notify/types.js";
import { isPlatformError, type PlatformClient, type PlatformNames } from "../platform/index.js";
import type { ActivityRepo, Callback, CallbackRepo, InstallationRepo, SettingsRepo } from "../store/index.js";
import { ProfileClaimedError, StoreCorruptError, StoreUnavailableError } from "../store/index.js";
import type { WatchService } from "../watch/service.js";

/** The delivery route's answer as the listeners read it (src/deliveries/receive.ts's IngestResult has it). */
export interface IngestAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface BotDeps {
  config: Config;
  platform: PlatformClient;
  /** Profiles by name (labels, the profiles the key manages) and video titles: one per process. */
  names: PlatformNames;
  settings: SettingsRepo;
  callbacks: CallbackRepo;
  outbox: Outbox;
  activity: ActivityRepo | undefined;
  /** Multi-workspace (OAuth) mode: the installations (uninstall removes the workspace's one). */
  installations?: InstallationRepo;
  metrics: Metrics | undefined;
  /**
   * The delivery route's own path (validate, route, store), for `/webhook test`: given a route
   * (resolved from the profile's callback id; settings never keep the token) or a callback token.
   */
  ingest: (target: string | Callback, body: string) => Promise<IngestAnswer>;
  managers: ManagerPolicy;
  /** Live watch (undefined when the app was built without a store). */
  watch?: WatchService | undefined;
  /** Digests and pauses (src/notify/digest/): what commands schedule or forget. */
  digests?: Digests | undefined;
  /** The one authorization function (src/access): every entry point asks it first. */
  access: Authorizer;
  logger: Logger;
  now: () => Date;
  /**
   * `/live status`: after this long without the platform's answer, the channel is told so in
   * place, and the card replaces that message when the answer comes (default 10 s).
   */
  slowCardMs?: number;
}

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
