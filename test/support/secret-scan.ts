/**
 * The "no secret in a log line or a channel message" check that every harness runs when it
 * closes (test/support/harness.ts), and that test/security/secrets.test.ts proves can fail.
 *
 * The rule (README, Logs and /live ingest; contract, /live ingest):
 * - no known secret in any log line;
 * - no credential (platform client secret, platform access tokens, Slack tokens and secrets, the
 *   store encryption key, callback tokens) in anything the bot sent to Slack that people
 *   see: messages, updates, response_url answers, ephemeral messages, views;
 * - a foreign callback URL (`/webhook set <profile> url=…`) only as its origin in a log line (its
 *   path and query may carry a secret; Slack shows it in full to the channel that manages it);
 * - ingest addresses and stream keys only in an ephemeral answer (response_url without
 *   `response_type: "in_channel"` and without `replace_original`, or chat.postEphemeral): that is
 *   how `/live ingest` shows them to a manager. Anywhere else people see (channel messages, DMs,
 *   updates, views) they are a leak.
 * Leaks are reported by kind and place, never by value.
 */

import type { Sandbox } from "../../fakes/platform/server.js";
import type { RecordedCall, SlackStandin } from "../../fakes/slack/index.js";
import type { Config } from "../../src/config.js";

export interface KnownSecret {
  kind: string;
  value: string;
  /** may appear in an ephemeral answer (the manager-only `/live ingest` reply) */
  ephemeralOk?: boolean;
  /**
   * only a secret for the logs: a foreign callback URL's path and query are shown to the people
   * who manage the webhook in Slack, but a log line carries its origin only.
   */
  logOnly?: boolean;
}

export interface Leak {
  kind: string;
  where: string;
}

export interface ScanReport {
  secrets: number;
  kinds: string[];
  logLines: number;
  messages: number;
  leaks: Leak[];
}

/** Shorter values would match ordinary text by chance; every real secret here is longer. */
const MIN_SECRET_LENGTH = 8;

/** What the bot sends to Slack that people read; other Web API calls only carry arguments. */
const VISIBLE_METHODS =
  /^(chat\.(postMessage|update|postEphemeral|scheduleMessage|meMessage)|views\.(open|update|push|publish)|response_url)$/;

function add(out: KnownSecret[], kind: string, value: unknown, ephemeralOk = false, logOnly = false): void {
  if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH) return;
  if (out.some((s) => s.value === value)) return;
  out.push({ kind, value, ...(ephemeralOk ? { ephemeralOk } : {}), ...(logOnly ? { logOnly } : {}) });
}

/**
 * What of a foreign callback URL must not reach a log: the URL with its path or query (a log line
 * may carry its origin only), and its query alone. A bare path is not matched on its own: a short
 * one ("/platform") is ordinary text in other log lines.
 */
export function foreignUrlSecrets(url: string): string[] {
  try {
    const u = new URL(url);
    if (u.pathname === "/" && u.search === "") return [];
    return [`${u.origin}${u.pathname}${u.search}`, u.search];
  } catch {
    return [];
  }
}

/** Every secret a harness knows of: configuration, issued tokens, sandbox ingest data, callback tokens. */
export function knownSecrets(o: { config: Config; sandbox: Sandbox; slack: SlackStandin }): KnownSecret[] {
  const out: KnownSecret[] = [];
  const { config, sandbox, slack } = o;
  add(out, "platform client secret", config.platform.clientSecret);
  add(out, "Slack signing secret", config.slack.signingSecret);
  add(out, "Slack bot token", config.slack.botToken);
  add(out, "Slack app token", config.slack.appToken);
  add(out, "Slack client secret", config.slack.clientSecret);
  add(out, "Slack state secret", config.slack.stateSecret);
  add(out, "store encryption key", config.storeEncryptionKey);
  add(out, "metrics token", config.metricsToken);
  for (const token of sandbox.issuedTokens()) add(out, "platform access token", token);
  for (const token of slack.issuedTokens()) add(out, "Slack installation token", token);
  for (const ls of sandbox.state.livestreams.values()) {
    const { rtmp_url, srt_url, available_servers } = ls.ingest;
    for (const url of [rtmp_url, srt_url, ...Object.values(available_servers)]) {
      add(out, "ingest URL", url, true);
    }
    // rtmp://host/live/<stream key>
    add(out, "stream key", rtmp_url.split("/").pop(), true);
  }
  const hooks = `${config.publicUrl.replace(/\/$/, "")}/hooks/platform/`;
  for (const profile of sandbox.state.profiles.values()) {
    const url = profile.webhook.callback_url;
    if (url?.startsWith(hooks)) add(out, "delivery callback token", url.slice(hooks.length));
    else if (url)
      for (const v of foreignUrlSecrets(url)) add(out, "foreign callback URL path/query", v, false, true);
  }
  return out;
}

/** Whether a recorded call is an answer only its user sees. */
function isEphemeral(call: RecordedCall): boolean {
  if (call.method === "chat.postEphemeral") return true;
  if (call.method !== "response_url") return false;
  return call.args.response_type !== "in_channel" && call.args.replace_original !== true;
}

function describeCall(call: RecordedCall, index: number): string {
  const channel = typeof call.args.channel === "string" ? ` to ${call.args.channel}` : "";
  const kind = call.method.startsWith("views.") ? "view" : isEphemeral(call) ? "ephemeral" : "visible";
  return `Slack call #${index + 1} ${call.method}${channel} (${kind})`;
}

/** Scans log lines and the Slack calls people see for the given secrets. */
export function scanForSecrets(
  secrets: readonly KnownSecret[],
  logs: readonly string[],
  calls: readonly RecordedCall[],
): ScanReport {
  const leaks: Leak[] = [];
  logs.forEach((line, i) => {
    for (const s of secrets)
      if (line.includes(s.value)) leaks.push({ kind: s.kind, where: `log line ${i + 1}` });
  });
  let messages = 0;
  calls.forEach((call, i) => {
    if (!VISIBLE_METHODS.test(call.method)) return;
    messages++;
    const text = JSON.stringify(call.args);
    const ephemeral = isEphemeral(call);
    for (const s of secrets) {
      if (s.logOnly || (s.ephemeralOk && ephemeral)) continue;
      if (text.includes(s.value)) leaks.push({ kind: s.kind, where: describeCall(call, i) });
    }
  });
  return {
    secrets: secrets.length,
    kinds: [...new Set(secrets.map((s) => s.kind))].sort(),
    logLines: logs.length,
    messages,
    leaks,
  };
}

export class SecretLeakError extends Error {
  constructor(readonly leaks: readonly Leak[]) {
    const shown = leaks.slice(0, 10).map((l) => `${l.kind} in ${l.where}`);
    const more = leaks.length > shown.length ? ` and ${leaks.length - shown.length} more` : "";
    super(`secret leak (values not shown): ${shown.join("; ")}${more}`);
    this.name = "SecretLeakError";
  }
}
