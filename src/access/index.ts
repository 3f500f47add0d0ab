export * from "./actions.js";
export * from "./authorize.js";
export * from "./budget.js";
export * from "./decision.js";
export * from "./door.js";
export * from "./link-kinds.js";
export * from "./managers.js";
export * from "./shared-reads.js";
