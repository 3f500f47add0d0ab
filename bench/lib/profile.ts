/**
 * A quick reading of a V8 CPU profile (.cpuprofile, DevTools format): self time by where the code
 * comes from (a package, a file of src/, a Node internal module, GC) and by function. Enough to
 * say where the time of a request goes; open the file in Chrome DevTools for the call tree.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileShare {
  name: string;
  /** Self time, milliseconds. */
  ms: number;
  /** Share of the busy (not idle) time. */
  share: number;
}

export interface ProfileSummary {
  file: string;
  wallMs: number;
  busyMs: number;
  /** Busy CPU time per request answered during the profile, microseconds. */
  busyUsPerRequest: number | null;
  byOrigin: ProfileShare[];
  byFunction: ProfileShare[];
  /**
   * Time spent in each of the project's own functions including what they call (a sample counts
   * once per function on its stack), plus the Node HTTP response write (`end` of an outgoing
   * message) as a landmark: where a request's time goes, by the code that asked for it.
   */
  inclusive: ProfileShare[];
}

const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

/** Where a frame's code comes from: "GC", "node:http", "@slack/bolt", "src/deliveries/receive.ts"… */
export function originOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === "") {
    if (functionName === "(garbage collector)") return "GC";
    if (functionName === "(idle)") return "(idle)";
    if (functionName === "(program)") return "V8/native (program)";
    if (functionName === "(root)") return "(root)";
    return "V8/native";
  }
  if (url.startsWith("node:")) {
    const name = url.slice("node:".length).replace(/^internal\//, "");
    const head = name.split("/")[0] ?? name;
    return `node:${head.replace(/^_/, "").replace(/_.*$/, "")}`;
  }
  const file = url.startsWith("file://") ? fileURLToPath(url) : url;
  const nm = file.lastIndexOf("/node_modules/");
  if (nm >= 0) {
    const rest = file.slice(nm + "/node_modules/".length).split("/");
    return rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1] ?? ""}` : (rest[0] ?? file);
  }
  if (file.startsWith(`${ROOT}/`)) return file.slice(ROOT.length + 1);
  return path.basename(file);
}

export async function summarizeProfile(
  file: string,
  requests: number | null,
  top = 12,
): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; the time after it is charged to it.
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i] ?? 0;
    const us = deltas[i + 1] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + us);
  }
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const origins = new Map<string, number>();
  const functions = new Map<string, number>();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const origin = originOf(node.callFrame);
    if (origin === "(idle)" || origin === "(root)") continue;
    busyUs += us;
    origins.set(origin, (origins.get(origin) ?? 0) + us);
    const fn = `${node.callFrame.functionName || "(anonymous)"}  ${origin}${
      node.callFrame.url ? `:${node.callFrame.lineNumber + 1}` : ""
    }`;
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  }
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const leaf = byId.get(id);
    if (!leaf || ["(idle)", "(root)"].includes(originOf(leaf.callFrame))) continue;
    const names = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
      const frame = byId.get(cur)?.callFrame;
      if (!frame) break;
      const origin = originOf(frame);
      const own = origin.startsWith("src/") || origin.startsWith("bench/") || origin.startsWith("test/");
      const write = origin === "node:http" && frame.functionName === "end";
      if (own || write) names.add(`${frame.functionName || "(anonymous)"}  ${origin}`);
    }
    for (const name of names) inclusive.set(name, (inclusive.get(name) ?? 0) + us);
  }
  const rank = (m: Map<string, number>): ProfileShare[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: busyUs > 0 ? us / busyUs : 0 }));
  return {
    file,
    wallMs: (profile.endTime - profile.startTime) / 1000,
    busyMs: busyUs / 1000,
    busyUsPerRequest: requests && requests > 0 ? busyUs / requests : null,
    byOrigin: rank(origins),
    byFunction: rank(functions),
    inclusive: rank(inclusive),
  };
}
