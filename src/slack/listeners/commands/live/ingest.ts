/** `/live ingest <id or URL>` (managers): the ingest addresses, ephemeral (they carry the stream key). */
import { ingestMessage, refusalMessage } from "../../../../messages/index.js";
import { ephemeral } from "../../../context.js";
import type { CommandHandler, OfKind } from "../../../request.js";
import type { LiveCommand } from "../grammar.js";

/** Exactly what the ingest message shows. */
export const INGEST_FIELDS = ["livestream_id", "title", "ingest"] as const;

export const ingest: CommandHandler<OfKind<LiveCommand, "ingest">> = {
  what: (cmd) => `Could not read the ingest addresses of ${cmd.livestreamId}`,
  run: async ({ deps, subject, respond }, cmd) => {
    const r = await deps.access.readLivestream(subject, "live.ingest", cmd.livestreamId, INGEST_FIELDS);
    if (!r.allowed) {
      await respond(ephemeral(refusalMessage(r)));
      return;
    }
    await respond(ephemeral(ingestMessage(r.livestream)));
  },
};
