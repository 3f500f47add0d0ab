/**
 * Times in messages: Slack date tokens (shown in each reader's time zone), their UTC fallback
 * text, and relative spans ("20 min ago").
 */
import { escapeMrkdwn } from "./escape.js";

function toMs(date: Date | string): number {
  return typeof date === "string" ? Date.parse(date) : date.getTime();
}

/** "2024-05-01 18:00 UTC": the fallback of a Slack date token, and text for plain contexts. */
export function utcText(date: Date | string): string {
  const ms = toMs(date);
  if (!Number.isFinite(ms)) return "unknown time";
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/**
 * A Slack date token, shown in each reader's time zone: `<!date^UNIX^{date_short_pretty} {time}|fallback>`.
 * An unparsable date gives the (escaped) fallback alone.
 */
export function slackDate(
  date: Date | string,
  fallback: string,
  format = "{date_short_pretty} {time}",
): string {
  const ms = toMs(date);
  const fb = escapeMrkdwn(fallback.replace(/\|/g, "/"));
  if (!Number.isFinite(ms)) return fb;
  return `<!date^${Math.floor(ms / 1000)}^${format}|${fb}>`;
}

/** "20 min ago", "in 2 h", "3 d ago", "just now". */
export function relative(from: Date, now: Date): string {
  const diff = from.getTime() - now.getTime();
  if (!Number.isFinite(diff)) return "at an unknown time";
  const minutes = Math.floor(Math.abs(diff) / 60_000);
  if (minutes < 1) return diff < 0 ? "just now" : "in less than a minute";
  let span: string;
  if (minutes < 60) span = `${minutes} min`;
  else if (minutes < 24 * 60) span = `${Math.floor(minutes / 60)} h`;
  else if (minutes < 365 * 24 * 60) span = `${Math.floor(minutes / (24 * 60))} d`;
  else span = `${Math.floor(minutes / (365 * 24 * 60))} y`;
  return diff < 0 ? `${span} ago` : `in ${span}`;
}

/** "less than a minute", "12 min", "1 h 05 min". */
/** A video's length as a player shows it: "12:04", or "1:02:03" from an hour on. */
export function clock(seconds: number): string {
  const s = Math.floor(Math.max(0, seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
}

export function duration(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return "less than a minute";
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h} h` : `${h} h ${String(m).padStart(2, "0")} min`;
}
