import type { TargetCounts } from "../lib/protocol.js";

/** A server under load, inside its target process. */
export interface RunningTarget {
  url: string;
  path: string;
  ownerId: string;
  counts(): Promise<Omit<TargetCounts, "rssBytes" | "maxRssBytes" | "peakRssBytes" | "cpuUs">>;
  close(): Promise<void>;
}
