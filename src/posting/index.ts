/** The way into src/posting: what background work uses to write to Slack. */
export { MarkedPosts, type Marker, markerOf, type Where } from "./marked-posts.js";
export { ChannelGate, type GateOptions, MAX_TURNS_PER_CHANNEL, PER_CHANNEL_METHOD } from "./pacing.js";
export {
  AUTH_SLACK_ERRORS,
  classifySlackError,
  GONE_SLACK_ERRORS,
  notPosted,
  PERMANENT_SLACK_ERRORS,
  type SlackFailure,
  slackErrorCode,
  slackErrorText,
  slackRefused,
} from "./slack-errors.js";
export { slackFetch } from "./transport.js";
export {
  type ClientOf,
  DEFAULT_USERS_TTL_MS,
  type SlackUser,
  SlackUsers,
  type SlackUsersOptions,
} from "./users.js";
