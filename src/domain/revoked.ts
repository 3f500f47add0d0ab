/** Why the bot may no longer show `profileId`'s notifications in `teamId`, or undefined (src/access decides). */
export type RevokedCheck = (teamId: string, profileId: string) => Promise<string | undefined>;
