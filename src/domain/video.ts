/** Bounds of a video's state that its messages quote. */

/** Distinct ignored preset names a video's state counts (the message then says "N+ more"). */
export const IGNORED_PRESETS_CAP = 200;
