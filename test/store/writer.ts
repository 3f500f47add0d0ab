/**
 * A replica for the two-process store test: on one store (a Redis namespace or a sqlite file)
 * it waits for "go" on stdin, then changes one workspace's documents concurrently and writes one
 * JSON line with what it did:
 *   {"ready":true} once the store is open,
 *   {"claims":{<profileId>:"taken"|"refused"}} when every change is done.
 * Changes: `count` managers `U<tag><i>` added, `count` subscriptions `C<tag><i>` added to profile
 * x1, and the claims of profiles `p0…p<count-1>` taken for workspace `T<tag>`.
 *
 * Usage: node --import tsx test/store/writer.ts <redis-url|sqlite-path> <namespace> <tag> <team> <count>
 */
import { silentLogger } from "../../src/log.js";
import { openStore, SettingsRepo } from "../../src/store/index.js";
import { storeUrlOf, writeLine } from "../support/json-lines.js";

const [where = "", namespace = "", tag = "", team = "", countArg = "0"] = process.argv.slice(2);
const count = Number(countArg);
const out = writeLine;

const url = storeUrlOf(where);
const logger = silentLogger();
const store = await openStore(url, logger, { namespace, opTimeoutMs: 10_000 });
const settings = new SettingsRepo(store, logger);
out({ ready: true });

await new Promise<void>((resolve) => {
  process.stdin.once("data", () => resolve());
  process.stdin.resume();
});

const at = "2025-01-02T03:04:05.000Z";
const claims: Record<string, string> = {};
const n = Array.from({ length: count }, (_, i) => String(i).padStart(3, "0"));
const changes = Promise.all([
  ...n.map((i) => settings.addManager(team, `U${tag}${i}`, "U0ADMIN", new Date())),
  ...n.map((i) =>
    settings.updateProfile(team, "x1", (p) =>
      p
        ? {
            ...p,
            subscriptions: [
              ...p.subscriptions,
              {
                channelId: `C${tag}${i}`,
                events: p.events,
                presets: [],
                mention: null,
                setBy: "U0ADMIN",
                setAt: at,
              },
            ],
          }
        : undefined,
    ),
  ),
  ...n.map((i) =>
    settings.claims.take(`p${i}`, `T${tag}`, new Date()).then(
      () => {
        claims[`p${i}`] = "taken";
      },
      () => {
        claims[`p${i}`] = "refused";
      },
    ),
  ),
]);
try {
  await changes;
  out({ claims });
} catch (err) {
  out({ error: String(err) });
}
await store.close();
