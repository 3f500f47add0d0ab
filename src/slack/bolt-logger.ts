/** Bolt's Logger interface on top of pino, so Bolt's own lines get the same redaction. */
import { type Logger as BoltLogger, LogLevel } from "@slack/bolt";
import type { Logger } from "../log.js";

const TO_PINO: Record<LogLevel, string> = {
  [LogLevel.DEBUG]: "debug",
  [LogLevel.INFO]: "info",
  [LogLevel.WARN]: "warn",
  [LogLevel.ERROR]: "error",
};

export function boltLogger(base: Logger): BoltLogger {
  let log = base.child({ component: "bolt" });
  let level = LogLevel.INFO;
  const text = (msg: unknown[]) => msg.map((m) => (typeof m === "string" ? m : JSON.stringify(m))).join(" ");
  return {
    debug: (...msg) => log.debug(text(msg)),
    info: (...msg) => log.info(text(msg)),
    warn: (...msg) => log.warn(text(msg)),
    error: (...msg) => log.error(text(msg)),
    setLevel: (l) => {
      level = l;
      log.level = TO_PINO[l] ?? "info";
    },
    getLevel: () => level,
    setName: (name) => {
      log = base.child({ component: name });
    },
  };
}
