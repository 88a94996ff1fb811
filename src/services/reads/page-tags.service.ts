/**
 * The fast 304 (docs/DECISIONS.md, "Revalidation without reading"): the ETag sent for a page is
 * remembered under its tag's parameters, the end its rows were cut at and its write watermark
 * (watermarks.repository.ts), read in the same statement as its rows. A revalidation whose
 * watermark is unchanged is answered from that, without reading or hashing the rows; a 200 of a
 * page whose tag is remembered sends it unhashed. The tag itself stays the content hash of what was sent.
 */
import { createHash } from 'node:crypto';
import type { WatermarksRepository } from '../../db/watermarks.repository';
import type { Marked, WatermarkScope } from './read-plan';
import type { TagCache } from './tag-cache';

/** What a 304 repeats of the response it stands for. */
export interface RememberedTag {
  tag: string;
  /** `X-Next-Start` of a CSV or dataframe page (JSON carries it in the body: null). */
  nextStart: string | null;
}

/**
 * A page read through its watermark: a 304's tag, or the page with either the tag already
 * remembered for it (`known`: its bytes need no hashing) or a way to remember the tag it is sent with.
 */
export type PageRead<P> = { notModified: RememberedTag } | { page: P; known?: RememberedTag; remember?: (tag: RememberedTag) => void };

export class PageTags {
  constructor(
    /** The watermarks of the data reads (read replicas when configured). */
    private readonly watermarks: Pick<WatermarksRepository, 'read'>,
    private readonly cache: TagCache,
    /** The primary's watermarks, for `bumpAll`. */
    private readonly primary: Pick<WatermarksRepository, 'bumpEpoch'>,
  ) {}

  /** Move every page's watermark (`mds watermarks bump`: writes made outside the service). Returns the new epoch. */
  bumpAll(): Promise<string> {
    return this.primary.bumpEpoch();
  }

  get cacheKind(): TagCache['kind'] {
    return this.cache.kind;
  }

  /**
   * The page, or the tag remembered for it when `holds` says the client has that one. With no
   * scope (a page that cannot be proved unchanged) the page is read as it is. A revalidation
   * reads the watermark alone first: when the tag remembered at it is the client's, a 304 and
   * nothing more. Otherwise the page is read with its watermark in one statement (one snapshot),
   * so the tag of what is sent may always be remembered under that watermark, or, when one is
   * remembered already, is that one.
   */
  async read<P>(params: string, scope: WatermarkScope | null, holds: ((tag: string) => boolean) | null, read: () => Promise<Marked<P>>): Promise<PageRead<P>> {
    if (scope === null) return { page: (await read()).page };
    let before: { mark: string; remembered: RememberedTag | null } | null = null;
    if (holds !== null) {
      const mark = await this.watermarks.read(scope);
      // A cache never rejects (a failure is a miss).
      const remembered = decode(await this.cache.get(keyOf(params, scope, mark)));
      if (remembered !== null && holds(remembered.tag)) return { notModified: remembered };
      before = { mark, remembered };
    }
    const { page, mark } = await read();
    if (mark === null) return { page };
    const key = keyOf(params, scope, mark);
    const known = before !== null && before.mark === mark ? before.remembered : decode(await this.cache.get(key));
    return known !== null ? { page, known } : { page, remember: (t: RememberedTag) => void this.cache.set(key, encode(t)) };
  }
}

function keyOf(params: string, scope: WatermarkScope, mark: string): string {
  return createHash('sha256').update(params).update('\0').update(String(scope.endMs)).update('\0').update(mark).digest('base64url');
}

const encode = (t: RememberedTag) => (t.nextStart === null ? t.tag : `${t.tag} ${t.nextStart}`);

function decode(value: string | null): RememberedTag | null {
  if (value === null) return null;
  const space = value.indexOf(' ');
  return space < 0 ? { tag: value, nextStart: null } : { tag: value.slice(0, space), nextStart: value.slice(space + 1) };
}
