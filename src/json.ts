/** A parsed JSON object. */
export type Json = Record<string, unknown>;

/** A JSON object, not an array nor null: the shape every request document and attribute set must have. */
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
