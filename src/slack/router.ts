/**
 * One lookup instead of every listener's own chain. For each request, Bolt runs the middleware
 * chain of every registered listener (a copy of the request's arguments and a promise each) to
 * find the one that matches: with twenty listeners that cost more than the rest of Bolt's work
 * before the ack. So the app's listeners registered by name (a command, an action id, a view's
 * callback id, an event type: all of ours) are kept in maps, and one global middleware, last in
 * the chain, calls the one that matches, with the arguments Bolt would have given it. Anything
 * registered otherwise (a pattern, constraints, listener middleware) goes to Bolt as before, and a
 * request no name matches goes on to Bolt's own listeners.
 */
import type { AnyMiddlewareArgs, App, Middleware } from "@slack/bolt";

type Listener = (args: AnyMiddlewareArgs & { next: () => void }) => Promise<void> | void;

const KINDS = ["command", "action", "view", "event"] as const;
type Kind = (typeof KINDS)[number];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** What Bolt would match a listener registered with a plain name on: the request's kind and name. */
function nameOf(body: unknown): { kind: Kind; name: string } | undefined {
  if (!isRecord(body)) return undefined;
  if (typeof body.command === "string") return { kind: "command", name: body.command };
  if (body.type === "block_actions" && Array.isArray(body.actions)) {
    // Bolt's `app.action(id)` matches the first action of the payload.
    const first: unknown = body.actions[0];
    return isRecord(first) && typeof first.action_id === "string"
      ? { kind: "action", name: first.action_id }
      : undefined;
  }
  if (body.type === "view_submission" && isRecord(body.view) && typeof body.view.callback_id === "string")
    return { kind: "view", name: body.view.callback_id };
  if (body.type === "event_callback" && isRecord(body.event) && typeof body.event.type === "string")
    return { kind: "event", name: body.event.type };
  return undefined;
}

const noop = () => {};

/**
 * `app` for registering listeners: its `command`, `action`, `view` and `event` keep a listener
 * registered by name in the router; everything else is `app` itself. Call before any listener is
 * registered, after the other global middleware (the router's is the last one).
 */
export function routedApp(app: App): App {
  const listeners: Record<Kind, Map<string, Listener>> = {
    command: new Map(),
    action: new Map(),
    view: new Map(),
    event: new Map(),
  };
  const route: Middleware<AnyMiddlewareArgs> = async (args) => {
    const n = nameOf(args.body);
    const listener = n && listeners[n.kind].get(n.name);
    if (!listener) return args.next();
    // As Bolt calls a listener: the request's arguments, and a `next` that does nothing.
    await listener({ ...args, next: noop });
  };
  app.use(route);
  const register =
    (kind: Kind, bolt: (...args: unknown[]) => unknown) =>
    (...args: unknown[]): unknown => {
      const [name, listener, ...more] = args;
      if (typeof name !== "string" || typeof listener !== "function" || more.length > 0) return bolt(...args);
      if (listeners[kind].has(name)) throw new Error(`two listeners for the ${kind} "${name}"`);
      listeners[kind].set(name, listener as Listener);
      return undefined;
    };
  const own = new Map<PropertyKey, unknown>(
    KINDS.map((k) => [k, register(k, (...args) => Reflect.apply(app[k], app, args))]),
  );
  return new Proxy(app, {
    get: (target, prop, receiver) => (own.has(prop) ? own.get(prop) : Reflect.get(target, prop, receiver)),
  });
}
