/**
 * What a pasted id turned out to be. Livestream and video links share one URL shape
 * (`/video/<id>`), so a pasted id is read as a livestream first and, only when the platform has
 * no livestream of that id, as a video: at most two reads. Once one of them answered, the id's
 * kind is remembered here, and the next paste of it costs one read. Per process, bounded (the
 * least recently used go first); data only, like the shared reads: who may see it is decided per
 * request.
 */

/** What a pasted id is on the platform. */
export type LinkKind = "livestream" | "video";

export class LinkKinds {
  private readonly kinds = new Map<string, LinkKind>();

  constructor(private readonly maxEntries = 10_000) {}

  /** The kind `id` was found to be, if it was. */
  get(id: string): LinkKind | undefined {
    const kind = this.kinds.get(id);
    if (kind !== undefined) {
      // Most recently used last.
      this.kinds.delete(id);
      this.kinds.set(id, kind);
    }
    return kind;
  }

  remember(id: string, kind: LinkKind): void {
    this.kinds.delete(id);
    this.kinds.set(id, kind);
    while (this.kinds.size > this.maxEntries) {
      const oldest = this.kinds.keys().next().value;
      if (oldest === undefined) break;
      this.kinds.delete(oldest);
    }
  }

  /** Ids held (tests: bounded). */
  get size(): number {
    return this.kinds.size;
  }
}
