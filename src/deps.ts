/**
 * The collaborators every listener, operation and flow is given (built once in src/compose.ts):
 * the platform door, the repositories, the authorizer, the watch and digest services.
 */
import type { Authorizer, LinkKinds, ManagerPolicy, PlatformDoor } from "./access/index.js";
import type { Config } from "./config.js";
import type { Digests } from "./digest/index.js";
import type { Logger } from "./log.js";
import type { Metrics } from "./metrics.js";
import type { Outbox } from "./outbox/index.js";
import type { PlatformNames } from "./platform/index.js";
import type { ActivityRepo, Callback, CallbackRepo, InstallationRepo, SettingsRepo } from "./store/index.js";
import type { WatchService } from "./watch/service.js";

/** The delivery route's answer as the listeners read it (src/deliveries/receive.ts's IngestResult has it). */
export interface IngestAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface BotDeps {
  config: Config;
  /** The one door to the platform (src/access/door.ts): every read charged to its cause first. */
  platform: PlatformDoor;
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
  /** Digests and pauses (src/digest/): what commands schedule or forget. */
  digests?: Digests | undefined;
  /** The one authorization function (src/access): every entry point asks it first. */
  access: Authorizer;
  /** What pasted ids turned out to be (a livestream or a video): link previews read them once. */
  linkKinds: LinkKinds;
  logger: Logger;
  now: () => Date;
  /**
   * `/live status`: after this long without the platform's answer, the channel is told so in
   * place, and the card replaces that message when the answer comes (default 10 s).
   */
  slowCardMs?: number;
}
