/**
 * The profile every load target's deliveries name (`owner_id`): the platform sandbox's newsroom
 * profile (fakes/platform/seed.ts, SEED.profiles.newsroom), so that the bot's title reads of the
 * load's videos find them, as they would on the platform. A literal, not an import: the baseline
 * targets load nothing of the fakes or the bot.
 */
export const BENCH_OWNER = "x2vq8nw";

/** The ids of the videos a bot target stores before the load (`backlog`): this and a base-36 count. */
export const SEED_VIDEO_PREFIX = "xseed";
