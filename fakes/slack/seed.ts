/** Seeded workspace of the Slack stand-in: who and what exists after start and reset(). */
import type { SlackUser, StandinChannels } from "./types.js";

export const DEFAULT_BOT_TOKEN = "xoxb-standin-0000-token";
export const DEFAULT_TEAM_ID = "T0STANDIN";
/** The app-level token apps.connections.open accepts by default (Socket Mode). */
export const DEFAULT_APP_TOKEN = "xapp-1-A0STANDIN-0000-standin-app-token";

export const STANDIN = {
  teamName: "Standin Workspace",
  teamDomain: "standin",
  appId: "A0STANDIN",
  botId: "B0BOT",
  botUserId: "U0BOT",
  botName: "platformbot",
  /** the deprecated verification token carried in request bodies */
  verificationToken: "standin-verification-token",
  /** scopes granted to the bot token (oauth.v2.access) */
  scope:
    "commands,chat:write,chat:write.public,im:write,users:read,links:read,links:write,channels:history,groups:history",
  /** the one code oauth.v2.access accepts */
  goodCode: "good-code",
  /** who installs the app in oauth.v2.access */
  installingUser: "U0ADMIN",
} as const;

export const SEED_USERS = {
  admin: "U0ADMIN",
  owner: "U0OWNER",
  member: "U0MEMBER",
  other: "U0OTHER",
  bot: STANDIN.botUserId,
} as const;

export const SEED_CHANNELS = {
  general: "C0GENERAL",
  news: "C0NEWS",
  publicOnly: "C0PUBLICONLY",
  archived: "C0ARCHIVED",
  private: "C0PRIVATE",
} as const;

/** Display names of the seeded channels; other channels are named after their id. */
const CHANNEL_NAMES: Record<string, string> = {
  C0GENERAL: "general",
  C0NEWS: "news",
  C0PUBLICONLY: "public-only",
  C0ARCHIVED: "old-archive",
  C0PRIVATE: "private-team",
};

export function channelName(id: string): string {
  return CHANNEL_NAMES[id] ?? id.toLowerCase();
}

export function seedUsers(teamId: string): SlackUser[] {
  return [
    {
      id: "U0ADMIN",
      team_id: teamId,
      name: "ada",
      real_name: "Ada Admin",
      is_admin: true,
      tz: "Europe/Paris",
    },
    {
      id: "U0OWNER",
      team_id: teamId,
      name: "oscar",
      real_name: "Oscar Owner",
      // Real owners are admins too; kept false so that a check ignoring is_owner shows in tests.
      is_admin: false,
      is_owner: true,
      is_primary_owner: true,
      tz: "Europe/Paris",
    },
    { id: "U0MEMBER", team_id: teamId, name: "mia", real_name: "Mia Member", tz: "America/New_York" },
    { id: "U0OTHER", team_id: teamId, name: "otto", real_name: "Otto Other", tz: "Asia/Tokyo" },
    {
      id: STANDIN.botUserId,
      team_id: teamId,
      name: STANDIN.botName,
      real_name: "Platform Bot",
      is_bot: true,
    },
  ];
}

export function seedChannels(channels: StandinChannels): void {
  for (const set of Object.values(channels)) set.clear();
  channels.member.add("C0GENERAL").add("C0NEWS");
  channels.public.add("C0GENERAL").add("C0PUBLICONLY");
  channels.archived.add("C0ARCHIVED");
  channels.known.add("C0PRIVATE");
}

/** A user name for payloads: the seeded name, or the id lower-cased. */
export function userName(id: string): string {
  return seedUsers(DEFAULT_TEAM_ID).find((u) => u.id === id)?.name ?? id.toLowerCase();
}
