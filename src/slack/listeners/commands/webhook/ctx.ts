/** What a `/webhook` profile subcommand runs with once authorized (typed, or chosen from the profile menu). */
import type { Allowed } from "../../../grant.js";
import type { CommandRequest } from "../../../request.js";
import type { ProfileCommand } from "../grammar-types.js";

/** What a profile command does once authorized for profile `id` (run.ts). */
export type Runner<C extends ProfileCommand> = (
  req: CommandRequest,
  cmd: C,
  id: string,
  d: Allowed,
) => Promise<void>;

/** The channel the command came from ("" for none). */
export const channelOf = (req: CommandRequest): string => req.subject.channelId ?? "";
