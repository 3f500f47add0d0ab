/**
 * `npm run sandbox`: the platform sandbox alone, for development. Settings come from
 * `loadSandboxConfig` (SANDBOX_PORT, SANDBOX_HOST, PLATFORM_CLIENT_ID, PLATFORM_CLIENT_SECRET,
 * SANDBOX_TOKEN_LIFETIME_SECONDS, SANDBOX_DELIVER_TO, LOG_LEVEL).
 */
import { readConfigOrExit } from "../../src/config.js";
import { loadSandboxConfig } from "./config.js";
import { CONTROL_ENDPOINTS } from "./control.js";
import { SANDBOX_WEBHOOK_SOURCE_IPS, SEED, startSandbox } from "./server.js";

const config = readConfigOrExit(loadSandboxConfig);
const verbose = config.logLevel === "debug" || config.logLevel === "trace";
const quiet = config.logLevel === "silent" || config.logLevel === "fatal" || config.logLevel === "error";

const sandbox = await startSandbox({
  port: config.port,
  host: config.host,
  clientId: config.clientId,
  clientSecret: config.clientSecret,
  tokenLifetimeSeconds: config.tokenLifetimeSeconds,
  deliverTo: config.deliverTo,
  onRequest: (r) => {
    if (quiet) return;
    if (verbose || r.status >= 400 || r.status === 0) {
      console.log(
        `${new Date(r.at).toISOString()} ${r.method} ${r.path} -> ${r.status === 0 ? "dropped" : r.status}`,
      );
    }
  },
});

const lines = [
  `Platform sandbox listening on ${sandbox.url}`,
  "",
  `  PLATFORM_AUTH_URL=${sandbox.url}      (token service: POST ${sandbox.url}/v2/token)`,
  `  PLATFORM_API_URL=${sandbox.apiUrl}`,
  `  PLATFORM_CLIENT_ID=${sandbox.clientId}`,
  `  PLATFORM_CLIENT_SECRET=${sandbox.clientSecret}`,
  `  read-only client: ${SEED.clients.reader.clientId} / ${SEED.clients.reader.clientSecret} (live.read only, owns no profile)`,
  `  token lifetime: ${config.tokenLifetimeSeconds} s`,
  "",
  "Profiles:",
  `  newsroom  ${SEED.profiles.newsroom}  (yours, no webhook)`,
  `  studio    ${SEED.profiles.studio}  (yours, webhook ${SEED.studioWebhook.callback_url}: ${SEED.studioWebhook.events.join(", ")})`,
  `  foreign   ${SEED.profiles.foreign}  (another client's: 404 to you)`,
  "",
  "Livestreams:",
  `  onAirAdBreak   ${SEED.livestreams.onAirAdBreak}  on air, ad break running, recording`,
  `  offAir         ${SEED.livestreams.offAir}  off air, scheduled tomorrow`,
  `  recording      ${SEED.livestreams.recording}  on air, recording starting`,
  `  geoRestricted  ${SEED.livestreams.geoRestricted}  allowed in FR, BE, CH only; embedding disabled`,
  `  foreign        ${SEED.livestreams.foreign}  another client's (no ingest for you)`,
  "",
  "Videos (GET /v2/videos/{id}, scope video.read; a delivered event adds its video):",
  ...Object.entries(SEED.videos).map(
    ([handle, id]) =>
      `  ${handle.padEnd(15)}${id}  ${SEED.videoTitles[handle as keyof typeof SEED.videoTitles].slice(0, 60)}`,
  ),
  "",
  "GET /v2/me lists the profiles your key manages. A key without video.read:",
  `  curl -X POST ${sandbox.url}/_sandbox/key -H 'content-type: application/json' \\`,
  `       -d '{"scopes":["live.read","profile.manage"],"onMissing":"refuse"}'`,
  "",
  `Webhook deliveries come from ${SANDBOX_WEBHOOK_SOURCE_IPS.join(", ")}${
    config.deliverTo ? ` and go to ${config.deliverTo} (origin rewritten)` : " to each profile's callback_url"
  }`,
  "",
  "Control endpoints (no auth, JSON):",
  ...CONTROL_ENDPOINTS.map((e) => `  ${e.replace(" /", ` ${sandbox.url}/`)}`),
  `  e.g. curl -X POST ${sandbox.url}/_sandbox/deliver -H 'content-type: application/json' \\`,
  `         -d '{"profile_id":"${SEED.profiles.studio}","lifecycle":true}'`,
  "",
  "Ctrl+C to stop.",
];
console.log(lines.join("\n"));

let closing = false;
const stop = (signal: string) => {
  if (closing) return;
  closing = true;
  console.log(`\n${signal}: closing the sandbox`);
  sandbox.close().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
