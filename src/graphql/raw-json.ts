/**
 * Parts of a GraphQL response written as bytes by their resolvers (a candle page's `data` or
 * `columns`, encoding/json-rows.ts) instead of objects per row for Apollo's JSON.stringify: on
 * 10,000 rows the objects, their stringify and their garbage cost more than the read. A resolver
 * registers its bytes at its response path and returns a placeholder, a token replaces that
 * before serializing, and the body is sent with the bytes in the token's place. Only plain
 * selections (fields, aliases); fragments, directives and `__typename` resolve as objects.
 */
import { randomBytes } from 'node:crypto';
import { Kind, type FieldNode, type GraphQLResolveInfo } from 'graphql';

/** Tokens no response text can hold by chance: a NUL (escaped by JSON) and this process's nonce. */
const NONCE = randomBytes(12).toString('hex');
const token = (i: number) => `\u0000mds-raw-${NONCE}-${i}`;
/** How JSON.stringify writes token(i). */
const tokenJson = (i: number) => `"\\u0000mds-raw-${NONCE}-${i}"`;

type ResponsePath = ReadonlyArray<string | number>;

/** A plain selection's members: each response key (alias or name) and the field it shows, in response order. */
export function plainSelection(info: Pick<GraphQLResolveInfo, 'fieldNodes'>): Array<{ key: string; field: string }> | null {
  const out: Array<{ key: string; field: string }> = [];
  const seen = new Set<string>();
  for (const node of info.fieldNodes) {
    for (const sel of node.selectionSet?.selections ?? []) {
      if (sel.kind !== Kind.FIELD || !isPlainLeaf(sel)) return null;
      const key = sel.alias?.value ?? sel.name.value;
      // The same response key twice is one member (GraphQL merges them; validation made them equal).
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ key, field: sel.name.value });
    }
  }
  return out.length > 0 ? out : null;
}

const isPlainLeaf = (f: FieldNode) => !f.selectionSet && !f.directives?.length && !f.arguments?.length && !f.name.value.startsWith('__');

/** The response path of the field being resolved, from the root. */
export function responsePath(info: Pick<GraphQLResolveInfo, 'path'>): ResponsePath {
  const out: Array<string | number> = [];
  for (let p: GraphQLResolveInfo['path'] | undefined = info.path; p; p = p.prev) out.push(p.key);
  return out.reverse();
}

export class RawJsonParts {
  private readonly parts: Array<{ path: ResponsePath; bytes: readonly Uint8Array[] }> = [];
  /** Indexes of the parts whose token went into the response (`place`). */
  private placed: number[] = [];

  get size(): number {
    return this.parts.length;
  }

  /** The JSON value at `path` is `bytes`, in order (no copy is made of them until the body). */
  add(path: ResponsePath, ...bytes: Uint8Array[]): void {
    this.parts.push({ path, bytes });
  }

  /** Put each part's token where its placeholder ended up in `data` (absent where an error nulled a parent). */
  place(data: Record<string, unknown> | null | undefined): void {
    this.placed = [];
    this.parts.forEach((part, i) => {
      let parent: unknown = data;
      for (let k = 0; k < part.path.length - 1; k++) parent = parent === null || typeof parent !== 'object' ? undefined : (parent as Record<string | number, unknown>)[part.path[k]];
      const last = part.path[part.path.length - 1];
      if (parent === null || typeof parent !== 'object') return;
      const value = (parent as Record<string | number, unknown>)[last];
      if (value === null || typeof value !== 'object') return;
      (parent as Record<string | number, unknown>)[last] = token(i);
      this.placed.push(i);
    });
  }

  /** The serialized response with each placed token replaced by its part's bytes. */
  body(text: string): Buffer {
    const pieces: Uint8Array[] = [];
    let from = 0;
    const found = this.placed
      .map((i) => ({ i, at: text.indexOf(tokenJson(i)) }))
      .filter((t) => t.at >= 0)
      .sort((a, b) => a.at - b.at);
    for (const { i, at } of found) {
      pieces.push(Buffer.from(text.slice(from, at)), ...this.parts[i].bytes);
      from = at + tokenJson(i).length;
    }
    pieces.push(Buffer.from(text.slice(from)));
    return Buffer.concat(pieces);
  }
}
