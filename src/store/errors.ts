/**
 * The store's errors, in one place: what a caller of the repositories may catch. Imported from
 * outside src/store through its barrel (src/store/index.ts).
 */

export class StoreUnavailableError extends Error {
  readonly code = "STORE_UNAVAILABLE";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreUnavailableError";
  }
}

export class StoreCorruptError extends Error {
  readonly code = "STORE_CORRUPT";
  /** The key as the repositories name it (without namespace); "" when not known. */
  readonly key: string;
  readonly reason: string;
  constructor(key: string, reason: string, options?: { cause?: unknown }) {
    super(`store value ${key === "" ? "" : `at "${key}" `}is corrupt: ${reason}`, options);
    this.name = "StoreCorruptError";
    this.key = key;
    this.reason = reason;
  }
}

/** Another workspace configured this profile through the bot: only it can change or remove it. */
export class ProfileClaimedError extends Error {
  readonly code = "PROFILE_CLAIMED";
  readonly profileId: string;
  constructor(profileId: string) {
    super(`profile ${profileId} is managed from another workspace`);
    this.name = "ProfileClaimedError";
    this.profileId = profileId;
  }
}

/** No installation for the workspace (never installed, or uninstalled). */
export class InstallationMissingError extends Error {
  readonly code = "NOT_INSTALLED";
  constructor(what: string) {
    super(`the app is not installed in ${what}`);
    this.name = "InstallationMissingError";
  }
}
