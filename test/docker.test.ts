/**
 * The Docker image, checked statically: no Docker engine runs where this suite runs, so the
 * Dockerfile, .dockerignore and the "Running with Docker" section of docs/operations.md are parsed and checked
 * for the properties issue 6 asks for. Each check returns its problems as strings; the suite runs
 * every check on the real files (no problems expected) and on a mutated copy that breaks exactly
 * that property (a problem expected), so that no check can pass vacuously.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

const ROOT = join(import.meta.dirname, "..");
const read = (name: string) => readFileSync(join(ROOT, name), "utf8");

// ---------------------------------------------------------------------------------------------
// A tiny Dockerfile parser: one instruction per logical line (`\` continues it, comment lines
// inside a continuation are dropped, as Docker does), stages split at FROM.

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}
interface Stage {
  index: number;
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

function parseDockerfile(text: string): Stage[] {
  const instructions: Instruction[] = [];
  let current: { parts: string[]; line: number } | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith("#") || (trimmed === "" && current === undefined)) return;
    const continues = trimmed.endsWith("\\");
    const part = continues ? trimmed.slice(0, -1).trim() : trimmed;
    current ??= { parts: [], line: i + 1 };
    if (part !== "") current.parts.push(part);
    if (continues) return;
    const full = current.parts.join(" ");
    const m = /^(\S+)\s*(.*)$/s.exec(full);
    if (m) instructions.push({ keyword: (m[1] ?? "").toUpperCase(), args: m[2] ?? "", line: current.line });
    current = undefined;
  });
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === "FROM") {
      const words = ins.args.split(/\s+/).filter((w) => !w.startsWith("--"));
      const as = words.findIndex((w) => w.toLowerCase() === "as");
      stages.push({
        index: stages.length,
        image: words[0] ?? "",
        name: as > 0 ? words[as + 1] : undefined,
        instructions: [],
      });
    } else {
      stages.at(-1)?.instructions.push(ins);
    }
  }
  return stages;
}

const ofKind = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

/** `--flag=value` options at the start of an instruction's arguments, and what follows them. */
function options(args: string): { flags: Record<string, string>; rest: string } {
  const flags: Record<string, string> = {};
  let rest = args.trim();
  for (let m = /^--([\w-]+)(?:=(\S*))?\s*/.exec(rest); m; m = /^--([\w-]+)(?:=(\S*))?\s*/.exec(rest)) {
    flags[m[1] ?? ""] = m[2] ?? "";
    rest = rest.slice(m[0].length);
  }
  return { flags, rest };
}

/** Whitespace-separated words, with "…" and '…' quoting; exec form (a JSON array) as its items. */
function words(args: string): string[] {
  const trimmed = args.trim();
  if (trimmed.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed.map(String);
    } catch {
      // not exec form after all: fall through
    }
  }
  return [...trimmed.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
}

/** ENV in both forms: `ENV A=1 B="two"` and `ENV A 1`. */
function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const ins of ofKind(stage, "ENV")) {
    if (/^[\w.-]+=/.test(ins.args.trim())) {
      for (const w of words(ins.args)) {
        const eq = w.indexOf("=");
        if (eq > 0) env[w.slice(0, eq)] = w.slice(eq + 1);
      }
    } else {
      const m = /^(\S+)\s+(.*)$/.exec(ins.args.trim());
      if (m) env[m[1] ?? ""] = m[2] ?? "";
    }
  }
  return env;
}

/** The shell commands of a RUN, split at `&&`, `||`, `;` and `|`. */
const commands = (run: Instruction) =>
  run.args
    .split(/&&|\|\||;|\|/)
    .map((c) => c.trim())
    .filter(Boolean);

/** The npm commands a stage runs, in order, including those of the stage it is built FROM. */
function npmCommands(stages: Stage[], stage: Stage): string[] {
  const parent = stages.find((s) => s.index < stage.index && s.name === stage.image);
  const own = ofKind(stage, "RUN")
    .flatMap(commands)
    .filter((c) => /^npm\s/.test(c));
  return [...(parent ? npmCommands(stages, parent) : []), ...own];
}

const isNpmInstall = (c: string) => /^npm\s+(ci|install|i|add|isntall|clean-install|install-clean)\b/.test(c);
const omitsDev = (c: string) => /--omit[= ]dev\b|--production\b|--only[= ]prod/.test(c);

// ---------------------------------------------------------------------------------------------
// The checks. Each returns what is wrong (empty when right).

type Check<T> = (input: T) => string[];
const finalStage = (stages: Stage[]) => stages.at(-1) as Stage;
const LTS_NODE =
  /^node:(22|24)(\.\d+){0,2}-(bookworm-slim|bullseye-slim|trixie-slim|slim|alpine(\d+\.\d+)?)$/;

const dockerfileChecks: Record<string, Check<Stage[]>> = {
  "at least two stages": (stages) => (stages.length >= 2 ? [] : [`${stages.length} stage(s)`]),

  "the final stage is a Node LTS slim or alpine image": (stages) => {
    const image = finalStage(stages).image;
    return LTS_NODE.test(image) ? [] : [`final stage FROM ${image}`];
  },

  "the final stage runs as a non-root user": (stages) => {
    const user = ofKind(finalStage(stages), "USER").at(-1)?.args.trim();
    if (user === undefined) return ["no USER in the final stage (it would run as root)"];
    const name = user.split(":")[0] ?? "";
    return name === "" || name === "root" || name === "0" ? [`USER ${user}`] : [];
  },

  "HEALTHCHECK calls /healthz with node": (stages) => {
    const hc = ofKind(finalStage(stages), "HEALTHCHECK").at(-1);
    if (!hc) return ["no HEALTHCHECK in the final stage"];
    const cmd = options(hc.args).rest;
    const problems: string[] = [];
    if (!/^CMD\s/i.test(cmd)) problems.push(`HEALTHCHECK ${hc.args}`);
    if (!/\/healthz\b/.test(cmd)) problems.push("the health check does not call /healthz");
    if (!/^CMD\s+(\[\s*")?node\b/i.test(cmd)) problems.push("the health check does not run node");
    if (/\b(curl|wget)\b/.test(cmd)) problems.push("the slim image has no curl or wget");
    return problems;
  },

  "CMD runs node dist/index.js directly, in exec form": (stages) => {
    const final = finalStage(stages);
    const cmd = ofKind(final, "CMD").at(-1);
    if (!cmd) return ["no CMD in the final stage"];
    if (!cmd.args.trim().startsWith("[")) return [`CMD in shell form: ${cmd.args}`];
    const argv = words(cmd.args);
    const problems: string[] = [];
    if (argv[0] !== "node") problems.push(`CMD starts ${argv[0]}, not node`);
    if (!argv.slice(1).includes("dist/index.js")) problems.push("CMD does not run dist/index.js");
    if (ofKind(final, "ENTRYPOINT").length > 0) problems.push("an ENTRYPOINT wraps the CMD");
    return problems;
  },

  "the final stage gets node_modules from a stage without dev dependencies": (stages) => {
    const final = finalStage(stages);
    const copies = ofKind(final, "COPY").filter((c) => {
      const { rest } = options(c.args);
      const sources = words(rest).slice(0, -1);
      return sources.some((s) => /(^|\/)node_modules\/?$/.test(s));
    });
    if (copies.length === 0) return ["the final stage copies no node_modules"];
    const problems: string[] = [];
    for (const copy of copies) {
      const from = options(copy.args).flags.from;
      const source = stages.find(
        (s) => s.index < final.index && (s.name === from || String(s.index) === from),
      );
      if (!source) {
        problems.push(`node_modules copied from ${from ?? "the build context"}, not from a build stage`);
        continue;
      }
      // The last npm command that touched node_modules must leave production dependencies only.
      const last = npmCommands(stages, source)
        .filter((c) => isNpmInstall(c) || /^npm\s+prune\b/.test(c))
        .at(-1);
      if (last === undefined) problems.push(`stage ${source.name ?? source.index} installs nothing`);
      else if (!omitsDev(last)) problems.push(`stage ${source.name ?? source.index} ends with "${last}"`);
      if (source.image !== final.image && !stages.some((s) => s.name === source.image)) {
        problems.push(`native addons built on ${source.image} but run on ${final.image}`);
      }
    }
    for (const c of npmCommands(stages, final).filter(isNpmInstall)) {
      if (!omitsDev(c)) problems.push(`the final stage runs "${c}"`);
    }
    return problems;
  },

  "no build tools in the final stage": (stages) =>
    ofKind(finalStage(stages), "RUN")
      .filter(
        (r) =>
          /\b(apt-get|apt|apk)\s+(install|add)\b/.test(r.args) &&
          /\b(g\+\+|make|python3?|build-base|build-essential)\b/.test(r.args),
      )
      .map((r) => `build tools installed in the final stage: RUN ${r.args}`),

  "npm ci with the lock file, never npm install": (stages) => {
    const problems: string[] = [];
    for (const stage of stages) {
      const installs = npmCommands(stages, stage).filter(isNpmInstall);
      for (const c of installs) if (!/^npm\s+ci\b/.test(c)) problems.push(`"${c}" ignores the lock file`);
      const ownCi = ofKind(stage, "RUN")
        .flatMap(commands)
        .some((c) => /^npm\s+ci\b/.test(c));
      const copiesLock = ofKind(stage, "COPY").some((c) => /\bpackage-lock\.json\b|\s\.\s+\S+$/.test(c.args));
      if (ownCi && !copiesLock)
        problems.push(`stage ${stage.name ?? stage.index} runs npm ci without package-lock.json`);
    }
    return problems;
  },

  "EXPOSE 3000": (stages) =>
    ofKind(finalStage(stages), "EXPOSE").some((e) => words(e.args).some((p) => /^3000(\/tcp)?$/.test(p)))
      ? []
      : ["the final stage does not EXPOSE 3000"],

  "production defaults: NODE_ENV, WORKDIR /app and the sqlite store in /app/data": (stages) => {
    const final = finalStage(stages);
    const env = envOf(final);
    const problems: string[] = [];
    if (env.NODE_ENV !== "production") problems.push(`NODE_ENV=${env.NODE_ENV}`);
    if (ofKind(final, "WORKDIR").at(-1)?.args.trim() !== "/app") problems.push("WORKDIR is not /app");
    try {
      const store = loadConfig({ ...VALID_ENV, STORE_URL: env.STORE_URL }).store;
      if (store.kind !== "sqlite" || !store.path.startsWith("/app/data/")) {
        problems.push(`STORE_URL=${env.STORE_URL} is not a sqlite file in /app/data`);
      }
    } catch (err) {
      problems.push(String(err));
    }
    return problems;
  },

  "/app/data is a volume owned by the non-root user": (stages) => {
    const final = finalStage(stages);
    const user = ofKind(final, "USER").at(-1)?.args.trim().split(":")[0] ?? "root";
    const problems: string[] = [];
    const volume = final.instructions.findIndex(
      (i) => i.keyword === "VOLUME" && words(i.args).some((v) => v.replace(/\/$/, "") === "/app/data"),
    );
    if (volume < 0) problems.push("no VOLUME /app/data");
    const owned = final.instructions.findIndex(
      (i) =>
        (i.keyword === "RUN" &&
          /\/app\/data\b/.test(i.args) &&
          new RegExp(`\\bchown\\s+(-\\S+\\s+)*${user}\\b`).test(i.args)) ||
        (i.keyword === "COPY" &&
          options(i.args).flags.chown?.split(":")[0] === user &&
          /\/app\/data\b/.test(i.args)),
    );
    if (owned < 0) problems.push(`/app/data is not made and given to ${user}`);
    // Docker discards what a build step changes under a path once it is declared a VOLUME.
    if (volume >= 0 && owned > volume) problems.push("/app/data is chowned after VOLUME: the change is lost");
    return problems;
  },

  "STOPSIGNAL is SIGTERM": (stages) => {
    const sig = ofKind(finalStage(stages), "STOPSIGNAL").at(-1)?.args.trim();
    return sig === undefined || sig === "SIGTERM" || sig === "15" ? [] : [`STOPSIGNAL ${sig}`];
  },
};

// .dockerignore: the last matching pattern wins, `!` re-includes, a directory pattern covers its contents.
function dockerignore(text: string): (path: string) => boolean {
  const rules = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => {
      const negate = l.startsWith("!");
      const pattern = (negate ? l.slice(1) : l).replace(/^\/+|\/+$/g, "").replace(/^\.\//, "");
      const source = pattern
        .split(/(\*\*\/?|\*|\?)/)
        .map((part) => {
          if (part === "**/") return "(?:.*/)?";
          if (part === "**") return ".*";
          if (part === "*") return "[^/]*";
          if (part === "?") return "[^/]";
          return part.replace(/[.+^${}()|[\]\\]/g, "\\$&");
        })
        .join("");
      return { negate, re: new RegExp(`^${source}(?:/.*)?$`) };
    });
  return (path) => rules.reduce((ignored, r) => (r.re.test(path) ? !r.negate : ignored), false);
}

const dockerignoreChecks: Record<string, Check<{ ignore: string; dockerfile: Stage[] }>> = {
  "excludes node_modules, .git, dist, data, tests, logs and env files": ({ ignore }) => {
    const ignored = dockerignore(ignore);
    const paths = [
      "node_modules/better-sqlite3/package.json",
      ".git/HEAD",
      "dist/index.js",
      "data/bot.sqlite",
      "test/docker.test.ts",
      "bench/results/x.json",
      "npm-debug.log",
      ".env",
      ".env.production",
    ];
    return paths.filter((p) => !ignored(p)).map((p) => `${p} would be sent to the build`);
  },
  "keeps what the build copies": ({ ignore, dockerfile }) => {
    const ignored = dockerignore(ignore);
    const sources = dockerfile
      .flatMap((s) => ofKind(s, "COPY").filter((c) => options(c.args).flags.from === undefined))
      .flatMap((c) => words(options(c.args).rest).slice(0, -1));
    const problems = sources.filter((p) => ignored(p)).map((p) => `${p} is copied but ignored`);
    for (const p of sources) if (!existsSync(join(ROOT, p))) problems.push(`${p} does not exist`);
    return sources.length === 0 ? ["the Dockerfile copies nothing from the context"] : problems;
  },
};

// ---------------------------------------------------------------------------------------------
// README: the "Running with Docker" section, its fenced blocks and a tiny YAML reader for the
// compose example (maps, lists and scalars, by indentation; enough for a compose file).

/** Passes config validation: what the README's .env example must at least give. */
const VALID_ENV = {
  PUBLIC_URL: "https://bot.example.com",
  SLACK_SIGNING_SECRET: "s",
  SLACK_BOT_TOKEN: "xoxb-1",
  PLATFORM_CLIENT_ID: "id",
  PLATFORM_CLIENT_SECRET: "secret",
};

function dockerSection(readme: string): { body: string; next: string | undefined } | undefined {
  const start = readme.indexOf("\n## Running with Docker\n");
  if (start < 0) return undefined;
  const rest = readme.slice(start + 1);
  const end = rest.indexOf("\n## ", 1);
  const body = end < 0 ? rest : rest.slice(0, end);
  const next = end < 0 ? undefined : /^## (.*)$/m.exec(rest.slice(end + 1))?.[1];
  return { body, next };
}

function fenced(body: string, lang: string): string[] {
  return [...body.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)]
    .filter((m) => m[1] === lang)
    .map((m) => m[2] ?? "");
}

type Yaml = string | Yaml[] | { [key: string]: Yaml };

function parseYaml(text: string): Yaml {
  const lines = text
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, ""))
    .filter((l) => l.trim() !== "" && !l.trim().startsWith("#"))
    .map((l) => ({ indent: l.length - l.trimStart().length, text: l.trim() }));
  let i = 0;
  const scalar = (s: string): Yaml => {
    const t = s.trim();
    if (t.startsWith("[")) return words(t.replace(/'/g, '"')).map(String);
    return t.replace(/^"(.*)"$|^'(.*)'$/, "$1$2");
  };
  const block = (indent: number): Yaml => {
    const first = lines[i];
    if (!first || first.indent < indent) return "";
    if (first.text.startsWith("- ")) {
      const list: Yaml[] = [];
      while (lines[i] && lines[i]?.indent === first.indent && lines[i]?.text.startsWith("- ")) {
        list.push(scalar(lines[i]?.text.slice(2) ?? ""));
        i++;
      }
      return list;
    }
    const map: { [key: string]: Yaml } = {};
    while (lines[i] && lines[i]?.indent === first.indent) {
      const m = /^([^:]+):\s*(.*)$/.exec(lines[i]?.text ?? "");
      i++;
      if (!m) continue;
      const key = (m[1] ?? "").trim();
      map[key] = m[2] ? scalar(m[2]) : block(first.indent + 1);
    }
    return map;
  };
  return block(0);
}

const get = (y: Yaml | undefined, ...path: string[]): Yaml | undefined =>
  path.reduce<Yaml | undefined>(
    (node, key) => (node && typeof node === "object" && !Array.isArray(node) ? node[key] : undefined),
    y,
  );
const asText = (y: Yaml | undefined) =>
  y === undefined ? "" : typeof y === "string" ? y : Array.isArray(y) ? y.join(" ") : JSON.stringify(y);

/** Env-file lines (`NAME=value`, comments skipped) as a record. */
const envFile = (text: string) =>
  Object.fromEntries(
    text
      .split("\n")
      .map((l) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(l.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1] ?? "", m[2] ?? ""]),
  );

const readmeChecks: Record<string, Check<string>> = {
  'a "## Running with Docker" section in docs/operations.md, followed by another section': (readme) => {
    const s = dockerSection(readme);
    if (!s) return ["no section"];
    return s.next !== undefined ? [] : ["the section runs to the end of the page"];
  },

  "docker build, and docker run with --env-file, the port and the data volume": (readme) => {
    const body = dockerSection(readme)?.body ?? "";
    const sh = fenced(body, "sh").join("\n");
    const problems: string[] = [];
    if (!/^docker build -t platform-slack-bot \.$/m.test(sh))
      problems.push("no `docker build -t platform-slack-bot .`");
    const run = sh.split("\n").find((l) => l.startsWith("docker run "));
    if (!run) return [...problems, "no `docker run`"];
    if (!/--env-file\s+\S+/.test(run)) problems.push("docker run without --env-file");
    if (!/-p\s+\d+:3000\b/.test(run)) problems.push("docker run does not publish port 3000");
    if (!/-v\s+\S+:\/app\/data\b/.test(run)) problems.push("docker run does not mount /app/data");
    if (!/\splatform-slack-bot$/.test(run.trim())) problems.push("docker run does not run the built image");
    return problems;
  },

  "an example .env with every required variable, placeholders only": (readme) => {
    const body = dockerSection(readme)?.body ?? "";
    const example = fenced(body, "sh").find((b) => /^[A-Z_]+=/m.test(b));
    if (!example) return ["no .env example"];
    const env = envFile(example);
    const problems: string[] = [];
    // The variables the configuration itself says are required.
    let required: string[] = [];
    try {
      loadConfig({});
    } catch (err) {
      if (err instanceof ConfigError) required = err.problems.map((p) => p.split(":")[0] ?? "");
    }
    if (required.length === 0) problems.push("could not learn the required variables from loadConfig({})");
    for (const name of required) if (!env[name]) problems.push(`${name} is missing from the .env example`);
    try {
      loadConfig(env);
    } catch (err) {
      problems.push(`the .env example does not pass the configuration check: ${String(err)}`);
    }
    for (const [name, value] of Object.entries(env)) {
      if (/^xox[bpa]-\d|^xapp-\d|[A-Za-z0-9+/]{32,}/.test(value))
        problems.push(`${name} looks like a real secret`);
    }
    return problems;
  },

  "a compose example: two bot replicas on redis://, redis:7 with AOF and a volume": (readme) => {
    const body = dockerSection(readme)?.body ?? "";
    const yaml = fenced(body, "yaml").find((b) => /^services:/m.test(b));
    if (!yaml) return ["no compose example (a yaml block with services:)"];
    const compose = parseYaml(yaml);
    const services = get(compose, "services");
    if (!services || typeof services !== "object" || Array.isArray(services))
      return ["services is not a map"];
    const problems: string[] = [];
    const redis = services.redis;
    if (!redis) problems.push("no redis service");
    if (!/^redis:7(\.|-|$)/.test(asText(get(redis, "image")))) problems.push("redis is not redis:7");
    if (!/--appendonly\s+yes\b/.test(asText(get(redis, "command")))) problems.push("redis runs without AOF");
    if (!asText(get(redis, "volumes")).includes(":/data")) problems.push("redis has no volume on /data");
    const bots = Object.entries(services).filter(([name]) => name !== "redis");
    let replicas = 0;
    for (const [name, bot] of bots) {
      const env = get(bot, "environment");
      const storeUrl = Array.isArray(env)
        ? (env
            .map(String)
            .find((e) => e.startsWith("STORE_URL="))
            ?.slice("STORE_URL=".length) ?? "")
        : asText(get(env, "STORE_URL"));
      if (!/^redis:\/\/redis:6379\b/.test(storeUrl)) {
        problems.push(`${name}: STORE_URL is "${storeUrl}", not redis://redis:6379`);
        continue;
      }
      try {
        if (loadConfig({ ...VALID_ENV, STORE_URL: storeUrl }).store.kind !== "redis")
          problems.push(`${name}: not redis`);
      } catch (err) {
        problems.push(`${name}: ${String(err)}`);
      }
      replicas += Number(asText(get(bot, "deploy", "replicas")) || "1");
    }
    if (replicas < 2) problems.push(`${replicas} bot replica(s)`);
    if (!/volumes:\s*\n\s+\S+:/.test(yaml.slice(yaml.search(/^volumes:/m))))
      problems.push("no named volume declared");
    return problems;
  },

  "notes: TRUST_PROXY behind your own proxy, and no Docker engine here": (readme) => {
    const body = dockerSection(readme)?.body ?? "";
    const problems: string[] = [];
    if (!/TRUST_PROXY=true[^.]*only[^.]*proxy/s.test(body)) problems.push("no TRUST_PROXY note");
    if (!/No Docker engine/i.test(body) || !body.includes("test/docker.test.ts")) {
      problems.push("no note that the image is checked statically by test/docker.test.ts");
    }
    return problems;
  },
};

// ---------------------------------------------------------------------------------------------

const DOCKERFILE = read("Dockerfile");
const DOCKERIGNORE = read(".dockerignore");
/**
 * The "Running with Docker" section of the page that documents running the image (the README
 * links to it), cut out with the heading that follows it, so every check and mutation below
 * works on that section alone.
 */
const README = ((page: string) => {
  const s = dockerSection(page);
  return s ? `\n${s.body}\n## ${s.next ?? "(end)"}\n` : page;
})(read("docs/operations.md"));

/** Applies a text change, making sure it changed something (a no-op mutation would prove nothing). */
function mutate(text: string, from: string | RegExp, to: string): string {
  const out = text.replace(from, to);
  expect(out, `mutation ${String(from)} does not apply`).not.toBe(text);
  return out;
}

describe("Dockerfile", () => {
  const stages = parseDockerfile(DOCKERFILE);

  it("parses into stages with continuations joined", () => {
    expect(stages.map((s) => s.name)).toEqual(["build", "runtime"]);
    const hc = ofKind(finalStage(stages), "HEALTHCHECK")[0];
    expect(hc?.args).toMatch(/--retries=\d+ CMD node -e/);
  });

  it.each(Object.keys(dockerfileChecks))("%s", (name) => {
    expect(dockerfileChecks[name]?.(stages)).toEqual([]);
  });

  // One mutation per check, each breaking exactly the property that check guards.
  const mutations: [string, (t: string) => string][] = [
    ["at least two stages", (t) => mutate(t, /^FROM [^\n]* AS build\n[\s\S]*?(?=^FROM )/m, "")],
    [
      "the final stage is a Node LTS slim or alpine image",
      (t) => mutate(t, /(FROM )node:24\S*( AS runtime)/, "$1node:23-slim$2"),
    ],
    [
      "the final stage is a Node LTS slim or alpine image",
      (t) => mutate(t, /(FROM )node:24\S*( AS runtime)/, "$1node:24$2"),
    ],
    ["the final stage runs as a non-root user", (t) => mutate(t, /^USER node$/m, "USER root")],
    ["the final stage runs as a non-root user", (t) => mutate(t, /^USER node$/m, "USER 0:0")],
    ["the final stage runs as a non-root user", (t) => mutate(t, /^USER node\n/m, "")],
    ["HEALTHCHECK calls /healthz with node", (t) => mutate(t, "/healthz", "/readyz")],
    [
      "HEALTHCHECK calls /healthz with node",
      (t) => mutate(t, /CMD node -e .*$/m, "CMD curl -f http://127.0.0.1:3000/healthz"),
    ],
    ["HEALTHCHECK calls /healthz with node", (t) => mutate(t, /^HEALTHCHECK[\s\S]*?\n(?=STOPSIGNAL)/m, "")],
    [
      "CMD runs node dist/index.js directly, in exec form",
      (t) => mutate(t, /\["node", [^\]\n]*"dist\/index\.js"\]$/m, '["npm", "start"]'),
    ],
    [
      "CMD runs node dist/index.js directly, in exec form",
      (t) => mutate(t, /^CMD \["node", [^\]\n]*"dist\/index\.js"\]$/m, "CMD node dist/index.js"),
    ],
    [
      "CMD runs node dist/index.js directly, in exec form",
      (t) => mutate(t, '"dist/index.js"', '"src/index.ts"'),
    ],
    ["CMD runs node dist/index.js directly, in exec form", (t) => `${t}ENTRYPOINT ["sh", "-c"]\n`],
    [
      "the final stage gets node_modules from a stage without dev dependencies",
      (t) => mutate(t, / \\\n\s*&& npm prune --omit=dev/, ""),
    ],
    [
      "the final stage gets node_modules from a stage without dev dependencies",
      (t) => mutate(t, /^COPY --from=build \/app\/node_modules .*\n/m, ""),
    ],
    [
      "the final stage gets node_modules from a stage without dev dependencies",
      (t) => mutate(t, "COPY --from=build /app/node_modules", "COPY node_modules"),
    ],
    [
      "the final stage gets node_modules from a stage without dev dependencies",
      (t) => mutate(t, /(&& npm prune --omit=dev)/, "$1 && npm ci"),
    ],
    [
      "the final stage gets node_modules from a stage without dev dependencies",
      (t) => mutate(t, /node:24-bookworm-slim AS build/, "node:24-alpine AS build"),
    ],
    [
      "the final stage gets node_modules from a stage without dev dependencies",
      (t) => mutate(t, /^USER node$/m, "RUN npm ci\nUSER node"),
    ],
    [
      "no build tools in the final stage",
      (t) =>
        mutate(t, /^USER node$/m, "RUN apt-get update && apt-get install -y g++ make python3\nUSER node"),
    ],
    ["npm ci with the lock file, never npm install", (t) => mutate(t, /^RUN npm ci$/m, "RUN npm install")],
    [
      "npm ci with the lock file, never npm install",
      (t) => mutate(t, "COPY package.json package-lock.json ./", "COPY package.json ./"),
    ],
    ["EXPOSE 3000", (t) => mutate(t, /^EXPOSE 3000$/m, "EXPOSE 8080")],
    [
      "production defaults: NODE_ENV, WORKDIR /app and the sqlite store in /app/data",
      (t) => mutate(t, "NODE_ENV=production", "NODE_ENV=development"),
    ],
    [
      "production defaults: NODE_ENV, WORKDIR /app and the sqlite store in /app/data",
      (t) => mutate(t, "sqlite:///app/data/", "sqlite://./data/"),
    ],
    [
      "production defaults: NODE_ENV, WORKDIR /app and the sqlite store in /app/data",
      (t) => mutate(t, /(AS runtime[\s\S]*?)WORKDIR \/app/, "$1WORKDIR /srv"),
    ],
    ["/app/data is a volume owned by the non-root user", (t) => mutate(t, /^VOLUME .*\n/m, "")],
    [
      "/app/data is a volume owned by the non-root user",
      (t) => mutate(t, " && chown node:node /app/data", ""),
    ],
    [
      "/app/data is a volume owned by the non-root user",
      (t) =>
        mutate(
          mutate(t, /^RUN mkdir.*\n/m, ""),
          /^(VOLUME .*\n)/m,
          "$1RUN mkdir -p /app/data && chown node:node /app/data\n",
        ),
    ],
    ["STOPSIGNAL is SIGTERM", (t) => mutate(t, "STOPSIGNAL SIGTERM", "STOPSIGNAL SIGKILL")],
  ];

  it.each(mutations)("catches a break of: %s", (name, change) => {
    expect(dockerfileChecks[name]?.(parseDockerfile(change(DOCKERFILE)))).not.toEqual([]);
  });

  it("has a mutation for every check", () => {
    expect(new Set(mutations.map(([name]) => name))).toEqual(new Set(Object.keys(dockerfileChecks)));
  });
});

describe(".dockerignore", () => {
  const input = { ignore: DOCKERIGNORE, dockerfile: parseDockerfile(DOCKERFILE) };

  it("matches like Docker: last rule wins, directories cover their contents", () => {
    const ignored = dockerignore("node_modules\n**/*.log\n.env*\n!.env.example\n");
    expect([
      ignored("node_modules/a/b"),
      ignored("a/b.log"),
      ignored(".env"),
      ignored(".env.example"),
    ]).toEqual([true, true, true, false]);
    expect(ignored("src/index.ts")).toBe(false);
  });

  it.each(Object.keys(dockerignoreChecks))("%s", (name) => {
    expect(dockerignoreChecks[name]?.(input)).toEqual([]);
  });

  const mutations: [string, (t: string) => string][] = [
    [
      "excludes node_modules, .git, dist, data, tests, logs and env files",
      (t) => mutate(t, /^node_modules$/m, ""),
    ],
    ["excludes node_modules, .git, dist, data, tests, logs and env files", (t) => mutate(t, /^\.git$/m, "")],
    ["excludes node_modules, .git, dist, data, tests, logs and env files", (t) => mutate(t, /^dist$/m, "")],
    ["excludes node_modules, .git, dist, data, tests, logs and env files", (t) => mutate(t, /^\.env$/m, "")],
    ["excludes node_modules, .git, dist, data, tests, logs and env files", (t) => `${t}!.env\n`],
    ["keeps what the build copies", (t) => `${t}src\n`],
    ["keeps what the build copies", (t) => `${t}*.json\n`],
  ];

  it.each(mutations)("catches a break of: %s", (name, change) => {
    expect(dockerignoreChecks[name]?.({ ...input, ignore: change(DOCKERIGNORE) })).not.toEqual([]);
  });

  it("catches a COPY of a file that does not exist", () => {
    const dockerfile = parseDockerfile(mutate(DOCKERFILE, "tsconfig.build.json", "tsconfig.prod.json"));
    expect(dockerignoreChecks["keeps what the build copies"]?.({ ...input, dockerfile })).not.toEqual([]);
  });
});

describe("docs/operations.md: Running with Docker", () => {
  it.each(Object.keys(readmeChecks))("%s", (name) => {
    expect(readmeChecks[name]?.(README)).toEqual([]);
  });

  const mutations: [string, (t: string) => string][] = [
    [
      'a "## Running with Docker" section in docs/operations.md, followed by another section',
      (t) => mutate(t, "## Running with Docker\n", "## Docker\n"),
    ],
    [
      "docker build, and docker run with --env-file, the port and the data volume",
      (t) => mutate(t, "docker run --env-file .env ", "docker run "),
    ],
    [
      "docker build, and docker run with --env-file, the port and the data volume",
      (t) => mutate(t, "-v bot-data:/app/data ", ""),
    ],
    [
      "docker build, and docker run with --env-file, the port and the data volume",
      (t) => mutate(t, "docker build -t platform-slack-bot .", "docker build ."),
    ],
    [
      "an example .env with every required variable, placeholders only",
      (t) => mutate(t, /^PLATFORM_CLIENT_SECRET=.*\n/m, ""),
    ],
    [
      "an example .env with every required variable, placeholders only",
      (t) => mutate(t, "PUBLIC_URL=https://", "PUBLIC_URL=http://"),
    ],
    [
      "an example .env with every required variable, placeholders only",
      (t) => mutate(t, "SLACK_BOT_TOKEN=xoxb-your-bot-token", "SLACK_BOT_TOKEN=xoxb-1234-5678-abcdef"),
    ],
    [
      "a compose example: two bot replicas on redis://, redis:7 with AOF and a volume",
      (t) => mutate(t, /^ {2}redis:$/m, "  cache:"),
    ],
    [
      "a compose example: two bot replicas on redis://, redis:7 with AOF and a volume",
      (t) => mutate(t, "STORE_URL: redis://redis:6379", "STORE_URL: sqlite:///app/data/bot.sqlite"),
    ],
    [
      "a compose example: two bot replicas on redis://, redis:7 with AOF and a volume",
      (t) => mutate(t, /replicas: 2/, "replicas: 1"),
    ],
    [
      "a compose example: two bot replicas on redis://, redis:7 with AOF and a volume",
      (t) => mutate(t, '"--appendonly", "yes"', '"--appendonly", "no"'),
    ],
    [
      "a compose example: two bot replicas on redis://, redis:7 with AOF and a volume",
      (t) => mutate(t, "image: redis:7", "image: redis:6"),
    ],
    [
      "a compose example: two bot replicas on redis://, redis:7 with AOF and a volume",
      (t) => mutate(t, "      - redis-data:/data\n", ""),
    ],
    [
      "notes: TRUST_PROXY behind your own proxy, and no Docker engine here",
      (t) => mutate(t, /Set\n?\s*`TRUST_PROXY=true` only/, "Set `TRUST_PROXY=true`"),
    ],
    [
      "notes: TRUST_PROXY behind your own proxy, and no Docker engine here",
      (t) => mutate(t, /No Docker engine/, "A Docker engine"),
    ],
  ];

  it.each(mutations)("catches a break of: %s", (name, change) => {
    expect(readmeChecks[name]?.(change(README))).not.toEqual([]);
  });

  it("has a mutation for every check", () => {
    expect(new Set(mutations.map(([name]) => name))).toEqual(new Set(Object.keys(readmeChecks)));
  });

  it("reads the compose example as a compose file", () => {
    const yaml = fenced(dockerSection(README)?.body ?? "", "yaml")[0] ?? "";
    const compose = parseYaml(yaml);
    expect(asText(get(compose, "services", "redis", "image"))).toBe("redis:7");
    expect(get(compose, "services", "redis", "command")).toEqual([
      "redis-server",
      "--appendonly",
      "yes",
      "--appendfsync",
      "always",
    ]);
    expect(asText(get(compose, "services", "bot", "deploy", "replicas"))).toBe("2");
  });
});
