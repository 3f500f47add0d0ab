import type { WebhookEvent } from "../../../domain/index.js";
/** The commands the slash-command grammar (grammar.ts) reads: its output types, nothing else. */

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

export type LiveCommand =
  | { kind: "help" }
  | { kind: "status"; livestreamId: string }
  | { kind: "ingest"; livestreamId: string }
  /** `dm`: the asker's own watch, told by DM, instead of this channel's. */
  | { kind: "watch" | "unwatch"; livestreamId: string; dm: boolean }
  | { kind: "watching" };

/**
 * `profile` is the profile as typed: its id or its `name` (src/operations/profiles.ts resolves it),
 * or null when none was given (the workspace's one, else a menu to choose from).
 */
export type WebhookCommand =
  | { kind: "help" }
  | { kind: "set"; profile: string | null; url: string | null; events: WebhookEvent[] }
  | { kind: "show" | "remove" | "test"; profile: string | null }
  /** `events` alone shows them; with event names it changes only the events. */
  | { kind: "events"; profile: string | null; events: WebhookEvent[] | null }
  | {
      kind: "subscribe";
      profile: string | null;
      events: WebhookEvent[];
      presets: string[];
      /** null, "here" or a Slack user id. */
      mention: string | null;
      /** `digest=daily|weekly [at=HH:MM]` or `digest=off`; absent: the channel's mode stays. */
      digest?: DigestChoice;
      /** `digest=` alone (no event, preset or mention): the channel's filters stay as they are. */
      keepFilters?: true;
    }
  /** `duration` as typed (`2h`), `ms` what it means. */
  | { kind: "pause"; profile: string | null; duration: string; ms: number }
  | { kind: "resume"; profile: string | null }
  | { kind: "unsubscribe"; profile: string }
  | { kind: "subscriptions"; profile: string | null }
  | { kind: "managers"; action: "list" }
  | { kind: "managers"; action: "add" | "remove"; userId: string };

/** A digest asked for (`at` null: the default time), or `off`: live messages again. */
export type DigestChoice = { every: "daily" | "weekly"; at: string | null } | "off";

/** The commands that act on one profile. */
export type ProfileCommand = Extract<WebhookCommand, { profile: string | null }>;
