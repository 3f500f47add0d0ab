/**
 * What the runner reads back from a digest log: its state, its entries (validated; a damaged one
 * is skipped with a line), and the titles that came after their entry was recorded.
 */
import type { DigestKey } from "../domain/index.js";
import type { Logger } from "../log.js";
import type { Outbox } from "../outbox/index.js";
import { validateState } from "../video/validate.js";
import {
  type DigestEntry,
  type DigestLog,
  type DigestState,
  digestStateSchema,
  entrySchema,
  initialDigestState,
} from "./types.js";

/** Titles looked up in video states per digest, at most. */
const TITLE_LOOKUPS = 200;

export interface Parsed {
  seq: number;
  entry: DigestEntry;
}

/** The log's state; a new one when there is none, or when it is damaged (logged). */
export function stateOf(logger: Logger, key: DigestKey, raw: string | undefined): DigestState {
  if (raw === undefined) return initialDigestState();
  try {
    return digestStateSchema.parse(JSON.parse(raw));
  } catch {
    logger.error({ digest: key }, "a digest's stored state is damaged; starting it again");
    return initialDigestState();
  }
}

/** The log's entries not settled yet, oldest first (damaged ones skipped), and the left-out count. */
export async function readEntries(
  opts: { log: DigestLog; logger: Logger },
  key: DigestKey,
  state: DigestState,
): Promise<{ entries: Parsed[]; leftOut: number }> {
  const { entries, leftOut } = await opts.log.read(key);
  const out: Parsed[] = [];
  for (const e of entries) {
    if (e.seq <= state.settledUpTo) continue;
    try {
      out.push({ seq: e.seq, entry: entrySchema.parse(JSON.parse(e.json)) });
    } catch {
      opts.logger.warn({ digest: key, seq: e.seq }, "a damaged digest entry is skipped");
    }
  }
  return { entries: out, leftOut };
}

/** Titles that came after their entry was recorded, from the videos' states. */
export async function withTitles(
  outbox: Pick<Outbox, "getState">,
  entries: readonly DigestEntry[],
): Promise<DigestEntry[]> {
  const found = new Map<string, Pick<DigestEntry, "title" | "notConfirmed">>();
  for (const e of entries) {
    if (e.title !== undefined || !e.videoKey || found.has(e.videoKey) || found.size >= TITLE_LOOKUPS)
      continue;
    const t = validateState(await outbox.getState(e.videoKey).catch(() => undefined))?.title;
    const fact =
      t === undefined || "unknown" in t
        ? {}
        : "title" in t
          ? { title: t.title }
          : { notConfirmed: true as const };
    found.set(e.videoKey, fact);
  }
  return entries.map((e) => (e.title === undefined && e.videoKey ? { ...e, ...found.get(e.videoKey) } : e));
}
