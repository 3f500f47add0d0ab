/** The pure core of the video notifications: per-video state reducer and its messages. */
export { canonicalJson, sha256Hex } from "./hash.js";
export {
  MAX_PRESET_LINES,
  parentHash,
  parentMetadata,
  progressBar,
  renderMilestone,
  renderParent,
  STAGE_EMOJI,
  VIDEO_STATUS_EVENT,
  type VideoLinks,
  type VideoStatusMetadata,
  videoUrl,
} from "./render.js";
export {
  applyDelivery,
  dedupeKeyOf,
  initialState,
  MILESTONE_CAP,
  type Milestone,
  PRESET_STATUSES,
  type PresetState,
  type PresetStatus,
  SEEN_CAP,
  STAGES,
  type Stage,
  stageRank,
  type VideoState,
} from "./state.js";
export { validateState } from "./validate.js";
