/**
 * Public types of the platform sandbox. Resource field names follow the spec
 * (`/work/shared/spec/platform-api-v2.md`, section 2) exactly, in snake_case.
 */
import type { LiveAction, ScriptStep } from "./live-show.js";

export type VideoCategory =
  | "animals"
  | "auto"
  | "creation"
  | "fun"
  | "kids"
  | "lifestyle"
  | "music"
  | "news"
  | "people"
  | "school"
  | "sport"
  | "tech"
  | "travel"
  | "tv"
  | "videogames"
  | "webcam";
export type Visibility = "public" | "private" | "password";
export type GeoRestrictionMode = "allow" | "deny";
export type RecordingStatus = "starting" | "started" | "stopping" | "stopped";

export interface SandboxGeoRestriction {
  mode: GeoRestrictionMode;
  countries: string[];
}

export interface SandboxIngest {
  rtmp_url: string;
  srt_url: string | null;
  /** label to RTMP URL */
  available_servers: Record<string, string>;
}

export interface SandboxStatus {
  onair: boolean;
  airing_at: string | null;
  audio_bitrate: number | null;
}

export interface SandboxRecording {
  auto_record: boolean;
  status: RecordingStatus;
  start_at: string | null;
  end_at: string | null;
}

export interface SandboxEmbedding {
  enable_embed: boolean;
  embed_url: string;
  embed_html: string;
}

export interface SandboxAdvertising {
  end_at: string | null;
  remaining: number;
}

export interface SandboxThumbnail {
  h1080_url: string | null;
  h720_url: string | null;
  h480_url: string | null;
  h240_url: string | null;
  default_url: string | null;
}

export interface SandboxLivestream {
  livestream_id: string;
  title: string;
  livestream_url: string;
  description: string | null;
  language: string | null;
  category: VideoCategory;
  country: string | null;
  visibility: Visibility;
  is_for_kids: boolean | null;
  is_explicit: boolean;
  is_exclusive_content: boolean;
  is_ai_altered: boolean;
  has_paid_partnership: boolean;
  enable_comments: boolean;
  /**
   * The owning profile's id. Sandbox storage detail: responses resolve it and embed that
   * profile (section 2.3) as the spec's `profile` field.
   */
  profile_id: string;
  start_at: string | null;
  end_at: string | null;
  ingest: SandboxIngest;
  status: SandboxStatus;
  recording: SandboxRecording;
  geo_restriction: SandboxGeoRestriction;
  embedding: SandboxEmbedding;
  advertising: SandboxAdvertising;
  thumbnail: SandboxThumbnail;
  created_at: string;
  updated_at: string;
}

export interface SandboxWebhook {
  callback_url: string | null;
  events: string[] | null;
}

export interface SandboxProfile {
  profile_id: string;
  name: string;
  display_name: string | null;
  description: string | null;
  created_at: string;
  can_change_name: boolean;
  social_links: {
    twitter_url: string | null;
    instagram_url: string | null;
    facebook_url: string | null;
    website_url: string | null;
  };
  content_defaults: {
    language: string | null;
    visibility: "public" | "private" | null;
    is_for_kids: boolean | null;
    title: string | null;
    description: string | null;
    tags: string[];
    category: VideoCategory | null;
    ai_subtitles: string[];
    enable_comments: boolean;
    enable_ai_chapter_generation: boolean;
    geo_restriction: SandboxGeoRestriction;
  };
  /** No webhook = both values null (spec 3.3 state "none"). */
  webhook: SandboxWebhook;
  /** Sandbox-only: the client id (API key) with the Owner role on this profile. Never serialized. */
  owner_client_id: string;
}

/** Video status (API v2 "Get a video"; values not listed by our spec): the sandbox uses these. */
export type SandboxVideoStatus = "processing" | "ready" | "published" | "deleted";

/**
 * A video as the sandbox keeps it. Field names follow the platform's API v2 ("Get a video":
 * `video_id`, `video_url`, the owning `profile`, ISO 8601 timestamps), as the livestream's do.
 */
export interface SandboxVideo {
  video_id: string;
  title: string;
  description: string | null;
  video_url: string;
  visibility: Visibility;
  category: VideoCategory;
  language: string | null;
  status: SandboxVideoStatus;
  /** Seconds. */
  duration: number;
  /** The owning profile's id (answers embed that profile as `profile`, like a livestream's). */
  profile_id: string;
  thumbnail: SandboxThumbnail;
  created_at: string;
  updated_at: string;
  published_at: string | null;
}

/**
 * The permissions of the sandbox's private API key (`SandboxOptions.keyScopes`): what the token
 * service does when a token request asks for a scope the key does not have.
 */
export interface KeyScopes {
  /** The scopes the key has; null = every known scope. */
  scopes: readonly string[] | null;
  /**
   * "narrow" (default): the token is granted with only the scopes the key has, and its `scope`
   * says so (RFC 6749 3.3); "refuse": 400 invalid_scope (RFC 6749 5.2).
   */
  onMissing: "narrow" | "refuse";
}

export interface RequestLogEntry {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization?: "present" | "absent";
  /** 0 while unanswered, and for dropped connections */
  status: number;
  at: number;
}

export interface SandboxOptions {
  port?: number;
  host?: string;
  clientId?: string;
  clientSecret?: string;
  tokenLifetimeSeconds?: number;
  /** Scope string returned for a token request; default: the requested scopes echoed back. Use e.g. () => "bundle.publisher" to emulate a bundle grant. */
  grantScope?: (requested: string[]) => string;
  /** How PATCH /profiles answers (spec: response body "not shown"): default "profile" = 200 with the updated profile's requested-default fields plus webhook; "empty-200" = 200 {}; "no-content" = 204. */
  patchResponse?: "profile" | "empty-200" | "no-content";
  /** Rewrite the origin of every delivery URL to this origin (e.g. "http://127.0.0.1:3000"), keeping path and query. */
  deliverTo?: string;
  /**
   * Sandbox addition, emulating eventual consistency: after each PATCH that changes a profile's
   * webhook, the next `staleReads` GETs of that profile that select `webhook` still return the
   * webhook as it was before the PATCH. Default 0.
   */
  staleReads?: number;
  /** Sandbox addition: store callback URLs normalized (`new URL(x).href`) instead of verbatim. */
  normalizeUrls?: boolean;
  /** clock in ms, default Date.now (used for token expiry and event timestamps) */
  now?: () => number;
  /** Sandbox addition: called once per request when its status is known (0 = connection dropped). */
  onRequest?: (entry: RequestLogEntry) => void;
  /**
   * Sandbox addition: the permissions of the key `clientId` (default: every known scope). E.g.
   * `{ scopes: ["live.read", "profile.manage"], onMissing: "refuse" }` is a key without video.read
   * whose token service refuses a request for it. `reset()` restores this value.
   */
  keyScopes?: KeyScopes;
}

export interface Fault {
  /** which requests: method and/or a path prefix or RegExp tested against the path (e.g. "/v2/livestreams", "/v2/token") */
  method?: string;
  path?: string | RegExp;
  /** delay before answering (applies also when combined with status) */
  latencyMs?: number;
  /** answered with this status and a section 7 envelope; 403 and 422 stand for refusals the sandbox cannot cause otherwise */
  status?: 403 | 422 | 429 | 500 | 502 | 503 | 504;
  /** 429: sets both the Retry-After header and details.retry_after_seconds (default 1); other statuses: the header only */
  retryAfterSeconds?: number;
  /**
   * With `status`: the raw Retry-After header value (e.g. an HTTP date), replacing the one from
   * retryAfterSeconds; null sends no Retry-After header at all.
   */
  retryAfterHeader?: string | null;
  /** With `status`: details.retry_after_seconds, replacing the one from retryAfterSeconds; null leaves it out. */
  detailsRetryAfter?: number | null;
  /**
   * With `status`: the body of the answer, like a gateway's. true (default): the section 7
   * envelope; false: an empty body; "html": an HTML error page.
   */
  envelope?: boolean | "html";
  /**
   * Send the headers of the answer (the normal one, or this fault's status) at once, then its body
   * in `chunks` pieces, each after `intervalMs` (to test body-idle and whole-request deadlines).
   */
  slowBody?: { chunks: number; intervalMs: number };
  /** answer 200 with a broken body instead (schema-mismatch: e.g. livestream with title: 42 and status.onair: "yes") */
  body?: "invalid-json" | "schema-mismatch" | "html";
  /** destroy the socket without answering */
  dropConnection?: boolean;
  /** how many matching requests it applies to (default: unlimited) */
  times?: number;
}

export interface DeliverOptions {
  /** send even if the profile does not subscribe to the type */
  force?: boolean;
  /** source address, e.g. "127.0.0.2" (whole 127/8 works on Linux) */
  localAddress?: string;
  deliverTo?: string;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /**
   * Sandbox addition: the platform does not know the event's video (a forged or stale delivery),
   * so `GET /videos/{id}` answers 404. By default an event the sandbox builds registers its video
   * (with a realistic title) on the profile before it is sent: the platform only tells of videos
   * it has. `rawBody` deliveries register nothing.
   */
  unknownVideo?: boolean;
}

export interface DeliveryResult {
  type: string;
  status: number;
  body: string;
  skipped?: "not-subscribed" | "no-webhook";
}

export interface LifecycleOptions {
  /** default: fresh random like "x" + 6 base36 chars */
  videoId?: string;
  /** default ["240p","480p","720p"] */
  presets?: string[];
  /** processing events per preset, default 10, progress increasing to 100 */
  progressSteps?: number;
  /** a preset name that ends in video.format.error instead of ready */
  formatError?: string;
  deleteAtEnd?: boolean;
  /** deliver in random order (timestamps still reflect true order) */
  shuffle?: boolean;
  /** default 1 = sequential */
  concurrency?: number;
  localAddress?: string;
  deliverTo?: string;
  /** Sandbox addition: send every event even if the profile does not subscribe to it. */
  force?: boolean;
  /** Sandbox addition: see DeliverOptions.unknownVideo. */
  unknownVideo?: boolean;
}

export interface SandboxStats {
  tokenRequests: number;
  apiRequests: number;
  deliveries: number;
}

export interface Sandbox {
  /** "http://127.0.0.1:PORT" (= PLATFORM_AUTH_URL) */
  url: string;
  /** url + "/v2" (= PLATFORM_API_URL) */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** closes server and all keep-alive sockets; pending latency and slow-body waits are cut short and every running handler has finished when it resolves */
  close(): Promise<void>;
  /** Sandbox addition: requests still being handled or answered (waiting on latency, sending a slow body, ...); 0 after close() */
  pendingRequests(): number;
  /** back to seed state, faults cleared, logs cleared */
  reset(): void;
  /** every request received, in order (platform traffic: control requests under /_sandbox/ are not logged) */
  requests: RequestLogEntry[];
  stats(): SandboxStats;
  addFault(f: Fault): void;
  clearFaults(): void;
  /** every token issued so far now answers 401 AUTHORIZATION_EXPIRED */
  expireAllTokens(): void;
  /** every token issued so far answers 401 INVALID_AUTHORIZATION (bad signature) */
  revokeAllTokens(): void;
  /** Sandbox addition: every access token issued since start (reset() keeps them), oldest first. */
  issuedTokens(): string[];
  /** direct state access for tests */
  state: {
    profiles: Map<string, SandboxProfile>;
    livestreams: Map<string, SandboxLivestream>;
    videos: Map<string, SandboxVideo>;
  };
  /**
   * Sandbox addition: adds a video, or changes the given fields of an existing one (its id and
   * profile are kept); missing fields get realistic defaults. Throws ApiError 404 for an unknown
   * profile. Returns the video as stored.
   */
  putVideo(video: Partial<SandboxVideo> & Pick<SandboxVideo, "video_id" | "profile_id">): SandboxVideo;
  /** Sandbox addition: the video is gone (`GET /videos/{id}` answers 404); false if there was none. */
  deleteVideo(videoId: string): boolean;
  /** Sandbox addition: changes the permissions of the key (see SandboxOptions.keyScopes). */
  setKeyScopes(key: KeyScopes): void;
  setWebhook(profileId: string, webhook: { callback_url: string | null; events: string[] | null }): void;
  deliver(
    profileId: string,
    event: { type: string; data?: Record<string, unknown>; timestamp?: number },
    opts?: DeliverOptions,
  ): Promise<DeliveryResult>;
  deliverLifecycle(profileId: string, opts?: LifecycleOptions): Promise<DeliveryResult[]>;
  /** Sandbox addition (live-show.ts): one live-show action on a livestream; throws ApiError 404/422. */
  live(livestreamId: string, action: LiveAction): void;
  /** Sandbox addition: plays a scripted broadcast in the background (cancelled by reset and close). */
  playScript(livestreamId: string, steps: readonly ScriptStep[]): void;
}
