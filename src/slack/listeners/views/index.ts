/** Modal submissions: the events editor. */
import type { App } from "@slack/bolt";
import { BLOCKS, decodeMeta, eventsModalSaving, parseEventsSubmission, VIEWS } from "../../blocks/index.js";
import type { BotDeps } from "../../context.js";
import { saveEvents } from "../../events-editor.js";

export function register(app: App, deps: BotDeps): void {
  app.view(VIEWS.eventsModal, async ({ ack, body, view, client }) => {
    const selected = parseEventsSubmission(view.state.values);
    if (selected.length === 0) {
      // Keeps the modal open with the error under the checkboxes.
      await ack({
        response_action: "errors",
        errors: { [BLOCKS.events]: "Choose at least one event: the platform needs one." },
      });
      return;
    }
    const teamId = body.team?.id ?? body.user.team_id ?? "";
    const profileId = decodeMeta(view.private_metadata)?.profileId ?? "";
    await ack({ response_action: "update", view: eventsModalSaving(view.private_metadata, profileId) });
    const log = deps.logger.child({ team: teamId, user: body.user.id, view: VIEWS.eventsModal });
    await saveEvents(
      deps,
      client,
      { viewId: view.id, userId: body.user.id, teamId, privateMetadata: view.private_metadata, selected },
      log,
    ).catch((err: unknown) => log.error({ err }, "events editor failed"));
  });
}
