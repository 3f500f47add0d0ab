/**
 * A replica for the token rotation race: its own store connection (a Redis namespace or a sqlite
 * file), installation store (encrypted) and TokenRotation against the Slack stand-in. For each
 * "go" line on stdin it reads the workspace's installation and asks for a fresh token, then writes
 * one JSON line: {"token"} or {"error"}. {"ready":true} first.
 *
 * Usage: node --import tsx test/oauth/refresher.ts <redis-url|sqlite-path> <namespace> <api-url> <encryption-key> <team>
 */
import { createInterface } from "node:readline";
import { TokenRotation } from "../../src/install/rotation.js";
import { silentLogger } from "../../src/log.js";
import { InstallationRepo, openStore } from "../../src/store/index.js";
import { storeUrlOf, writeLine } from "../support/json-lines.js";

const [where = "", namespace = "", apiUrl = "", encryptionKey = "", teamId = ""] = process.argv.slice(2);
const out = writeLine;

const url = storeUrlOf(where);
const logger = silentLogger();
const store = await openStore(url, logger, { namespace, opTimeoutMs: 10_000 });
const installations = new InstallationRepo(store, logger, { encryptionKey });
// A new one per round: refreshes come hours apart, so nothing a replica remembers of the previous
// one (a failure it noted, say) is still in force.
const newRotation = () =>
  new TokenRotation({
    installations,
    apiUrl,
    clientId: "1111.2222",
    clientSecret: "oauth-client-secret-abcdef",
    logger,
  });
out({ ready: true });

const lines = createInterface({ input: process.stdin });
for await (const _line of lines) {
  try {
    const found = await installations.find({ teamId });
    if (!found) throw new Error("no installation");
    const fresh = await newRotation().fresh(found);
    out({ token: fresh.bot?.token });
  } catch (err) {
    out({ error: String(err) });
  }
}
await store.close();
