/**
 * What every listener receives: the collaborators, passed in (never imported as globals), so
 * tests build the app with a sandbox platform, a memory store and a Slack stand-in.
 */
import type { RespondArguments } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import type { Authorizer, ManagerPolicy, Subject } from "../access/index.js";
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import type { Outbox } from "../notify/types.js";
import { isPlatformError, type PlatformClient } from "../platform/index.js";
import type { ActivityRepo, InstallationRepo, Route, RouteRepo, SettingsRepo } from "../store/index.js";
import { ProfileClaimedError, StoreCorruptError, StoreUnavailableError } from "../store/index.js";
import type { WatchService } from "../watch/service.js";
import {
  errorMessage,
  type Message,
  profileClaimedMessage,
  storeUnavailableMessage,
} from "./blocks/index.js";

/** The delivery route's answer as the listeners read it (src/deliveries/receive.ts's IngestResult has it). */
export interface IngestAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface BotDeps {
  config: Config;
  platform: PlatformClient;
  settings: SettingsRepo;
  routes: RouteRepo;
  outbox: Outbox;
  activity: ActivityRepo | undefined;
  /** Multi-workspace (OAuth) mode: the installations (uninstall removes the workspace's one). */
  installations?: InstallationRepo;
  metrics: Metrics | undefined;
  /**
   * The delivery route's own path (validate, route, store), for `/webhook test`: given a route
   * (resolved from the profile's route id; settings never keep the token) or a route token.
   */
  ingest: (target: string | Route, body: string) => Promise<IngestAnswer>;
  managers: ManagerPolicy;
  /** Live watch (undefined when the app was built without a store). */
  watch?: WatchService | undefined;
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

/** Who is asking, from a request body (slash command, block action, view submission, event). */
export function subjectOf(
  client: WebClient,
  b: {
    team_id?: string | undefined;
    enterprise_id?: string | undefined;
    user_id?: string | undefined;
    team?: { id?: string; enterprise_id?: string } | null | undefined;
    enterprise?: { id?: string } | null | undefined;
    user?: { id?: string; team_id?: string } | undefined;
  },
  userId?: string,
): Subject {
  const teamId = b.team_id ?? b.team?.id ?? b.user?.team_id ?? "";
  const enterpriseId = b.enterprise_id ?? b.enterprise?.id ?? b.team?.enterprise_id ?? undefined;
  return { teamId, enterpriseId, userId: userId ?? b.user_id ?? b.user?.id ?? "", client };
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
      message = errorMessage(err, context);
      kind = "store_corrupt";
    } else {
      log.error({ err, context }, "unexpected failure");
      message = errorMessage(err, context);
      kind = "unexpected";
    }
    metrics?.commandFailures.inc({ kind });
    await safeRespond(respond, log, ephemeral(message));
  }
}
