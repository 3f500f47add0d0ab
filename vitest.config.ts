import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    // Most files wait on sockets, timers and child processes, not on the CPU: four at a time on
    // two cores take a third of the time of one at a time (docs/development.md, Tests).
    maxWorkers: 4,
    reporters: ["default"],
  },
});
