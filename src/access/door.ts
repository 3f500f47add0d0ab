/**
 * The one door to the platform: every read is charged to its cause before it is sent (no other
 * module but the composition holds the platform client). A cause is the person who asked (their
 * budget and their workspace's), the workspace alone (previews, pickers, profile names, steps, the
 * title reads its deliveries cause), or a watch: `{ watch }` is paid by the watch schedule (one read
 * per livestream per interval, whatever watches it), so it takes no budget here. Over budget nothing
 * is sent: ReadRefusedError (names: the id or "unavailable"). `charge` hands out a PaidRead that one
 * later read spends, for callers that answer a refusal before reading (the Authorizer, titles).
 * Writes (with their read-backs) and the token checks pass through here too, not budgeted.
 */
import type { WebhookConfig } from "../domain/index.js";
import type { Logger } from "../log.js";
import type {
  Livestream,
  ManagedProfile,
  PlatformClient,
  PlatformNames,
  ProfileLabel,
  Video,
  VideoTitle,
  WithheldScope,
} from "../platform/index.js";
import type { BudgetName, BudgetTake, ReadBudget } from "./budget.js";
import { budgetRefusal, type Refused } from "./decision.js";

/** Who a read is charged to. */
export type Cause =
  | { user: { teamId: string; userId: string } }
  | { workspace: string }
  /** The watch schedule's read of this livestream: paid by the schedule, not by a budget. */
  | { watch: string };

const MINT = Symbol("door");

/** One read charged to its cause by `PlatformDoor.charge`; the read it pays spends it (once). */
export class PaidRead {
  #spent = false;
  constructor(
    readonly cause: Cause,
    mint: symbol,
  ) {
    if (mint !== MINT) throw new TypeError("a read is paid for by PlatformDoor.charge only");
  }

  /** Spends it; a read paid for once is made once. */
  spend(): void {
    if (this.#spent) throw new TypeError("this paid read was spent already");
    this.#spent = true;
  }
}

export type Charged = { ok: true; paid: PaidRead } | Extract<BudgetTake, { ok: false }>;

/** A read over its cause's budget: nothing was sent. `refusal` is the Authorizer's answer for it. */
export class ReadRefusedError extends Error {
  readonly refusal: Refused;
  constructor(
    readonly payer: Cause,
    take: Extract<BudgetTake, { ok: false }>,
  ) {
    super(`the ${take.budget} read budget is used up: nothing was sent to the platform`);
    this.name = "ReadRefusedError";
    this.refusal = budgetRefusal(take);
  }
}

/** A read's cause (charged here) or a read paid for already (spent here). */
export type Payment = Cause | PaidRead;

export interface DoorReadOptions {
  signal?: AbortSignal;
  /** Attempts for the GET, the first included (default: the client's). */
  attempts?: number;
}

/** Livestream reads as a port (the watch poller, the Authorizer): the door binds their payment. */
export interface LivestreamReads {
  getLivestream(
    id: string,
    fields?: readonly string[],
    opts?: DoorReadOptions & { paid?: PaidRead },
  ): Promise<Livestream>;
}

/** Video reads as a port (the Authorizer's link previews): each read spends the PaidRead it is given. */
export interface VideoReads {
  getVideo(
    id: string,
    fields: readonly string[],
    opts?: DoorReadOptions & { paid?: PaidRead },
  ): Promise<Video>;
}

export interface DoorOptions {
  client: PlatformClient;
  names: PlatformNames;
  /** The read budgets (none: every charge goes through). */
  budget?: ReadBudget | undefined;
  /** Metrics: a read refused by a budget. */
  onBudgetRefused?: (budget: BudgetName) => void;
  logger?: Logger;
}

function who(c: Cause): Record<string, string> {
  if ("user" in c) return { team: c.user.teamId, user: c.user.userId };
  return "workspace" in c ? { team: c.workspace } : { livestream: c.watch };
}

export class PlatformDoor {
  constructor(private readonly opts: DoorOptions) {}

  /** Takes one read from the cause's budgets (a watch's is the schedule's): the PaidRead, or the refusal. */
  async charge(cause: Cause): Promise<Charged> {
    const budget = this.opts.budget;
    if (!("user" in cause || "workspace" in cause || "watch" in cause))
      throw new TypeError("a platform read without its cause");
    if (budget && !("watch" in cause)) {
      const t =
        "user" in cause
          ? await budget.take(cause.user.teamId, cause.user.userId)
          : await budget.take(cause.workspace);
      if (!t.ok) {
        this.opts.onBudgetRefused?.(t.budget);
        return t;
      }
    }
    return { ok: true, paid: new PaidRead(cause, MINT) };
  }

  /** The payment spent: a PaidRead once, a cause charged now (over budget: ReadRefusedError). */
  private async pay(p: Payment): Promise<void> {
    if (p instanceof PaidRead) return p.spend();
    const c = await this.charge(p);
    if (c.ok) return c.paid.spend();
    this.opts.logger?.debug(
      { ...who(p), reason: "read_budget", budget: c.budget },
      "refused: read budget used up",
    );
    throw new ReadRefusedError(p, c);
  }

  /** PlatformNames' `charge` for a read charged to `cause` (false: refused, nothing sent). */
  private charger(cause: Cause): () => Promise<boolean> {
    return () =>
      this.pay(cause).then(
        () => true,
        (err: unknown) => {
          if (err instanceof ReadRefusedError) return false;
          throw err;
        },
      );
  }

  // --- reads ---------------------------------------------------------------------------------

  async getLivestream(
    p: Payment,
    id: string,
    fields?: readonly string[],
    opts: DoorReadOptions = {},
  ): Promise<Livestream> {
    await this.pay(p);
    return this.opts.client.getLivestream(id, fields, opts);
  }

  /**
   * Livestream reads as a port: a read given `opts.paid` spends it; otherwise `causeOf(id)` is
   * charged (the watch: `(id) => ({ watch: id })`); without either it is refused (TypeError).
   */
  livestreams(causeOf?: (id: string) => Cause): LivestreamReads {
    return {
      getLivestream: (id, fields, opts = {}) => {
        const { paid, ...rest } = opts;
        const p = paid ?? causeOf?.(id);
        if (p === undefined) return Promise.reject(new TypeError("a livestream read without its cause"));
        return this.getLivestream(p, id, fields, rest);
      },
    };
  }

  /** `GET /videos/{id}?fields=…`, charged to `p` first (a link preview and its details pane). */
  async getVideo(
    p: Payment,
    id: string,
    fields: readonly string[],
    opts: DoorReadOptions = {},
  ): Promise<Video> {
    await this.pay(p);
    return this.opts.client.getVideo(id, fields, opts);
  }

  /** Video reads as a port: each read spends the PaidRead it is given (without one: TypeError). */
  videos(): VideoReads {
    return {
      getVideo: (id, fields, opts = {}) => {
        const { paid, ...rest } = opts;
        if (paid === undefined) return Promise.reject(new TypeError("a video read without its cause"));
        return this.getVideo(paid, id, fields, rest);
      },
    };
  }

  async getProfileWebhook(p: Payment, profileId: string, opts: DoorReadOptions = {}): Promise<WebhookConfig> {
    await this.pay(p);
    return this.opts.client.getProfileWebhook(profileId, opts);
  }

  /** A profile's label (cached by PlatformNames; a read it makes is charged first: refused, the id). */
  profile(cause: Cause, profileId: string, opts: { signal?: AbortSignal } = {}): Promise<ProfileLabel> {
    return this.opts.names.profile(profileId, { ...opts, charge: this.charger(cause) });
  }

  /** What this process has cached of a profile's label (no read). */
  cachedProfile(profileId: string): ProfileLabel | undefined {
    return this.opts.names.cachedProfile(profileId);
  }

  /** The profiles the key manages (`GET /me`, cached); refused: ManagedProfilesError "unavailable". */
  managedProfiles(cause: Cause, opts: { signal?: AbortSignal } = {}): Promise<ManagedProfile[]> {
    return this.opts.names.managedProfiles({ ...opts, charge: this.charger(cause) });
  }

  /**
   * A video's title (PlatformNames: one attempt, shared in flight). Its cause is always the
   * workspace whose delivery named the video; over budget: ReadRefusedError.
   */
  async videoTitle(
    p: PaidRead | { workspace: string },
    videoId: string,
    opts: { signal?: AbortSignal; profileId?: string } = {},
  ): Promise<VideoTitle> {
    await this.pay(p);
    return this.opts.names.videoTitle(videoId, opts);
  }

  // --- writes and the token: not budgeted ------------------------------------------------------

  setWebhook(
    profileId: string,
    webhook: { callback_url: string; events: readonly string[] },
    opts: DoorReadOptions = {},
  ): Promise<WebhookConfig> {
    return this.opts.client.setWebhook(profileId, webhook, opts);
  }

  updateWebhookEvents(profileId: string, events: readonly string[], opts: DoorReadOptions = {}) {
    return this.opts.client.updateWebhookEvents(profileId, events, opts);
  }

  updateWebhookUrl(profileId: string, callbackUrl: string, opts: DoorReadOptions = {}) {
    return this.opts.client.updateWebhookUrl(profileId, callbackUrl, opts);
  }

  removeWebhook(profileId: string, opts: DoorReadOptions = {}): Promise<WebhookConfig> {
    return this.opts.client.removeWebhook(profileId, opts);
  }

  /** Obtains a token (from cache if valid): the health of the platform connection. */
  checkToken(): Promise<void> {
    return this.opts.client.checkToken();
  }

  /** The scopes granted to the last token ([] before the first one). */
  grantedScopes(): string[] {
    return this.opts.client.grantedScopes();
  }

  /** The optional scopes the bot works without, and why. */
  withheldScopes(): WithheldScope[] {
    return this.opts.client.withheldScopes();
  }
}
