/**
 * Every action a person can ask of the bot, with who may do it and what it acts on. Every entry
 * point (slash subcommand, button, modal submission, event, and later watches and link previews)
 * names one of these when it asks `Authorizer.authorize`.
 * More: README.md ("actions.ts").
 */
export type Role = "anyone" | "anyone-with-role" | "manager";
export type ResourceKind = "workspace" | "profile" | "livestream" | "video";

export interface ActionRule {
  role: Role;
  resource: ResourceKind;
  claim?: true;
  /** "Only managers can <verb>." */
  verb: string;
}

export const ACTION_RULES = {
  help: { role: "anyone", resource: "workspace", verb: "use this app" },
  "live.status": { role: "anyone", resource: "livestream", verb: "read a livestream" },
  "live.refresh": { role: "anyone", resource: "livestream", verb: "refresh a livestream" },
  "live.ingest": { role: "manager", resource: "livestream", verb: "see ingest addresses" },
  "live.watch": { role: "manager", resource: "livestream", verb: "watch a livestream" },
  "live.unwatch": { role: "manager", resource: "livestream", verb: "stop watching a livestream" },
  "live.watching": { role: "anyone", resource: "workspace", verb: "list the watched livestreams" },
  // A person's own DM watch: whoever may read the livestream (as `/live status`, with its read).
  "live.watch.dm": { role: "anyone", resource: "livestream", verb: "get a DM about a livestream" },
  "live.unwatch.dm": { role: "anyone", resource: "livestream", verb: "stop a DM about a livestream" },
  // A Workflow Builder step (no person: its read is charged to the workspace, src/access/door.ts).
  "workflow.step": { role: "anyone", resource: "livestream", verb: "run a workflow step on a livestream" },
  "link.unfurl": { role: "anyone", resource: "livestream", verb: "preview a livestream" },
  // A link preview's details pane (a Work Object opened): read fresh, charged to whoever opened it.
  "link.details": { role: "anyone", resource: "livestream", verb: "see a livestream's details" },
  // A pasted video link of a profile bound to the workspace, and its details pane.
  "link.video": { role: "anyone", resource: "video", verb: "preview a video" },
  "link.video.details": { role: "anyone", resource: "video", verb: "see a video's details" },
  "webhook.show": { role: "anyone-with-role", resource: "profile", verb: "show a webhook" },
  "webhook.set": { role: "manager", resource: "profile", claim: true, verb: "set a webhook" },
  "webhook.events": { role: "manager", resource: "profile", claim: true, verb: "edit webhook events" },
  "webhook.remove": { role: "manager", resource: "profile", claim: true, verb: "remove a webhook" },
  "webhook.test": { role: "manager", resource: "profile", verb: "send a test event" },
  "webhook.subscribe": { role: "manager", resource: "profile", claim: true, verb: "subscribe a channel" },
  "webhook.unsubscribe": {
    role: "manager",
    resource: "profile",
    claim: true,
    verb: "unsubscribe a channel",
  },
  "webhook.subscriptions": { role: "anyone", resource: "profile", verb: "list subscriptions" },
  "webhook.pause": {
    role: "manager",
    resource: "profile",
    claim: true,
    verb: "pause or resume a channel's notifications",
  },
  "webhook.setup": { role: "manager", resource: "workspace", verb: "set up a webhook" },
  "managers.list": { role: "anyone", resource: "workspace", verb: "list the managers" },
  "managers.change": { role: "manager", resource: "workspace", verb: "change who the managers are" },
  "home.view": { role: "anyone-with-role", resource: "workspace", verb: "see the App Home" },
  "message.dismiss": { role: "anyone", resource: "workspace", verb: "dismiss a message" },
} as const satisfies Record<string, ActionRule>;

export type Action = keyof typeof ACTION_RULES;
type ActionsOn<K extends ResourceKind> = {
  [A in Action]: (typeof ACTION_RULES)[A]["resource"] extends K ? A : never;
}[Action];
export type ProfileAction = ActionsOn<"profile">;
export type LivestreamAction = ActionsOn<"livestream">;
export type VideoAction = ActionsOn<"video">;

export type Resource =
  | { kind: "workspace" }
  | { kind: "profile"; profileId: string }
  | { kind: "livestream"; livestreamId: string }
  | { kind: "video"; videoId: string };
