/**
 * A flood on one callback, as a misbehaving sender or whoever holds a leaked callback URL would
 * send it: about half of them valid deliveries for made-up video ids (`xfl…`, which the sandbox does not
 * have), the rest bodies that are not deliveries and hostile strings. Deterministic (seeded), so a
 * failure can be replayed. Used by the flood tests and the bench's flood row.
 */
import { request } from "undici";

/** A small deterministic generator, so a failure can be replayed. */
function prng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const HOSTILE = [
  "<!channel>",
  "<!everyone> <@U0ADMIN>",
  "*bold* _it_ ~x~ `code` ```block```",
  "<https://evil.example|click>",
  "\u202e\u0000\ufeff",
  "😀".repeat(100),
  "x".repeat(5_000),
];

/** The n-th body of the flood: about half valid deliveries for made-up ids, the rest refused. */
export function floodBody(n: number, rnd: () => number, profileId: string): string {
  const videoId = `xfl${n.toString(36).padStart(4, "0")}`;
  const hostile = HOSTILE[Math.floor(rnd() * HOSTILE.length)] ?? "";
  const now = Date.now();
  switch (n % 10) {
    case 0:
    case 1:
      return JSON.stringify({
        type: "video.created",
        timestamp: now,
        data: { owner_id: profileId, video_id: videoId },
      });
    case 2:
      return JSON.stringify({
        type: "video.format.processing",
        timestamp: now,
        data: {
          owner_id: profileId,
          video_id: videoId,
          preset_name: hostile.slice(0, 100),
          status: "processing",
          progress: 7,
        },
      });
    case 3:
      return JSON.stringify({
        type: "video.format.error",
        timestamp: now,
        data: { owner_id: profileId, video_id: videoId, preset_name: "720p", status: "error", note: hostile },
      });
    case 4:
      return "{not json";
    case 5:
      return JSON.stringify({ type: 42, timestamp: now, data: null });
    case 6:
      return `{"type":"video.created","timestamp":${now},"data":${"[".repeat(3_000)}${"]".repeat(3_000)}}`;
    case 7:
      return JSON.stringify({
        type: "video.created",
        timestamp: 0,
        data: { owner_id: profileId, video_id: videoId },
      });
    case 8:
      return JSON.stringify({
        type: hostile,
        timestamp: now,
        data: { owner_id: profileId, video_id: hostile },
      });
    default:
      return JSON.stringify({
        type: "video.published",
        timestamp: now,
        data: { owner_id: profileId, video_id: videoId },
      });
  }
}

/** Posts the bodies (1,000 by default), 32 at a time, as fast as the bot answers; returns the statuses. */
export async function floodCallback(url: string, profileId: string, bodies = 1_000): Promise<number[]> {
  const rnd = prng(26);
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < bodies) {
        const n = next++;
        const res = await request(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: floodBody(n, rnd, profileId),
        });
        await res.body.dump();
        statuses.push(res.statusCode);
      }
    }),
  );
  return statuses;
}
