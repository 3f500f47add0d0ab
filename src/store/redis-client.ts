/** The Redis client type the store, its scripts and compare-and-set share (a leaf: no import of src/). */
import type { RedisClientType } from "@keyv/redis";

export type RedisClient = RedisClientType;
