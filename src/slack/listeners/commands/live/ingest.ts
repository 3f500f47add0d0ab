/** `/live ingest <id or URL>` (managers): the ingest addresses, ephemeral (they carry the stream key). */
import { ingestMessage } from "../../../../messages/index.js";
import { ephemeral } from "../../../context.js";
import type { LivestreamCommand, OfKind } from "../../../request.js";
import type { LiveCommand } from "../grammar.js";

/** Exactly what the ingest message shows. */
export const INGEST_FIELDS = ["livestream_id", "title", "ingest"] as const;

export const ingest: LivestreamCommand<OfKind<LiveCommand, "ingest">> = {
  what: (cmd) => `Could not read the ingest addresses of ${cmd.livestreamId}`,
  access: { action: "live.ingest", livestream: (cmd) => cmd.livestreamId, fields: INGEST_FIELDS },
  run: async ({ respond }, _cmd, { livestream }) => {
    await respond(ephemeral(ingestMessage(livestream)));
  },
};
