/**
 * Opening a modal from a button or a command: a trigger_id lives 3 s and the checks behind a form
 * (the person's role, a platform read) may take longer, so the modal opens at once with a loading
 * view, and what `fill` returns replaces it (or what `failed` makes of its error).
 */
import type { ModalView } from "@slack/types";
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../../../log.js";

export async function openThenFill(
  client: WebClient,
  opts: {
    triggerId: string;
    loading: ModalView;
    fill: () => Promise<ModalView>;
    failed: (err: unknown) => ModalView;
  },
  log: Logger,
): Promise<void> {
  const opened = await client.views.open({ trigger_id: opts.triggerId, view: opts.loading });
  const viewId = opened.view?.id;
  if (!viewId) return;
  let view: ModalView;
  try {
    view = await opts.fill();
  } catch (err) {
    log.warn({ err }, "could not fill the modal");
    view = opts.failed(err);
  }
  await client.views.update({ view_id: viewId, view });
}
