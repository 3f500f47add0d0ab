import { configDefaults, defineConfig } from "vitest/config";

/**
 * Files whose bounds are about the bot's own pace while a burst runs inside one test (the other
 * profile's first message within 2 s of a flood, 300 acks before the first platform read): run
 * after the rest, one at a time, so the three other files of a busy two-core run do not starve
 * the test process that measures (docs/development.md, Tests).
 */
const ALONE = ["test/notify/flood-fairness.test.ts", "test/slack/acks-first.test.ts"];

export default defineConfig({
  test: {
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    reporters: ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "parallel",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...ALONE],
          // Most files wait on sockets, timers and child processes, not on the CPU: four at a time
          // on two cores take a third of the time of one at a time (docs/development.md, Tests).
          maxWorkers: 4,
          // One process per worker for its files, not one per file: each file imports most of the
          // bot (about 0.8 s of transform and import), and the files close what they start. Half
          // the suite's CPU time was imports (docs/development.md, Tests).
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "alone",
          include: ALONE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
