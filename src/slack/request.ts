/**
 * The one request wrapper of every listener (a per-request context, like probot's): it acks first
 * (cheap: nothing is read before it, src/slack/acks-first.ts), says who is asking (`subjectOf`),
 * binds the child logger (team, user, and the command, action, view or event), authorizes what the
 * handler declares (access.ts), and turns a failure into the one plain answer (`answerErrors`: same texts,
 * same metric). Handlers are plain functions of the request object, so a test can call them
 * without the app.
 * How a handler declares its access: README.md ("request.ts").
 */
import type {
  AllMiddlewareArgs,
  BlockAction,
  BlockElementAction,
  ButtonAction,
  EventFromType,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlackEventMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewOutput,
} from "@slack/bolt";
import type { View, WebClient } from "@slack/web-api";
import type { BotDeps } from "../deps.js";
import type { Logger } from "../log.js";
import {
  type Allowed,
  bindAccess,
  type FlowAccess,
  grantOf,
  type LivestreamAccess,
  type LivestreamAllowed,
  type ResourceAccess,
  type WhileReading,
} from "./access.js";
import { type Asker, type AuthContext, answerErrors, type Reply, safeRespond, subjectOf } from "./context.js";
import type { Parsed } from "./listeners/commands/grammar.js";
import type { Answerable, Request } from "./shape.js";

/** The request of `subject`: its logger, its client and its decisions. */
export function requestOf(deps: BotDeps, subject: Asker, log: Logger, client: WebClient): Request {
  return { deps, subject, log, client, ...bindAccess(deps, subject) };
}

export interface CommandRequest extends Answerable {
  triggerId: string | undefined;
  /** Why the text did not parse: the help handler answers with the usage then. */
  usage?: string;
}

// ---- Commands ----

interface CommandAnswer<C> {
  /** The failure's answer: "Could not …". */
  what: (cmd: C) => string;
  /** Failures not counted in `commandFailures` (help). */
  uncounted?: true;
}

export interface ResourceCommand<C> extends CommandAnswer<C> {
  access: ResourceAccess<C>;
  run: (req: CommandRequest, cmd: C, grant: Allowed) => Promise<void>;
}

export interface LivestreamCommand<C, W extends WhileReading = WhileReading> extends CommandAnswer<C> {
  access: LivestreamAccess<C, W>;
  // A method: a handler's own `W` (what its `whileReading` started) stands for any.
  run(req: CommandRequest, cmd: C, grant: LivestreamAllowed<W>): Promise<void>;
}

export interface FlowCommand<C> extends CommandAnswer<C> {
  access: FlowAccess<C>;
  run: (req: CommandRequest, cmd: C) => Promise<void>;
}

export type CommandHandler<C> = ResourceCommand<C> | LivestreamCommand<C> | FlowCommand<C>;

/** The commands of `C` whose kind may be `K` (a kind such as `"watch" | "unwatch"` included). */
export type OfKind<C, K> = C extends { kind: infer CK } ? (K extends CK ? C : never) : never;

export type CommandHandlers<C extends { kind: string }> = {
  [K in C["kind"]]: CommandHandler<OfKind<C, K>>;
};

/** Runs `work`, a failure answered once through `respond` (counted unless `uncounted`). */
export function answering(
  req: Request,
  respond: Reply,
  what: string,
  work: () => Promise<void>,
  uncounted?: true,
): Promise<void> {
  return answerErrors(respond, req.log, what, work, uncounted ? undefined : req.deps.metrics);
}

type Run<R, In> = (req: R, input: In, grant?: Allowed) => Promise<void>;

/** A command's handler for `cmd`: authorized as it declares, then run; a failure answered once. */
export function handleCommand<C>(req: CommandRequest, handler: CommandHandler<C>, cmd: C): Promise<void> {
  return answering(
    req,
    req.respond,
    handler.what(cmd),
    async () => {
      const grant = await grantOf(req, handler.access, cmd, req.respond);
      if (grant !== null) await (handler.run as Run<CommandRequest, C>)(req, cmd, grant);
    },
    handler.uncounted,
  );
}

/** A slash command: parsed, then the handler of its subcommand (`help` for text that does not parse). */
export function slashCommand<C extends { kind: string }>(
  deps: BotDeps,
  name: string,
  parse: (text: string) => Parsed<C>,
  handlers: CommandHandlers<C>,
) {
  return async ({
    command,
    ack,
    respond,
    client,
    context,
  }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    await ack();
    const subject = subjectOf(client, context, command);
    const log = deps.logger.child({ team: subject.teamId, user: subject.userId, command: name });
    const parsed = parse(command.text);
    const cmd = parsed.ok ? parsed.value : ({ kind: "help" } as C);
    const req: CommandRequest = {
      ...requestOf(deps, subject, log, client),
      respond,
      triggerId: command.trigger_id || undefined,
      ...(parsed.ok ? {} : { usage: parsed.problem }),
    };
    await handleCommand(req, handlers[cmd.kind as C["kind"]] as CommandHandler<C>, cmd);
  };
}

// ---- Buttons and menus ----

export interface ActionRequest<E extends BlockElementAction = ButtonAction> extends Answerable {
  body: BlockAction<E>;
  action: E;
  /** The button is on the App Home (no response_url). */
  onHome: boolean;
  /** Where refusals go: a message from the app on the App Home, else the response_url. */
  answer: Reply;
}

type ActionAnswer<E extends BlockElementAction> =
  | {
      what: (req: ActionRequest<E>) => string;
      uncounted?: true;
      /** Where a failure (and the wrapper's refusal) is answered (default `answer`). */
      answerTo?: (req: ActionRequest<E>) => Reply;
    }
  /** No answer: a failure is logged (warn) with this message. Authorized in the flow. */
  | { quiet: string };

export type ResourceButton<E extends BlockElementAction = ButtonAction> = ActionAnswer<E> & {
  access: ResourceAccess<ActionRequest<E>>;
  run: (req: ActionRequest<E>, grant: Allowed) => Promise<void>;
};

export type LivestreamButton<E extends BlockElementAction = ButtonAction> = ActionAnswer<E> & {
  access: LivestreamAccess<ActionRequest<E>>;
  run: (req: ActionRequest<E>, grant: LivestreamAllowed) => Promise<void>;
};

export type FlowButton<E extends BlockElementAction = ButtonAction> = ActionAnswer<E> & {
  access: FlowAccess<ActionRequest<E>>;
  run: (req: ActionRequest<E>) => Promise<void>;
};

export type ActionHandler<E extends BlockElementAction = ButtonAction> =
  | ResourceButton<E>
  | LivestreamButton<E>
  | FlowButton<E>;

/** A button's handler: authorized as it declares, then run; a failure answered once (or logged). */
export async function handleAction<E extends BlockElementAction>(
  req: ActionRequest<E>,
  handler: ActionHandler<E>,
): Promise<void> {
  const to = "quiet" in handler ? req.answer : (handler.answerTo?.(req) ?? req.answer);
  const work = async () => {
    const grant = await grantOf(req, handler.access, req, to);
    if (grant !== null)
      await (handler.run as (r: ActionRequest<E>, g?: Allowed) => Promise<void>)(req, grant);
  };
  if ("quiet" in handler) {
    const quiet = handler.quiet;
    await work().catch((err: unknown) => req.log.warn({ err }, quiet));
    return;
  }
  await answering(req, to, handler.what(req), work, handler.uncounted);
}

/** A button or menu (`block_actions`). */
export function blockAction<E extends BlockElementAction = ButtonAction>(
  deps: BotDeps,
  actionId: string,
  handler: ActionHandler<E>,
) {
  return async ({
    ack,
    body,
    action,
    respond,
    client,
    context,
  }: SlackActionMiddlewareArgs<BlockAction<E>> & AllMiddlewareArgs) => {
    await ack();
    const subject = subjectOf(client, context, body);
    const log = deps.logger.child({ team: subject.teamId, user: subject.userId, action: actionId });
    const onHome = body.view?.type === "home";
    // The App Home has no response_url: answers go to the person as a message from the app.
    const answer: Reply = onHome
      ? (args) =>
          client.chat.postMessage({
            channel: subject.userId,
            text: args.text ?? "",
            blocks: "blocks" in args ? args.blocks : undefined,
          })
      : respond;
    const req = requestOf(deps, subject, log, client);
    await handleAction({ ...req, respond, body, action, onHome, answer }, handler);
  };
}

// ---- Modal submissions ----

export interface ViewRequest extends Request {
  view: ViewOutput;
}

/** What a submission reads as: errors keep the modal open; else the view shown while it is saved. */
export type Submission<T> = { errors: Record<string, string> } | { saving: View; value: T };

export interface ViewHandler<T> {
  /** Authorized in the flow, after the ack: a refusal shows in the modal. */
  access: FlowAccess<T>;
  read: (view: ViewOutput) => Submission<T>;
  save: (req: ViewRequest, value: T) => Promise<void>;
  /** Logged (error) when saving fails. */
  failure: string;
}

/** A modal submission: acked with its errors, or with the saving view, then saved. */
export function viewSubmission<T>(deps: BotDeps, callbackId: string, handler: ViewHandler<T>) {
  return async ({ ack, body, view, client, context }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
    const read = handler.read(view);
    if ("errors" in read) {
      await ack({ response_action: "errors", errors: read.errors });
      return;
    }
    const subject = subjectOf(client, context, body);
    await ack({ response_action: "update", view: read.saving });
    const log = deps.logger.child({ team: subject.teamId, user: subject.userId, view: callbackId });
    await handler
      .save({ ...requestOf(deps, subject, log, client), view }, read.value)
      .catch((err: unknown) => log.error({ err }, handler.failure));
  };
}

// ---- Events ----

export interface EventRequest<E extends string> extends Request {
  event: EventFromType<E>;
  context: AuthContext & { isEnterpriseInstall?: boolean };
}

export interface EventHandler<E extends string> {
  /**
   * Authorized in the flow (the App Home shows a refusal in place; a link preview is refused
   * silently), or a Slack-signed lifecycle event that acts on nobody's request.
   */
  access: FlowAccess<EventFromType<E>> | { lifecycle: true };
  /** Whether the event is for this handler at all (checked before anything else). */
  wants?: (event: EventFromType<E>) => boolean;
  run: (req: EventRequest<E>) => Promise<unknown>;
  /** Logged (error) when `run` fails; without it the failure goes to Bolt. */
  failure?: string;
}

/** An Events API event (Bolt acks those itself). */
export function slackEvent<E extends string>(deps: BotDeps, name: E, handler: EventHandler<E>) {
  return async ({ body, client, context, ...args }: SlackEventMiddlewareArgs<E> & AllMiddlewareArgs) => {
    const event: EventFromType<E> = args.payload;
    if (handler.wants && !handler.wants(event)) return;
    const subject = subjectOf(client, context, body);
    const log = deps.logger.child({ team: subject.teamId, user: subject.userId, event: name });
    const work = handler.run({ ...requestOf(deps, subject, log, client), event, context });
    const failure = handler.failure;
    await (failure ? work.catch((err: unknown) => log.error({ err }, failure)) : work);
  };
}

// ---- Workflow steps ----

/** A Workflow Builder step's request: no person (its reads are charged to the workspace). */
export interface StepRequest extends Answerable {
  /** Slack's `function_execution_id` of this run of the step. */
  executionId: string;
  /** Completes the step with its outputs (with the event's workflow token). */
  complete(outputs: Record<string, unknown>): Promise<void>;
}

export interface StepHandler<In> {
  /** The step's inputs read: the value, or what to give instead (the step fails with it at once). */
  read: (inputs: Record<string, unknown>) => Parsed<In>;
  access: LivestreamAccess<In>;
  /** The failure's answer: "Could not read livestream …". */
  what: (input: In) => string;
  run: (req: StepRequest, input: In, grant: LivestreamAllowed) => Promise<void>;
}

/**
 * A Workflow Builder step (`function_executed`, Bolt's `app.function`; Bolt acks it): its inputs
 * read, authorized as it declares for the workspace Slack runs the workflow in (Bolt's context),
 * then run. A bad input, a refusal or a failure fails the step once, in plain words (a platform
 * failure with its correlation id; a missing and an unbound livestream alike, without one).
 */
export function slackFunction<In>(deps: BotDeps, callbackId: string, handler: StepHandler<In>) {
  return async ({
    inputs,
    complete,
    fail,
    client,
    context,
    body,
  }: SlackEventMiddlewareArgs<"function_executed"> & AllMiddlewareArgs) => {
    // A step acts for its workspace, not for a person.
    const subject = { ...subjectOf(client, context, body), userId: "" };
    const executionId = context.functionExecutionId ?? "";
    const log = deps.logger.child({ team: subject.teamId, step: callbackId, execution: executionId });
    const failWith: Reply = (args) => fail({ error: args.text ?? "" });
    const read = handler.read(inputs);
    if (!read.ok) {
      log.info({ problem: read.problem }, "workflow step refused: bad input");
      await safeRespond(failWith, log, { text: read.problem });
      return;
    }
    const req: StepRequest = {
      ...requestOf(deps, subject, log, client),
      respond: failWith,
      executionId,
      complete: async (outputs) => {
        await complete({ outputs });
      },
    };
    await answering(req, failWith, handler.what(read.value), async () => {
      const grant = await grantOf(req, handler.access, read.value, failWith);
      if (grant !== null) await handler.run(req, read.value, grant as LivestreamAllowed);
    });
  };
}
