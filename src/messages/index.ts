/**
 * Every Block Kit and mrkdwn text of the bot: pure functions, data and the clock in,
 * `{ text, blocks }` out. Imports nothing of src/ (docs/development.md, Layers); every folder
 * imports it through this file.
 */
export {
  type Audience,
  type BroadcastMilestone,
  type BroadcastView,
  renderEnded,
  renderLive,
  renderMilestone as renderBroadcastMilestone,
  renderRevoked,
  renderRevokedDm,
  renderSummary,
  renderWatchChannelClosed,
} from "./broadcast.js";
export { duration, relative, slackDate, utcText } from "./dates.js";
export { refusedNotice } from "./dead-letters.js";
export {
  type DigestEntryView,
  type DigestMessages,
  type DigestView,
  LINES_IN_MESSAGE,
  renderDigest,
} from "./digest.js";
export {
  ENTITY_TYPE,
  type Entity,
  type EntityKind,
  livestreamDetails,
  livestreamEntity,
  VIDEO_PREVIEW_FIELDS,
  type VideoFacts,
  videoDetails,
  videoEntity,
} from "./entity.js";
export {
  describePlatformError,
  errorMessage,
  notManagerMessage,
  type PlatformFailure,
  profileClaimedMessage,
  profileNotBoundMessage,
  type Refusal,
  readBudgetMessage,
  refusalMessage,
  refusalText,
  storeUnavailableMessage,
  workspaceNotAllowedMessage,
} from "./errors.js";
export { ELLIPSIS, escapeMrkdwn, escapeTruncate, htmlToText, truncate, truncateMrkdwn } from "./escape.js";
export {
  channelProblemText,
  claimedElsewhereText,
  EDITOR_EXPIRED,
  EVENTS_CHANGED_ELSEWHERE,
  eventsClaimedElsewhereText,
  eventsSavedText,
  FORM_EXPIRED,
  FORM_LOADING,
  FORM_SAVING,
  MANAGERS_NOT_READ,
  MANAGERS_NOT_SAVED,
  SOMETHING_WENT_WRONG,
  STORE_NOT_ANSWERING,
  settingUpText,
  setupPlaceholderText,
} from "./forms.js";
export { type HelpEntry, LIVE_HELP, liveHelp, usageError, WEBHOOK_HELP, webhookHelp } from "./help.js";
export {
  type HomeProfile,
  type HomeViewOptions,
  homeView,
  type PlatformHealth,
  refusedHomeView,
} from "./home.js";
export { ACTIONS, BLOCKS, VIEWS } from "./ids.js";
export {
  channel,
  chunkLines,
  code,
  context,
  header,
  isLinkableUrl,
  link,
  mentionMarkup,
  message,
  section,
} from "./kit.js";
export { LIMITS } from "./limits.js";
export {
  ADS_PER_HOUR,
  ingestMessage,
  LIVESTREAM_CARD_FIELDS,
  type LivestreamCardOptions,
  type LivestreamView,
  livestreamCard,
  livestreamPending,
} from "./livestream.js";
export {
  decodeMeta,
  type EventsModalMeta,
  encodeMeta,
  eventCheckboxes,
  eventsModal,
  eventsModalError,
  eventsModalLoading,
  eventsModalSaved,
  eventsModalSaving,
  type HomeView,
  type ModalView,
  NO_EVENT_CHOSEN,
  parseEventsSubmission,
  VIEW_LIMITS,
} from "./modal.js";
export {
  MENU_LIMITS,
  type MenuProfile,
  PICK_BLOCK_PREFIX,
  type ProfileMenuProblem,
  pickBlockId,
  pickNotValidMessage,
  profileMenuProblemMessage,
  profileMenuProblemText,
  profileOptions,
  profilePickerMessage,
  profilePlain,
  profileRef,
} from "./profiles.js";
export {
  decodeSetupMeta,
  encodeSetupMeta,
  formMessage,
  managersModal,
  managersModalSaved,
  type ParsedSetup,
  parseManagersSubmission,
  parseSetupSubmission,
  profileText,
  type SetupMeta,
  type SetupValues,
  setupModal,
  setupModalDone,
} from "./setup.js";
export {
  stepLimitText,
  stepLivestreamInputText,
  stepNoWaitText,
  stepRevokedText,
  stepTimedOutText,
  stepTimeoutInputText,
  stepWhere,
} from "./steps.js";
export {
  type DigestModeView,
  filterText,
  MAX_SUBSCRIPTIONS_SHOWN,
  type ModeClock,
  type ModeView,
  modeText,
  notOursMessage,
  notPausedMessage,
  notSubscribedMessage,
  parseUnsubscribeValue,
  pausedMessage,
  resumedMessage,
  type SubscriptionView,
  subscribedMessage,
  subscriptionBlocks,
  subscriptionsMessage,
  unsubscribedMessage,
  unsubscribeValue,
} from "./subscriptions.js";
export type { KnownBlock, Message } from "./types.js";
export { LIVESTREAM_UNFURL_FIELDS, livestreamUnfurl, type UnfurlCard, videoUnfurl } from "./unfurl.js";
export {
  MAX_PRESET_LINES,
  parentMetadata,
  progressBar,
  renderParent,
  STAGE_EMOJI,
  STALL_MS,
  VIDEO_STATUS_EVENT,
  type VideoStatusMetadata,
} from "./video.js";
export { renderMilestone } from "./video-thread.js";
export {
  MAX_NAMES_INLINE,
  type MilestoneView,
  type PresetView,
  type VideoLinks,
  type VideoStage,
  type VideoView,
  videoTitleOf,
  videoUrl,
} from "./video-view.js";
export * from "./watch.js";
export {
  displayUrl,
  lastSubscriptionMessage,
  removeConfirmMessage,
  testResultMessage,
  type WebhookCallbackInfo,
  type WebhookConfigOptions,
  type WebhookSetOptions,
  webhookConfigMessage,
  webhookRemovedMessage,
  webhookSetMessage,
} from "./webhook.js";
export { type ManagerEntry, managersMessage, webhookEventsMessage } from "./webhook-lists.js";
