export { type ActivityDelta, ActivityRepo, type ActivitySummary } from "./activity.js";
export { type Callback, CallbackRepo, type CallbackRepoOptions } from "./callbacks.js";
export { ProfileClaims } from "./claims.js";
export {
  DAY_MS,
  type Hold,
  holdOf,
  lastDigestAt,
  nextDigestAt,
  pausedAt,
  periodOf,
} from "./digest-times.js";
export { Documents } from "./documents.js";
export {
  InstallationMissingError,
  ProfileClaimedError,
  StoreCorruptError,
  StoreUnavailableError,
} from "./errors.js";
export {
  InstallationRepo,
  type InstallationRepoOptions,
  queryOf,
} from "./installations.js";
export {
  DEFAULT_NAMESPACE,
  DEFAULT_OP_TIMEOUT_MS,
  ERROR_LOG_INTERVAL_MS,
  type OpenStoreOptions,
  openStore,
  type RedisClient,
  type Store,
} from "./keyv.js";
export {
  CALLBACK_TOKEN_RE,
  callbackIdOf,
  isCallbackId,
  isCallbackToken,
  type Manager,
  newCallbackToken,
  type ProfileInput,
  type ProfileSettings,
  SettingsRepo,
  tokenMatchesCallbackId,
} from "./settings.js";
export type { Row, SqliteDb } from "./sqlite.js";
export {
  type DigestMode,
  matchesSubscription,
  type Pause,
  PRESET_RE,
  type Subscription,
  sameEventSet,
  TIME_OF_DAY_RE,
  TZ_RE,
  unionOfEvents,
} from "./subscriptions.js";
