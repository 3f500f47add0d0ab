/** Action ids shared by the renderers (buttons) and the listeners (handlers). */
export const ACTIONS = {
  liveRefresh: "live_refresh",
  webhookEditEvents: "webhook_edit_events",
  webhookRemove: "webhook_remove",
  webhookRemoveConfirm: "webhook_remove_confirm",
  webhookRemoveCancel: "webhook_remove_cancel",
  webhookTest: "webhook_test",
  /** Refresh button of the App Home tab (rendered only when `homeView` is asked for it). */
  homeRefresh: "home_refresh",
} as const;

export type ActionId = (typeof ACTIONS)[keyof typeof ACTIONS];

/** `callback_id`s of the views (modal submissions are routed on them). */
export const VIEWS = {
  eventsModal: "webhook_events_modal",
} as const;

/** Block and action ids of the views' inputs (`view.state.values[block_id][action_id]`). */
export const BLOCKS = {
  /** block_id of the events editor's input block (also the key of its inline errors). */
  events: "events_block",
  /** action_id of the events editor's checkboxes. */
  eventsInput: "events_input",
} as const;
