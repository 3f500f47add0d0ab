/** Action ids shared by the renderers (buttons) and the listeners (handlers). */
export const ACTIONS = {
  liveRefresh: "live_refresh",
  webhookEditEvents: "webhook_edit_events",
  webhookRemove: "webhook_remove",
  webhookRemoveConfirm: "webhook_remove_confirm",
  webhookRemoveCancel: "webhook_remove_cancel",
  webhookTest: "webhook_test",
} as const;

export type ActionId = (typeof ACTIONS)[keyof typeof ACTIONS];
