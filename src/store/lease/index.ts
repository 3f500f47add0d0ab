/** Leases shared by the outbox, the digest log and the watch schedule (see claim.ts). */
export { claimArgs, claimFromHeap, claimScript } from "./claim.js";
export { type DueEntry, DueHeap } from "./heap.js";
export { isNoScript, runScript, type Script, script } from "./script.js";
