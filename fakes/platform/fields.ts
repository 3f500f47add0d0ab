/**
 * Sparse field selection (`fields=a,b.c`) over a shape tree: validation of the requested names
 * and projection of a resource onto exactly the requested fields.
 */

/** A resource shape: each field is a leaf (null) or a nested object shape. */
export interface ObjectShape {
  fields: Record<string, ObjectShape | null>;
  /** Sub-fields returned when the object is requested without sub-fields (default: all of them). */
  wholeDefault?: string[];
}

interface Selection {
  whole: boolean;
  children: Map<string, Selection>;
}

const newSelection = (whole = false): Selection => ({ whole, children: new Map() });

export type ParsedFields = { ok: true; selection: Selection } | { ok: false; invalid: string[] };

/** Dot notation narrows an embedded object by one level (`advertising.end_at`, spec 4.1), no deeper. */
export const MAX_FIELD_DEPTH = 2;

/**
 * Parses a `fields` value. Empty or missing → the default fields (names, dot notation allowed).
 * Unknown names, dot notation into a non-object and paths deeper than one level of dot notation
 * (`a.b.c`) are reported in `invalid`, in request order, without duplicates.
 */
export function parseFields(raw: string | undefined, shape: ObjectShape, defaults: string[]): ParsedFields {
  const items = (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (items.length === 0) items.push(...defaults);
  const root = newSelection();
  const invalid: string[] = [];
  for (const item of items) {
    const segments = item.split(".");
    let node: ObjectShape | null = shape;
    let sel = root;
    let valid = segments.length <= MAX_FIELD_DEPTH;
    for (const [i, seg] of segments.entries()) {
      if (!valid) break;
      if (node === null || !Object.hasOwn(node.fields, seg)) {
        valid = false;
        break;
      }
      const childShape: ObjectShape | null = node.fields[seg] ?? null;
      let child = sel.children.get(seg);
      if (child === undefined) {
        child = newSelection();
        sel.children.set(seg, child);
      }
      if (i === segments.length - 1) child.whole = true;
      node = childShape;
      sel = child;
    }
    if (!valid && !invalid.includes(item)) invalid.push(item);
  }
  return invalid.length > 0 ? { ok: false, invalid } : { ok: true, selection: root };
}

/** Every accepted name: the top-level names, then the dotted sub-field names (one level). */
export function allowedNames(shape: ObjectShape): string[] {
  const top = Object.keys(shape.fields);
  const nested: string[] = [];
  for (const [name, child] of Object.entries(shape.fields)) {
    if (child !== null) for (const sub of Object.keys(child.fields)) nested.push(`${name}.${sub}`);
  }
  return [...top.sort(), ...nested];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The requested fields of `value`, in shape order. Fields whose value is `undefined` (withheld,
 * e.g. ingest for non-owners) are left out; nulls stay null.
 */
export function project(
  value: Record<string, unknown>,
  shape: ObjectShape,
  selection: Selection,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, childShape] of Object.entries(shape.fields)) {
    const sel = selection.children.get(name);
    const v = value[name];
    if (sel === undefined || v === undefined) continue;
    if (childShape === null || !isPlainObject(v)) {
      out[name] = structuredClone(v);
      continue;
    }
    let effective = sel;
    if (sel.whole) {
      effective = newSelection();
      for (const sub of childShape.wholeDefault ?? Object.keys(childShape.fields)) {
        effective.children.set(sub, newSelection(true));
      }
      for (const [k, s] of sel.children) {
        // A sub-field covered by the whole-object default stays whole even if also narrowed.
        effective.children.set(k, effective.children.has(k) ? { whole: true, children: s.children } : s);
      }
    }
    out[name] = project(v, childShape, effective);
  }
  return out;
}
