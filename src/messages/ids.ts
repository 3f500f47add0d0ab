/** Action ids shared by the renderers (buttons) and the listeners (handlers). */
export const ACTIONS = {
  liveRefresh: "live_refresh",
  webhookEditEvents: "webhook_edit_events",
  webhookRemove: "webhook_remove",
  webhookRemoveConfirm: "webhook_remove_confirm",
  webhookRemoveCancel: "webhook_remove_cancel",
  webhookTest: "webhook_test",
  /** Unsubscribe one channel (value: `<profileId> <channelId>`). */
  webhookUnsubscribe: "webhook_unsubscribe",
  /** Refresh button of the App Home tab (rendered only when `homeView` is asked for it). */
  homeRefresh: "home_refresh",
  /** App Home: opens the set-up modal (value: a profile id to change, or empty for a new one). */
  webhookSetup: "webhook_setup",
  /** App Home: opens the managers modal. */
  managersEdit: "managers_edit",
  /** App Home: stops a channel's watch (value: `<channel>:<livestream>`). */
  watchUnwatch: "watch_unwatch",
  /** App Home: stops the viewer's own DM watch (value: the livestream id; the person is the presser). */
  watchUnwatchDm: "watch_unwatch_dm",
  /**
   * The menu of profiles `/webhook` offers when no profile was given (option value: a profile id;
   * block_id: `pick:` and the rest of the command).
   */
  profilePick: "profile_pick",
} as const;

/** `callback_id`s of the views (modal submissions are routed on them). */
export const VIEWS = {
  eventsModal: "webhook_events_modal",
  setupModal: "webhook_setup_modal",
  managersModal: "managers_modal",
} as const;

/** Block and action ids of the views' inputs (`view.state.values[block_id][action_id]`). */
export const BLOCKS = {
  /** block_id of the events editor's input block (also the key of its inline errors). */
  events: "events_block",
  /** action_id of the events editor's checkboxes. */
  eventsInput: "events_input",
  /** Set-up modal inputs (block_id = action_id). */
  setupProfile: "setup_profile",
  setupChannel: "setup_channel",
  setupEvents: "setup_events",
  setupUrl: "setup_url",
  /** Managers modal: the people added as managers. */
  managersInput: "managers_input",
} as const;
