/**
 * Multi-workspace (OAuth) mode: where Bolt's InstallProvider keeps each installation (bot token,
 * bot user, scopes), on the same Keyv store as the settings.
 *
 *   install:team:<T>         a workspace installation (the usual case)
 *   install:enterprise:<E>   an org-wide installation (Enterprise Grid, org_deploy_enabled)
 * More: README.md ("installations.ts").
 */
import type { Installation, InstallationQuery, InstallationStore } from "@slack/bolt";
import { z } from "zod";
import type { Logger } from "../log.js";
import { deriveKey, encryptedDoc, open, seal } from "./crypto.js";
import { Documents, KEEP } from "./documents.js";
import { InstallationMissingError, StoreCorruptError } from "./errors.js";
import type { Store } from "./keyv.js";

const ID_RE = /^[^\s:]{1,100}$/;

export const installationKeys = {
  team: (teamId: string) => `install:team:${teamId}`,
  enterprise: (enterpriseId: string) => `install:enterprise:${enterpriseId}`,
};

/** What the bot relies on; the rest of Bolt's installation object is kept as given. */
const installationSchema = z.looseObject({
  team: z.looseObject({ id: z.string().regex(ID_RE) }).optional(),
  enterprise: z.looseObject({ id: z.string().regex(ID_RE) }).optional(),
  isEnterpriseInstall: z.boolean().optional(),
  user: z.looseObject({ id: z.string().min(1) }),
  bot: z
    .looseObject({
      token: z.string().min(1),
      scopes: z.array(z.string()),
      userId: z.string().min(1),
      id: z.string().optional(),
    })
    .optional(),
});

/**
 * The checked object as Bolt's type. JSON drops properties that were undefined (user.token when no
 * user scope was asked), which Bolt's authorize() reads defensively.
 */
function asInstallation(v: z.output<typeof installationSchema>): Installation {
  return v as unknown as Installation;
}

const plainDoc = z.object({ v: z.literal(1), installation: installationSchema }).strict();
const storedDoc = z.union([plainDoc, encryptedDoc]);
/** Where an installation is filed: its team, or its organization for an org-wide one. */
export function queryOf(i: Installation): {
  teamId?: string;
  enterpriseId?: string;
  isEnterpriseInstall: boolean;
} {
  return {
    teamId: i.team?.id,
    enterpriseId: i.enterprise?.id,
    isEnterpriseInstall: i.isEnterpriseInstall === true,
  };
}

export interface InstallationRepoOptions {
  /** STORE_ENCRYPTION_KEY: installations are encrypted at rest when set. */
  encryptionKey?: string;
  /** How old a workspace's cached installation may be when the caller does not say (default 30 s). */
  cacheMs?: number;
  /** Workspaces whose installation is cached at most (default 10 000). */
  maxCached?: number;
  now?: () => number;
}

export const DEFAULT_INSTALLATION_CACHE_MS = 30_000;
const DEFAULT_MAX_CACHED = 10_000;

/** Bolt's InstallationStore over the bot's Keyv store (see the module comment). */
export class InstallationRepo implements InstallationStore {
  private readonly docs: Documents;
  private readonly key: Buffer | undefined;
  private readonly logger: Logger;
  /** The process's one cache of installations: workspace → its installation (or none) and when read. */
  private readonly cache = new Map<string, { at: number; found: Installation | undefined }>();
  /** Bumped at every change this process makes: a read that began before it is not cached. */
  private generation = 0;
  private readonly cacheMs: number;
  private readonly maxCached: number;
  private readonly now: () => number;

  constructor(store: Store, logger: Logger, opts: InstallationRepoOptions = {}) {
    this.logger = logger.child({ component: "installations" });
    this.docs = new Documents(store, this.logger);
    this.key = opts.encryptionKey ? deriveKey(opts.encryptionKey) : undefined;
    this.cacheMs = opts.cacheMs ?? DEFAULT_INSTALLATION_CACHE_MS;
    this.maxCached = Math.max(1, opts.maxCached ?? DEFAULT_MAX_CACHED);
    this.now = opts.now ?? Date.now;
  }

  get encrypted(): boolean {
    return this.key !== undefined;
  }

  /**
   * The workspace's installation (`find({ teamId })`: its own, no org-wide fallback), read at most
   * `maxAgeMs` ago: what the bot uses when it acts on its own (the worker's clients, whether a
   * workspace is installed). This process's own changes (store, update, delete) drop it at once;
   * another replica's are seen within `maxAgeMs`. A failed read is thrown, not cached.
   */
  async cached(teamId: string, maxAgeMs = this.cacheMs): Promise<Installation | undefined> {
    const hit = this.cache.get(teamId);
    if (hit && this.now() - hit.at < maxAgeMs) return hit.found;
    const generation = this.generation;
    const found = await this.find({ teamId });
    if (generation !== this.generation) return found;
    this.cache.delete(teamId);
    if (this.cache.size >= this.maxCached) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(teamId, { at: this.now(), found });
    return found;
  }

  /** Forgets the workspace's cached installation: the next `cached` reads the store. */
  forget(teamId: string): void {
    this.cache.delete(teamId);
  }

  private keyFor(q: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean }): string {
    if (q.isEnterpriseInstall) {
      if (!q.enterpriseId || !ID_RE.test(q.enterpriseId))
        throw new TypeError("an org-wide installation needs an enterprise id");
      return installationKeys.enterprise(q.enterpriseId);
    }
    if (!q.teamId || !ID_RE.test(q.teamId)) throw new TypeError("an installation needs a team id");
    return installationKeys.team(q.teamId);
  }

  async storeInstallation(installation: Installation): Promise<void> {
    const checked = installationSchema.safeParse(installation);
    if (!checked.success) throw new TypeError(`invalid installation: ${z.prettifyError(checked.error)}`);
    const key = this.keyFor(queryOf(installation));
    const value = this.key ? seal(this.key, key, installation) : { v: 1, installation };
    await this.docs.write(key, value);
    this.changed(installation.isEnterpriseInstall ? undefined : installation.team?.id);
  }

  /** The installation stored under exactly this query's key (no org-wide fallback), or undefined. */
  async read(q: {
    teamId?: string;
    enterpriseId?: string;
    isEnterpriseInstall?: boolean;
  }): Promise<Installation | undefined> {
    return this.readAt(this.keyFor(q));
  }

  /** Bolt's lookup: throws InstallationMissingError when there is none. */
  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation> {
    const found = await this.find(query);
    if (!found)
      throw new InstallationMissingError(
        query.isEnterpriseInstall ? `organization ${query.enterpriseId}` : `workspace ${query.teamId}`,
      );
    return found;
  }

  /**
   * Changes the installation stored under exactly this query's key (no org-wide fallback) by
   * compare-and-set: `fn` gets it as stored now and returns the next one, or undefined to leave it;
   * when another writer changed it in between, `fn` runs again on what is stored then. Nothing is
   * written when there is none (`fn` is not called). Resolves with what is stored when it returns
   * (undefined: none). StoreCorruptError / StoreUnavailableError when it cannot be read: nothing
   * written.
   */
  async updateInstallation(
    q: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean },
    fn: (current: Installation) => Installation | undefined,
  ): Promise<Installation | undefined> {
    const key = this.keyFor(q);
    let result: Installation | undefined;
    const wrote = await this.docs.update(key, storedDoc, (doc) => {
      result = doc === undefined ? undefined : this.decode(key, doc);
      if (result === undefined) return KEEP;
      const next = fn(result);
      if (next === undefined) return KEEP;
      const checked = installationSchema.safeParse(next);
      if (!checked.success) throw new TypeError(`invalid installation: ${z.prettifyError(checked.error)}`);
      if (this.keyFor(queryOf(next)) !== key)
        throw new TypeError("an installation cannot move to another key");
      result = next;
      return this.key ? seal(this.key, key, next) : { v: 1 as const, installation: checked.data };
    });
    if (wrote) this.changed(q.isEnterpriseInstall ? undefined : q.teamId);
    return result;
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.docs.remove(this.keyFor(query));
    this.changed(query.isEnterpriseInstall ? undefined : query.teamId);
  }

  /**
   * The installation for a request or a workspace, or undefined. A workspace without its own
   * installation falls back to its organization's org-wide one when the enterprise id is known.
   */
  async find(q: {
    teamId?: string;
    enterpriseId?: string;
    isEnterpriseInstall?: boolean;
  }): Promise<Installation | undefined> {
    if (q.isEnterpriseInstall) return this.readAt(this.keyFor(q));
    const own = q.teamId ? await this.readAt(this.keyFor({ teamId: q.teamId })) : undefined;
    if (own || !q.enterpriseId) return own;
    return this.readAt(this.keyFor({ enterpriseId: q.enterpriseId, isEnterpriseInstall: true }));
  }

  private async readAt(key: string): Promise<Installation | undefined> {
    const doc = await this.docs.read(key, storedDoc);
    return doc === undefined ? undefined : this.decode(key, doc);
  }

  /** The installation in a stored value (decrypted and checked); StoreCorruptError otherwise. */
  private decode(key: string, doc: z.output<typeof storedDoc>): Installation {
    if ("installation" in doc) {
      if (this.key)
        this.logger.warn({ key }, "installation stored unencrypted; it is encrypted on its next write");
      return asInstallation(doc.installation);
    }
    if (!this.key) {
      const err = new StoreCorruptError(
        key,
        "installation is encrypted but STORE_ENCRYPTION_KEY is not set: set the key it was written with",
      );
      this.logger.error({ key, reason: err.reason }, "cannot read an installation");
      throw err;
    }
    let value: unknown;
    try {
      value = open(this.key, key, doc);
    } catch (err) {
      if (err instanceof StoreCorruptError)
        this.logger.error({ key, reason: err.reason }, "cannot read an installation");
      throw err;
    }
    const parsed = installationSchema.safeParse(value);
    if (!parsed.success) {
      this.logger.error({ key }, "decrypted installation has an unexpected shape");
      throw new StoreCorruptError(key, "decrypted installation has an unexpected shape");
    }
    return asInstallation(parsed.data);
  }

  /** A change by this process: the workspace's cached installation (every one for an org's) dropped. */
  private changed(teamId: string | undefined): void {
    this.generation++;
    if (teamId === undefined) this.cache.clear();
    else this.cache.delete(teamId);
  }
}
