/**
 * buildApp(config, parts): the Bolt app and its receivers (HTTP, and Socket Mode when an app
 * token is set), without listening. It builds no collaborator: src/compose.ts builds them all
 * (the worker, the delivery ingestor, the listeners' deps) and hands them in.
 */
import type { Server } from "node:http";
import { App, type Authorize, type CustomRoute, HTTPReceiver, SocketModeReceiver } from "@slack/bolt";
import { WebClient } from "@slack/web-api";
import type { Config } from "./config.js";
import { frontListener } from "./deliveries/front.js";
import type { Ingestor } from "./deliveries/receive.js";
import type { BotDeps } from "./deps.js";
import { applyServerTimeouts, type ServerTimeouts } from "./http/timeouts.js";
import { oauthReceiverOptions } from "./install/oauth.js";
import type { TokenRotation } from "./install/rotation.js";
import type { Metrics } from "./metrics.js";
import { slackFetch } from "./posting/index.js";
import { AcksFirst, acksFirst } from "./slack/acks-first.js";
import { boltLogger } from "./slack/bolt-logger.js";
import { countCommands } from "./slack/command-metrics.js";
import { registerListeners } from "./slack/listeners/index.js";
import { routedApp } from "./slack/router.js";
import { singleTokenAuthorize } from "./slack/single-token.js";

export interface AppParts {
  /** What every listener receives. */
  deps: BotDeps;
  /** The delivery route (answered by the front listener, and as a Bolt custom route). */
  deliveries: Pick<Ingestor, "handle" | "route">;
  /** More HTTP routes after the delivery route (health, metrics). */
  routes: CustomRoute[];
  metrics: Metrics;
  /** HTTP server time limits (src/http/timeouts.ts; tests shorten them). */
  httpTimeouts?: Partial<ServerTimeouts>;
  /** Multi-workspace mode: refreshes expiring bot tokens before Bolt uses them. */
  rotation?: TokenRotation | undefined;
  /** Acknowledgements first (src/slack/acks-first.ts); a fresh one when not given. */
  turns?: AcksFirst;
}

export interface BoltApp {
  app: App;
  /** Starts listening on config.port/host (0 = a free port); resolves with the HTTP server. */
  start(): Promise<Server | undefined>;
  stop(): Promise<void>;
}

export function buildApp(config: Config, p: AppParts): BoltApp {
  const { deps } = p;
  const logger = deps.logger;
  const blogger = boltLogger(logger);
  // Every request is acknowledged before the work of those already acknowledged goes on
  // (src/slack/acks-first.ts): listeners resume after their ack, and Web API calls and
  // response_url answers start, on a turn.
  const turns = p.turns ?? new AcksFirst();
  const clientOptions = webClientOptions(config, turns);
  const oauth = oauthOptions(config, p);
  // Without installations, the one bot token, authorized by our own function rather than given to
  // Bolt as `token` (src/slack/single-token.ts says why).
  const token = oauth ? undefined : config.slack.botToken;
  const single = token ? singleTokenAuthorize(new WebClient(undefined, clientOptions), token) : undefined;
  const http = httpReceiver(config, p, blogger, oauth);
  // No conversation store (convoStore: false): nothing reads it, and Bolt's default builds an
  // Error per request.
  const launch = config.slack.appToken
    ? socketModeLaunch(config, config.slack.appToken, http, p, { single, blogger, clientOptions })
    : httpLaunch(config, http, p, { single, blogger, clientOptions });
  const { app } = launch;

  acksFirst(app, turns);
  app.use(countCommands(p.metrics));
  app.error(async (err) => {
    logger.error({ err }, "unhandled error in a Slack listener");
  });
  // Listeners by name, found with one lookup instead of Bolt trying each (src/slack/router.ts).
  registerListeners(routedApp(app), deps);

  return {
    app,
    start: launch.start,
    stop: async () => {
      await app.stop();
      await launch.stopHttp();
    },
  };
}

type WebClientOptions = ReturnType<typeof webClientOptions>;
type OAuthOptions = ReturnType<typeof oauthReceiverOptions>;

/** What both receivers' Apps are built with besides the receiver. */
interface AppOptions {
  /** The one bot token's authorization (no installations), or undefined with OAuth. */
  single: Authorize<boolean> | undefined;
  blogger: ReturnType<typeof boltLogger>;
  clientOptions: WebClientOptions;
}

/** The built App, how it starts, and how its HTTP side stops (a no-op until started). */
interface Launch {
  app: App;
  start: () => Promise<Server | undefined>;
  stopHttp: () => Promise<void>;
}

/** The Web API client's options: calls go through the acks-first turns, bounded in time. */
function webClientOptions(config: Config, turns: AcksFirst) {
  return {
    fetch: turns.fetch(slackFetch),
    slackApiUrl: config.slack.apiUrl,
    // Bounded: a Web API call never keeps a listener for minutes.
    timeout: 10_000,
    retryConfig: { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 5_000 },
  };
}

/**
 * OAuth: Bolt's installer serves /slack/install and /slack/oauth_redirect and authorizes each
 * request with its workspace's installation; undefined (the one bot token) without installations.
 */
function oauthOptions(config: Config, p: AppParts): OAuthOptions | undefined {
  const { deps } = p;
  const installations = deps.installations;
  return installations
    ? oauthReceiverOptions(
        config,
        installations,
        deps.logger.child({ component: "oauth" }),
        (team, enterprise) => deps.access.workspaceAllowed(team, enterprise),
        p.rotation,
      )
    : undefined;
}

/**
 * The HTTP side in both modes: deliveries, health, metrics and (OAuth) the install pages, on
 * config.port/host. In Socket Mode Slack's requests come over the WebSocket instead: the HTTP
 * side serves no /slack/events and has nothing to verify (no signing secret used).
 */
function httpReceiver(
  config: Config,
  p: AppParts,
  blogger: AppOptions["blogger"],
  oauth: OAuthOptions | undefined,
): HTTPReceiver {
  const { deliveries } = p;
  // The delivery route first: Bolt matches custom routes in order, compiling each pattern per
  // request, so the hot route should be the first one it tries.
  const customRoutes = [deliveries.route, ...p.routes];
  const socketMode = config.slack.appToken !== undefined;
  const http = new HTTPReceiver({
    signingSecret: socketMode ? "" : config.slack.signingSecret,
    signatureVerification: !socketMode,
    endpoints: socketMode ? [] : "/slack/events",
    customRoutes,
    logger: blogger,
    processBeforeResponse: false,
    ...oauth,
  });
  // Deliveries are answered before Bolt's router (src/deliveries/front.ts); the rest goes on to it.
  http.requestListener = frontListener(http.requestListener, {
    delivery: (req, res, token) => void deliveries.handle(req, res, token),
  });
  return http;
}

/** Socket Mode: Slack's requests over the WebSocket, the HTTP side started alongside it. */
function socketModeLaunch(
  config: Config,
  appToken: string,
  http: HTTPReceiver,
  p: AppParts,
  { single, blogger, clientOptions }: AppOptions,
): Launch {
  const receiver = new SocketModeReceiver({
    appToken,
    logger: blogger,
    // apps.connections.open goes to SLACK_API_URL, like every other Web API call.
    installerOptions: {
      clientOptions: { slackApiUrl: config.slack.apiUrl, fetch: slackFetch, timeout: 10_000 },
    },
  });
  // OAuth: the HTTP side's installer authorizes each workspace's requests.
  const app = new App({
    receiver,
    authorize: single ?? http.installer?.authorize,
    logger: blogger,
    clientOptions,
    convoStore: false,
  });
  let stopHttp = async () => {};
  const start = async () => {
    const server = await http.start({ port: config.port, host: config.host });
    applyServerTimeouts(server, p.httpTimeouts);
    stopHttp = () => http.stop();
    try {
      // Resolves on Slack's hello; a refused app token (invalid_auth...) rejects at once.
      await app.start();
    } catch (err) {
      await stopHttp().catch(() => {});
      stopHttp = async () => {};
      throw err;
    }
    return server;
  };
  return { app, start, stopHttp: () => stopHttp() };
}

/** HTTP only: Slack's requests come to /slack/events on the HTTP receiver. */
function httpLaunch(
  config: Config,
  http: HTTPReceiver,
  p: AppParts,
  { single, blogger, clientOptions }: AppOptions,
): Launch {
  const app = new App({
    receiver: http,
    authorize: single,
    logger: blogger,
    clientOptions,
    convoStore: false,
  });
  const start = async () => {
    const server = await http.start({ port: config.port, host: config.host });
    applyServerTimeouts(server, p.httpTimeouts);
    return server;
  };
  return { app, start, stopHttp: async () => {} };
}
