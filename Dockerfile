# syntax=docker/dockerfile:1
# platform-slack-bot: see "Running with Docker" in README.md.
# No Docker engine runs in this repository's CI; test/docker.test.ts checks this file statically.

# ---- build: install everything (better-sqlite3 compiles its native addon), compile, drop dev deps ----
FROM node:24-bookworm-slim AS build
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build \
  && npm prune --omit=dev

# ---- runtime: production dependencies and dist/ only, no build tools, non-root ----
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    STORE_URL=sqlite:///app/data/bot.sqlite
WORKDIR /app
# package.json is needed at run time: its "type": "module" makes dist/*.js ES modules.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
# Memory, so that the bot stays within a 128 MB container (bench/README.md):
#  - a young generation of 2 MB semi-spaces (V8's default is 16): the bot's objects are small and
#    short-lived;
#  - the old generation grows by 30 % (at least 8 MB) past what the last full collection kept,
#    instead of up to 4 times on a machine with a lot of memory: a burst of commands (objects that
#    outlive the small young generation) is collected as it goes, not left to pile up;
#  - WebAssembly (the HTTP parser of the platform client) runs on the baseline compiler only: the
#    optimizing compiler needs tens of MB for a few hundred ms to compile the parser, for no
#    gain with the platform's small answers.
# The bench starts the compiled bot with the flags of this line.
CMD ["node", "--max-semi-space-size=2", "--heap-growing-percent=30", "--liftoff-only", "dist/index.js"]
