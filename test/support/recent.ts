/**
 * A delivery time the route accepts (src/deliveries/body-limits.ts: at most 7 days old, 5 minutes
 * ahead): an hour before the test run started. Tests that need fixed, ordered timestamps count
 * from it.
 */
export const RECENT = Date.now() - 3_600_000;
