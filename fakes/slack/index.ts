/** The local Slack stand-in for tests and the demo: Web API, response_urls, signing, request bodies. */

export { blockErrors, MAX_MESSAGE_BLOCKS, MAX_TEXT_CHARS, MAX_VIEW_BLOCKS, viewErrors } from "./blocks.js";
export {
  type BlockActionsOptions,
  blockActionsBody,
  blockActionsPayload,
  type EntityDetailsRequestedOptions,
  entityDetailsRequestedEvent,
  eventBody,
  eventPayload,
  type FunctionExecutedOptions,
  functionExecutedEvent,
  type LinkSharedOptions,
  linkSharedEvent,
  newTriggerId,
  type SlashCommandOptions,
  slashCommandBody,
  slashCommandFields,
  urlVerificationBody,
  type ViewSubmissionOptions,
  viewSubmissionBody,
  viewSubmissionPayload,
} from "./payloads.js";
export { RESPONSE_URL_LIFETIME_MS, RESPONSE_URL_MAX_USES } from "./responses.js";
export {
  DEFAULT_APP_TOKEN,
  DEFAULT_BOT_TOKEN,
  DEFAULT_TEAM_ID,
  SEED_CHANNELS,
  SEED_USERS,
  STANDIN,
} from "./seed.js";
export {
  type SignedReply,
  type SlackSignatureHeaders,
  sendSigned,
  signSlackRequest,
  slackSignature,
} from "./signing.js";
export { startSlackStandin } from "./slack.js";
export type * from "./types.js";
