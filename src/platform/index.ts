/** The platform API v2 client: one import for the rest of the bot. */
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import { PlatformClient, type PlatformClientOptions } from "./client.js";

export type { RequestObservation } from "./api.js";
export { grantAdvice, OPTIONAL_SCOPES, TokenProvider, type WithheldScope } from "./auth.js";
export { checkCallbackUrl, checkEvents, PlatformClient, type PlatformClientOptions } from "./client.js";
export { parseDelivery } from "./delivery.js";
export { isPlatformError, PlatformError, type PlatformErrorKind } from "./errors.js";
export type { TransportTimeouts } from "./http.js";
export {
  type ManagedProfile,
  ManagedProfilesError,
  type ManagedProfilesProblem,
  type NamesOptions,
  PlatformNames,
  type ProfileLabel,
  resolveProfile,
  type VideoTitle,
  type VideoTitleUnknown,
} from "./names.js";
export * from "./read-schemas.js";
export * from "./schemas.js";

/** The client as configured by the environment, with its own shared connection pool. */
export function createPlatformClient(
  config: Config["platform"],
  logger: Logger,
  extra: Partial<PlatformClientOptions> = {},
): PlatformClient {
  return new PlatformClient({
    apiUrl: config.apiUrl,
    authUrl: config.authUrl,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    scopes: config.scopes,
    timeouts: config.timeouts,
    maxRetryAfterMs: config.maxRetryAfterMs,
    maxConnections: config.maxConnections,
    logger: logger.child({ component: "platform" }),
    ...extra,
  });
}
