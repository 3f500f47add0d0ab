/** Reading and writing one validated document of the store: what every repository builds on. */
import type { z } from "zod";
import type { Logger } from "../log.js";
import { StoreCorruptError } from "./errors.js";
import type { Store } from "./keyv.js";

export class Documents {
  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
  ) {}

  /** The validated document at `key`, or undefined when there is none. */
  async read<S extends z.ZodType>(key: string, schema: S): Promise<z.output<S> | undefined> {
    let raw: unknown;
    try {
      raw = await this.store.run(`get ${key}`, () => this.store.keyv.get(key));
    } catch (err) {
      if (err instanceof StoreCorruptError) throw this.corrupt(key, err.reason, err);
      throw err;
    }
    if (raw === undefined) return undefined;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const reason = parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join(".") || "(value)"}: ${i.message}`)
        .join("; ");
      throw this.corrupt(key, `unexpected shape (${reason})`, parsed.error);
    }
    return parsed.data;
  }

  async write(key: string, value: unknown): Promise<void> {
    await this.store.run(`set ${key}`, async () => {
      await this.store.keyv.set(key, value);
    });
  }

  async remove(key: string): Promise<void> {
    await this.store.run(`delete ${key}`, async () => {
      await this.store.keyv.delete(key);
    });
  }

  private corrupt(key: string, reason: string, cause: unknown): StoreCorruptError {
    this.logger.error({ key, reason }, "store value is corrupt; it is left as is for inspection");
    return new StoreCorruptError(key, reason, { cause });
  }
}
