/**
 * The one request shape every handler receives (src/slack/request.ts builds it): who is asking,
 * the request's logger and client, and the decisions the wrapper bound for that person.
 */
import type { WebClient } from "@slack/web-api";
import type {
  Action,
  Decision,
  LivestreamAction,
  LivestreamRead,
  ReadSharing,
  Resource,
  VideoAction,
  VideoRead,
} from "../access/index.js";
import type { BotDeps } from "../deps.js";
import type { Logger } from "../log.js";
import type { Asking, Payer } from "../operations/profiles.js";
import type { Asker, Reply } from "./context.js";

/** What every handler receives: who is asking, and the decisions bound to them (the wrapper's). */
export interface Request extends Asking {
  deps: BotDeps;
  subject: Asker;
  log: Logger;
  client: WebClient;
  /** Mid-flow: asks the Authorizer for `action` on `resource`, for the person asking. */
  authorize(action: Action, resource: Resource): Promise<Decision>;
  /** Mid-flow: authorizes `action` on a livestream and reads it (Authorizer.readLivestream). */
  readLivestream(
    action: LivestreamAction,
    id: string,
    fields: readonly string[],
    sharing?: ReadSharing,
  ): Promise<LivestreamRead>;
  /** Mid-flow: authorizes `action` on a video and reads it (Authorizer.readVideo). */
  readVideo(
    action: VideoAction,
    id: string,
    fields: readonly string[],
    sharing?: ReadSharing,
  ): Promise<VideoRead>;
  /** Whether the workspace may read and change the profile (PROFILE_BINDINGS). */
  profileBound(profileId: string | undefined): boolean;
  /** Charges one platform read to `payer` before it is made; false past a read budget. */
  chargeRead(payer: Payer): Promise<boolean>;
}

/** A request that can be answered (a command, a button). */
export interface Answerable extends Request {
  /** Bolt's `respond` (the response_url). */
  respond: Reply;
}
